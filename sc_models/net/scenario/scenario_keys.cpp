// The reference, schema and listing made from the scenario key table
// (scenario_key_table.cpp; see scenario_keys.h).
#include "net/scenario/scenario_keys.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "net/scenario/units.h"

namespace ibcc::net {
namespace {

std::string strip_indices(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos) return out + path.substr(i);
      out += "[]";
      i = close;
    } else {
      out += path[i];
    }
  }
  return out;
}

const std::map<std::string, const KeyDecl*>& index() {
  static const std::map<std::string, const KeyDecl*> idx = [] {
    std::map<std::string, const KeyDecl*> m;
    for (const auto& d : scenario_keys()) {
      if (!m.emplace(d.path, &d).second) throw std::logic_error("scenario key declared twice: " + d.path);
    }
    return m;
  }();
  return idx;
}

std::string parent_of(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}
std::string leaf_of(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// Direct children declared under `path` (not through a template).
std::vector<const KeyDecl*> direct_children(const std::string& path) {
  std::vector<const KeyDecl*> out;
  for (const auto& d : scenario_keys()) {
    if (d.path.empty() || d.path.back() == ']') continue;
    if (d.path[0] == '$' && d.path.find('.') == std::string::npos) continue;  // a template is no key of the top level
    if (parent_of(d.path) == path && d.path != path) out.push_back(&d);
  }
  return out;
}

std::vector<const KeyDecl*> children(const std::string& path) {
  auto out = direct_children(path);
  const auto it = index().find(path);
  if (it != index().end() && !it->second->ref.empty()) {
    for (const KeyDecl* d : direct_children(it->second->ref)) out.push_back(d);
  }
  return out;
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

std::string type_text(const KeyDecl& d) {
  auto num = [](uint64_t v) { return v == UINT64_MAX ? std::string("2⁶⁴−1") : v >= 0x1000 && (v & (v + 1)) == 0 ? fmt::format("{:#x}", v) : std::to_string(v); };
  std::string t;
  switch (d.type) {
    case KeyType::kMap: t = "map"; break;
    case KeyType::kList: t = d.uhi != UINT64_MAX ? fmt::format("list of ≤ {}", d.uhi) : "list"; break;
    case KeyType::kString: t = "string"; break;
    case KeyType::kUint: t = d.form.empty() ? fmt::format("integer {}..{}", num(d.ulo), num(d.uhi)) : d.form; break;
    case KeyType::kReal: t = fmt::format("number {:g}..{:g}", d.rlo, d.rhi); break;
    case KeyType::kBool: t = "bool"; break;
    case KeyType::kTime: t = "time"; break;
    case KeyType::kRate: t = "rate"; break;
    case KeyType::kBytes: t = d.form.empty() ? fmt::format("size {}..{} B", d.ulo, d.uhi) : "size: " + d.form; break;
    case KeyType::kFreq: t = fmt::format("frequency {}MHz..{}GHz", d.ulo / 1000000, d.uhi / 1000000000); break;
    case KeyType::kEnum: {
      for (const auto& c : split_choices(d.choices)) t += (t.empty() ? "`" : " \\| `") + c + "`";
      break;
    }
    case KeyType::kForm: t = d.form; break;
  }
  if (!d.unit.empty()) t += ", " + d.unit;
  if (d.type != KeyType::kUint && d.type != KeyType::kBytes && d.type != KeyType::kForm && !d.form.empty()) t += ", " + d.form;
  return t;
}

std::string default_text(const KeyDecl& d) {
  if (d.required) return "required";
  if (!d.dflt_doc.empty()) return d.dflt_doc;
  if (!d.dflt.empty()) return d.dflt;
  return "—";
}

// A quantity's schema: a number with one of its units (units.h; a size may be bare bytes),
// the units' scales to the base unit under "x-units" (for tools such as ibcc tune, which
// search a quantity as a number), and its kind under "x-quantity".
nlohmann::ordered_json quantity_schema(const char* kind, const std::vector<UnitScale>& units, bool bare_ok) {
  std::string alternatives;
  nlohmann::ordered_json scales = nlohmann::ordered_json::object();
  for (const UnitScale& u : units) {
    alternatives += (alternatives.empty() ? "" : "|") + std::string(u.suffix);
    scales[u.suffix] = u.scale;
  }
  return {{"type", "string"},
          {"pattern", "^ *[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)? *(" + alternatives + ")" + (bare_ok ? "?" : "") + " *$"},
          {"x-quantity", kind},
          {"x-units", scales}};
}

nlohmann::ordered_json schema_of(const KeyDecl& d);

nlohmann::ordered_json map_schema(const std::string& path) {
  nlohmann::ordered_json s = {{"type", "object"}};
  nlohmann::ordered_json props = nlohmann::ordered_json::object();
  nlohmann::ordered_json req = nlohmann::ordered_json::array();
  for (const KeyDecl* c : children(path)) {
    props[leaf_of(c->path)] = schema_of(*c);
    // Keys required only in one shape (generate vs switches/hcas/links) are the reader's to check.
    if (c->required && path != "topology" && path != "fabric.switch.vl_arbitration") req.push_back(leaf_of(c->path));
  }
  s["properties"] = props;
  if (!req.empty()) s["required"] = req;
  s["additionalProperties"] = false;
  return s;
}

nlohmann::ordered_json schema_of(const KeyDecl& d) {
  nlohmann::ordered_json s;
  switch (d.type) {
    case KeyType::kMap: s = map_schema(d.path); break;
    case KeyType::kList: {
      s = {{"type", "array"}};
      const auto it = index().find(d.path + "[]");
      if (it != index().end()) s["items"] = schema_of(*it->second);
      if (d.ulo > 0) s["minItems"] = d.ulo;
      if (d.uhi != UINT64_MAX) s["maxItems"] = d.uhi;
      break;
    }
    case KeyType::kString: s = {{"type", "string"}}; break;
    case KeyType::kUint: s = {{"type", "integer"}, {"minimum", d.ulo}, {"maximum", d.uhi}}; break;
    case KeyType::kReal: s = {{"type", "number"}, {"minimum", d.rlo}, {"maximum", d.rhi}}; break;
    case KeyType::kBool: s = {{"type", "boolean"}}; break;
    case KeyType::kTime: s = quantity_schema("time", time_units(), false); break;
    case KeyType::kRate: s = quantity_schema("rate", rate_units(), false); break;
    case KeyType::kBytes:
      s = {{"anyOf", {{{"type", "integer"}, {"minimum", d.ulo}, {"maximum", d.uhi}},
                      quantity_schema("size", size_units(), true)}}};
      break;
    case KeyType::kFreq: s = quantity_schema("frequency", freq_units(), false); break;
    case KeyType::kEnum: s = {{"enum", split_choices(d.choices)}}; break;
    case KeyType::kForm: {
      nlohmann::ordered_json shape = nlohmann::ordered_json::parse(d.schema);
      if (children(d.path).empty()) {
        s = std::move(shape);
      } else {
        s["anyOf"] = nlohmann::ordered_json::array({std::move(shape), map_schema(d.path)});
      }
      break;
    }
  }
  std::string desc = d.meaning;
  if (!d.only_key.empty()) desc += " " + regime_text(d);
  const std::string dt = default_text(d);
  if (dt != "—") desc += " (default: " + dt + ")";
  s["description"] = desc;
  return s;
}

}  // namespace

const std::vector<KeyDecl>& scenario_keys() {
  static const std::vector<KeyDecl> table = scenario_key_table();
  return table;
}

std::vector<std::string> split_choices(const std::string& choices) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= choices.size()) {
    const size_t bar = choices.find('|', start);
    out.push_back(choices.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return out;
}

const KeyDecl* find_key(const std::string& path) {
  const std::string p = strip_indices(path);
  const auto& idx = index();
  if (const auto it = idx.find(p); it != idx.end()) return it->second;
  // Through the parent's template: traffic.flows[].sl -> $flow.sl.
  const std::string parent = parent_of(p);
  if (parent == p) return nullptr;
  if (const auto it = idx.find(parent); it != idx.end() && !it->second->ref.empty()) {
    if (const auto t = idx.find(it->second->ref + "." + leaf_of(p)); t != idx.end()) return t->second;
  }
  return nullptr;
}

const KeyDecl* regime_of(const std::string& path) {
  for (std::string p = strip_indices(path);;) {
    const KeyDecl* d = find_key(p);
    if (d && !d->only_key.empty()) return d;
    // (a list's element cc.ports[] lies under the list cc.ports)
    const std::string parent = p.size() > 2 && p.compare(p.size() - 2, 2, "[]") == 0 ? p.substr(0, p.size() - 2)
                                                                                     : parent_of(p);
    if (parent == p) return nullptr;
    p = parent;
  }
}

std::string regime_text(const KeyDecl& d) {
  if (d.only_key.empty()) return "";
  return fmt::format("(only with `{}: {}`)", d.only_key, d.only_values);
}

std::vector<std::string> child_keys(const std::string& map_path) {
  // Asked once per map read (a million times for a million flows): remembered per path.
  static std::mutex lock;
  static std::map<std::string, std::vector<std::string>> known;
  const std::string p = strip_indices(map_path);
  std::lock_guard<std::mutex> guard(lock);
  auto it = known.find(p);
  if (it == known.end()) {
    std::vector<std::string> out;
    for (const KeyDecl* d : children(p)) out.push_back(leaf_of(d->path));
    it = known.emplace(p, std::move(out)).first;
  }
  return it->second;
}

std::string keys_markdown() {
  std::string out;
  out += "<!-- BEGIN generated by `ibcc keys --markdown` from sc_models/net/scenario/scenario_key_table.cpp "
         "(scripts/update_generated_docs.py); edit the table, not this text -->\n";
  struct Section {
    const char* title;
    const char* prefix;
    const char* intro;
  };
  const Section sections[] = {
      {"Top level", "", ""},
      {"`sim`", "sim", ""},
      {"`fabric`", "fabric", ""},
      {"Link keys", "$link",
       "In `topology.links[]`, `fabric.link_defaults` and `topology.generate.link`: width × speed, or rate "
       "(+ encoding); propagation."},
      {"`topology`", "topology", "Either `generate` or `switches` + `hcas` + `links`."},
      {"`cc`", "cc", ""},
      {"CCT shape keys", "$cct_shape", "In `cc.ca.cct.linear` and `cc.ca.cct.quadratic`."},
      {"SL keys", "$sl", "In `cc.ca` (every SL) and `cc.ca.per_sl[]` (one SL, unset keys from `cc.ca`)."},
      {"`traffic`", "traffic", ""},
      {"Flow keys", "$flow", "In `traffic.flows[]` and `traffic.patterns[]`."},
      {"`debug`", "debug", ""},
  };
  for (const auto& sec : sections) {
    out += fmt::format("\n### {}\n\n", sec.title);
    if (*sec.intro) out += std::string(sec.intro) + "\n\n";
    out += "| key | type / unit | default | meaning |\n|---|---|---|---|\n";
    const std::string prefix = sec.prefix;
    for (const auto& d : scenario_keys()) {
      const bool top = prefix.empty() ? d.path.find('.') == std::string::npos && !d.path.empty() && d.path[0] != '$'
                                      : d.path.rfind(prefix + ".", 0) == 0 || d.path.rfind(prefix + "[", 0) == 0;
      if (!top) continue;
      std::string shown = d.path;
      if (shown[0] == '$') shown = shown.substr(shown.find('.') + 1);
      out += fmt::format("| `{}` | {} | {} | {} |\n", shown, md_escape(type_text(d)), md_escape(default_text(d)),
                         md_escape(d.only_key.empty() ? d.meaning : d.meaning + " " + regime_text(d)));
    }
  }
  out += "\n<!-- END generated by `ibcc keys --markdown` -->\n";
  return out;
}

std::string keys_json_schema() {
  nlohmann::ordered_json s = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://ibcc.dev/scenario.schema.json"},
      {"title", "ibcc scenario"},
  };
  const nlohmann::ordered_json root = schema_of(*index().at(""));
  for (const auto& [k, v] : root.items()) s[k] = v;
  s["description"] = "An ibcc scenario file (generated by `ibcc keys --json-schema` from sc_models/net/scenario/scenario_key_table.cpp).";
  return s.dump(2) + "\n";
}

namespace {
// A reference table's cell as plain text for a terminal: no code spans, no escaped bars.
std::string plain(std::string text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') continue;
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '|') continue;
    out += text[i];
  }
  return out;
}
}  // namespace

std::string keys_listing() {
  std::string out;
  for (const auto& d : scenario_keys()) {
    if (d.path.empty()) continue;
    out += fmt::format("{:<42} {:<40} default {}\n", d.path, plain(type_text(d)), plain(default_text(d)));
  }
  return out;
}

}  // namespace ibcc::net
