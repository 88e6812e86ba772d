// Reading a scenario file (topologies/**/*.yaml) into a Scenario. Every error names the
// file, the line and the key, and says what was expected.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/scenario/scenario.h"

namespace ibcc::net {

// `key=value` overrides applied to the YAML tree before it is read (ibcc run --set):
// key is a dotted path (cc.switch.threshold), value is parsed as YAML.
struct Override {
  Override(std::string k, std::string v, std::string o = {})
      : key(std::move(k)), value(std::move(v)), origin(std::move(o)) {}
  std::string key;
  std::string value;
  std::string origin;  // how the user gave it, for messages (default "--set KEY=VALUE")
};

// "KEY=VALUE" as the command line gives it (--set); ScenarioError if there is no '=' or key.
Override parse_override(const std::string& key_equals_value);

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});


// A scenario's text parsed once (one YAML document, no key twice in a map), to read and then
// to write resolved from the same parse: a big scenario (10^5 flows) spends most of its
// set-up in the YAML parser. load() checks the file's own values, then applies the overrides
// to the document and reads it; resolved_yaml() writes the resolved sections into the
// document and emits it, so call it last.
class ScenarioDocument {
 public:
  ScenarioDocument(const std::string& text, const std::string& name_for_errors);
  ~ScenarioDocument();
  ScenarioDocument(const ScenarioDocument&) = delete;
  ScenarioDocument& operator=(const ScenarioDocument&) = delete;
  Scenario load(const std::vector<Override>& overrides = {});
  std::string resolved_yaml(const std::vector<Override>& overrides, const Scenario& s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// The scenario file's text with the overrides applied and its sim, fabric and cc sections
// written out in full from `s` (what load_scenario made of them, defaults included): a
// scenario that loads to the same settings (ibcc describe; resolved.yaml of every run).
std::string resolved_scenario_yaml(const std::string& text, const std::string& name_for_errors,
                                   const std::vector<Override>& overrides, const Scenario& s);
// The whole text of a file, or ScenarioError naming it.
std::string read_text_file(const std::string& path, const std::string& what);
Scenario load_scenario_text(const std::string& text, const std::string& name_for_errors,
                            const std::vector<Override>& overrides = {});

}  // namespace ibcc::net
