// The congestion-control options of an OpenSM configuration (opensm.conf), with OpenSM's
// semantics (../shared/notes/IBCC_SPEC.md section 5), as overrides of a scenario's `cc` keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/scenario/scenario_yaml.h"

namespace ibcc::net {

// The congestion-control options of opensm.conf and what each sets in a scenario: the one
// description the reader (import_opensm_conf) reads with and `ibcc tune` writes its chosen
// configuration with (`ibcc keys --opensm` prints it as JSON).
enum class OpenSmForm {
  kEnable,       // TRUE or FALSE: `key`
  kSwitchMap,    // the switch Control_Map: which switch options OpenSM applies (their `map_bit`)
  kSwitch,       // a switch number 0..max, applied when its Control_Map bit is set (unset: 0)
  kVictimMask,   // a 256-bit port mask, applied when its Control_Map bit is set
  kPortControl,  // bit 0: per-SL (`sl`) or per-QP (`qp`) control
  kCaMap,        // the CA Control_Map: the SLs with CC on (0..max)
  kPerSl,        // "<SL> <value>" lines: the `key` field of cc.ca.per_sl, 0..max, unset SLs 0
  kCct,          // SHIFT:MULTIPLIER entries, up to `max`; CCTI_Limit = entries - 1
  kNotModelled,  // read and checked for a value, not applied: `note` says why
};

struct OpenSmOption {
  const char* name;
  OpenSmForm form;
  const char* key;  // the scenario key it sets (kPerSl: the per_sl field), "" if none
  uint64_t max;     // the largest value (kCct: entries)
  int map_bit;      // kSwitch, kVictimMask: the switch Control_Map bit; -1 otherwise
  const char* note;
};

inline constexpr OpenSmOption kOpenSmOptions[] = {
    {"congestion_control", OpenSmForm::kEnable, "cc.enabled", 1, -1, ""},
    {"cc_sw_cong_setting_control_map", OpenSmForm::kSwitchMap, "", 0xffffffffu, -1, ""},
    {"cc_sw_cong_setting_victim_mask", OpenSmForm::kVictimMask, "cc.switch.victim_mask", 0, 0, ""},
    {"cc_sw_cong_setting_credit_mask", OpenSmForm::kNotModelled, "", 0, -1,
     "credit starvation is not modelled (read, not applied)"},
    {"cc_sw_cong_setting_threshold", OpenSmForm::kSwitch, "cc.switch.threshold", 15, 2, ""},
    {"cc_sw_cong_setting_packet_size", OpenSmForm::kSwitch, "cc.switch.packet_size", 255, 2, ""},
    {"cc_sw_cong_setting_credit_starvation_threshold", OpenSmForm::kNotModelled, "", 0, -1,
     "credit starvation is not modelled (read, not applied)"},
    {"cc_sw_cong_setting_credit_starvation_return_delay", OpenSmForm::kNotModelled, "", 0, -1,
     "credit starvation is not modelled (read, not applied)"},
    {"cc_sw_cong_setting_marking_rate", OpenSmForm::kSwitch, "cc.switch.marking_rate", 0xffff, 4, ""},
    {"cc_ca_cong_setting_port_control", OpenSmForm::kPortControl, "cc.ca.control", 0xffff, -1, ""},
    {"cc_ca_cong_setting_control_map", OpenSmForm::kCaMap, "cc.ca.control_map", 0xffff, -1, ""},
    {"cc_ca_cong_setting_ccti_timer", OpenSmForm::kPerSl, "ccti_timer", 0xffff, -1, ""},
    {"cc_ca_cong_setting_ccti_increase", OpenSmForm::kPerSl, "ccti_increase", 0xff, -1, ""},
    {"cc_ca_cong_setting_trigger_threshold", OpenSmForm::kPerSl, "trigger_threshold", 0xff, -1, ""},
    {"cc_ca_cong_setting_ccti_min", OpenSmForm::kPerSl, "ccti_min", 0xff, -1, ""},
    {"cc_cct", OpenSmForm::kCct, "cc.ca.cct", 128, -1, ""},
    {"cc_key", OpenSmForm::kNotModelled, "", 0, -1, "management only, no effect on the model"},
    {"cc_max_outstanding_mads", OpenSmForm::kNotModelled, "", 0, -1, "management only, no effect on the model"},
};

// A number of an OpenSM file: 0x-prefixed hex or decimal, within [min, max]; else
// ScenarioError "WHERE: expected a number ..." or "WHERE: out of range: expected MIN..MAX".
uint64_t opensm_number(const std::string& where, const std::string& text, uint64_t min, uint64_t max);

// kOpenSmOptions as JSON: [{"name", "form", "key", "max", "map_bit", "note"}, ...].
std::string opensm_options_json();

struct OpenSmImport {
  std::vector<Override> overrides;  // each names its origin as FILE:LINE: option
  std::vector<std::string> notes;   // options read but not modelled (management only)
};

// Reads the cc_* options and congestion_control; other OpenSM options are skipped (they
// configure the subnet manager, not CC). Malformed values: ScenarioError "FILE:LINE: option:
// expected ...".
OpenSmImport import_opensm_conf(const std::string& path);

// The same as the `cc:` section of a scenario file (ibcc import opensm).
std::string opensm_as_yaml(const OpenSmImport& imp);

}  // namespace ibcc::net
