#include "net/scenario/import_nvidia_cc.h"

#include "net/scenario/import_opensm.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ibcc::net {
namespace {

const char* form_name(NvidiaForm f) {
  switch (f) {
    case NvidiaForm::kBool: return "bool";
    case NvidiaForm::kMicros: return "us";
    case NvidiaForm::kMicros1024: return "1.024us";
    case NvidiaForm::kMbps: return "Mb/s";
    case NvidiaForm::kMbpsOrLine: return "Mb/s or 0";
    case NvidiaForm::kBytes: return "bytes";
    case NvidiaForm::kCount: return "count";
    case NvidiaForm::kPercent: return "percent";
    case NvidiaForm::kAlpha1024: return "1/1024";
    case NvidiaForm::kGd: return "log2 Gd + 10";
    case NvidiaForm::kDceTcpG: return "1024 - 1024 g";
    case NvidiaForm::kClamp: return "clamp";
    case NvidiaForm::kCnpSlMode: return "cnp_sl_mode";
    case NvidiaForm::kCnpSl: return "cnp_sl";
    case NvidiaForm::kRttSlMode: return "rtt_sl_mode";
    case NvidiaForm::kRttSl: return "rtt_resp_sl";
    case NvidiaForm::kNotModelled: return "not_modelled";
  }
  return "";
}

const NvidiaField* find_field(const std::string& block, const std::string& name) {
  for (const auto& f : kNvidiaFields) {
    if (block == f.block && name == f.name) return &f;
  }
  return nullptr;
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

uint64_t number(const std::string& where, const std::string& text, uint64_t min, uint64_t max) {
  return opensm_number(where, text, min, max);
}

bool boolean(const std::string& where, const std::string& text) {
  if (text == "TRUE") return true;
  if (text == "FALSE") return false;
  throw ScenarioError(fmt::format("{}: expected TRUE or FALSE, got '{}'", where, text));
}

// "(a,b),(c,d)" as its tuples, each of `arity` fields (spaces around them allowed).
std::vector<std::vector<std::string>> tuples(const std::string& where, const std::string& text, size_t arity) {
  std::vector<std::vector<std::string>> out;
  auto fail = [&]() {
    return ScenarioError(fmt::format("{}: expected a list of ({}) tuples separated by commas, got '{}'", where,
                                     arity == 2 ? "a,b" : "a,b,c", text));
  };
  size_t at = 0;
  for (;;) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    if (at == text.size() || text[at] != '(') throw fail();
    const size_t close = text.find(')', at);
    if (close == std::string::npos) throw fail();
    const std::string inner = text.substr(at + 1, close - at - 1);
    if (inner.find('(') != std::string::npos) throw fail();
    std::vector<std::string> fields;
    std::stringstream ss(inner);
    std::string field;
    while (std::getline(ss, field, ',')) fields.push_back(trim(field));
    if (!inner.empty() && inner.back() == ',') fields.emplace_back();
    if (fields.size() != arity) {
      throw ScenarioError(fmt::format("{}: expected tuples of {} fields, got '({})'", where, arity, inner));
    }
    out.push_back(fields);
    at = close + 1;
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    if (at == text.size()) return out;
    if (text[at] != ',') throw fail();
    ++at;
  }
}

bool is_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

struct Profile {
  unsigned percent;
  uint64_t min, max;
  int line;
};

std::string profile_yaml(const Profile& p) {
  return fmt::format("percent: {}, min: {}B, max: {}B", p.percent, p.min, p.max);
}

}  // namespace

std::string nvidia_fields_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : kNvidiaFields) {
    list.push_back({{"block", f.block}, {"name", f.name}, {"form", form_name(f.form)}, {"key", f.key},
                    {"min", f.min}, {"max", f.max}, {"note", f.note}});
  }
  return list.dump(1) + "\n";
}

NvidiaImport import_nvidia_policy(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path + ": cannot open the congestion-control policy file");
  NvidiaImport imp;
  auto at = [&](int line, const std::string& what) { return fmt::format("{}:{}: {}", path, line, what); };
  imp.overrides.emplace_back("cc.marking", "nvidia", path + ": an NVIDIA congestion-control policy");
  imp.overrides.emplace_back("cc.reaction", "dcqcn", path + ": an NVIDIA congestion-control policy");

  std::string block;       // the open block ("" outside)
  int block_line = 0;
  std::set<std::string> blocks_seen;
  std::map<std::string, int> fields_seen;  // in the open block: field -> line
  bool enabled = true;
  std::string disabled_by;
  std::map<std::string, Profile> profiles;
  std::string profile_name;
  Profile profile{};
  bool have_profile = false;
  std::vector<std::pair<unsigned, std::pair<std::string, int>>> vl_map;  // (VL, (profile, line))
  std::set<uint64_t> algo_ids;
  // CNPs' and RTT responses' SL: each an SL mode and an SL (-1: not given), where they were.
  struct SlChoice {
    int mode = -1, sl = -1;
    std::string mode_where, sl_where;
  } cnp_sl, rtt_sl;
  bool in_algo = false;
  uint64_t algo_id = 0;
  std::string algo_file;

  static const std::set<std::string> kBlocks = {"sw_cc", "ca_cc", "cc_profile", "vl_profiles", "ca_algo_import"};
  std::string text;
  int n = 0;
  while (std::getline(in, text)) {
    ++n;
    for (unsigned char c : text) {
      if (c < 0x20 && c != '\t' && c != '\r') {
        throw ScenarioError(at(n, fmt::format("not a text file (byte 0x{:02x}); expected a congestion-control policy", c)));
      }
    }
    const auto hash = text.find('#');
    if (hash != std::string::npos) text = text.substr(0, hash);
    text = trim(text);
    if (text.empty()) continue;
    const auto colon = text.find(':');
    if (colon == std::string::npos) {
      // A block marker.
      const bool start = text.size() > 6 && text.compare(text.size() - 6, 6, "_start") == 0;
      const bool end = text.size() > 4 && text.compare(text.size() - 4, 4, "_end") == 0;
      const std::string name = start ? text.substr(0, text.size() - 6) : end ? text.substr(0, text.size() - 4) : text;
      if (name == "algo" && block == "ca_algo_import") {
        if (start == in_algo) throw ScenarioError(at(n, text + ": " + (start ? "algo_start inside an algo block" : "algo_end without algo_start")));
        if (end) {
          if (algo_id == 0 || algo_file.empty()) throw ScenarioError(at(n, "algo block without algo_id or algo_file_name"));
          imp.notes.push_back(at(n, fmt::format("PPCC algorithm {} ({}) read, not applied: programmable CC "
                                                "algorithms are not modelled (ibcc's reaction point is the "
                                                "DCQCN-style one of ca_cc)", algo_id, algo_file)));
          algo_id = 0;
          algo_file.clear();
        }
        in_algo = start;
        continue;
      }
      if ((!start && !end) || !kBlocks.count(name)) {
        throw ScenarioError(at(n, "'" + text + "': expected a block marker (sw_cc, ca_cc, cc_profile, vl_profiles or "
                                  "ca_algo_import, then _start or _end) or a 'field: value' line"));
      }
      if (start) {
        if (!block.empty()) throw ScenarioError(at(n, text + ": block " + block + " (line " + std::to_string(block_line) + ") is still open"));
        if (name != "cc_profile" && !blocks_seen.insert(name).second) {
          throw ScenarioError(at(n, text + ": a second " + name + " block; ibcc sets every switch and every HCA "
                                                         "alike (port groups are not modelled): give one"));
        }
        block = name;
        block_line = n;
        fields_seen.clear();
        have_profile = false;
        profile_name.clear();
        continue;
      }
      if (name != block) throw ScenarioError(at(n, text + ": no " + name + "_start open" + (block.empty() ? "" : " (open: " + block + ")")));
      if (in_algo) throw ScenarioError(at(n, text + ": algo block still open"));
      if (block == "cc_profile") {
        if (profile_name.empty() || !have_profile) throw ScenarioError(at(n, "cc_profile block without name or profile"));
        if (profiles.count(profile_name)) throw ScenarioError(at(n, "profile '" + profile_name + "' defined twice"));
        profiles[profile_name] = profile;
      }
      block.clear();
      continue;
    }
    const std::string field = trim(text.substr(0, colon));
    const std::string value = trim(text.substr(colon + 1));
    const std::string where = at(n, field);
    if (block.empty()) throw ScenarioError(where + ": outside any block (expected sw_cc_start, ca_cc_start, ...)");
    if (value.empty()) throw ScenarioError(where + ": no value");
    if (const auto [it, fresh] = fields_seen.emplace((in_algo ? "algo." : "") + field, n); !fresh) {
      throw ScenarioError(fmt::format("{}: given twice in this block (first at line {})", where, it->second));
    }
    if (field == "group") {
      const std::string want = block == "ca_cc" ? "all_cas" : "all_switches";
      if (block == "cc_profile" || block == "ca_algo_import" || value != want) {
        throw ScenarioError(where + ": '" + value + "': ibcc sets every device alike (port groups are not modelled); " +
                            (block == "cc_profile" || block == "ca_algo_import" ? "no group here" : "expected " + want));
      }
      continue;
    }
    if (block == "cc_profile") {
      if (field == "name") {
        if (!is_name(value)) throw ScenarioError(where + ": expected a name (letters, digits, _; up to 64), got '" + value + "'");
        profile_name = value;
      } else if (field == "profile") {
        const auto t = tuples(where, value, 3);
        if (t.size() != 1) throw ScenarioError(where + ": expected one (percent,min,max)");
        profile = {static_cast<unsigned>(number(where + " percent", t[0][0], 1, 100)),
                   number(where + " min", t[0][1], 0, uint64_t{1} << 40), number(where + " max", t[0][2], 1, uint64_t{1} << 40), n};
        if (profile.max <= profile.min) throw ScenarioError(where + ": max must be above min");
        have_profile = true;
      } else {
        throw ScenarioError(where + ": not a field of cc_profile (expected name, profile)");
      }
      continue;
    }
    if (block == "vl_profiles") {
      if (field != "vl_to_profile") throw ScenarioError(where + ": not a field of vl_profiles (expected group, vl_to_profile)");
      for (const auto& t : tuples(where, value, 2)) {
        const unsigned vl = static_cast<unsigned>(number(where + " VL", t[0], 0, 14));
        for (const auto& [v, _] : vl_map) {
          if (v == vl) throw ScenarioError(where + ": VL " + std::to_string(vl) + " mapped twice");
        }
        vl_map.push_back({vl, {t[1], n}});
      }
      continue;
    }
    if (block == "ca_algo_import") {
      if (!in_algo) throw ScenarioError(where + ": outside an algo block (algo_start)");
      if (field == "algo_id") {
        algo_id = number(where, value, 1, 16);
        if (!algo_ids.insert(algo_id).second) throw ScenarioError(where + ": algo_id " + value + " given twice");
      } else if (field == "algo_file_name") {
        algo_file = value;
      } else if (field == "parameters") {
        for (const auto& t : tuples(where, value, 2)) (void)number(where + " " + t[0], t[1], 0, 0xffffffff);
      } else {
        throw ScenarioError(where + ": not a field of an algo block (expected algo_id, algo_file_name, parameters)");
      }
      continue;
    }
    const NvidiaField* f = find_field(block, field);
    if (!f) {
      std::string names;
      for (const auto& g : kNvidiaFields) {
        if (block == g.block) names += (names.empty() ? "" : ", ") + std::string(g.name);
      }
      throw ScenarioError(where + ": not a field of " + block + " (expected group, " + names + ")");
    }
    if (f->form == NvidiaForm::kCnpSlMode || f->form == NvidiaForm::kRttSlMode) {
      SlChoice& c = f->form == NvidiaForm::kCnpSlMode ? cnp_sl : rtt_sl;
      c.mode = boolean(where, value) ? 1 : 0;
      c.mode_where = where;
      continue;
    }
    if (f->form == NvidiaForm::kCnpSl || f->form == NvidiaForm::kRttSl) {
      SlChoice& c = f->form == NvidiaForm::kCnpSl ? cnp_sl : rtt_sl;
      c.sl = static_cast<int>(number(where, value, f->min, f->max));
      c.sl_where = where;
      continue;
    }
    if (f->form == NvidiaForm::kBool || f->form == NvidiaForm::kClamp) {
      const bool on = boolean(where, value);
      if (f->form == NvidiaForm::kBool && !on && enabled) {
        enabled = false;
        disabled_by = where;
      }
      if (f->form == NvidiaForm::kClamp && !on) {
        imp.notes.push_back(where + ": FALSE not modelled: ibcc's reaction point sets the target rate to the current "
                                    "rate at every cut (the DCQCN paper's rule, clamp TRUE)");
      }
      continue;
    }
    const uint64_t v = number(where, value, f->min, f->max);
    const std::string origin = where;
    switch (f->form) {
      case NvidiaForm::kMicros: imp.overrides.emplace_back(f->key, fmt::format("{}us", v), origin); break;
      case NvidiaForm::kMicros1024: imp.overrides.emplace_back(f->key, fmt::format("{}ns", v * 1024), origin); break;
      case NvidiaForm::kMbps: imp.overrides.emplace_back(f->key, fmt::format("{}Mb/s", v), origin); break;
      case NvidiaForm::kMbpsOrLine:
        if (v) imp.overrides.emplace_back(f->key, fmt::format("{}Mb/s", v), origin);
        break;
      case NvidiaForm::kBytes: imp.overrides.emplace_back(f->key, fmt::format("{}B", v), origin); break;
      case NvidiaForm::kCount: imp.overrides.emplace_back(f->key, std::to_string(v), origin); break;
      case NvidiaForm::kPercent: imp.overrides.emplace_back(f->key, fmt::format("{}", static_cast<double>(v) / 100.0), origin); break;
      case NvidiaForm::kAlpha1024: imp.overrides.emplace_back(f->key, fmt::format("{}", static_cast<double>(v) / 1024.0), origin); break;
      case NvidiaForm::kGd: imp.overrides.emplace_back(f->key, std::to_string(v - 10), origin); break;
      case NvidiaForm::kDceTcpG: {
        // g = (1024 - v) / 1024; ibcc's g is 1 / 2^g_shift, g_shift 1..16: the nearest in log2.
        const double g = static_cast<double>(1024 - v) / 1024.0;
        const long shift = std::min(16L, std::max(1L, std::lround(-std::log2(g))));
        if (1024 - v != (1024u >> shift) || shift > 10) {
          imp.notes.push_back(fmt::format("{}: g = {}/1024 is not a power of two; ibcc's g is 1/2^g_shift: g_shift {} "
                                          "(1/{}) taken, the nearest", where, 1024 - v, shift, 1u << shift));
        }
        imp.overrides.emplace_back(f->key, std::to_string(shift), origin);
        break;
      }
      case NvidiaForm::kNotModelled: imp.notes.push_back(where + ": read, not applied: " + f->note); break;
      default: break;
    }
  }
  if (in.bad()) throw ScenarioError(path + ": cannot read the congestion-control policy file");
  if (!block.empty()) throw ScenarioError(fmt::format("{}:{}: {}_start: the block is never closed ({}_end)", path, block_line, block, block));
  if (blocks_seen.empty() && profiles.empty()) {
    throw ScenarioError(fmt::format("{}: no block (sw_cc, ca_cc, cc_profile, vl_profiles, ca_algo_import) in {} lines; "
                                    "expected an NVIDIA congestion-control policy file", path, n));
  }
  // An SL mode TRUE sets the key to its SL (0 if not given); an SL without it is noted. RTT
  // responses' key takes effect only with RTT probes (cc.dcqcn.rtt_probe_interval), which the
  // file does not carry: the scenario's reader refuses it without them, naming the line.
  auto apply_sl = [&](const SlChoice& c, const char* key, const char* mode, const char* what) {
    if (c.mode == 1) {
      imp.overrides.emplace_back(key, std::to_string(std::max(c.sl, 0)),
                                 c.sl_where.empty() ? c.mode_where + " (SL 0)" : c.sl_where);
    } else if (c.sl >= 0) {
      imp.notes.push_back(c.sl_where + ": read, not applied: " + mode + " is not TRUE, so " + what);
    }
  };
  apply_sl(cnp_sl, "cc.dcqcn.cnp_sl", "cnp_sl_mode", "CNPs travel on their flow's SL");
  apply_sl(rtt_sl, "cc.dcqcn.rtt_resp_sl", "rtt_sl_mode", "RTT responses travel on their probe's SL");
  imp.overrides.emplace_back("cc.enabled", enabled ? "true" : "false",
                             enabled ? path + ": enable, enable_notify and enable_react TRUE or unset" : disabled_by);
  if (const auto d = profiles.find("default"); d != profiles.end()) {
    imp.overrides.emplace_back("cc.nvidia.profile", "{" + profile_yaml(d->second) + "}",
                               fmt::format("{}:{}: profile default", path, d->second.line));
  }
  std::set<std::string> used = {"default"};
  if (!vl_map.empty()) {
    std::string list = "[";
    for (const auto& [vl, ref] : vl_map) {
      const auto p = profiles.find(ref.first);
      if (p == profiles.end()) {
        throw ScenarioError(fmt::format("{}:{}: vl_to_profile: VL {}: no cc_profile named '{}'", path, ref.second, vl, ref.first));
      }
      used.insert(ref.first);
      list += fmt::format("{}{{vl: {}, {}}}", list.size() > 1 ? ", " : "", vl, profile_yaml(p->second));
    }
    imp.overrides.emplace_back("cc.nvidia.vl_profiles", list + "]", path + ": vl_profiles");
  }
  for (const auto& [name, p] : profiles) {
    if (!used.count(name)) {
      imp.notes.push_back(fmt::format("{}:{}: profile '{}' is defined but no VL uses it (vl_to_profile)", path, p.line, name));
    }
  }
  return imp;
}

namespace {

// A value of the scenario in a field's unit, rounded; `exact` false when rounding changed it.
struct FileValue {
  uint64_t v;
  bool exact;
  std::string was;
};

FileValue to_field(const NvidiaField& f, const CcSpec& cc) {
  const DcqcnSpec& q = cc.dcqcn;
  const std::string key = f.key;
  auto rounded = [&](double x, const std::string& was) {
    const double r = std::max(static_cast<double>(f.min), std::min(static_cast<double>(f.max), std::round(x)));
    return FileValue{static_cast<uint64_t>(r), std::fabs(r - x) < 1e-9, was};
  };
  auto ps = [&](uint64_t ps_value) { return rounded(static_cast<double>(ps_value) / 1e6, fmt::format("{:g} us", ps_value / 1e6)); };
  auto mbps = [&](double bps) { return rounded(bps / 1e6, fmt::format("{:g} Mb/s", bps / 1e6)); };
  if (key == "cc.nvidia.aqs_weight") return {cc.nvidia.aqs_weight, true, ""};
  if (key == "cc.nvidia.aqs_time") return rounded(static_cast<double>(cc.nvidia.aqs_time_ps) / 1024000.0, fmt::format("{:g} us", cc.nvidia.aqs_time_ps / 1e6));
  if (key == "cc.dcqcn.rate_timer") return ps(q.rate_timer_ps);
  if (key == "cc.dcqcn.alpha_timer") return ps(q.alpha_timer_ps);
  if (key == "cc.dcqcn.reduce_period") return ps(q.reduce_period_ps);
  if (key == "cc.dcqcn.cnp_interval") return ps(q.cnp_interval_ps);
  if (key == "cc.dcqcn.byte_counter") return rounded(static_cast<double>(q.byte_counter_bytes), fmt::format("{} B", q.byte_counter_bytes));
  if (key == "cc.dcqcn.fast_recovery_steps") return rounded(q.fast_recovery_steps, std::to_string(q.fast_recovery_steps));
  if (key == "cc.dcqcn.max_rate") return q.max_rate_bps > 0 ? mbps(q.max_rate_bps) : FileValue{0, true, ""};
  if (key == "cc.dcqcn.first_cnp_rate") return q.first_cnp_rate_bps > 0 ? mbps(q.first_cnp_rate_bps) : FileValue{0, true, ""};
  if (key == "cc.dcqcn.ai_rate") return mbps(q.ai_rate_bps);
  if (key == "cc.dcqcn.hai_rate") return mbps(q.hai_rate_bps);
  if (key == "cc.dcqcn.min_rate") return mbps(q.min_rate_bps);
  if (key == "cc.dcqcn.gd_log2") return {q.gd_log2 + 10u, true, ""};
  if (key == "cc.dcqcn.min_dec_factor") return rounded(q.min_dec_factor * 100.0, fmt::format("{:g}", q.min_dec_factor));
  if (key == "cc.dcqcn.alpha_init") return rounded(q.alpha_init * 1024.0, fmt::format("{:g}", q.alpha_init));
  if (key == "cc.dcqcn.g_shift") {
    // g = 1/2^g_shift written as 1024 - 1024 g; below 1/1024 the format's smallest g.
    return q.g_shift <= 10 ? FileValue{1024u - (1024u >> q.g_shift), true, ""}
                           : FileValue{1023, false, fmt::format("g = 1/{}", 1u << q.g_shift)};
  }
  return {0, true, ""};
}

}  // namespace

std::string nvidia_policy(const CcSpec& cc) {
  std::string out =
      "# NVIDIA OpenSM congestion-control policy file, written by ibcc (docs/cc_blocks.md, \"NVIDIA's policy file\").\n"
      "# opensm.conf: mlnx_congestion_control 2 and congestion_control_policy_file <this file's path>.\n";
  auto block = [&](const char* name, const char* group) {
    out += fmt::format("{}_start\n    group: {}\n", name, group);
    for (const auto& f : kNvidiaFields) {
      if (std::string(f.block) != name || f.form == NvidiaForm::kNotModelled) continue;
      const bool cnp = f.form == NvidiaForm::kCnpSlMode || f.form == NvidiaForm::kCnpSl;
      if (cnp || f.form == NvidiaForm::kRttSlMode || f.form == NvidiaForm::kRttSl) {
        // An SL mode and its SL: TRUE and the key's SL when the key is set, else FALSE and 0.
        const int sl = cnp ? cc.dcqcn.cnp_sl : cc.dcqcn.rtt_resp_sl;
        const bool mode = f.form == NvidiaForm::kCnpSlMode || f.form == NvidiaForm::kRttSlMode;
        out += mode ? fmt::format("    {}: {}\n", f.name, sl >= 0 ? "TRUE" : "FALSE")
                    : fmt::format("    {}: {}\n", f.name, std::max(sl, 0));
        continue;
      }
      if (f.form == NvidiaForm::kBool || f.form == NvidiaForm::kClamp) {
        out += fmt::format("    {}: {}\n", f.name, f.form == NvidiaForm::kBool && !cc.enabled ? "FALSE" : "TRUE");
        continue;
      }
      const FileValue v = to_field(f, cc);
      if (!v.exact) out += fmt::format("    # {}: the scenario's {} does not fit the format; {} written\n", f.name, v.was, v.v);
      out += fmt::format("    {}: {}\n", f.name, v.v);
    }
    out += fmt::format("{}_end\n\n", name);
  };
  block("sw_cc", "all_switches");
  auto profile = [&](const std::string& name, const NvidiaProfileSpec& p) {
    out += fmt::format("cc_profile_start\n    name: {}\n    profile: ({},{},{})\ncc_profile_end\n\n", name, p.percent,
                       p.min_bytes, p.max_bytes);
  };
  profile("default", cc.nvidia.profile);
  if (!cc.nvidia.vl_profiles.empty()) {
    std::string map;
    for (const auto& [vl, p] : cc.nvidia.vl_profiles) {
      profile(fmt::format("vl{}", vl), p);
      map += fmt::format("{}({},vl{})", map.empty() ? "" : ",", vl, vl);
    }
    out += "vl_profiles_start\n    group: all_switches\n    vl_to_profile: " + map + "\nvl_profiles_end\n\n";
  }
  block("ca_cc", "all_cas");
  return out;
}

}  // namespace ibcc::net
