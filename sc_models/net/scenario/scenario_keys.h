// The scenario format's one key table: every key a scenario file may hold, declared once
// with its type, unit, range, default and meaning. The reader (scenario_yaml.cpp) takes its
// allowed keys and ranges from it; `ibcc keys` generates docs/configuration.md's scenario
// section and the JSON Schema (docs/scenario.schema.json) from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibcc::net {

enum class KeyType : uint8_t {
  kMap,     // a map of the keys declared under it (and under its `ref` template)
  kList,    // a list of the element declared as PATH[]
  kString,  // a name
  kUint,    // an integer in [ulo, uhi]
  kReal,    // a number in [rlo, rhi]
  kBool,    // true/false (on/off, yes/no)
  kTime,    // a time with a unit (ps ns us ms s)
  kRate,    // a rate with a unit (b/s Kb/s Mb/s Gb/s Tb/s)
  kBytes,   // a size (B KB MB KiB MiB or a bare number of bytes) in [ulo, uhi]
  kFreq,    // a frequency (Hz kHz MHz GHz) in [ulo, uhi] Hz
  kEnum,    // one of `choices` ("a|b|c")
  kForm,    // several accepted shapes, described by `form` (docs) and `schema` (JSON Schema);
            // keys declared under it are the keys of its map shape
};

struct KeyDecl {
  std::string path;     // dotted; list elements as `x[]`; shared key sets as `$name.key`
  KeyType type = KeyType::kString;
  std::string unit;     // what a bare number counts ("64-byte credits"), or ""
  uint64_t ulo = 0, uhi = UINT64_MAX;
  double rlo = 0, rhi = 0;
  std::string choices;  // kEnum: "a|b|c"
  std::string form;     // kForm (and a range that depends on other keys): the accepted values, for docs
  std::string schema;   // kForm: a JSON Schema fragment (the map shape is added from the keys under it)
  std::string dflt;     // the default as YAML text, as resolved.yaml writes it; "" = none
  std::string dflt_doc; // the default in words when it is not a fixed value ("SL mod vls")
  bool required = false;
  std::string ref;      // kMap / list element: the template ($link, $flow, $sl) whose keys it also has
  std::string meaning;  // one line (or a few) for the reference
  // The regime the key belongs to: it has an effect only while the key `only_key` resolves
  // to one of `only_values` ("a|b"); set under another value, it is an error naming the
  // regime. Keys under a map inherit its regime. Empty: every regime reads it.
  std::string only_key, only_values;
};

// The regime `path` belongs to (its own, or that of the nearest map above it): the
// declaration that carries it, or nullptr.
const KeyDecl* regime_of(const std::string& path);
// "(only with `cc.reaction: dcqcn|dcqcn_plus`)", or "" for a key every regime reads.
std::string regime_text(const KeyDecl& d);

// Every key, in the order the reference lists them.
const std::vector<KeyDecl>& scenario_keys();
// The declarations themselves (scenario_key_table.cpp), built anew on each call: use
// scenario_keys().
std::vector<KeyDecl> scenario_key_table();

// The declaration of a key as the reader names it: list indices and element names removed
// (`traffic.flows[F1].sl` -> `traffic.flows[].sl`), then looked up directly or through the
// template its parent refers to (`$flow.sl`). nullptr if the format has no such key.
const KeyDecl* find_key(const std::string& path);

// The names a map accepts: the keys declared directly under it and under its template.
std::vector<std::string> child_keys(const std::string& map_path);

// `a|b|c` -> {a, b, c}.
std::vector<std::string> split_choices(const std::string& choices);

// Generated views of the table.
std::string keys_markdown();     // the "Scenario files" tables of docs/configuration.md
std::string keys_json_schema();  // JSON Schema (draft 2020-12) of a scenario file
std::string keys_listing();      // one line per key: path, type, range, default

}  // namespace ibcc::net
