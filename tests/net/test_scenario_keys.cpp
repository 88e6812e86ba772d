// The key table against the reader: every default the table states is what the reader uses
// when the key is absent, and every key the reader accepts is in the table.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>

#include "net/scenario/scenario_keys.h"
#include "net/scenario/scenario_yaml.h"
#include "net/scenario/units.h"

namespace ibcc::net {
namespace {

const char* kMinimal = R"(
topology:
  switches: [{name: S1, ports: 4}]
  hcas: [H1, H2]
  links: [{a: H1, b: S1/1}, {a: H2, b: S1/2}]
traffic:
  flows: [{src: H1, dst: H2}]
  patterns: [{type: ring}]
)";

// The value as the reader would take it, for comparing a default with what resolved.yaml says.
std::string normalised(const KeyDecl& d, const std::string& text) {
  switch (d.type) {
    case KeyType::kTime: return std::to_string(parse_time_ps(text).value_or(~0ull));
    case KeyType::kBytes: return std::to_string(parse_bytes(text).value_or(~0ull));
    case KeyType::kFreq: return std::to_string(parse_hz(text).value_or(~0ull));
    case KeyType::kRate: return std::to_string(parse_rate_bps(text).value_or(-1.0));
    case KeyType::kUint: return std::to_string(std::stoull(text, nullptr, 0));
    case KeyType::kReal: return std::to_string(std::stod(text));
    default: return text;
  }
}

// sim, fabric and cc are written out in full by resolved_scenario_yaml: each default of the
// table must be the value a scenario that does not give the key resolves to.
TEST(KeyTable, DefaultsAreWhatTheReaderUses) {
  const Scenario s = load_scenario_text(kMinimal, "minimal.yaml");
  // resolved.yaml holds the keys of the regimes the run uses: a key of another regime is
  // compared in the minimal scenario switched to the first regime that reads it.
  auto resolved_for = [](const KeyDecl* regime) {
    std::vector<Override> ov;
    if (regime) {
      ov.push_back(parse_override(regime->only_key + "=" + split_choices(regime->only_values).front()));
      // (output and shared buffers are a lossy switch's)
      if (regime->only_key == "fabric.switch.buffering") ov.push_back(parse_override("fabric.flow_control=none"));
      // (adaptive routing chooses among up*/down*'s ports)
      if (regime->only_key == "fabric.adaptive_routing") ov.push_back(parse_override("fabric.routing=updown"));
    }
    const Scenario r = load_scenario_text(kMinimal, "minimal.yaml", ov);
    return YAML::Load(resolved_scenario_yaml(kMinimal, "minimal.yaml", ov, r));
  };
  int compared = 0;
  for (const KeyDecl& d : scenario_keys()) {
    if (d.dflt.empty()) continue;
    std::string path = d.path;
    if (path.rfind("$sl.", 0) == 0) path = "cc.ca." + path.substr(4);
    const std::string top = path.substr(0, path.find('.'));
    if ((top != "sim" && top != "fabric" && top != "cc") || path.find('[') != std::string::npos || path[0] == '$') continue;
    // A key of a form's map shape (vl_arbitration.high_limit) is written only when that shape is used.
    const KeyDecl* parent = find_key(path.substr(0, path.rfind('.')));
    if (parent && parent->type == KeyType::kForm) continue;
    // (Recursion, not a loop over one Node variable: assigning a yaml-cpp Node writes through it.)
    std::function<YAML::Node(const YAML::Node&, const std::string&)> at = [&](const YAML::Node& m, const std::string& p) {
      const size_t dot = p.find('.');
      return dot == std::string::npos ? m[p] : at(m[p.substr(0, dot)], p.substr(dot + 1));
    };
    const YAML::Node resolved = resolved_for(regime_of(path));
    const YAML::Node n = at(resolved, path);
    ASSERT_TRUE(n.IsDefined() && n.IsScalar()) << path << " is not in resolved.yaml";
    EXPECT_EQ(normalised(d, n.as<std::string>()), normalised(d, d.dflt)) << path << ": table says " << d.dflt;
    ++compared;
  }
  EXPECT_GE(compared, 30);

  // Keys outside the resolved sections, through what the reader made of the minimal scenario.
  auto dflt = [](const std::string& p) { return find_key(p)->dflt; };
  const FlowSpec& f = s.flows.front();
  EXPECT_EQ(std::to_string(f.sl), dflt("traffic.flows[].sl"));
  EXPECT_EQ(f.message_bytes, *parse_bytes(dflt("traffic.flows[].message")));
  EXPECT_EQ(f.start_ps, *parse_time_ps(dflt("traffic.flows[].start")));
  EXPECT_EQ(f.rate_bps, 0.0) << "saturate";
  EXPECT_EQ(dflt("traffic.flows[].rate"), "saturate");
  EXPECT_EQ(std::to_string(f.qp), dflt("traffic.flows[].qp"));
  EXPECT_EQ(std::to_string(s.flows.back().outstanding), dflt("traffic.patterns[].outstanding"));
  const LinkSpec& l = s.links.front();
  EXPECT_EQ(dflt("topology.links[].width"), "4x");
  EXPECT_EQ(dflt("topology.links[].speed"), "QDR");
  EXPECT_DOUBLE_EQ(l.signal_bps, 4 * 10e9) << "4x QDR";
  EXPECT_EQ(l.propagation_ps, *parse_time_ps(dflt("topology.links[].propagation")));
}

// Every key the table declares is found by the reader's lookup, through templates too; an
// unknown key is not.
TEST(KeyTable, LookupFollowsTemplatesAndListEntries) {
  EXPECT_EQ(find_key("traffic.flows[F1].sl")->path, "$flow.sl");
  EXPECT_EQ(find_key("cc.ca.per_sl[3].ccti_timer")->path, "$sl.ccti_timer");
  EXPECT_EQ(find_key("topology.links[].speed")->path, "$link.speed");
  EXPECT_EQ(find_key("cc.switch.threshold")->uhi, 15u);
  EXPECT_EQ(find_key("cc.switch.treshold"), nullptr);
  EXPECT_EQ(find_key("traffic.flows[].outstanding"), nullptr) << "outstanding belongs to patterns only";
  for (const KeyDecl& d : scenario_keys()) {
    if (d.path.empty() || d.path[0] == '$') continue;
    EXPECT_EQ(find_key(d.path), &d) << d.path;
  }
}

// Every key of a regime (KeyDecl::only_key), set under each other choice of the key that picks
// the regime, is an error that names the regime which would read it.
TEST(KeyTable, AKeyOfAnotherRegimeIsAnErrorNamingIt) {
  int checked = 0;
  for (const KeyDecl& d : scenario_keys()) {
    const KeyDecl* regime = regime_of(d.path);
    if (!regime || d.path[0] == '$' || d.path.find('[') != std::string::npos || d.type == KeyType::kMap ||
        d.type == KeyType::kList || d.type == KeyType::kForm) {
      continue;
    }
    std::string value = d.dflt;
    if (value.empty()) value = d.type == KeyType::kRate ? "1Gb/s" : d.type == KeyType::kTime ? "1us" : "1";
    const std::vector<std::string> allowed = split_choices(regime->only_values);
    for (const std::string& other : split_choices(find_key(regime->only_key)->choices)) {
      if (std::find(allowed.begin(), allowed.end(), other) != allowed.end()) continue;
      std::vector<Override> ov{parse_override(regime->only_key + "=" + other), parse_override(d.path + "=" + value)};
      if (regime->only_key == "fabric.switch.buffering") ov.push_back(parse_override("fabric.flow_control=none"));
      if (regime->only_key == "fabric.adaptive_routing") ov.push_back(parse_override("fabric.routing=updown"));
      try {
        load_scenario_text(kMinimal, "minimal.yaml", ov);
        ADD_FAILURE() << d.path << "=" << value << " accepted with " << regime->only_key << ": " << other;
      } catch (const ScenarioError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(d.path + ": has no effect with " + regime->only_key + ": " + other), std::string::npos) << what;
        EXPECT_NE(what.find("read only with " + regime->only_key + ": " + regime->only_values), std::string::npos) << what;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 40) << "the regimes' keys under the other regimes";
}

}  // namespace
}  // namespace ibcc::net
