// NVIDIA OpenSM's congestion-control policy file (`congestion_control_policy_file`, enabled
// by `mlnx_congestion_control 2` in opensm.conf) as overrides of a scenario's `cc` keys, and
// a scenario's settings written back in that format (`ibcc tune`, `ibcc describe
// --nvidia-policy-out`). docs/cc_blocks.md, "NVIDIA's policy file", states which parts of the
// format are NVIDIA's documented ones and which are our reading of its field names.
#pragma once

#include <string>
#include <vector>

#include "net/scenario/scenario.h"
#include "net/scenario/scenario_yaml.h"

namespace ibcc::net {

// How a field of the policy file is written and what it sets: the one description the
// reader and the writer follow (`ibcc keys --nvidia-cc` prints it as JSON).
enum class NvidiaForm {
  kBool,         // TRUE or FALSE: all of them TRUE is cc.enabled
  kMicros,       // whole microseconds -> a time key
  kMicros1024,   // units of 1.024 us -> a time key
  kMbps,         // Mb/s -> a rate key
  kMbpsOrLine,   // Mb/s, 0: the key unset (the line rate, or none)
  kBytes,        // bytes -> a size key
  kCount,        // an integer key as is
  kPercent,      // 0..100 -> a fraction key
  kAlpha1024,    // alpha in 1/1024 (1024 = 1.0) -> a fraction key
  kGd,           // log2(Gd) in alpha's 10 fraction bits: the key is this - 10
  kDceTcpG,      // g = (1024 - value) / 1024, a power of two -> cc.dcqcn.g_shift
  kClamp,        // TRUE or FALSE: ibcc's reaction point always clamps (Rt <- Rc at a cut)
  kCnpSlMode,    // TRUE: CNPs on cnp_sl (cc.dcqcn.cnp_sl), FALSE: on their flow's SL
  kCnpSl,        // the SL of CNPs when cnp_sl_mode is TRUE
  kRttSlMode,    // TRUE: RTT responses on rtt_resp_sl (cc.dcqcn.rtt_resp_sl), FALSE: on the probe's SL
  kRttSl,        // the SL of RTT responses when rtt_sl_mode is TRUE
  kNotModelled,  // read and checked, not applied: `note` says why
};

struct NvidiaField {
  const char* block;  // "sw_cc" or "ca_cc"
  const char* name;
  NvidiaForm form;
  const char* key;    // the scenario key, "" if none
  uint64_t min, max;  // the range in the file's units
  const char* note;
};

inline constexpr NvidiaField kNvidiaFields[] = {
    {"sw_cc", "enable", NvidiaForm::kBool, "cc.enabled", 0, 1, "the switches mark"},
    {"sw_cc", "aqs_weight", NvidiaForm::kCount, "cc.nvidia.aqs_weight", 0, 15, ""},
    {"sw_cc", "aqs_time", NvidiaForm::kMicros1024, "cc.nvidia.aqs_time", 1, 255, ""},
    {"ca_cc", "enable_notify", NvidiaForm::kBool, "cc.enabled", 0, 1, "receivers answer marks with CNPs"},
    {"ca_cc", "enable_react", NvidiaForm::kBool, "cc.enabled", 0, 1, "senders react to CNPs"},
    {"ca_cc", "enable_clamp_tgt_rate", NvidiaForm::kClamp, "", 0, 1, ""},
    {"ca_cc", "enable_clamp_tgt_rate_after_time_inc", NvidiaForm::kClamp, "", 0, 1, ""},
    {"ca_cc", "rpg_time_reset", NvidiaForm::kMicros, "cc.dcqcn.rate_timer", 1, 0xffffffff, ""},
    {"ca_cc", "rpg_byte_reset", NvidiaForm::kBytes, "cc.dcqcn.byte_counter", 0, 0xffffffff, ""},
    {"ca_cc", "rpg_threshold", NvidiaForm::kCount, "cc.dcqcn.fast_recovery_steps", 1, 64, ""},
    {"ca_cc", "rpg_max_rate", NvidiaForm::kMbpsOrLine, "cc.dcqcn.max_rate", 0, 0xffffffff, ""},
    {"ca_cc", "rpg_ai_rate", NvidiaForm::kMbps, "cc.dcqcn.ai_rate", 1, 0xffff, ""},
    {"ca_cc", "rpg_hai_rate", NvidiaForm::kMbps, "cc.dcqcn.hai_rate", 1, 0xffff, ""},
    {"ca_cc", "rpg_gd", NvidiaForm::kGd, "cc.dcqcn.gd_log2", 10, 26, ""},
    {"ca_cc", "rpg_min_dec_fac", NvidiaForm::kPercent, "cc.dcqcn.min_dec_factor", 0, 100, ""},
    {"ca_cc", "rpg_min_rate", NvidiaForm::kMbps, "cc.dcqcn.min_rate", 1, 0xffffffff, ""},
    {"ca_cc", "rate_to_set_on_first_cnp", NvidiaForm::kMbpsOrLine, "cc.dcqcn.first_cnp_rate", 0, 0xffffffff, ""},
    {"ca_cc", "initial_alpha_value", NvidiaForm::kAlpha1024, "cc.dcqcn.alpha_init", 0, 1024, ""},
    {"ca_cc", "dce_tcp_g", NvidiaForm::kDceTcpG, "cc.dcqcn.g_shift", 0, 1023, ""},
    {"ca_cc", "dce_tcp_rtt", NvidiaForm::kMicros, "cc.dcqcn.alpha_timer", 1, 0xffffffff, ""},
    {"ca_cc", "rate_reduce_monitor_period", NvidiaForm::kMicros, "cc.dcqcn.reduce_period", 0, 0xffffffff, ""},
    {"ca_cc", "min_time_between_cnps", NvidiaForm::kMicros, "cc.dcqcn.cnp_interval", 0, 0xffff, ""},
    {"ca_cc", "cnp_sl_mode", NvidiaForm::kCnpSlMode, "cc.dcqcn.cnp_sl", 0, 1, ""},
    {"ca_cc", "cnp_sl", NvidiaForm::kCnpSl, "cc.dcqcn.cnp_sl", 0, 15, ""},
    {"ca_cc", "rtt_sl_mode", NvidiaForm::kRttSlMode, "cc.dcqcn.rtt_resp_sl", 0, 1,
     "TRUE needs RTT probes (cc.dcqcn.rtt_probe_interval, which the file does not carry)"},
    {"ca_cc", "rtt_resp_sl", NvidiaForm::kRttSl, "cc.dcqcn.rtt_resp_sl", 0, 15, ""},
};

// kNvidiaFields as JSON: [{"block", "name", "form", "key", "min", "max", "note"}, ...].
std::string nvidia_fields_json();

struct NvidiaImport {
  std::vector<Override> overrides;  // each names its origin as FILE:LINE: field
  std::vector<std::string> notes;   // fields read but not applied, and values rounded
};

// Reads a policy file. Malformed or unknown lines: ScenarioError "FILE:LINE: ...".
NvidiaImport import_nvidia_policy(const std::string& path);

// The policy file that sets what `cc` says (cc.marking nvidia, cc.reaction dcqcn), as far as
// the format carries it; values the format cannot hold exactly are rounded, each with a
// comment. Reading it back gives a file identical to it.
std::string nvidia_policy(const CcSpec& cc);

}  // namespace ibcc::net
