// The scenario reader: YAML (yaml-cpp) to Scenario, with a schema check on every map so
// that an unknown key or an out-of-range value is an error naming file, line and key.
#include "net/scenario/scenario_yaml.h"

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
#include "net/scenario/scenario_keys.h"
#include "net/scenario/units.h"

#include "net/scenario/scenario_reader.h"
#include "net/scenario/yaml_document.h"

namespace ibcc::net {
namespace {

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
    // Without `encoding`, the encoding of what it starts from (a link: link_defaults').
    double eff = base.data_bps / base.signal_bps;
    if (n["encoding"]) {
      const std::string e = rd.choice(n["encoding"], path + ".encoding");
      for (const LinkEncoding& k : kEncodings) {
        if (e == k.name) eff = k.efficiency;
      }
    }
    base.signal_bps = rd.rate_bps(n["rate"], path + ".rate");
    base.data_bps = base.signal_bps * eff;
  } else if (n["encoding"]) {
    rd.fail(n["encoding"], path + ".encoding", "encoding only goes with rate");
  }
  if (n["propagation"]) base.propagation_ps = rd.time_ps(n["propagation"], path + ".propagation");
  return base;
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
  if (n["adaptive_routing"]) {
    const std::string ar = rd.choice(n["adaptive_routing"], "fabric.adaptive_routing");
    f.adaptive_routing = ar == "least_occupancy" ? FabricParams::AdaptiveRouting::kLeastOccupancy
                         : ar == "bounded"       ? FabricParams::AdaptiveRouting::kBounded
                                                 : FabricParams::AdaptiveRouting::kOff;
    if (ar != "static" && f.routing != "updown") {
      rd.fail(n["adaptive_routing"], "fabric.adaptive_routing",
              fmt::format("{} needs fabric.routing: updown (its AR groups are the equal-cost ports up*/down* allows, "
                          "which keeps the fabric deadlock-free); fabric.routing is {}", ar, f.routing));
    }
  }
  if (n["ar_bound"]) f.ar_bound_bytes = rd.bytes(n["ar_bound"], "fabric.ar_bound");
  if (n["flow_control"]) {
    const std::string fc = rd.choice(n["flow_control"], "fabric.flow_control");
    f.pfc = fc == "pfc";
    f.lossy = fc == "none";
  }
  if (const auto pfc = n["pfc"]) {
    rd.expect_map(pfc, "fabric.pfc");
    if (pfc["xoff"]) f.pfc_xoff_bytes = rd.bytes(pfc["xoff"], "fabric.pfc.xoff");
    if (pfc["xon"]) f.pfc_xon_bytes = rd.bytes(pfc["xon"], "fabric.pfc.xon");
    if (pfc["pause_frame"]) f.pfc_pause_bytes = static_cast<unsigned>(rd.bytes(pfc["pause_frame"], "fabric.pfc.pause_frame"));
    if (f.pfc_xoff_bytes && f.pfc_xon_bytes > f.pfc_xoff_bytes) {
      rd.fail(pfc["xon"], "fabric.pfc.xon", fmt::format("XON ({} bytes) must not exceed XOFF ({} bytes)", f.pfc_xon_bytes, f.pfc_xoff_bytes));
    }
  }
  if (n["updown_roots"]) {
    for (const auto& r : rd.list(n["updown_roots"], "fabric.updown_roots")) f.updown_roots.push_back(rd.str(r, "fabric.updown_roots[]"));
  }
  if (const auto sw = n["switch"]) {
    rd.expect_map(sw, "fabric.switch");
    if (sw["credit_order"]) {
      f.credit_in_order = rd.choice(sw["credit_order"], "fabric.switch.credit_order") == "in_order";
    }
    if (sw["input_arbitration"]) {
      f.oldest_first = rd.choice(sw["input_arbitration"], "fabric.switch.input_arbitration") == "oldest_first";
    }
    if (sw["fill_count"]) {
      f.fill_from_head = rd.choice(sw["fill_count"], "fabric.switch.fill_count") == "head";
    }
    if (sw["latency"]) f.switch_latency_ps = rd.time_ps(sw["latency"], "fabric.switch.latency");
    if (sw["buffer_per_vl"]) f.switch_buffer_per_vl = rd.bytes(sw["buffer_per_vl"], "fabric.switch.buffer_per_vl");
    if (sw["crossbar_speedup"]) f.crossbar_speedup = rd.real(sw["crossbar_speedup"], "fabric.switch.crossbar_speedup");
    if (sw["buffering"]) {
      const std::string b = rd.choice(sw["buffering"], "fabric.switch.buffering");
      f.buffering = b == "output" ? FabricParams::Buffering::kOutput
                  : b == "shared" ? FabricParams::Buffering::kShared : FabricParams::Buffering::kInput;
    }
    if (sw["output_buffer"]) f.switch_output_buffer = rd.bytes(sw["output_buffer"], "fabric.switch.output_buffer");
    if (sw["shared_buffer"]) f.switch_shared_buffer = rd.bytes(sw["shared_buffer"], "fabric.switch.shared_buffer");
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
        table("high", &f.vlarb.high);
        table("low", &f.vlarb.low);
        if (a["high_limit"]) f.vlarb.high_limit = static_cast<unsigned>(rd.uint(a["high_limit"], "fabric.switch.vl_arbitration.high_limit"));
        if (f.vlarb.low.empty()) rd.fail(a, "fabric.switch.vl_arbitration.low", "the low-priority table must not be empty");
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
    if (h["transport"]) {
      const std::string t = rd.choice(h["transport"], "fabric.hca.transport");
      f.transport = t == "gbn" ? FabricParams::Transport::kGbn
                  : t == "simple_gbn" ? FabricParams::Transport::kSimpleGbn : FabricParams::Transport::kNone;
    }
    if (h["send_jitter"]) f.hca_send_jitter_ps = rd.time_ps(h["send_jitter"], "fabric.hca.send_jitter");
    if (h["gbn_window"]) f.gbn_window = static_cast<unsigned>(rd.uint(h["gbn_window"], "fabric.hca.gbn_window"));
    if (h["gbn_timeout"]) {
      f.gbn_timeout_ps = rd.time_ps(h["gbn_timeout"], "fabric.hca.gbn_timeout");
      if (f.gbn_timeout_ps == 0) rd.fail(h["gbn_timeout"], "fabric.hca.gbn_timeout", "must be above 0s");
    }
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
  if (f.buffering != FabricParams::Buffering::kInput && !f.lossy) {
    rd.fail(n["switch"]["buffering"], "fabric.switch.buffering",
            "output and shared buffers need a lossy fabric (fabric.flow_control: none): credits and PFC guard input buffers");
  }
  if (f.adaptive_routing != FabricParams::AdaptiveRouting::kOff && f.transport != FabricParams::Transport::kNone) {
    rd.fail(n["adaptive_routing"], "fabric.adaptive_routing",
            "adaptive routing delivers packets out of order, which Go-Back-N (fabric.hca.transport) would take for "
            "losses; use it with transport: none");
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
        {"radix", "fattree"}, {"levels", "fattree"}, {"pods", "fattree"},
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
    // An IB subnet has unicast LIDs 1..0xBFFF, one per HCA port and switch; an Ethernet
    // fabric (PFC or lossy) has no such limit, but the model's addresses are 32-bit and its
    // forwarding tables switches x addresses. Counted before anything is generated (a
    // 32-ary 4-tree would be a million hosts).
    const bool ethernet = !s.fabric.credited();
    auto check_lids = [&](double hosts, double switches, const std::string& what) {
      if (!ethernet && hosts + switches > kMaxUnicastLid) {
        rd.fail(g, "topology.generate", fmt::format("{} has {:.0f} hosts and {:.0f} switches; an IB subnet has at most "
                                                    "{} LIDs (an Ethernet fabric, fabric.flow_control pfc or none, "
                                                    "has no such limit)", what, hosts, switches, kMaxUnicastLid));
      }
      // (A forwarding table per switch, 2 bytes per address.)
      const double lft_gib = switches * (hosts + switches) * 2 / (1024.0 * 1024 * 1024);
      if (ethernet && lft_gib > kMaxLftGib) {
        rd.fail(g, "topology.generate", fmt::format("{} has {:.0f} hosts and {:.0f} switches; their forwarding tables alone "
                                                    "would take {:.0f} GiB (at most {:.0f})", what, hosts, switches,
                                                    lft_gib, kMaxLftGib));
      }
    };
    if (fam == "clos3") {
      ClosParams p{u("leaves"), u("spines"), u("switch_ports")};
      if (p.spines >= p.switch_ports) rd.fail(g, "topology.generate.spines", "a leaf needs at least one host port beside its spine uplinks");
      if (p.leaves > p.switch_ports) rd.fail(g, "topology.generate.leaves", "each spine has one port per leaf: leaves <= switch_ports");
      check_lids(1.0 * p.leaves * (p.switch_ports - p.spines), 1.0 * p.leaves + p.spines,
                 fmt::format("a 3-stage Clos of {} leaves and {} spines", p.leaves, p.spines));
      generate_clos3(p, link, &s);
    } else if (fam == "fattree") {
      FatTreeParams p{u("radix"), u("levels"), 0};
      if (p.radix % 2) rd.fail(g["radix"] ? g["radix"] : g, "topology.generate.radix", fmt::format("expected an even number of ports (half down, half up), got {}", p.radix));
      p.pods = g["pods"] ? u("pods") : p.radix;
      if (g["pods"] && p.levels < 2) rd.fail(g["pods"], "topology.generate.pods", "a one-level fat tree (one switch) has no pods");
      if (p.pods > p.radix) {
        rd.fail(g["pods"], "topology.generate.pods", fmt::format("expected 1..{} (a top switch has {} down-ports), got {}",
                                                                 p.radix, p.radix, p.pods));
      }
      // A pod: (r/2)^(L-1) hosts under (L-1)(r/2)^(L-2) switches; the top level: (r/2)^(L-1).
      double pod_hosts = 1, pod_switches = p.levels - 1.0, top = 1;
      for (unsigned i = 1; i < p.levels; ++i) pod_hosts *= p.radix / 2;
      for (unsigned i = 2; i < p.levels; ++i) pod_switches *= p.radix / 2;
      for (unsigned i = 1; i < p.levels; ++i) top *= p.radix / 2;
      const double hosts = p.levels == 1 ? p.radix : pod_hosts * p.pods;
      const double switches = p.levels == 1 ? 1 : pod_switches * p.pods + top;
      check_lids(hosts, switches, fmt::format("a fat tree of radix {} and {} levels{}", p.radix, p.levels,
                                              p.pods < p.radix ? fmt::format(" with {} pods", p.pods) : ""));
      generate_fattree(p, link, &s);
    } else if (fam == "kary_ntree") {
      KaryNtreeParams p{u("k"), u("n")};
      check_lids(std::pow(p.k, p.n), p.n * std::pow(p.k, p.n - 1.0), fmt::format("a {}-ary {}-tree", p.k, p.n));
      generate_kary_ntree(p, link, &s);
    } else if (fam == "mesh" || fam == "torus") {
      MeshParams p{u("x"), u("y"), u("hcas_per_switch"), fam == "torus"};
      check_lids(1.0 * p.x * p.y * p.hcas_per_switch, 1.0 * p.x * p.y, fmt::format("a {}x{} {}", p.x, p.y, fam));
      generate_mesh(p, link, &s);
    }
    return;
  }
  if (!n["switches"] || !n["hcas"] || !n["links"]) rd.fail(n, "topology", "needs switches, hcas and links (or generate)");
  for (const auto& sw : rd.list(n["switches"], "topology.switches")) {
    rd.expect_map(sw, "topology.switches[]");
    SwitchSpec spec;
    spec.name = rd.name(sw["name"], "topology.switches[].name", true);
    spec.ports = static_cast<unsigned>(rd.uint(sw["ports"], "topology.switches[" + spec.name + "].ports"));
    if (sw["lid"]) spec.lid = static_cast<Lid>(rd.uint(sw["lid"], "topology.switches[" + spec.name + "].lid"));
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
      spec.name = rd.name(h, "topology.hcas[]", true);
    } else {
      rd.expect_map(h, "topology.hcas[]");
      spec.name = rd.name(h["name"], "topology.hcas[].name", true);
      if (h["lid"]) spec.lid = static_cast<Lid>(rd.uint(h["lid"], "topology.hcas[" + spec.name + "].lid"));
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

}  // namespace

namespace {

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

}  // namespace


YAML::Node apply_override(YAML::Node root, const Override& o) {
  std::vector<std::string> parts;
  std::stringstream ss(o.key);
  std::string part;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  if (parts.empty() || std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); })) {
    throw ScenarioError("--set " + o.key + "=" + o.value + ": expected KEY=VALUE with a dotted key like cc.switch.threshold");
  }
  if (o.value.find_first_not_of(" \t") == std::string::npos) {
    throw ScenarioError("--set " + o.key + "=: no value; give one, or " + o.key + "=null for the default");
  }
  const YAML::Node value = parse_document(o.value, "--set " + o.key);
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

namespace {

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
  for (const char* key : {"name", "description"}) {
    if (!root[key]) continue;
    const std::string v = rd.str(root[key], key);
    for (unsigned char c : v) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        rd.fail(root[key], key, fmt::format("cannot hold the control character 0x{:02x}", c));
      }
    }
  }
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
  reject_keys_of_other_regimes(rd, root, &s.notes);
  // A deadlock is a wait that never ends; a packet on the slowest path of the fabric takes its
  // time to move, and a timeout shorter than that would call a slow path a deadlock.
  if (s.sim.deadlock_timeout_ps && s.sim.deadlock_timeout_ps < slowest_packet_ps(s)) {
    rd.fail(root["sim"]["deadlock_timeout"], "sim.deadlock_timeout",
            fmt::format("{} is shorter than a packet's time on the slowest path of this fabric ({}: {} bytes at the "
                        "lowest link, inject or sink rate); a slow path is not a deadlock: give at least that",
                        format_time_ps(s.sim.deadlock_timeout_ps), format_time_ps(slowest_packet_ps(s)),
                        s.fabric.mtu + s.fabric.data_header_bytes));
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
// The file's own values must be valid even where the command line overrides them (a
// `sim.time: 3sec` is an error whether or not --sim-time is given): read it alone first.
// Reading does not change the document; the overrides then do.
Scenario load_checked(YAML::Node root, const std::string& name_for_errors, const std::vector<Override>& overrides) {
  try {
    if (!overrides.empty()) load_node(root, name_for_errors, {});
    return load_node(root, name_for_errors, overrides);
  } catch (const YAML::Exception& e) {
    // A shape the reader did not check for before using it (a map where a list belongs, ...):
    // still bad input, reported as such with where yaml-cpp says it is.
    // (in ibcc's words: yaml-cpp's "bad conversion" is a value of the wrong type)
    const std::string what = e.msg.rfind("bad conversion", 0) == 0 ? "a value of the wrong type (a list or map where a "
                                                                      "value belongs, or the reverse)"
                             : e.msg.rfind("invalid node", 0) == 0 ? "a key or entry that is not there"
                                                                    : e.msg;
    if (e.mark.is_null()) throw ScenarioError(fmt::format("{}: malformed scenario: {}", name_for_errors, what));
    throw ScenarioError(fmt::format("{}:{}: malformed scenario: {}", name_for_errors, e.mark.line + 1, what));
  }
}
}  // namespace

Scenario load_scenario_text(const std::string& text, const std::string& name_for_errors,
                            const std::vector<Override>& overrides) {
  return load_checked(parse_document(text, name_for_errors), name_for_errors, overrides);
}

struct ScenarioDocument::Impl {
  YAML::Node root;
  std::string name;
};

ScenarioDocument::ScenarioDocument(const std::string& text, const std::string& name_for_errors)
    : impl_(new Impl{parse_document(text, name_for_errors), name_for_errors}) {}
ScenarioDocument::~ScenarioDocument() = default;

Scenario ScenarioDocument::load(const std::vector<Override>& overrides) {
  return load_checked(impl_->root, impl_->name, overrides);
}

std::string ScenarioDocument::resolved_yaml(const std::vector<Override>& overrides, const Scenario& s) {
  return resolved_yaml_of(impl_->root, impl_->name, overrides, s);
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
