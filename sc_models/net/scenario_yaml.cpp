// The scenario reader: YAML (yaml-cpp) to Scenario, with a schema check on every map so
// that an unknown key or an out-of-range value is an error naming file, line and key.
#include "net/scenario_yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <unordered_map>
#include <random>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cc/fecn_marker_regs.h"
#include "net/scenario_keys.h"
#include "net/units.h"

namespace ibcc::net {
namespace {

// Walks the document with the path of each key, so that errors can say where they are.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  // Values that came from the command line, not the file: their errors name the option.
  void add_override(const YAML::Node& value, const std::string& key, const std::string& origin) {
    overrides_.push_back({value, key, origin});
  }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& what) const {
    for (const auto& o : overrides_) {
      // The value given, or a key the override itself created (an unknown key).
      // (--set foo.bar=1 creates the map foo: an unknown key named by the option, not the file.)
      const bool created = o.key == key || o.key.rfind(key + ".", 0) == 0;
      if (contains(o.value, at) || (created && at.Mark().line < 0)) {
        throw ScenarioError(fmt::format("{}: {}: {}", o.origin, key, what));
      }
    }
    const int line = at.IsDefined() ? at.Mark().line : -1;
    if (line < 0) throw ScenarioError(fmt::format("{}: {}: {}", file_, key, what));
    throw ScenarioError(fmt::format("{}:{}: {}: {}", file_, line + 1, key, what));
  }

  int line_of(const YAML::Node& n) const { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

  // The declaration of a key in the one key table (scenario_keys.cpp); a reader asking for a
  // key the table lacks is a bug in the reader, not bad input.
  static const KeyDecl& decl(const std::string& path) {
    const KeyDecl* d = find_key(path);
    if (!d) throw std::logic_error("scenario reader: key not in the key table: " + path);
    return *d;
  }

  // A map whose keys must all be declared under `path` in the key table.
  void expect_map(const YAML::Node& n, const std::string& path) const {
    if (!n.IsMap()) fail(n, path, "expected a map of keys");
    const std::vector<std::string> allowed = child_keys(path);
    if (allowed.empty()) throw std::logic_error("scenario reader: no keys declared under " + path);
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) list += list.empty() ? a : ", " + a;
        fail(kv.first, join(path, k), "unknown key (allowed here: " + list + ")");
      }
    }
    for (const auto& k : allowed) {
      const KeyDecl& d = decl(join(path, k));
      if (d.required && !n[k]) fail(n, join(path, k), "missing (required: " + d.meaning + ")");
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // A list (YAML sequence) to iterate over; a map or a scalar where a list belongs is an error,
  // and so is a length outside the table's bounds.
  YAML::Node list(const YAML::Node& n, const std::string& path) const {  // by value: n may be a temporary
    if (!n.IsSequence()) fail(n, path, "expected a list ([a, b] or lines starting with '- ')");
    const KeyDecl& d = decl(path);
    if (d.type == KeyType::kList && (n.size() < d.ulo || n.size() > d.uhi)) {
      fail(n, path, d.uhi == UINT64_MAX ? fmt::format("expected at least {} entries, got {}", d.ulo, n.size())
                                        : fmt::format("expected {}..{} entries, got {}", d.ulo, d.uhi, n.size()));
    }
    return n;
  }

  std::string str(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "expected a scalar value");
    return n.as<std::string>();
  }

  uint64_t uint(const YAML::Node& n, const std::string& path, uint64_t lo, uint64_t hi) const {
    const std::string s = str(n, path);
    uint64_t v = 0;
    size_t used = 0;
    try {
      v = std::stoull(s, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty() || s[0] == '-') {
      fail(n, path, fmt::format("expected an integer {}..{}, got '{}'", lo, hi, s));
    }
    if (v < lo || v > hi) fail(n, path, fmt::format("out of range: expected {}..{}, got {}", lo, hi, v));
    return v;
  }

  // An integer, size or number in the range the key table declares for `path`.
  uint64_t uint(const YAML::Node& n, const std::string& path) const {
    const KeyDecl& d = decl(path);
    return uint(n, path, d.ulo, d.uhi);
  }
  uint64_t bytes(const YAML::Node& n, const std::string& path) const {
    const KeyDecl& d = decl(path);
    return bytes(n, path, d.ulo, d.uhi);
  }
  double real(const YAML::Node& n, const std::string& path) const {
    const KeyDecl& d = decl(path);
    return real(n, path, d.rlo, d.rhi);
  }
  // One of the table's choices for `path`.
  std::string choice(const YAML::Node& n, const std::string& path) const {
    const auto options = split_choices(decl(path).choices);
    const std::string v = str(n, path);
    if (std::find(options.begin(), options.end(), v) != options.end()) return v;
    std::string list;
    for (size_t i = 0; i < options.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == options.size() ? " or " : ", ") + options[i];
    }
    fail(n, path, "expected " + list + ", got '" + v + "'");
  }
  // The table's default of a numeric key.
  static uint64_t uint_default(const std::string& path) { return std::stoull(decl(path).dflt, nullptr, 0); }

  double real(const YAML::Node& n, const std::string& path, double lo, double hi) const {
    const std::string s = str(n, path);
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty()) fail(n, path, fmt::format("expected a number, got '{}'", s));
    if (v < lo || v > hi) fail(n, path, fmt::format("out of range: expected {}..{}, got {}", lo, hi, v));
    return v;
  }

  bool boolean(const YAML::Node& n, const std::string& path) const {
    const std::string s = str(n, path);
    if (s == "true" || s == "on" || s == "yes") return true;
    if (s == "false" || s == "off" || s == "no") return false;
    fail(n, path, "expected true or false, got '" + s + "'");
  }

  uint64_t time_ps(const YAML::Node& n, const std::string& path) const {
    const auto v = parse_time_ps(str(n, path));
    if (!v) fail(n, path, "expected a time with a unit (ps, ns, us, ms, s), got '" + str(n, path) + "'");
    return *v;
  }

  double rate_bps(const YAML::Node& n, const std::string& path) const {
    const auto v = parse_rate_bps(str(n, path));
    if (!v || *v <= 0) fail(n, path, "expected a positive rate with a unit (Mb/s, Gb/s, ...), got '" + str(n, path) + "'");
    return *v;
  }

  uint64_t bytes(const YAML::Node& n, const std::string& path, uint64_t lo, uint64_t hi) const {
    const auto v = parse_bytes(str(n, path));
    if (!v) fail(n, path, "expected a size (B, KB, KiB, MiB or a number of bytes), got '" + str(n, path) + "'");
    if (*v < lo || *v > hi) fail(n, path, fmt::format("out of range: expected {}..{} bytes, got {}", lo, hi, *v));
    return *v;
  }

  template <typename E, size_t N>
  E policy(const YAML::Node& n, const std::string& path, const cc::PolicyName<E> (&table)[N]) const {
    const auto v = cc::policy_from_name(table, str(n, path));
    if (!v) fail(n, path, "expected one of " + cc::policy_names(table) + ", got '" + str(n, path) + "'");
    return *v;
  }

  const std::string& file() const { return file_; }

 private:
  static bool contains(const YAML::Node& tree, const YAML::Node& n) {
    if (tree.is(n)) return true;
    if (tree.IsMap()) {
      for (const auto& kv : tree) {
        if (kv.first.is(n) || contains(kv.second, n)) return true;
      }
    } else if (tree.IsSequence()) {
      for (const auto& e : tree) {
        if (contains(e, n)) return true;
      }
    }
    return false;
  }

  struct OverrideSource {
    YAML::Node value;
    std::string key;
    std::string origin;
  };
  std::string file_;
  std::vector<OverrideSource> overrides_;
};

// Lane rates (Gb/s signalling) and encodings of the IB link speeds.
struct LinkSpeed {
  const char* name;
  double lane_gbps;
  double efficiency;
};
constexpr LinkSpeed kSpeeds[] = {
    {"SDR", 2.5, 0.8},          {"DDR", 5.0, 0.8},          {"QDR", 10.0, 0.8},
    {"FDR10", 10.3125, 64.0 / 66}, {"FDR", 14.0625, 64.0 / 66}, {"EDR", 25.78125, 64.0 / 66},
    {"HDR", 53.125, 64.0 / 66},
};

struct LoaderState {
  Reader rd;
  Scenario* s;
  LinkSpec link_defaults;
};

// width x speed, or rate + encoding; propagation. Starts from `base`.
LinkSpec read_link_params(const Reader& rd, const YAML::Node& n, const std::string& path, LinkSpec base) {
  unsigned width = 0;
  const LinkSpeed* speed = nullptr;
  if (n["width"]) {
    width = static_cast<unsigned>(std::stoul(rd.choice(n["width"], path + ".width")));  // "4x" -> 4
  }
  if (n["speed"]) {
    const std::string sp = rd.choice(n["speed"], path + ".speed");
    for (const auto& k : kSpeeds) {
      if (sp == k.name) speed = &k;
    }
    if (!speed) throw std::logic_error("link speed in the key table but not in kSpeeds: " + sp);
  }
  if (n["rate"] && (width || speed)) rd.fail(n["rate"], path + ".rate", "give either rate (+ encoding) or width + speed, not both");
  if (width || speed) {
    if (!width) width = 4;
    if (!speed) rd.fail(n, path, "speed is required with width");
    base.signal_bps = width * speed->lane_gbps * 1e9;
    base.data_bps = base.signal_bps * speed->efficiency;
  }
  if (n["rate"]) {
    double eff = 0.8;
    if (n["encoding"]) {
      const std::string e = rd.choice(n["encoding"], path + ".encoding");
      eff = e == "64b66b" ? 64.0 / 66 : e == "none" ? 1.0 : 0.8;
    }
    base.signal_bps = rd.rate_bps(n["rate"], path + ".rate");
    base.data_bps = base.signal_bps * eff;
  } else if (n["encoding"]) {
    rd.fail(n["encoding"], path + ".encoding", "encoding only goes with rate");
  }
  if (n["propagation"]) base.propagation_ps = rd.time_ps(n["propagation"], path + ".propagation");
  return base;
}

// "S1/3" -> (S1, 3); "H1" -> (H1, 1).
std::pair<std::string, unsigned> endpoint(const Reader& rd, const YAML::Node& n, const std::string& path) {
  const std::string e = rd.str(n, path);
  const auto slash = e.find('/');
  if (slash == std::string::npos) return {e, 1};
  const std::string port = e.substr(slash + 1);
  unsigned long p = 0;
  try {
    size_t used = 0;
    p = std::stoul(port, &used);  // range-checked below before it is narrowed
    if (used != port.size() || port[0] == '-' || port[0] == '+') p = 0;
  } catch (const std::exception&) {
    p = 0;
  }
  if (p < 1 || p > 254) rd.fail(n, path, "expected NODE or NODE/PORT with PORT 1..254, got '" + e + "'");
  return {e.substr(0, slash), static_cast<unsigned>(p)};
}

void read_fabric(LoaderState& st, const YAML::Node& n) {
  Reader& rd = st.rd;
  FabricParams& f = st.s->fabric;
  rd.expect_map(n, "fabric");
  if (n["core_clock"]) {
    const auto hz = parse_hz(rd.str(n["core_clock"], "fabric.core_clock"));
    if (!hz || *hz < 1000000 || *hz > 10000000000ull) rd.fail(n["core_clock"], "fabric.core_clock", "expected 1MHz..10GHz");
    f.core_clock_hz = *hz;
  }
  if (n["mtu"]) {
    f.mtu = static_cast<unsigned>(rd.bytes(n["mtu"], "fabric.mtu"));
    if (f.mtu & (f.mtu - 1)) rd.fail(n["mtu"], "fabric.mtu", fmt::format("expected 256, 512, 1024, 2048 or 4096, got {}", f.mtu));
  }
  if (n["vls"]) f.vls = static_cast<unsigned>(rd.uint(n["vls"], "fabric.vls"));
  if (n["sl_to_vl"]) {
    const YAML::Node m = rd.list(n["sl_to_vl"], "fabric.sl_to_vl");
    f.sl_to_vl.clear();
    for (size_t i = 0; i < m.size(); ++i) {
      f.sl_to_vl.push_back(static_cast<unsigned>(rd.uint(m[i], fmt::format("fabric.sl_to_vl[{}]", i), 0, f.vls - 1)));
    }
  }
  if (n["routing"]) {
    f.routing = rd.choice(n["routing"], "fabric.routing");
  }
  if (n["updown_roots"]) {
    for (const auto& r : rd.list(n["updown_roots"], "fabric.updown_roots")) f.updown_roots.push_back(rd.str(r, "fabric.updown_roots[]"));
  }
  if (const auto sw = n["switch"]) {
    rd.expect_map(sw, "fabric.switch");
    if (sw["credit_order"]) {
      f.credit_in_order = rd.choice(sw["credit_order"], "fabric.switch.credit_order") == "in_order";
    }
    if (sw["fill_count"]) {
      f.fill_from_head = rd.choice(sw["fill_count"], "fabric.switch.fill_count") == "head";
    }
    if (sw["latency"]) f.switch_latency_ps = rd.time_ps(sw["latency"], "fabric.switch.latency");
    if (sw["buffer_per_vl"]) f.switch_buffer_per_vl = rd.bytes(sw["buffer_per_vl"], "fabric.switch.buffer_per_vl");
    if (sw["crossbar_speedup"]) f.crossbar_speedup = rd.real(sw["crossbar_speedup"], "fabric.switch.crossbar_speedup");
    if (const auto a = sw["vl_arbitration"]) {
      if (a.IsScalar()) {
        if (rd.str(a, "fabric.switch.vl_arbitration") != "round_robin") {
          rd.fail(a, "fabric.switch.vl_arbitration", "expected round_robin or a map {high, low, high_limit}");
        }
      } else {
        rd.expect_map(a, "fabric.switch.vl_arbitration");
        f.vlarb_tables = true;
        auto table = [&](const char* key, std::vector<std::pair<unsigned, unsigned>>* out) {
          const std::string p = std::string("fabric.switch.vl_arbitration.") + key;
          if (!a[key]) return;
          if (!a[key].IsSequence() || a[key].size() > 64) rd.fail(a[key], p, "expected a list of up to 64 [vl, weight] pairs");
          for (const auto& e : a[key]) {
            if (!e.IsSequence() || e.size() != 2) rd.fail(e, p, "expected [vl, weight]");
            // A data VL of this fabric (fabric.vls is read above).
            out->emplace_back(static_cast<unsigned>(rd.uint(e[0], p + ".vl", 0, f.vls - 1)),
                              static_cast<unsigned>(rd.uint(e[1], p + ".weight", 0, 255)));
          }
        };
        table("high", &f.vlarb_high);
        table("low", &f.vlarb_low);
        if (a["high_limit"]) f.vlarb_high_limit = static_cast<unsigned>(rd.uint(a["high_limit"], "fabric.switch.vl_arbitration.high_limit"));
        if (f.vlarb_low.empty()) rd.fail(a, "fabric.switch.vl_arbitration.low", "the low-priority table must not be empty");
      }
    }
  }
  if (const auto pb = n["packet_bytes"]) {
    rd.expect_map(pb, "fabric.packet_bytes");
    if (pb["data_header"]) f.data_header_bytes = static_cast<unsigned>(rd.bytes(pb["data_header"], "fabric.packet_bytes.data_header"));
    if (pb["cnp"]) f.cnp_bytes = static_cast<unsigned>(rd.bytes(pb["cnp"], "fabric.packet_bytes.cnp"));
    if (pb["ack"]) f.ack_bytes = static_cast<unsigned>(rd.bytes(pb["ack"], "fabric.packet_bytes.ack"));
  }
  if (const auto h = n["hca"]) {
    rd.expect_map(h, "fabric.hca");
    if (h["completion_latency"]) f.hca_completion_latency_ps = rd.time_ps(h["completion_latency"], "fabric.hca.completion_latency");
    if (h["buffer_per_vl"]) f.hca_buffer_per_vl = rd.bytes(h["buffer_per_vl"], "fabric.hca.buffer_per_vl");
    if (h["inject_rate"]) f.hca_inject_bps = rd.rate_bps(h["inject_rate"], "fabric.hca.inject_rate");
    if (h["sink_rate"]) f.hca_sink_bps = rd.rate_bps(h["sink_rate"], "fabric.hca.sink_rate");
    if (const auto hic = h["sink_hiccup"]) {
      rd.expect_map(hic, "fabric.hca.sink_hiccup");
      f.sink_hiccup.period_ps = rd.time_ps(hic["period"], "fabric.hca.sink_hiccup.period");
      f.sink_hiccup.duration_ps = rd.time_ps(hic["duration"], "fabric.hca.sink_hiccup.duration");
      if (f.sink_hiccup.duration_ps >= f.sink_hiccup.period_ps) {
        rd.fail(hic["duration"], "fabric.hca.sink_hiccup.duration", "must be shorter than the period");
      }
    }
  }
  if (const auto l = n["link_defaults"]) {
    rd.expect_map(l, "fabric.link_defaults");
    st.link_defaults = read_link_params(rd, l, "fabric.link_defaults", st.link_defaults);
  }
}

void read_topology(LoaderState& st, const YAML::Node& n) {
  Reader& rd = st.rd;
  Scenario& s = *st.s;
  rd.expect_map(n, "topology");
  if (const auto g = n["generate"]) {
    if (n["switches"] || n["hcas"] || n["links"]) {
      rd.fail(g, "topology.generate", "give either generate or switches/hcas/links, not both");
    }
    rd.expect_map(g, "topology.generate");
    const std::string fam = rd.choice(g["family"], "topology.generate.family");
    LinkSpec link = st.link_defaults;
    if (g["link"]) {
      rd.expect_map(g["link"], "topology.generate.link");
      link = read_link_params(rd, g["link"], "topology.generate.link", link);
    }
    // A size of another family would be silently ignored: an error.
    const std::map<std::string, std::string> family_of = {
        {"leaves", "clos3"}, {"spines", "clos3"}, {"switch_ports", "clos3"}, {"k", "kary_ntree"}, {"n", "kary_ntree"},
        {"radix", "fattree"}, {"levels", "fattree"},
        {"x", "mesh or torus"}, {"y", "mesh or torus"}, {"hcas_per_switch", "mesh or torus"}};
    for (const auto& [key, families] : family_of) {
      if (g[key] && families.find(fam) == std::string::npos) {
        rd.fail(g[key], "topology.generate." + key, "only a " + families + " generator has it (family is " + fam + ")");
      }
    }
    auto u = [&](const char* key) {
      const std::string path = std::string("topology.generate.") + key;
      return static_cast<unsigned>(g[key] ? rd.uint(g[key], path) : Reader::uint_default(path));
    };
    if (fam == "clos3") {
      ClosParams p{u("leaves"), u("spines"), u("switch_ports")};
      if (p.spines >= p.switch_ports) rd.fail(g, "topology.generate.spines", "a leaf needs at least one host port beside its spine uplinks");
      if (p.leaves > p.switch_ports) rd.fail(g, "topology.generate.leaves", "each spine has one port per leaf: leaves <= switch_ports");
      generate_clos3(p, link, &s);
    } else if (fam == "fattree") {
      FatTreeParams p{u("radix"), u("levels")};
      if (p.radix % 2) rd.fail(g["radix"] ? g["radix"] : g, "topology.generate.radix", fmt::format("expected an even number of ports (half down, half up), got {}", p.radix));
      uint64_t hosts = 2, switches = 2 * p.levels - 1;
      for (unsigned i = 0; i < p.levels; ++i) hosts *= p.radix / 2;
      for (unsigned i = 1; i < p.levels; ++i) switches *= p.radix / 2;
      if (hosts + switches > 0xbfff) {
        rd.fail(g, "topology.generate", fmt::format("a fat tree of radix {} and {} levels has {} hosts and {} switches; "
                                                    "at most {} LIDs exist", p.radix, p.levels, hosts, switches, 0xbfff));
      }
      generate_fattree(p, link, &s);
    } else if (fam == "kary_ntree") {
      KaryNtreeParams p{u("k"), u("n")};
      generate_kary_ntree(p, link, &s);
    } else if (fam == "mesh" || fam == "torus") {
      MeshParams p{u("x"), u("y"), u("hcas_per_switch"), fam == "torus"};
      generate_mesh(p, link, &s);
    }
    return;
  }
  if (!n["switches"] || !n["hcas"] || !n["links"]) rd.fail(n, "topology", "needs switches, hcas and links (or generate)");
  for (const auto& sw : rd.list(n["switches"], "topology.switches")) {
    rd.expect_map(sw, "topology.switches[]");
    SwitchSpec spec;
    spec.name = rd.str(sw["name"], "topology.switches[].name");
    spec.ports = static_cast<unsigned>(rd.uint(sw["ports"], "topology.switches[" + spec.name + "].ports"));
    if (sw["lid"]) spec.lid = static_cast<uint16_t>(rd.uint(sw["lid"], "topology.switches[" + spec.name + "].lid"));
    if (const auto lft = sw["lft"]) {
      const std::string p = "topology.switches[" + spec.name + "].lft";
      if (!lft.IsMap()) rd.fail(lft, p, "expected a map {lid: port}");
      for (const auto& kv : lft) {
        const auto lid = rd.uint(kv.first, p, 1, 0xbfff);
        const auto port = rd.uint(kv.second, p + "." + std::to_string(lid), 1, spec.ports);
        if (spec.lft.size() <= lid) spec.lft.resize(lid + 1, 0);
        spec.lft[lid] = static_cast<uint16_t>(port);
      }
    }
    spec.line = rd.line_of(sw);
    s.switches.push_back(spec);
  }
  for (const auto& h : rd.list(n["hcas"], "topology.hcas")) {
    HcaSpec spec;
    if (h.IsScalar()) {
      spec.name = rd.str(h, "topology.hcas[]");
    } else {
      rd.expect_map(h, "topology.hcas[]");
      spec.name = rd.str(h["name"], "topology.hcas[].name");
      if (h["lid"]) spec.lid = static_cast<uint16_t>(rd.uint(h["lid"], "topology.hcas[" + spec.name + "].lid"));
    }
    spec.line = rd.line_of(h);
    s.hcas.push_back(spec);
  }
  for (const auto& l : rd.list(n["links"], "topology.links")) {
    rd.expect_map(l, "topology.links[]");
    LinkSpec spec = read_link_params(rd, l, "topology.links[]", st.link_defaults);
    std::tie(spec.a_node, spec.a_port) = endpoint(rd, l["a"], "topology.links[].a");
    std::tie(spec.b_node, spec.b_port) = endpoint(rd, l["b"], "topology.links[].b");
    spec.line = rd.line_of(l);
    s.links.push_back(spec);
  }
}

// CCTI_Timer: a count of 1.024 us units, or a time (20us) rounded to the nearest unit, the
// rounding reported in the scenario's notes.
unsigned ccti_timer_units(const Reader& rd, const YAML::Node& n, const std::string& path, std::vector<std::string>* notes) {
  const std::string v = rd.str(n, path);
  if (v.empty() || !std::isalpha(static_cast<unsigned char>(v.back()))) return static_cast<unsigned>(rd.uint(n, path, 0, 0xffff));
  const auto ps = parse_time_ps(v);
  if (!ps) rd.fail(n, path, "expected a count of 1.024 us units (0..65535) or a time with a unit (ns, us, ms), got '" + v + "'");
  constexpr double kUnitPs = 1024000.0;
  const double exact = static_cast<double>(*ps) / kUnitPs;
  const uint64_t units = static_cast<uint64_t>(std::llround(exact));
  if (units > 0xffff) {
    rd.fail(n, path, fmt::format("{} is {:.0f} units of 1.024 us; CCTI_Timer holds at most 65535 (67.1 ms)", v, exact));
  }
  if (units == 0 && *ps > 0) {
    rd.fail(n, path, fmt::format("{} rounds to 0 units of 1.024 us, which turns the timer off; give 0 for that, or at least 512ns", v));
  }
  if (notes && std::abs(exact - static_cast<double>(units)) > 1e-9) {
    notes->push_back(fmt::format("{}: {} = {:.3f} units of 1.024 us, rounded to {} ({})", path, v, exact, units,
                                 format_time_ps(units * 1024000ull)));
  }
  return static_cast<unsigned>(units);
}

SlCcSpec read_sl_settings(const Reader& rd, const YAML::Node& n, const std::string& path, SlCcSpec base,
                          std::vector<std::string>* notes) {
  if (n["ccti_timer"]) base.ccti_timer = ccti_timer_units(rd, n["ccti_timer"], path + ".ccti_timer", notes);
  if (n["ccti_increase"]) base.ccti_increase = static_cast<unsigned>(rd.uint(n["ccti_increase"], path + ".ccti_increase"));
  if (n["trigger_threshold"]) base.trigger_threshold = static_cast<unsigned>(rd.uint(n["trigger_threshold"], path + ".trigger_threshold"));
  if (n["ccti_min"]) base.ccti_min = static_cast<unsigned>(rd.uint(n["ccti_min"], path + ".ccti_min"));
  return base;
}

uint16_t cct_entry(const Reader& rd, const YAML::Node& n, const std::string& path) {
  const std::string e = rd.str(n, path);
  const auto colon = e.find(':');
  unsigned shift = 0, mult = 0;
  bool ok = colon != std::string::npos;
  if (ok) {
    try {
      size_t u1 = 0, u2 = 0;
      shift = static_cast<unsigned>(std::stoul(e.substr(0, colon), &u1));
      mult = static_cast<unsigned>(std::stoul(e.substr(colon + 1), &u2));
      ok = u1 == colon && u2 == e.size() - colon - 1;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || shift > 3 || mult > 0x3fff) {
    rd.fail(n, path, "expected SHIFT:MULTIPLIER with SHIFT 0..3 and MULTIPLIER 0..16383, got '" + e + "'");
  }
  return static_cast<uint16_t>(shift << 14 | mult);
}

void read_cc(LoaderState& st, const YAML::Node& n) {
  Reader& rd = st.rd;
  CcSpec& cc = st.s->cc;
  rd.expect_map(n, "cc");
  if (n["enabled"]) cc.enabled = rd.boolean(n["enabled"], "cc.enabled");
  if (const auto sw = n["switch"]) {
    rd.expect_map(sw, "cc.switch");
    if (sw["threshold"]) cc.sw.threshold = static_cast<unsigned>(rd.uint(sw["threshold"], "cc.switch.threshold"));
    if (sw["packet_size"]) cc.sw.packet_size = static_cast<unsigned>(rd.uint(sw["packet_size"], "cc.switch.packet_size"));
    if (sw["marking_rate"]) cc.sw.marking_rate = static_cast<unsigned>(rd.uint(sw["marking_rate"], "cc.switch.marking_rate"));
    if (sw["mapping"]) cc.sw.mapping = rd.policy(sw["mapping"], "cc.switch.mapping", cc::kThresholdMappings);
    if (sw["marking_mode"]) cc.sw.marking_mode = rd.policy(sw["marking_mode"], "cc.switch.marking_mode", cc::kMarkingModes);
    if (sw["hysteresis"]) cc.sw.hysteresis = static_cast<unsigned>(rd.uint(sw["hysteresis"], "cc.switch.hysteresis"));
    if (sw["victim_mask"] && sw["victim_mask"].IsSequence()) {
      cc.sw.victim_mask_hca_ports = false;
      for (const auto& p : sw["victim_mask"]) {
        cc.sw.victim_ports.push_back(static_cast<unsigned>(rd.uint(p, "cc.switch.victim_mask[]", 0, 255)));
      }
    } else if (sw["victim_mask"]) {
      const std::string v = rd.str(sw["victim_mask"], "cc.switch.victim_mask");
      if (v == "hca_ports") cc.sw.victim_mask_hca_ports = true;
      else if (v == "none") cc.sw.victim_mask_hca_ports = false;
      else rd.fail(sw["victim_mask"], "cc.switch.victim_mask", "expected hca_ports, none or a list of port numbers, got '" + v + "'");
    }
  }
  if (const auto ports = n["ports"]) {
    if (!ports.IsSequence()) rd.fail(ports, "cc.ports", "expected a list of per-port settings");
    for (const auto& p : ports) {
      rd.expect_map(p, "cc.ports[]");
      PortCcOverride o;
      std::tie(o.switch_name, o.port) = endpoint(rd, p["port"], "cc.ports[].port");
      if (p["threshold"]) o.threshold = static_cast<unsigned>(rd.uint(p["threshold"], "cc.ports[].threshold"));
      if (p["packet_size"]) o.packet_size = static_cast<unsigned>(rd.uint(p["packet_size"], "cc.ports[].packet_size"));
      if (p["marking_rate"]) o.marking_rate = static_cast<unsigned>(rd.uint(p["marking_rate"], "cc.ports[].marking_rate"));
      if (p["victim_mask"]) o.victim_mask = rd.boolean(p["victim_mask"], "cc.ports[].victim_mask");
      o.line = rd.line_of(p);
      cc.ports.push_back(o);
    }
  }
  if (const auto ca = n["ca"]) {
    rd.expect_map(ca, "cc.ca");
    if (ca["control"]) {
      cc.ca.sl_based = rd.choice(ca["control"], "cc.ca.control") == "sl";
    }
    if (ca["control_map"]) cc.ca.control_map = static_cast<unsigned>(rd.uint(ca["control_map"], "cc.ca.control_map"));
    cc.ca.sl_default = read_sl_settings(rd, ca, "cc.ca", cc.ca.sl_default, &st.s->notes);
    if (ca["ccti_limit"]) cc.ca.ccti_limit = static_cast<unsigned>(rd.uint(ca["ccti_limit"], "cc.ca.ccti_limit"));
    if (ca["ird_formula"]) cc.ca.ird_formula = rd.policy(ca["ird_formula"], "cc.ca.ird_formula", cc::kIrdFormulas);
    if (ca["num_qps"]) {
      cc.ca.num_qps = static_cast<unsigned>(rd.uint(ca["num_qps"], "cc.ca.num_qps"));
      if (cc.ca.num_qps & (cc.ca.num_qps - 1)) rd.fail(ca["num_qps"], "cc.ca.num_qps", "expected a power of two");
    }
    if (ca["becn"]) {
      cc.ca.becn_in_ack = rd.choice(ca["becn"], "cc.ca.becn") == "ack";
    }
    if (const auto per = ca["per_sl"]) {
      if (!per.IsSequence()) rd.fail(per, "cc.ca.per_sl", "expected a list of {sl, ...}");
      for (const auto& e : per) {
        rd.expect_map(e, "cc.ca.per_sl[]");
        const unsigned sl = static_cast<unsigned>(rd.uint(e["sl"], "cc.ca.per_sl[].sl"));
        cc.ca.per_sl.emplace_back(sl, read_sl_settings(rd, e, "cc.ca.per_sl[" + std::to_string(sl) + "]", cc.ca.sl_default,
                                                       &st.s->notes));
      }
    }
    if (const auto cct = ca["cct"]) {
      cc.ca.cct.clear();
      if (cct.IsSequence()) {
        for (size_t i = 0; i < cct.size(); ++i) cc.ca.cct.push_back(cct_entry(rd, cct[i], fmt::format("cc.ca.cct[{}]", i)));
        if (cc.ca.cct.empty() || cc.ca.cct.size() > 128) rd.fail(cct, "cc.ca.cct", "expected 1..128 entries");
        if (!ca["ccti_limit"]) cc.ca.ccti_limit = static_cast<unsigned>(cc.ca.cct.size() - 1);  // as OpenSM does
      } else {
        rd.expect_map(cct, "cc.ca.cct");
        if (cct["linear"] && cct["quadratic"]) rd.fail(cct, "cc.ca.cct", "give linear or quadratic, not both");
        const bool linear = static_cast<bool>(cct["linear"]);
        const auto shape = linear ? cct["linear"] : cct["quadratic"];
        const std::string p = linear ? "cc.ca.cct.linear" : "cc.ca.cct.quadratic";
        if (!shape) rd.fail(cct, "cc.ca.cct", "expected linear or quadratic");
        rd.expect_map(shape, p);
        auto u = [&](const char* key) {
          return static_cast<unsigned>(shape[key] ? rd.uint(shape[key], p + "." + key) : Reader::uint_default(p + "." + key));
        };
        const unsigned shift = u("shift"), maxm = u("max_multiplier"), entries = u("entries");
        for (unsigned i = 0; i < entries; ++i) {
          const double x = static_cast<double>(i) / (entries - 1);
          const unsigned mult = static_cast<unsigned>(maxm * (linear ? x : x * x));
          cc.ca.cct.push_back(static_cast<uint16_t>(shift << 14 | mult));
        }
        if (!ca["ccti_limit"]) cc.ca.ccti_limit = entries - 1;
      }
    }
    // CCTI_Limit is the highest valid index: beyond the table, the IRD would be read from
    // entries nobody wrote.
    const size_t entries = cc.ca.cct.empty() ? 128 : cc.ca.cct.size();
    if (cc.ca.ccti_limit >= entries) {
      rd.fail(ca["ccti_limit"] ? ca["ccti_limit"] : ca, "cc.ca.ccti_limit",
              fmt::format("CCTI_Limit {} is beyond the CCT, whose last index is {} ({} entries)", cc.ca.ccti_limit,
                          entries - 1, entries));
    }
  }
}

// HCA selections: "all", a list of names, a count, or a share range "0%..20%" of the HCAs in
// a seeded shuffled order (so that two patterns can split the nodes between them).
std::vector<std::string> select_hcas(const Reader& rd, const YAML::Node& n, const std::string& path,
                                     const std::vector<std::string>& shuffled) {
  std::vector<std::string> out;
  if (n.IsSequence()) {
    for (const auto& e : n) out.push_back(rd.str(e, path));
    return out;
  }
  const std::string v = rd.str(n, path);
  if (v == "all") return shuffled;
  const auto dots = v.find("..");
  if (dots != std::string::npos) {
    auto pct = [&](std::string t) {
      if (t.empty() || t.back() != '%') rd.fail(n, path, "expected a share range like 0%..20%, got '" + v + "'");
      t.pop_back();
      try {
        size_t used = 0;
        const double d = std::stod(t, &used);
        if (used == t.size() && d >= 0 && d <= 100) return d / 100;
      } catch (const std::exception&) {
      }
      rd.fail(n, path, "expected a share range like 0%..20%, got '" + v + "'");
    };
    const double lo = pct(v.substr(0, dots)), hi = pct(v.substr(dots + 2));
    if (hi < lo) rd.fail(n, path, "the range is empty: '" + v + "'");
    const size_t a = static_cast<size_t>(lo * shuffled.size() + 0.5), b = static_cast<size_t>(hi * shuffled.size() + 0.5);
    return std::vector<std::string>(shuffled.begin() + a, shuffled.begin() + b);
  }
  const auto count = rd.uint(n, path, 1, shuffled.size());
  return std::vector<std::string>(shuffled.begin(), shuffled.begin() + count);
}

void read_flow_common(const Reader& rd, const YAML::Node& n, const std::string& path, FlowSpec* f) {
  if (n["sl"]) f->sl = static_cast<unsigned>(rd.uint(n["sl"], path + ".sl"));
  if (n["message"]) f->message_bytes = rd.bytes(n["message"], path + ".message");
  if (n["start"]) f->start_ps = rd.time_ps(n["start"], path + ".start");
  if (n["stop"]) f->stop_ps = rd.time_ps(n["stop"], path + ".stop");
  if (n["rate"]) {
    if (rd.str(n["rate"], path + ".rate") == "saturate") f->rate_bps = 0;
    else f->rate_bps = rd.rate_bps(n["rate"], path + ".rate");
  }
  if (n["group"]) f->group = rd.str(n["group"], path + ".group");
  if (n["outstanding"]) f->outstanding = static_cast<unsigned>(rd.uint(n["outstanding"], path + ".outstanding"));
  if (n["qp_policy"]) {
    const std::string q = rd.choice(n["qp_policy"], path + ".qp_policy");
    f->qp_policy = q == "per_destination" ? QpPolicy::kPerDestination : q == "per_sl" ? QpPolicy::kPerSl : QpPolicy::kPerFlow;
  }
  if (f->stop_ps <= f->start_ps) rd.fail(n, path + ".stop", "must be after start");
}

void read_traffic(LoaderState& st, const YAML::Node& n) {
  Reader& rd = st.rd;
  Scenario& s = *st.s;
  rd.expect_map(n, "traffic");
  if (const auto flows = n["flows"]) {
    if (!flows.IsSequence()) rd.fail(flows, "traffic.flows", "expected a list of flows");
    for (const auto& fl : flows) {
      rd.expect_map(fl, "traffic.flows[]");
      FlowSpec f;
      f.name = fl["name"] ? rd.str(fl["name"], "traffic.flows[].name") : fmt::format("F{}", s.flows.size() + 1);
      const std::string p = "traffic.flows[" + f.name + "]";
      f.src = rd.str(fl["src"], p + ".src");
      f.dst = rd.str(fl["dst"], p + ".dst");
      if (fl["qp"]) f.qp = static_cast<unsigned>(rd.uint(fl["qp"], p + ".qp"));
      read_flow_common(rd, fl, p, &f);
      if (f.qp_policy == QpPolicy::kPerDestination) {
        rd.fail(fl["qp_policy"], p + ".qp_policy", "a flow with one destination has one QP: expected per_flow or per_sl");
      }
      const std::string type = fl["type"] ? rd.choice(fl["type"], p + ".type") : "stream";
      if (type == "pingpong") {
        f.pingpong = true;
        if (!fl["message"]) f.message_bytes = 8;  // the seed's HPCC ping-pong latency: 8-byte messages
        if (fl["gap"]) f.pingpong_gap_ps = rd.time_ps(fl["gap"], p + ".gap");
        if (fl["rate"]) rd.fail(fl["rate"], p + ".rate", "a ping-pong flow sends one message per round trip; it has no rate");
      } else if (fl["gap"]) {
        rd.fail(fl["gap"], p + ".gap", "only a pingpong flow has a gap");
      }
      f.line = rd.line_of(fl);
      s.flows.push_back(f);
    }
  }
  if (const auto pats = n["patterns"]) {
    if (!pats.IsSequence()) rd.fail(pats, "traffic.patterns", "expected a list of patterns");
    std::vector<std::string> shuffled;
    for (const auto& h : s.hcas) shuffled.push_back(h.name);
    std::mt19937_64 rng(s.sim.seed ^ 0x5eedf00dULL);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    unsigned index = 0;
    for (const auto& pt : pats) {
      ++index;
      rd.expect_map(pt, "traffic.patterns[]");
      const std::string type = rd.choice(pt["type"], "traffic.patterns[].type");
      const std::string base = pt["name"] ? rd.str(pt["name"], "traffic.patterns[].name") : fmt::format("{}{}", type, index);
      const std::string p = "traffic.patterns[" + base + "]";
      FlowSpec proto;
      // Drawn destinations get a QP each unless told otherwise (a QP throttled toward a hot
      // node would hold up the sender's messages to every other node).
      if (type == "uniform" || type == "hotspot" || type == "all_to_all") proto.qp_policy = QpPolicy::kPerDestination;
      read_flow_common(rd, pt, p, &proto);
      if (proto.group.empty()) proto.group = base;
      const uint64_t skew = pt["skew"] ? rd.time_ps(pt["skew"], p + ".skew") : 0;
      if (pt["assignment"] && type != "hotspot") rd.fail(pt["assignment"], p + ".assignment", "only a hotspot pattern has an assignment");
      if (pt["order"] && type != "ring") rd.fail(pt["order"], p + ".order", "only a ring pattern has an order");
      if (pt["hot_share"] && type != "hotspot") rd.fail(pt["hot_share"], p + ".hot_share", "only a hotspot pattern has a hot_share");
      if (pt["hotspots"] && type != "hotspot") rd.fail(pt["hotspots"], p + ".hotspots", "only a hotspot pattern has hotspots");
      if (pt["dst"] && type != "incast") rd.fail(pt["dst"], p + ".dst", "only an incast pattern has a dst");
      const std::vector<std::string> sources =
          pt["sources"] ? select_hcas(rd, pt["sources"], p + ".sources", shuffled) : shuffled;
      std::vector<std::string> all_names;
      for (const auto& h : s.hcas) all_names.push_back(h.name);
      unsigned added = 0;
      auto add = [&](const std::string& src, FlowSpec f) {
        f.name = base + "." + src;
        f.src = src;
        f.qp = 0x100 + index;
        f.line = rd.line_of(pt);
        // A start skew: the k-th source of the pattern starts k x skew after the others.
        f.start_ps += skew * added++;
        if (f.start_ps >= f.stop_ps) rd.fail(pt["skew"], p + ".skew", fmt::format("source {} would start after the pattern stops", src));
        if (f.qp_policy == QpPolicy::kPerDestination && !f.dst.empty()) f.qp_policy = QpPolicy::kPerFlow;
        s.flows.push_back(std::move(f));
      };
      // Every other HCA, as a view of one list shared by the pattern's flows.
      const auto shared_names = std::make_shared<const std::vector<std::string>>(all_names);
      std::unordered_map<std::string, size_t> position;
      for (size_t i = 0; i < all_names.size(); ++i) position.emplace(all_names[i], i);
      auto all_but = [&](const std::string& src) {
        const auto it = position.find(src);
        return it == position.end() ? SharedSeq<std::string>(shared_names, 0, all_names.size())
                                    : SharedSeq<std::string>(shared_names, 0, all_names.size() - 1, it->second);
      };
      if (type == "uniform") {
        for (const auto& src : sources) {
          FlowSpec f = proto;
          f.uniform_dsts = all_but(src);
          add(src, f);
        }
      } else if (type == "hotspot") {
        if (!pt["hotspots"]) rd.fail(pt, p + ".hotspots", "missing (a count or a list of HCAs)");
        // Hot nodes are drawn from the end of the shuffled order so that a count does not pick the
        // same nodes as a source share starting at 0%.
        std::vector<std::string> rev(shuffled.rbegin(), shuffled.rend());
        const std::vector<std::string> hot = select_hcas(rd, pt["hotspots"], p + ".hotspots", rev);
        const double share = pt["hot_share"] ? rd.real(pt["hot_share"], p + ".hot_share") : 1.0;
        // fixed (the published fat-tree study): each source keeps sending to one hotspot, the
        // sources dealt out to the hotspots in turn; per_message: every message draws one.
        const std::string assignment = pt["assignment"] ? rd.choice(pt["assignment"], p + ".assignment") : "fixed";
        if (assignment != "fixed" && assignment != "per_message") {
          rd.fail(pt["assignment"], p + ".assignment", "expected fixed or per_message, got '" + assignment + "'");
        }
        size_t dealt = 0;
        for (const auto& src : sources) {
          FlowSpec f = proto;
          if (assignment == "fixed") {
            for (size_t k = 0; k < hot.size(); ++k) {
              const std::string& h = hot[(dealt + k) % hot.size()];
              if (h != src) {
                f.hot_dsts.push_back(h);
                dealt = (dealt + k + 1) % hot.size();
                break;
              }
            }
          } else {
            for (const auto& d : hot) if (d != src) f.hot_dsts.push_back(d);
          }
          if (share < 1) f.uniform_dsts = all_but(src);
          f.hot_share = share;
          if (f.hot_dsts.empty()) continue;
          if (f.hot_dsts.size() == 1 && f.uniform_dsts.empty()) f.dst = f.hot_dsts.front();
          add(src, f);
        }
      } else if (type == "incast") {
        if (!pt["dst"]) rd.fail(pt, p + ".dst", "missing: the node all sources send to");
        const std::string dst = rd.str(pt["dst"], p + ".dst");
        for (const auto& src : sources) {
          if (src == dst) continue;
          FlowSpec f = proto;
          f.dst = dst;
          add(src, f);
        }
      } else if (type == "ring") {
        // rank -> rank + 1 over the sources, in the fabric's order (natural: as an MPI job
        // placed in node order) or a seeded random order.
        std::vector<std::string> ranks;
        if (!pt["sources"] || rd.str(pt["sources"], p + ".sources") == "all") ranks = all_names;
        else ranks = sources;
        if (pt["order"] && rd.choice(pt["order"], p + ".order") == "random") {
          std::mt19937_64 prng(s.sim.seed * 104729 + index);
          std::shuffle(ranks.begin(), ranks.end(), prng);
        }
        if (ranks.size() < 2) rd.fail(pt, p + ".sources", "a ring needs at least two HCAs");
        for (size_t i = 0; i < ranks.size(); ++i) {
          FlowSpec f = proto;
          f.dst = ranks[(i + 1) % ranks.size()];
          add(ranks[i], f);
        }
      } else if (type == "all_to_all") {
        // Every source sends to every other source, one message at a time to each in turn,
        // starting after itself (the shifted all-to-all of MPI libraries).
        if (sources.size() < 2) rd.fail(pt, p + ".sources", "an all-to-all needs at least two HCAs");
        std::vector<std::string> ranks = sources;
        std::sort(ranks.begin(), ranks.end(), [&](const std::string& a, const std::string& b) {
          return position.at(a) < position.at(b);
        });
        const auto shared_ranks = std::make_shared<const std::vector<std::string>>(ranks);
        for (size_t i = 0; i < ranks.size(); ++i) {
          FlowSpec f = proto;
          f.uniform_dsts = SharedSeq<std::string>(shared_ranks, i + 1, ranks.size() - 1);
          f.dst_order = DstOrder::kSequence;
          add(ranks[i], f);
        }
      } else if (type == "permutation") {
        std::vector<std::string> dsts = sources;
        // A seeded derangement: rotate a shuffled copy by one.
        std::mt19937_64 prng(s.sim.seed * 7919 + index);
        std::shuffle(dsts.begin(), dsts.end(), prng);
        for (size_t i = 0; i < dsts.size() && dsts.size() > 1; ++i) {
          FlowSpec f = proto;
          f.dst = dsts[(i + 1) % dsts.size()];
          add(dsts[i], f);
        }
      }
    }
  }
}

// Flow names are how results name flows (throughput.F2): each may be used once.
void reject_duplicate_flow_names(const Scenario& s) {
  std::map<std::string, int> seen;
  for (const auto& f : s.flows) {
    const auto [it, fresh] = seen.emplace(f.name, f.line);
    if (fresh) continue;
    throw ScenarioError(fmt::format("{}:{}: traffic: flow name '{}' is used twice (first at line {}); results name "
                                    "flows by name, so each must be unique",
                                    s.file, f.line, f.name, it->second));
  }
}

// `from` merged into the map `into`, recursively: a key of both that is a map in both is merged,
// a key whose value is null is removed, any other key of `from` replaces or adds.
void merge_map(YAML::Node into, const YAML::Node& from) {
  for (const auto& kv : from) {
    const std::string k = kv.first.as<std::string>();
    YAML::Node existing = into[k];
    if (kv.second.IsNull()) into.remove(k);  // `key: null` removes the key
    else if (existing.IsMap() && kv.second.IsMap()) merge_map(existing, kv.second);
    else into[k] = kv.second;
  }
}

YAML::Node apply_override(YAML::Node root, const Override& o) {
  std::vector<std::string> parts;
  std::stringstream ss(o.key);
  std::string part;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  if (parts.empty() || std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); })) {
    throw ScenarioError("--set " + o.key + "=" + o.value + ": expected KEY=VALUE with a dotted key like cc.switch.threshold");
  }
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw ScenarioError("--set " + o.key + ": value is not valid YAML: " + e.what());
  }
  // yaml-cpp's operator[] on a non-const node creates missing maps along the way; a path
  // through a scalar is an error. `name[N]` steps into the N-th entry of an existing list
  // (traffic.flows[0].sl).
  auto fail = [&](const std::string& why) -> YAML::Node { throw ScenarioError("--set " + o.key + ": " + why); };
  auto step = [&](YAML::Node parent, const std::string& part, bool last) -> YAML::Node {
    const size_t open = part.find('[');
    const std::string name = part.substr(0, open);
    if (open == std::string::npos) {
      YAML::Node next = parent[name];
      if (last) return next;
      if (next.IsDefined() && !next.IsMap()) fail("'" + name + "' is not a map");
      if (!next.IsDefined()) {
        next = YAML::Node(YAML::NodeType::Map);
        parent[name] = next;
      }
      return next;
    }
    size_t index = 0, used = 0;
    const std::string digits = part.substr(open + 1, part.size() - open - 2);
    try {
      index = std::stoul(digits, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.back() != ']' || digits.empty() || used != digits.size() || !std::isdigit(static_cast<unsigned char>(digits[0]))) {
      fail("expected NAME[INDEX] with a number, got '" + part + "'");
    }
    YAML::Node list = parent[name];
    if (!list.IsSequence()) fail("'" + name + "' is not a list");
    if (index >= list.size()) fail(fmt::format("'{}' has {} entries; there is no [{}]", name, list.size(), index));
    YAML::Node entry = list[index];
    if (!last && !entry.IsMap()) fail(fmt::format("{}[{}] is not a map", name, index));
    return entry;
  };
  // (A chain, not one variable: assigning a yaml-cpp Node copies into what it refers to.)
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < parts.size(); ++i) chain.push_back(step(chain.back(), parts[i], false));
  YAML::Node at = chain.back();
  const std::string& leaf = parts.back();
  if (leaf.find('[') == std::string::npos) {
    YAML::Node existing = at[leaf];
    // A map given for a map merges into it (fabric.hca={sink_rate: 10Gb/s} keeps inject_rate);
    // anything else replaces the value.
    if (existing.IsMap() && value.IsMap()) {
      merge_map(existing, value);
      return value;
    }
    if (value.IsNull()) {  // --set KEY=null removes the key (its default applies)
      at.remove(leaf);
      return value;
    }
    at[leaf] = value;
    return value;
  }
  step(at, leaf, true);  // checks the list and the index
  const size_t open = leaf.find('[');
  YAML::Node list = at[leaf.substr(0, open)];
  list[std::stoul(leaf.substr(open + 1))] = value;
  return value;
}

// A key given twice in one map: yaml-cpp keeps both and lookups see the first, so an
// override appended to a map would be silently ignored. Rejected, naming both lines.
void reject_duplicate_keys(const YAML::Node& n, const std::string& path, const std::string& file) {
  if (n.IsMap()) {
    std::map<std::string, int> seen;
    for (const auto& kv : n) {
      const std::string k = kv.first.IsScalar() ? kv.first.as<std::string>() : std::string("<complex key>");
      const std::string p = Reader::join(path, k);
      const auto [it, fresh] = seen.emplace(k, kv.first.Mark().line + 1);
      if (!fresh) {
        throw ScenarioError(fmt::format("{}:{}: {}: given twice (first at line {}); give each key once", file,
                                        kv.first.Mark().line + 1, p, it->second));
      }
      reject_duplicate_keys(kv.second, p, file);
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) reject_duplicate_keys(n[i], fmt::format("{}[{}]", path, i), file);
  }
}

Scenario load_node(YAML::Node root, const std::string& file, const std::vector<Override>& overrides);

Scenario load_node(YAML::Node root, const std::string& file, const std::vector<Override>& overrides) {
  if (!root.IsMap()) throw ScenarioError(file + ": expected a YAML map at the top level");
  Scenario s;
  s.file = file;
  LoaderState st{Reader(file), &s, {}};
  for (const auto& o : overrides) {
    st.rd.add_override(apply_override(root, o), o.key, o.origin.empty() ? "--set " + o.key + "=" + o.value : o.origin);
  }
  st.link_defaults.signal_bps = 40e9;
  st.link_defaults.data_bps = 32e9;
  st.link_defaults.propagation_ps = 5000;
  Reader& rd = st.rd;
  rd.expect_map(root, "");
  s.name = root["name"] ? rd.str(root["name"], "name") : file;
  if (const auto sim = root["sim"]) {
    rd.expect_map(sim, "sim");
    if (sim["time"]) s.sim.sim_time_ps = rd.time_ps(sim["time"], "sim.time");
    if (sim["log_interval"]) s.sim.log_interval_ps = rd.time_ps(sim["log_interval"], "sim.log_interval");
    if (sim["seed"]) s.sim.seed = rd.uint(sim["seed"], "sim.seed");
    if (sim["deadlock_timeout"]) s.sim.deadlock_timeout_ps = rd.time_ps(sim["deadlock_timeout"], "sim.deadlock_timeout");
    if (sim["stall_timeout"]) s.sim.stall_timeout_ps = rd.time_ps(sim["stall_timeout"], "sim.stall_timeout");
    if (s.sim.sim_time_ps == 0) rd.fail(sim["time"], "sim.time", "must be positive");
    if (s.sim.log_interval_ps == 0) rd.fail(sim["log_interval"], "sim.log_interval", "must be positive");
  }
  if (root["fabric"]) read_fabric(st, root["fabric"]);
  read_topology(st, root["topology"]);
  if (root["cc"]) read_cc(st, root["cc"]);
  if (s.cc.ca.cct.empty()) {
    // Default CCT: linear, shift 3 (IRD = i/8 MTU times at index i).
    for (unsigned i = 0; i < 128; ++i) s.cc.ca.cct.push_back(static_cast<uint16_t>(3u << 14 | i));
  }
  if (root["traffic"]) read_traffic(st, root["traffic"]);
  reject_duplicate_flow_names(s);
  // Times the model counts in core cycles: a value between two cycles is rounded up (said).
  const uint64_t cycle_ps = 1000000000000ull / s.fabric.core_clock_hz;
  for (auto [value, key] : {std::pair<uint64_t*, const char*>{&s.sim.log_interval_ps, "sim.log_interval"},
                            std::pair<uint64_t*, const char*>{&s.sim.sim_time_ps, "sim.time"}}) {
    if (*value % cycle_ps == 0) continue;
    if (*value < cycle_ps) {
      // Not a rounding but a different value: refused rather than silently made 4000x longer.
      const YAML::Node sim = root["sim"];
      const std::string k = std::string(key).substr(4);
      rd.fail(sim && sim[k] ? sim[k] : root, key,
              fmt::format("{} is shorter than one core cycle ({} at fabric.core_clock)", format_time_ps(*value),
                          format_time_ps(cycle_ps)));
    }
    const uint64_t rounded = (*value / cycle_ps + 1) * cycle_ps;
    s.notes.push_back(fmt::format("{}: {} is not a whole number of {} core cycles; rounded up to {}", key,
                                  format_time_ps(*value), format_time_ps(cycle_ps), format_time_ps(rounded)));
    *value = rounded;
  }
  if (const auto dbg = root["debug"]) {
    rd.expect_map(dbg, "debug");
    for (const auto& f : dbg["faults"] ? rd.list(dbg["faults"], "debug.faults") : YAML::Node(YAML::NodeType::Sequence)) {
      const std::string v = rd.choice(f, "debug.faults[]");
      s.faults.leak_credit_return |= v == "leak_credit_return";
      s.faults.ignore_credits |= v == "ignore_credits";
      s.faults.lose_packet |= v == "lose_packet";
    }
  }
  if (s.fabric.sl_to_vl.empty()) {
    for (unsigned sl = 0; sl < 16; ++sl) s.fabric.sl_to_vl.push_back(sl % s.fabric.vls);
  }
  while (s.fabric.sl_to_vl.size() < 16) s.fabric.sl_to_vl.push_back(s.fabric.sl_to_vl.size() % s.fabric.vls);
  return s;
}

}  // namespace

Override parse_override(const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) throw ScenarioError("--set " + kv + ": expected KEY=VALUE");
  return Override(kv.substr(0, eq), kv.substr(eq + 1));
}

namespace {

// Counts the documents of a YAML stream (where each starts), without building them.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark.line + 1); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  std::vector<int> starts;
};

// One YAML document, no key twice in a map. (Not YAML::LoadAll: yaml-cpp 0.7 loops forever
// on some malformed streams, e.g. a lone ',', found by fuzz/; upstream fixed it in 2024.)
YAML::Node parse_document(const std::string& text, const std::string& name_for_errors) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
    if (root.IsMap()) {
      // A second document would be silently ignored: look for one, stopping at the second.
      std::istringstream in(text);
      YAML::Parser parser(in);
      DocumentCounter counter;
      while (counter.starts.size() < 2 && parser.HandleNextDocument(counter)) {
      }
      if (counter.starts.size() > 1) {
        throw ScenarioError(fmt::format("{}:{}: a second YAML document: a scenario is one document (remove the '---' "
                                        "and what follows, or put it in its own file)",
                                        name_for_errors, counter.starts[1]));
      }
    }
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}: not valid YAML: {}", name_for_errors, e.mark.line + 1, e.msg));
  }
  reject_duplicate_keys(root, "", name_for_errors);
  return root;
}

}  // namespace

Scenario load_scenario_text(const std::string& text, const std::string& name_for_errors,
                            const std::vector<Override>& overrides) {
  // The file's own values must be valid even where the command line overrides them (a
  // `sim.time: 3sec` is an error whether or not --sim-time is given): read it alone first.
  try {
    if (!overrides.empty()) load_node(parse_document(text, name_for_errors), name_for_errors, {});
    return load_node(parse_document(text, name_for_errors), name_for_errors, overrides);
  } catch (const YAML::Exception& e) {
    // A shape the reader did not check for before using it (a map where a list belongs, ...):
    // still bad input, reported as such with where yaml-cpp says it is.
    if (e.mark.is_null()) throw ScenarioError(fmt::format("{}: malformed scenario: {}", name_for_errors, e.msg));
    throw ScenarioError(fmt::format("{}:{}: malformed scenario: {}", name_for_errors, e.mark.line + 1, e.msg));
  }
}

std::string resolved_scenario_yaml(const std::string& text, const std::string& name_for_errors,
                                   const std::vector<Override>& overrides, const Scenario& s) {
  YAML::Node root = parse_document(text, name_for_errors);
  for (const auto& o : overrides) apply_override(root, o);
  auto time = [](uint64_t ps) { return format_time_ps(ps); };
  auto rate = [](double bps) {
    const double g = bps / 1e9;
    return g * 1e9 == bps ? fmt::format("{}Gb/s", g) : fmt::format("{}b/s", bps);
  };
  auto bytes = [](uint64_t b) { return b % 1024 == 0 ? fmt::format("{}KiB", b / 1024) : fmt::format("{}", b); };
  auto flow = [](YAML::Node n) {
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  };

  YAML::Node sim(YAML::NodeType::Map);
  sim["time"] = time(s.sim.sim_time_ps);
  sim["log_interval"] = time(s.sim.log_interval_ps);
  sim["seed"] = s.sim.seed;
  sim["deadlock_timeout"] = time(s.sim.deadlock_timeout_ps);
  sim["stall_timeout"] = time(s.sim.stall_timeout_ps);
  root["sim"] = sim;

  const FabricParams& f = s.fabric;
  YAML::Node fab = root["fabric"] ? root["fabric"] : YAML::Node(YAML::NodeType::Map);
  fab["core_clock"] = fmt::format("{}Hz", f.core_clock_hz);
  fab["mtu"] = f.mtu;
  fab["vls"] = f.vls;
  YAML::Node sl2vl(YAML::NodeType::Sequence);
  for (unsigned v : f.sl_to_vl) sl2vl.push_back(v);
  fab["sl_to_vl"] = flow(sl2vl);
  fab["routing"] = f.routing;
  YAML::Node sw(YAML::NodeType::Map);
  sw["latency"] = time(f.switch_latency_ps);
  sw["buffer_per_vl"] = bytes(f.switch_buffer_per_vl);
  sw["crossbar_speedup"] = f.crossbar_speedup;
  sw["fill_count"] = f.fill_from_head ? "head" : "tail";
  sw["credit_order"] = f.credit_in_order ? "in_order" : "first_fit";
  if (f.vlarb_tables) {
    YAML::Node a(YAML::NodeType::Map);
    auto table = [&](const std::vector<std::pair<unsigned, unsigned>>& t) {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& [vl, w] : t) {
        YAML::Node e(YAML::NodeType::Sequence);
        e.push_back(vl);
        e.push_back(w);
        seq.push_back(flow(e));
      }
      return flow(seq);
    };
    if (!f.vlarb_high.empty()) a["high"] = table(f.vlarb_high);
    a["low"] = table(f.vlarb_low);
    a["high_limit"] = f.vlarb_high_limit;
    sw["vl_arbitration"] = a;
  } else {
    sw["vl_arbitration"] = "round_robin";
  }
  fab["switch"] = sw;
  YAML::Node pb(YAML::NodeType::Map);
  pb["data_header"] = f.data_header_bytes;
  pb["cnp"] = f.cnp_bytes;
  pb["ack"] = f.ack_bytes;
  fab["packet_bytes"] = pb;
  YAML::Node hca(YAML::NodeType::Map);
  hca["buffer_per_vl"] = bytes(f.hca_buffer_per_vl);
  if (f.hca_inject_bps > 0) hca["inject_rate"] = rate(f.hca_inject_bps);
  if (f.hca_sink_bps > 0) hca["sink_rate"] = rate(f.hca_sink_bps);
  if (f.sink_hiccup.period_ps) {
    YAML::Node h(YAML::NodeType::Map);
    h["period"] = time(f.sink_hiccup.period_ps);
    h["duration"] = time(f.sink_hiccup.duration_ps);
    hca["sink_hiccup"] = h;
  }
  hca["completion_latency"] = time(f.hca_completion_latency_ps);
  fab["hca"] = hca;
  root["fabric"] = fab;

  const CcSpec& cc = s.cc;
  YAML::Node c(YAML::NodeType::Map);
  c["enabled"] = cc.enabled;
  YAML::Node csw(YAML::NodeType::Map);
  csw["threshold"] = cc.sw.threshold;
  csw["packet_size"] = cc.sw.packet_size;
  csw["marking_rate"] = cc.sw.marking_rate;
  csw["mapping"] = cc::policy_name(cc::kThresholdMappings, cc.sw.mapping);
  csw["marking_mode"] = cc::policy_name(cc::kMarkingModes, cc.sw.marking_mode);
  csw["hysteresis"] = cc.sw.hysteresis;
  if (!cc.sw.victim_ports.empty()) {
    YAML::Node vp(YAML::NodeType::Sequence);
    for (unsigned p : cc.sw.victim_ports) vp.push_back(p);
    csw["victim_mask"] = flow(vp);
  } else {
    csw["victim_mask"] = cc.sw.victim_mask_hca_ports ? "hca_ports" : "none";
  }
  c["switch"] = csw;
  if (!cc.ports.empty()) {
    YAML::Node ps(YAML::NodeType::Sequence);
    for (const auto& o : cc.ports) {
      YAML::Node e(YAML::NodeType::Map);
      e["port"] = fmt::format("{}/{}", o.switch_name, o.port);
      if (o.threshold) e["threshold"] = *o.threshold;
      if (o.packet_size) e["packet_size"] = *o.packet_size;
      if (o.marking_rate) e["marking_rate"] = *o.marking_rate;
      if (o.victim_mask) e["victim_mask"] = *o.victim_mask;
      ps.push_back(flow(e));
    }
    c["ports"] = ps;
  }
  YAML::Node ca(YAML::NodeType::Map);
  ca["control"] = cc.ca.sl_based ? "sl" : "qp";
  ca["control_map"] = fmt::format("0x{:04x}", cc.ca.control_map);
  ca["ccti_timer"] = cc.ca.sl_default.ccti_timer;
  ca["ccti_increase"] = cc.ca.sl_default.ccti_increase;
  ca["trigger_threshold"] = cc.ca.sl_default.trigger_threshold;
  ca["ccti_min"] = cc.ca.sl_default.ccti_min;
  ca["ccti_limit"] = cc.ca.ccti_limit;
  ca["ird_formula"] = cc::policy_name(cc::kIrdFormulas, cc.ca.ird_formula);
  ca["num_qps"] = cc.ca.num_qps;
  ca["becn"] = cc.ca.becn_in_ack ? "ack" : "cnp";
  if (!cc.ca.per_sl.empty()) {
    YAML::Node per(YAML::NodeType::Sequence);
    for (const auto& [sl, v] : cc.ca.per_sl) {
      YAML::Node e(YAML::NodeType::Map);
      e["sl"] = sl;
      e["ccti_timer"] = v.ccti_timer;
      e["ccti_increase"] = v.ccti_increase;
      e["trigger_threshold"] = v.trigger_threshold;
      e["ccti_min"] = v.ccti_min;
      per.push_back(flow(e));
    }
    ca["per_sl"] = per;
  }
  YAML::Node cct(YAML::NodeType::Sequence);
  for (uint16_t e : cc.ca.cct) cct.push_back(fmt::format("{}:{}", e >> 14, e & 0x3fff));
  ca["cct"] = flow(cct);
  c["ca"] = ca;
  root["cc"] = c;

  YAML::Emitter out;
  out << root;
  // CCT entries are quoted: an unquoted 3:12 is the integer 192 to a YAML 1.1 reader (PyYAML's
  // sexagesimal numbers), so other tools would misread the table.
  std::string emitted = out.c_str();
  const size_t cct_at = emitted.find("cct: [");
  if (cct_at != std::string::npos) {
    const size_t end = emitted.find(']', cct_at);
    std::string list = emitted.substr(cct_at + 6, end - cct_at - 6), quoted;
    std::stringstream entries(list);
    for (std::string e; std::getline(entries, e, ',');) {
      e.erase(0, e.find_first_not_of(" \n"));
      quoted += (quoted.empty() ? "" : ", ") + ("\"" + e + "\"");
    }
    emitted = emitted.substr(0, cct_at + 6) + quoted + emitted.substr(end);
  }
  return fmt::format("# The resolved scenario: {} with every default filled in and every override applied.\n"
                     "# sim, fabric (but link_defaults) and cc are complete; topology and traffic are as given.\n"
                     "# `ibcc run` on this file reproduces the run.\n{}\n",
                     name_for_errors, emitted);
}

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path + ": cannot open the " + what);
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ScenarioError(path + ": cannot read the " + what);
  return ss.str();
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  return load_scenario_text(read_text_file(path, "scenario file"), path, overrides);
}

}  // namespace ibcc::net
