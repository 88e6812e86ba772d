// Internal to the scenario reader (scenario_yaml.cpp, scenario_traffic.cpp,
// scenario_resolved.cpp): the Reader that walks a document with the path of each key and
// checks it against the key table, and what the reading sections share.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/did_you_mean.h"
#include "net/scenario/topology.h"

#include "net/scenario/scenario_keys.h"
#include "net/scenario/scenario_yaml.h"
#include "net/scenario/units.h"

namespace ibcc::net {

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
  // The option that gave `n` (--set KEY=VALUE, --opensm-conf FILE:LINE), or "" if the file did.
  std::string override_of(const YAML::Node& n) const {
    for (const auto& o : overrides_) {
      if (contains(o.value, n)) return o.origin;
    }
    return "";
  }

  // The declaration of a key in the one key table (scenario_key_table.cpp); a reader asking for a
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
        const auto near = closest(k, allowed);
        fail(kv.first, join(path, k),
             "unknown key" + (near ? "; did you mean '" + *near + "'?" : std::string()) + " (allowed here: " + list + ")");
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

  // A name (of a switch, an HCA, a flow, a group): it appears in CSV columns, in comma lists
  // (--trace flows=A,B) and, for nodes, as NODE/PORT; so no control character, comma, quote,
  // leading or trailing space, and for a node no '/'.
  std::string name(const YAML::Node& n, const std::string& path, bool node = false) const {
    const std::string v = str(n, path);
    if (v.empty()) fail(n, path, "expected a name, got an empty string");
    for (unsigned char c : v) {
      if (c < 0x20 || c == 0x7f) fail(n, path, fmt::format("a name cannot hold the control character 0x{:02x}", c));
      if (c == ',' || c == '"' || c == '\'' || (node && c == '/')) {
        fail(n, path, fmt::format("a name cannot hold '{}' (names appear in CSV columns, comma lists{}); got '{}'",
                                  static_cast<char>(c), node ? " and NODE/PORT" : "", v));
      }
    }
    if (v.front() == ' ' || v.back() == ' ') fail(n, path, "a name cannot start or end with a space; got '" + v + "'");
    return v;
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
    if (!v) {
      fail(n, path, "expected a time with a unit (ps, ns, us, ms, s) of at most 1000000s, got '" + str(n, path) + "'");
    }
    return *v;
  }

  double rate_bps(const YAML::Node& n, const std::string& path) const {
    const auto v = parse_rate_bps(str(n, path));
    if (!v || *v <= 0 || *v > 1e15) {
      fail(n, path, "expected a positive rate with a unit (Mb/s, Gb/s, ...) of at most 1000Tb/s, got '" + str(n, path) + "'");
    }
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

struct LoaderState {
  Reader rd;
  Scenario* s;
  LinkSpec link_defaults;
};

// "S1/3" -> (S1, 3); "H1" -> (H1, 1).
inline std::pair<std::string, unsigned> endpoint(const Reader& rd, const YAML::Node& n, const std::string& path) {
  const std::string e = rd.str(n, path);
  const auto np = parse_node_port(e);
  if (!np) rd.fail(n, path, "expected NODE or NODE/PORT with PORT 1..254, got '" + e + "'");
  return {np->node, np->port ? np->port : 1};
}

// Sections of the reader in other files.
void read_traffic(LoaderState& st, const YAML::Node& n);      // scenario_traffic.cpp
void reject_duplicate_flow_names(const Scenario& s);          // scenario_traffic.cpp
void read_cc(LoaderState& st, const YAML::Node& n);           // scenario_cc.cpp
// The resolved scenario from a parsed document (which it changes: applies the overrides, writes
// the resolved sections).
std::string resolved_yaml_of(YAML::Node root, const std::string& name_for_errors, const std::vector<Override>& overrides,
                             const Scenario& s);
// `--set KEY=VALUE` applied to the document (scenario_yaml.cpp).
YAML::Node apply_override(YAML::Node root, const Override& o);
// A key set in `root` that belongs to a regime the document does not choose (scenario_keys.h:
// KeyDecl::only_key): its declaration (which names the regime), its dotted path and its node.
struct OtherRegimeKey {
  const KeyDecl* decl;
  std::string path;
  YAML::Node node;
  std::string chosen;  // the value of decl->only_key the document has
};
std::vector<OtherRegimeKey> keys_of_other_regimes(const YAML::Node& root);  // scenario_regimes.cpp
// Removes those keys from `root` (resolved.yaml holds only what the run reads).
void remove_keys_of_other_regimes(YAML::Node root);
// Throws ScenarioError at the first such key an option set, or that the file set under the
// regime it chose; notes the file's keys of a regime an option switched away from.
void reject_keys_of_other_regimes(const Reader& rd, const YAML::Node& root, std::vector<std::string>* notes);

}  // namespace ibcc::net
