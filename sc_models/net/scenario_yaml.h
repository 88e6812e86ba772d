// Reading a scenario file (topologies/**/*.yaml) into a Scenario. Every error names the
// file, the line and the key, and says what was expected.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/scenario.h"

namespace ibcc::net {

// Bad input: the message is complete ("file:line: key: expected ..., got ...").
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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

// A full data packet's time at the lowest rate of the fabric (its links, fabric.hca.inject_rate
// and sink_rate), in ps: the least a deadlock timeout may be.
uint64_t slowest_packet_ps(const Scenario& s);

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

// The topology generators (topology_gen.cpp) fill switches, hcas and links of `s`.
struct ClosParams {
  unsigned leaves = 36, spines = 18, switch_ports = 36;
};
struct KaryNtreeParams {
  unsigned k = 4, n = 2;
};
struct MeshParams {
  unsigned x = 4, y = 4, hcas_per_switch = 1;
  bool torus = false;
};
// Full fat tree of `radix`-port switches in `levels` levels (m-port n-tree): 2(r/2)^L hosts,
// (2L-1)(r/2)^(L-1) switches; every switch port is used.
struct FatTreeParams {
  unsigned radix, levels;
};
void generate_fattree(const FatTreeParams& p, const LinkSpec& link, Scenario* s);
void generate_clos3(const ClosParams& p, const LinkSpec& link, Scenario* s);
void generate_kary_ntree(const KaryNtreeParams& p, const LinkSpec& link, Scenario* s);
void generate_mesh(const MeshParams& p, const LinkSpec& link, Scenario* s);

}  // namespace ibcc::net
