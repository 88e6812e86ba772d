// Regimes and their keys: a key the key table gives a regime (KeyDecl::only_key) is read
// only under that regime; set under another, it is an error that names the regime (or, when an
// option switched the regime, a note). Shared by the reader and resolved.yaml.
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "net/scenario/scenario_keys.h"
#include "net/scenario/scenario_reader.h"

namespace ibcc::net {
namespace {

// The node at dotted `path` (no list indices) under `root`, or an undefined node.
YAML::Node node_at(const YAML::Node& root, const std::string& path) {
  // (reset() rebinds a node; `=` would assign into the node it refers to)
  YAML::Node n;
  n.reset(root);
  for (size_t from = 0; from <= path.size();) {
    const size_t dot = std::min(path.find('.', from), path.size());
    if (!n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node child = static_cast<const YAML::Node&>(n)[path.substr(from, dot - from)];
    if (!child) return YAML::Node(YAML::NodeType::Undefined);
    n.reset(child);
    from = dot + 1;
  }
  return n;
}

// The value of a key that picks a regime (cc.reaction, ...): as the document gives it, or the
// default.
std::string regime_choice(const YAML::Node& root, const std::string& key) {
  const YAML::Node sel = node_at(root, key);
  return sel.IsDefined() && sel.IsScalar() ? sel.Scalar() : find_key(key)->dflt;
}

}  // namespace

// A key of a regime the scenario does not use (cc.dcqcn.* under IB CC, fabric.pfc.* with
// credits, ...) would be read and change nothing: an error naming the regime that reads it.
// One exception keeps "one scenario, run another way" working: when an option (--set
// cc.reaction=dcqcn) switched the regime, the file's own keys of the regime it had are left
// unread, and a note says so. A key an option sets is never left unread in silence.
void reject_keys_of_other_regimes(const Reader& rd, const YAML::Node& root, std::vector<std::string>* notes) {
  for (const OtherRegimeKey& k : keys_of_other_regimes(root)) {
    // The keys set: the node itself, or each leaf of the map or list it is.
    std::vector<std::pair<std::string, YAML::Node>> set;
    std::function<void(const std::string&, const YAML::Node&)> leaves = [&](const std::string& path, const YAML::Node& n) {
      if (n.IsMap() && n.size() > 0) {
        for (const auto& kv : n) leaves(path + "." + kv.first.as<std::string>(), kv.second);
      } else if (n.IsSequence() && n.size() > 0) {
        for (size_t i = 0; i < n.size(); ++i) leaves(fmt::format("{}[{}]", path, i), n[i]);
      } else {
        set.emplace_back(path, n);
      }
    };
    leaves(k.path, k.node);
    const std::string switched_by = rd.override_of(node_at(root, k.decl->only_key));
    for (const auto& [key, n] : set) {
      if (!switched_by.empty() && rd.override_of(n).empty()) continue;
      const KeyDecl& r = *regime_of(key);  // the key's own regime (a map's keys may narrow it)
      rd.fail(n, key,
              fmt::format("has no effect with {}: {} (it is read only with {}: {}); remove it or choose that regime",
                          r.only_key, regime_choice(root, r.only_key), r.only_key, r.only_values));
    }
    notes->push_back(fmt::format("{}: not read: {} switched the regime to {}: {} (the file's settings for {}: {} are "
                                 "left as they are)",
                                 k.path, switched_by, k.decl->only_key, k.chosen, k.decl->only_key, k.decl->only_values));
  }
}

std::vector<OtherRegimeKey> keys_of_other_regimes(const YAML::Node& root) {
  std::vector<OtherRegimeKey> out;
  for (const KeyDecl& d : scenario_keys()) {
    if (d.only_key.empty() || d.path[0] == '$' || d.path.find('[') != std::string::npos) continue;
    const YAML::Node n = node_at(root, d.path);
    if (!n.IsDefined()) continue;
    const std::string value = regime_choice(root, d.only_key);
    const auto allowed = split_choices(d.only_values);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) out.push_back({&d, d.path, n, value});
  }
  return out;
}

void remove_keys_of_other_regimes(YAML::Node root) {
  std::vector<std::string> removed;
  for (const OtherRegimeKey& k : keys_of_other_regimes(root)) {
    if (std::any_of(removed.begin(), removed.end(), [&](const std::string& r) { return k.path.rfind(r + ".", 0) == 0; })) {
      continue;  // gone with the map above it
    }
    removed.push_back(k.path);
    const size_t dot = k.path.rfind('.');
    node_at(root, k.path.substr(0, dot)).remove(k.path.substr(dot + 1));
  }
}

}  // namespace ibcc::net
