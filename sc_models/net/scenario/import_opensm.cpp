#include "net/scenario/import_opensm.h"

#include "net/scenario/import_nvidia_cc.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ibcc::net {

uint64_t opensm_number(const std::string& where, const std::string& text, uint64_t min, uint64_t max) {
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-') {
    throw ScenarioError(fmt::format("{}: expected a number (decimal or 0x hex), got '{}'", where, text));
  }
  if (v < min || v > max) throw ScenarioError(fmt::format("{}: out of range: expected {}..{}, got {}", where, min, max, v));
  return v;
}

namespace {

struct Line {
  int number;
  std::string value;
};

// 0x-prefixed hex or decimal, 0..max.
uint64_t number(const std::string& where, const std::string& text, uint64_t max) {
  return opensm_number(where, text, 0, max);
}

// A 256-bit mask written as hex (OpenSM: "0x" followed by up to 64 hex digits); bit i = port i.
std::vector<unsigned> mask_ports(const std::string& where, std::string text) {
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) text = text.substr(2);
  if (text.empty() || text.size() > 64 || text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    throw ScenarioError(fmt::format("{}: expected a 256-bit mask as up to 64 hex digits, got '{}'", where, text));
  }
  std::vector<unsigned> ports;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned nibble = static_cast<unsigned>(std::stoul(std::string(1, text[text.size() - 1 - i]), nullptr, 16));
    for (unsigned b = 0; b < 4; ++b) {
      if (nibble >> b & 1u) ports.push_back(static_cast<unsigned>(i * 4 + b));
    }
  }
  return ports;
}

const OpenSmOption* find_option(const std::string& name) {
  for (const auto& o : kOpenSmOptions) {
    if (name == o.name) return &o;
  }
  return nullptr;
}

const char* form_name(OpenSmForm f) {
  switch (f) {
    case OpenSmForm::kEnable: return "enable";
    case OpenSmForm::kSwitchMap: return "switch_map";
    case OpenSmForm::kSwitch: return "switch";
    case OpenSmForm::kVictimMask: return "victim_mask";
    case OpenSmForm::kPortControl: return "port_control";
    case OpenSmForm::kCaMap: return "ca_map";
    case OpenSmForm::kPerSl: return "per_sl";
    case OpenSmForm::kCct: return "cct";
    case OpenSmForm::kNotModelled: return "not_modelled";
  }
  return "";
}

// NVIDIA's OpenSM: mlnx_congestion_control 2 turns its congestion control on (1: off), the
// policy file configures it; IBA A10's options (congestion_control, cc_*) beside them would
// configure a second regime.
void import_nvidia(const std::string& path, std::map<std::string, Line>& single, OpenSmImport* imp) {
  auto where = [&](const std::string& key) { return fmt::format("{}:{}: {}", path, single[key].number, key); };
  for (const auto& [key, line] : single) {
    if (key != "mlnx_congestion_control" && key != "congestion_control_policy_file" && key != "ppcc_algo_dir") {
      throw ScenarioError(fmt::format("{}:{}: {}: IBA A10 congestion control beside NVIDIA's (mlnx_congestion_control, "
                                      "congestion_control_policy_file): give one of the two", path, line.number, key));
    }
  }
  if (!single.count("mlnx_congestion_control")) {
    throw ScenarioError(where("congestion_control_policy_file") + ": without mlnx_congestion_control (2: on), NVIDIA's "
                        "OpenSM does not apply the policy file");
  }
  const uint64_t mode = number(where("mlnx_congestion_control"), single["mlnx_congestion_control"].value, 2);
  if (single.count("ppcc_algo_dir")) imp->notes.push_back(where("ppcc_algo_dir") + ": read, not applied: PPCC algorithms are not modelled");
  if (single.count("congestion_control_policy_file")) {
    std::filesystem::path policy = single["congestion_control_policy_file"].value;
    if (policy.is_relative()) policy = std::filesystem::path(path).parent_path() / policy;
    NvidiaImport nv = import_nvidia_policy(policy.string());
    imp->overrides = std::move(nv.overrides);
    imp->notes.insert(imp->notes.end(), nv.notes.begin(), nv.notes.end());
  } else {
    imp->overrides.emplace_back("cc.marking", "nvidia", where("mlnx_congestion_control"));
    imp->overrides.emplace_back("cc.reaction", "dcqcn", where("mlnx_congestion_control"));
    imp->notes.push_back(where("mlnx_congestion_control") + ": no congestion_control_policy_file: ibcc's defaults "
                         "(cc.nvidia, cc.dcqcn), NVIDIA's own are not published");
  }
  if (mode != 2) imp->overrides.emplace_back("cc.enabled", "false", where("mlnx_congestion_control") + " (2: on)");
}

}  // namespace

std::string opensm_options_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& o : kOpenSmOptions) {
    list.push_back({{"name", o.name}, {"form", form_name(o.form)}, {"key", o.key}, {"max", o.max},
                    {"map_bit", o.map_bit}, {"note", o.note}});
  }
  return list.dump(1) + "\n";
}

OpenSmImport import_opensm_conf(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path + ": cannot open the OpenSM configuration");
  std::map<std::string, Line> single;
  std::map<std::string, std::vector<Line>> per_sl;
  std::string text;
  int n = 0;
  bool any_cc = false;
  while (std::getline(in, text)) {
    ++n;
    // An opensm.conf is text: a control byte (a binary file given by mistake) is an error.
    for (unsigned char c : text) {
      if (c < 0x20 && c != '\t' && c != '\r') {
        throw ScenarioError(fmt::format("{}:{}: not a text file (byte 0x{:02x}); expected an OpenSM configuration "
                                        "(opensm.conf)", path, n, c));
      }
    }
    const auto hash = text.find('#');
    if (hash != std::string::npos) text = text.substr(0, hash);
    std::istringstream ss(text);
    std::string key;
    if (!(ss >> key)) continue;
    std::string value;
    std::getline(ss, value);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r") + 1);
    const OpenSmOption* option = find_option(key);
    const bool is_sl = option && option->form == OpenSmForm::kPerSl;
    const bool is_cc = key == "congestion_control" || key.rfind("cc_", 0) == 0;
    std::string lower_key = key;
    for (char& c : lower_key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!is_cc && (lower_key == "congestion_control" || lower_key.rfind("cc_", 0) == 0)) {
      // OpenSM's option names are case-sensitive: it would ignore this line, and so would we, silently.
      throw ScenarioError(fmt::format("{}:{}: {}: OpenSM options are lower case (OpenSM ignores this one); write {}",
                                      path, n, key, lower_key));
    }
    if (key == "mlnx_congestion_control" || key == "congestion_control_policy_file" || key == "ppcc_algo_dir") {
      // NVIDIA's OpenSM: its congestion control and the policy file that configures it.
      if (value.empty()) throw ScenarioError(fmt::format("{}:{}: {}: no value", path, n, key));
      if (const auto [at, fresh] = single.emplace(key, Line{n, value}); !fresh) {
        throw ScenarioError(fmt::format("{}:{}: {}: given twice (first at line {}); give each option once", path, n, key,
                                        at->second.number));
      }
      any_cc = true;
      continue;
    }
    if (!is_cc) continue;  // an option of the subnet manager itself
    any_cc = true;
    if (!option) {
      throw ScenarioError(fmt::format("{}:{}: {}: not a congestion-control option of OpenSM", path, n, key));
    }
    if (value.empty()) throw ScenarioError(fmt::format("{}:{}: {}: no value", path, n, key));
    if (is_sl) {
      per_sl[key].push_back({n, value});
    } else if (const auto [at, fresh] = single.emplace(key, Line{n, value}); !fresh) {
      throw ScenarioError(fmt::format("{}:{}: {}: given twice (first at line {}); give each option once", path, n, key,
                                      at->second.number));
    }
  }

  if (in.bad()) throw ScenarioError(path + ": cannot read the OpenSM configuration");
  if (!any_cc) {
    throw ScenarioError(fmt::format("{}: no congestion-control option (congestion_control, cc_*, "
                                    "mlnx_congestion_control) in {} lines; expected "
                                    "an OpenSM configuration with CC settings (opensm.conf)", path, n));
  }
  OpenSmImport imp;
  auto where = [&](const std::string& key, const Line& l) { return fmt::format("{}:{}: {}", path, l.number, key); };
  if (single.count("mlnx_congestion_control") || single.count("congestion_control_policy_file")) {
    import_nvidia(path, single, &imp);
    return imp;
  }
  auto add = [&](const std::string& key, const std::string& cc_key, const std::string& value) {
    imp.overrides.emplace_back(cc_key, value, where(key, single.at(key)));
  };
  if (single.count("congestion_control")) {
    const auto& l = single["congestion_control"];
    std::string v = l.value;
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v != "true" && v != "false") throw ScenarioError(where("congestion_control", l) + ": expected TRUE or FALSE, got '" + l.value + "'");
    add("congestion_control", "cc.enabled", v);
  }
  // Switch settings: OpenSM sets only what Control_Map selects (bit 0 Victim_Mask, bit 2
  // Threshold and Packet_Size, bit 4 Marking_Rate); unset options are 0.
  uint64_t sw_map = 0;
  if (single.count("cc_sw_cong_setting_control_map")) {
    sw_map = number(where("cc_sw_cong_setting_control_map", single["cc_sw_cong_setting_control_map"]),
                    single["cc_sw_cong_setting_control_map"].value, 0xffffffffu);
  }
  auto sw_value = [&](const std::string& key, uint64_t max) -> std::string {
    if (!single.count(key)) return "0";
    return std::to_string(number(where(key, single[key]), single[key].value, max));
  };
  // Every value is checked, applied or not: a Threshold of 16 is wrong whatever Control_Map says.
  for (const auto& o : kOpenSmOptions) {
    if (o.form != OpenSmForm::kSwitch || !single.count(o.name)) continue;
    (void)sw_value(o.name, o.max);
    if (!(sw_map >> o.map_bit & 1u)) {
      imp.notes.push_back(where(o.name, single[o.name]) + fmt::format(": not applied, Control_Map bit {} is clear", o.map_bit));
    }
  }
  for (const auto& o : kOpenSmOptions) {
    if (o.form != OpenSmForm::kSwitch || !(sw_map >> o.map_bit & 1u)) continue;
    imp.overrides.emplace_back(o.key, sw_value(o.name, o.max),
                               single.count(o.name) ? where(o.name, single[o.name])
                                                    : path + ": " + o.name + " (default 0)");
  }
  for (const auto& o : kOpenSmOptions) {
    if (o.form != OpenSmForm::kVictimMask) continue;
    if (sw_map >> o.map_bit & 1u) {
      std::vector<unsigned> ports;
      if (single.count(o.name)) ports = mask_ports(where(o.name, single[o.name]), single[o.name].value);
      std::string list = "[";
      for (size_t i = 0; i < ports.size(); ++i) list += (i ? ", " : "") + std::to_string(ports[i]);
      imp.overrides.emplace_back(o.key, list + "]", path + ": " + o.name);
    } else if (single.count(o.name)) {
      imp.notes.push_back(where(o.name, single[o.name]) + fmt::format(": not applied, Control_Map bit {} is clear", o.map_bit));
    }
  }
  for (const auto& o : kOpenSmOptions) {
    if (o.form == OpenSmForm::kNotModelled && single.count(o.name)) {
      imp.notes.push_back(where(o.name, single[o.name]) + ": " + o.note);
    }
  }
  // CA settings.
  if (single.count("cc_ca_cong_setting_port_control")) {
    const auto& l = single["cc_ca_cong_setting_port_control"];
    const uint64_t v = number(where("cc_ca_cong_setting_port_control", l), l.value, 0xffff);
    add("cc_ca_cong_setting_port_control", "cc.ca.control", (v & 1u) ? "sl" : "qp");
  }
  uint64_t ca_map = 0;
  {
    const uint64_t map = single.count("cc_ca_cong_setting_control_map")
                             ? number(where("cc_ca_cong_setting_control_map", single["cc_ca_cong_setting_control_map"]),
                                      single["cc_ca_cong_setting_control_map"].value, 0xffff)
                             : 0;
    imp.overrides.emplace_back("cc.ca.control_map", std::to_string(map), path + ": cc_ca_cong_setting_control_map");
    ca_map = map;
  }
  // "<SL> <value>" lines: every SL starts at 0 (OpenSM's default), then each line sets one.
  std::map<unsigned, std::map<std::string, uint64_t>> sls;
  std::map<std::pair<std::string, unsigned>, int> sl_lines;  // (option, SL) -> its line
  for (const auto& [key, lines] : per_sl) {
    for (const auto& l : lines) {
      std::istringstream ss(l.value);
      std::string sl_text, v_text, extra;
      if (!(ss >> sl_text >> v_text) || (ss >> extra)) {
        throw ScenarioError(where(key, l) + ": expected \"<SL> <value>\", got '" + l.value + "'");
      }
      const unsigned sl = static_cast<unsigned>(number(where(key, l) + " (SL)", sl_text, 15));
      if (const auto [at, fresh] = sl_lines.emplace(std::make_pair(key, sl), l.number); !fresh) {
        throw ScenarioError(fmt::format("{}: SL {} given twice (first at line {}); give each SL once", where(key, l), sl,
                                        at->second));
      }
      const OpenSmOption* o = find_option(key);
      sls[sl][o->key] = number(where(key, l), v_text, o->max);
    }
  }
  std::string per = "[";
  for (unsigned sl = 0; sl < 16; ++sl) {
    per += fmt::format("{}{{sl: {}", sl ? ", " : "", sl);
    for (const auto& o : kOpenSmOptions) {
      if (o.form == OpenSmForm::kPerSl) per += fmt::format(", {}: {}", o.key, sls[sl].count(o.key) ? sls[sl][o.key] : 0);
    }
    per += "}";
  }
  imp.overrides.emplace_back("cc.ca.per_sl", per + "]", path + ": cc_ca_cong_setting_* per-SL lines");
  // An SL with CC on whose CCTI never rises or never falls is almost certainly a missing line.
  for (unsigned sl = 0; sl < 16; ++sl) {
    if (!((ca_map >> sl) & 1u)) continue;
    const bool no_increase = !sls[sl].count("ccti_increase") || sls[sl]["ccti_increase"] == 0;
    const bool no_timer = !sls[sl].count("ccti_timer") || sls[sl]["ccti_timer"] == 0;
    if (no_increase) {
      imp.notes.push_back(fmt::format("{}: SL {} has CC enabled (cc_ca_cong_setting_control_map) but CCTI_Increase 0: "
                                      "its flows are never throttled", path, sl));
    }
    if (no_timer) {
      imp.notes.push_back(fmt::format("{}: SL {} has CC enabled (cc_ca_cong_setting_control_map) but CCTI_Timer 0: "
                                      "a throttled flow never recovers", path, sl));
    }
  }
  if (single.count("cc_cct")) {
    const auto& l = single["cc_cct"];
    std::string list = "[";
    std::stringstream ss(l.value);
    std::string entry;
    unsigned count = 0;
    while (std::getline(ss, entry, ',')) {
      entry.erase(0, entry.find_first_not_of(" \t"));
      entry.erase(entry.find_last_not_of(" \t") + 1);
      const auto colon = entry.find(':');
      bool ok = colon != std::string::npos;
      try {
        ok = ok && number("", entry.substr(0, colon), 3) <= 3 && number("", entry.substr(colon + 1), 0x3fff) <= 0x3fff;
      } catch (const ScenarioError&) {
        ok = false;
      }
      if (!ok) {
        throw ScenarioError(fmt::format("{}: entry {} '{}': expected SHIFT:MULTIPLIER with SHIFT 0..3 and MULTIPLIER "
                                        "0..16383", where("cc_cct", l), count, entry));
      }
      list += (count ? ", \"" : "\"") + entry + "\"";
      ++count;
    }
    if (count == 0 || count > find_option("cc_cct")->max) {
      throw ScenarioError(fmt::format("{}: expected 1..{} entries shift:multiplier, got {}", where("cc_cct", l),
                                      find_option("cc_cct")->max, count));
    }
    add("cc_cct", "cc.ca.cct", list + "]");
    add("cc_cct", "cc.ca.ccti_limit", std::to_string(count - 1));  // OpenSM: CCTI_Limit = entries - 1
  }
  return imp;
}

std::string opensm_as_yaml(const OpenSmImport& imp) {
  // Group the overrides into the nested cc: map, in a readable order.
  std::string out = "# From an OpenSM configuration by `ibcc import opensm`\n";
  for (const auto& n : imp.notes) out += "# note: " + n + "\n";
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> sections;
  std::vector<std::pair<std::string, std::string>> top;  // cc.enabled, cc.marking, cc.reaction
  for (const auto& o : imp.overrides) {
    const auto dot = o.key.find('.', 3);
    if (dot == std::string::npos) {
      top.emplace_back(o.key.substr(3), o.value);
      continue;
    }
    sections[o.key.substr(3, dot - 3)].emplace_back(o.key.substr(dot + 1), o.value);
  }
  out += "cc:\n";
  for (const auto& [k, v] : top) out += "  " + k + ": " + v + "\n";
  for (const auto& [section, kvs] : sections) {
    out += "  " + section + ":\n";
    for (const auto& [k, v] : kvs) out += "    " + k + ": " + v + "\n";
  }
  return out;
}

}  // namespace ibcc::net
