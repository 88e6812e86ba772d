// The scenario reader's cc section: switch marking, CA settings per SL, the CCT, per-port
// overrides.
#include "cc/fecn_marker_regs.h"
#include "net/scenario/scenario_reader.h"

namespace ibcc::net {
namespace {

// CCTI_Timer: a count of 1.024 us units, or a time (20us) rounded to the nearest unit, the
// rounding reported in the scenario's notes.
unsigned ccti_timer_units(const Reader& rd, const YAML::Node& n, const std::string& path, std::vector<std::string>* notes) {
  const std::string v = rd.str(n, path);
  if (v.empty() || !std::isalpha(static_cast<unsigned char>(v.back()))) return static_cast<unsigned>(rd.uint(n, path, 0, 0xffff));
  const auto ps = parse_time_ps(v);
  if (!ps) rd.fail(n, path, "expected a count of 1.024 us units (0..65535) or a time with a unit (ns, us, ms), got '" + v + "'");
  constexpr double kUnitPs = 1024000.0;
  const double exact = static_cast<double>(*ps) / kUnitPs;
  const uint64_t units = static_cast<uint64_t>(std::llround(exact));
  if (units > 0xffff) {
    rd.fail(n, path, fmt::format("{} is {:.0f} units of 1.024 us; CCTI_Timer holds at most 65535 (67.1 ms)", v, exact));
  }
  if (units == 0 && *ps > 0) {
    rd.fail(n, path, fmt::format("{} rounds to 0 units of 1.024 us, which turns the timer off; give 0 for that, or at least 512ns", v));
  }
  if (notes && std::abs(exact - static_cast<double>(units)) > 1e-9) {
    notes->push_back(fmt::format("{}: {} = {:.3f} units of 1.024 us, rounded to {} ({})", path, v, exact, units,
                                 format_time_ps(units * 1024000ull)));
  }
  return static_cast<unsigned>(units);
}

SlCcSpec read_sl_settings(const Reader& rd, const YAML::Node& n, const std::string& path, SlCcSpec base,
                          std::vector<std::string>* notes) {
  if (n["ccti_timer"]) base.ccti_timer = ccti_timer_units(rd, n["ccti_timer"], path + ".ccti_timer", notes);
  if (n["ccti_increase"]) base.ccti_increase = static_cast<unsigned>(rd.uint(n["ccti_increase"], path + ".ccti_increase"));
  if (n["trigger_threshold"]) base.trigger_threshold = static_cast<unsigned>(rd.uint(n["trigger_threshold"], path + ".trigger_threshold"));
  if (n["ccti_min"]) base.ccti_min = static_cast<unsigned>(rd.uint(n["ccti_min"], path + ".ccti_min"));
  return base;
}

uint16_t cct_entry(const Reader& rd, const YAML::Node& n, const std::string& path) {
  const std::string e = rd.str(n, path);
  const auto colon = e.find(':');
  unsigned shift = 0, mult = 0;
  bool ok = colon != std::string::npos;
  if (ok) {
    try {
      size_t u1 = 0, u2 = 0;
      shift = static_cast<unsigned>(std::stoul(e.substr(0, colon), &u1));
      mult = static_cast<unsigned>(std::stoul(e.substr(colon + 1), &u2));
      ok = u1 == colon && u2 == e.size() - colon - 1;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || shift > 3 || mult > 0x3fff) {
    rd.fail(n, path, "expected SHIFT:MULTIPLIER with SHIFT 0..3 and MULTIPLIER 0..16383, got '" + e + "'");
  }
  return static_cast<uint16_t>(shift << 14 | mult);
}

}  // namespace

void read_cc(LoaderState& st, const YAML::Node& n) {
  Reader& rd = st.rd;
  CcSpec& cc = st.s->cc;
  rd.expect_map(n, "cc");
  if (n["enabled"]) cc.enabled = rd.boolean(n["enabled"], "cc.enabled");
  if (n["marking"]) cc.marking = rd.policy(n["marking"], "cc.marking", kMarkings);
  if (n["reaction"]) cc.reaction = rd.policy(n["reaction"], "cc.reaction", kReactions);
  if (const auto e = n["ecn"]) {
    rd.expect_map(e, "cc.ecn");
    if (e["kmin"]) cc.ecn.kmin_bytes = rd.bytes(e["kmin"], "cc.ecn.kmin");
    if (e["kmax"]) cc.ecn.kmax_bytes = rd.bytes(e["kmax"], "cc.ecn.kmax");
    if (e["pmax"]) cc.ecn.pmax = rd.real(e["pmax"], "cc.ecn.pmax");
    if (cc.ecn.kmax_bytes <= cc.ecn.kmin_bytes) {
      rd.fail(e["kmax"] ? e["kmax"] : e, "cc.ecn.kmax",
              fmt::format("Kmax ({} bytes) must exceed Kmin ({} bytes)", cc.ecn.kmax_bytes, cc.ecn.kmin_bytes));
    }
  }
  if (const auto nv = n["nvidia"]) {
    rd.expect_map(nv, "cc.nvidia");
    NvidiaMarkingSpec& m = cc.nvidia;
    if (nv["aqs_weight"]) m.aqs_weight = static_cast<unsigned>(rd.uint(nv["aqs_weight"], "cc.nvidia.aqs_weight"));
    if (nv["aqs_time"]) {
      m.aqs_time_ps = rd.time_ps(nv["aqs_time"], "cc.nvidia.aqs_time");
      if (m.aqs_time_ps == 0) rd.fail(nv["aqs_time"], "cc.nvidia.aqs_time", "expected a time above 0 (one averaging sample per this)");
    }
    // A profile's keys, over `base`; max above min.
    auto profile = [&](const YAML::Node& p, const std::string& path, NvidiaProfileSpec base) {
      rd.expect_map(p, path);
      if (p["percent"]) base.percent = static_cast<unsigned>(rd.uint(p["percent"], path + ".percent"));
      if (p["min"]) base.min_bytes = rd.bytes(p["min"], path + ".min");
      if (p["max"]) base.max_bytes = rd.bytes(p["max"], path + ".max");
      if (base.max_bytes <= base.min_bytes) {
        rd.fail(p["max"] ? p["max"] : p, path + ".max",
                fmt::format("max ({} bytes) must exceed min ({} bytes)", base.max_bytes, base.min_bytes));
      }
      return base;
    };
    if (nv["profile"]) m.profile = profile(nv["profile"], "cc.nvidia.profile", m.profile);
    if (const auto vps = nv["vl_profiles"]) {
      if (!vps.IsSequence()) rd.fail(vps, "cc.nvidia.vl_profiles", "expected a list of {vl, percent, min, max}");
      for (const auto& vp : vps) {
        rd.expect_map(vp, "cc.nvidia.vl_profiles[]");
        // A data VL of this fabric (fabric.vls is read before cc).
        const auto vl = static_cast<unsigned>(rd.uint(vp["vl"], "cc.nvidia.vl_profiles[].vl", 0, st.s->fabric.vls - 1));
        for (const auto& [other, p] : m.vl_profiles) {
          if (other == vl) rd.fail(vp["vl"], "cc.nvidia.vl_profiles[].vl", fmt::format("VL {} is given twice; give each VL once", vl));
        }
        m.vl_profiles.emplace_back(vl, profile(vp, "cc.nvidia.vl_profiles[]", m.profile));
      }
    }
  }
  if (const auto d = n["dcqcn"]) {
    rd.expect_map(d, "cc.dcqcn");
    DcqcnSpec& q = cc.dcqcn;
    auto time = [&](const char* key, uint64_t* v) {
      if (d[key]) *v = rd.time_ps(d[key], std::string("cc.dcqcn.") + key);
    };
    auto rate = [&](const char* key, double* v) {
      if (d[key]) *v = rd.rate_bps(d[key], std::string("cc.dcqcn.") + key);
    };
    time("cnp_interval", &q.cnp_interval_ps);
    time("cnp_generation", &q.cnp_generation_ps);
    time("active_window", &q.active_window_ps);
    time("alpha_timer", &q.alpha_timer_ps);
    time("rate_timer", &q.rate_timer_ps);
    time("reduce_period", &q.reduce_period_ps);
    if (d["byte_counter"]) q.byte_counter_bytes = rd.bytes(d["byte_counter"], "cc.dcqcn.byte_counter");
    if (d["fast_recovery_steps"]) {
      q.fast_recovery_steps = static_cast<unsigned>(rd.uint(d["fast_recovery_steps"], "cc.dcqcn.fast_recovery_steps"));
    }
    rate("ai_rate", &q.ai_rate_bps);
    rate("hai_rate", &q.hai_rate_bps);
    rate("min_rate", &q.min_rate_bps);
    rate("increase_bound", &q.increase_bound_bps);
    rate("first_cnp_rate", &q.first_cnp_rate_bps);
    rate("max_rate", &q.max_rate_bps);
    if (d["cnp_sl"]) q.cnp_sl = static_cast<int>(rd.uint(d["cnp_sl"], "cc.dcqcn.cnp_sl"));
    time("rtt_probe_interval", &q.rtt_probe_ps);
    if (d["rtt_resp_sl"]) {
      q.rtt_resp_sl = static_cast<int>(rd.uint(d["rtt_resp_sl"], "cc.dcqcn.rtt_resp_sl"));
      // (Under another reaction the whole section is refused as that regime's, below.)
      if (q.rtt_probe_ps == 0 && cc.dcqcn_reaction()) {
        rd.fail(d["rtt_resp_sl"], "cc.dcqcn.rtt_resp_sl",
                "has no effect without RTT probes: set cc.dcqcn.rtt_probe_interval above 0s");
      }
    }
    if (d["gd_log2"]) q.gd_log2 = static_cast<unsigned>(rd.uint(d["gd_log2"], "cc.dcqcn.gd_log2"));
    if (d["min_dec_factor"]) q.min_dec_factor = rd.real(d["min_dec_factor"], "cc.dcqcn.min_dec_factor");
    if (d["g_shift"]) q.g_shift = static_cast<unsigned>(rd.uint(d["g_shift"], "cc.dcqcn.g_shift"));
    if (d["alpha_init"]) q.alpha_init = rd.real(d["alpha_init"], "cc.dcqcn.alpha_init");
    if (d["lambda"]) q.lambda = rd.real(d["lambda"], "cc.dcqcn.lambda");
    for (const char* key : {"alpha_timer", "rate_timer", "active_window"}) {
      if (d[key] && rd.time_ps(d[key], std::string("cc.dcqcn.") + key) == 0) {
        rd.fail(d[key], std::string("cc.dcqcn.") + key, "must be above 0s");
      }
    }
  }
  if (const auto sw = n["switch"]) {
    rd.expect_map(sw, "cc.switch");
    if (sw["threshold"]) cc.sw.threshold = static_cast<unsigned>(rd.uint(sw["threshold"], "cc.switch.threshold"));
    if (sw["packet_size"]) cc.sw.packet_size = static_cast<unsigned>(rd.uint(sw["packet_size"], "cc.switch.packet_size"));
    if (sw["marking_rate"]) cc.sw.marking_rate = static_cast<unsigned>(rd.uint(sw["marking_rate"], "cc.switch.marking_rate"));
    if (sw["mapping"]) cc.sw.mapping = rd.policy(sw["mapping"], "cc.switch.mapping", cc::kThresholdMappings);
    if (sw["marking_mode"]) cc.sw.marking_mode = rd.policy(sw["marking_mode"], "cc.switch.marking_mode", cc::kMarkingModes);
    if (sw["hysteresis"]) cc.sw.hysteresis = static_cast<unsigned>(rd.uint(sw["hysteresis"], "cc.switch.hysteresis"));
    if (sw["victim_mask"] && sw["victim_mask"].IsSequence()) {
      cc.sw.victim_mask_hca_ports = false;
      for (const auto& p : sw["victim_mask"]) {
        cc.sw.victim_ports.push_back(static_cast<unsigned>(rd.uint(p, "cc.switch.victim_mask[]", 0, 255)));
      }
    } else if (sw["victim_mask"]) {
      const std::string v = rd.str(sw["victim_mask"], "cc.switch.victim_mask");
      if (v == "hca_ports") cc.sw.victim_mask_hca_ports = true;
      else if (v == "none") cc.sw.victim_mask_hca_ports = false;
      else rd.fail(sw["victim_mask"], "cc.switch.victim_mask", "expected hca_ports, none or a list of port numbers, got '" + v + "'");
    }
  }
  if (const auto ports = n["ports"]) {
    if (!ports.IsSequence()) rd.fail(ports, "cc.ports", "expected a list of per-port settings");
    for (const auto& p : ports) {
      rd.expect_map(p, "cc.ports[]");
      PortCcOverride o;
      std::tie(o.switch_name, o.port) = endpoint(rd, p["port"], "cc.ports[].port");
      if (p["threshold"]) o.threshold = static_cast<unsigned>(rd.uint(p["threshold"], "cc.ports[].threshold"));
      if (p["packet_size"]) o.packet_size = static_cast<unsigned>(rd.uint(p["packet_size"], "cc.ports[].packet_size"));
      if (p["marking_rate"]) o.marking_rate = static_cast<unsigned>(rd.uint(p["marking_rate"], "cc.ports[].marking_rate"));
      if (p["victim_mask"]) o.victim_mask = rd.boolean(p["victim_mask"], "cc.ports[].victim_mask");
      o.line = rd.line_of(p);
      for (const auto& other : cc.ports) {
        if (other.switch_name == o.switch_name && other.port == o.port) {
          rd.fail(p["port"], "cc.ports[].port", fmt::format("{}/{} is given twice (first at line {}); give each port once",
                                                            o.switch_name, o.port, other.line));
        }
      }
      cc.ports.push_back(o);
    }
  }
  if (n["rtl"]) {
    for (const auto& r : rd.list(n["rtl"], "cc.rtl")) {
      cc.rtl.push_back(rd.str(r, "cc.rtl[]"));
      cc.rtl_lines.push_back(rd.line_of(r));
    }
  }
  if (const auto ca = n["ca"]) {
    rd.expect_map(ca, "cc.ca");
    if (ca["control"]) {
      cc.ca.sl_based = rd.choice(ca["control"], "cc.ca.control") == "sl";
    }
    if (ca["control_map"]) cc.ca.control_map = static_cast<unsigned>(rd.uint(ca["control_map"], "cc.ca.control_map"));
    cc.ca.sl_default = read_sl_settings(rd, ca, "cc.ca", cc.ca.sl_default, &st.s->notes);
    if (ca["ccti_limit"]) cc.ca.ccti_limit = static_cast<unsigned>(rd.uint(ca["ccti_limit"], "cc.ca.ccti_limit"));
    if (ca["ird_formula"]) cc.ca.ird_formula = rd.policy(ca["ird_formula"], "cc.ca.ird_formula", cc::kIrdFormulas);
    if (ca["num_qps"]) {
      cc.ca.num_qps = static_cast<unsigned>(rd.uint(ca["num_qps"], "cc.ca.num_qps"));
      if (cc.ca.num_qps & (cc.ca.num_qps - 1)) rd.fail(ca["num_qps"], "cc.ca.num_qps", "expected a power of two");
    }
    if (ca["becn"]) {
      cc.ca.becn_in_ack = rd.choice(ca["becn"], "cc.ca.becn") == "ack";
    }
    if (const auto per = ca["per_sl"]) {
      if (!per.IsSequence()) rd.fail(per, "cc.ca.per_sl", "expected a list of {sl, ...}");
      for (const auto& e : per) {
        rd.expect_map(e, "cc.ca.per_sl[]");
        const unsigned sl = static_cast<unsigned>(rd.uint(e["sl"], "cc.ca.per_sl[].sl"));
        for (const auto& [other, settings] : cc.ca.per_sl) {
          if (other == sl) rd.fail(e["sl"], "cc.ca.per_sl[].sl", fmt::format("SL {} is given twice; give each SL once", sl));
        }
        cc.ca.per_sl.emplace_back(sl, read_sl_settings(rd, e, "cc.ca.per_sl[" + std::to_string(sl) + "]", cc.ca.sl_default,
                                                       &st.s->notes));
      }
    }
    if (const auto cct = ca["cct"]) {
      cc.ca.cct.clear();
      if (cct.IsSequence()) {
        for (size_t i = 0; i < cct.size(); ++i) cc.ca.cct.push_back(cct_entry(rd, cct[i], fmt::format("cc.ca.cct[{}]", i)));
        if (cc.ca.cct.empty() || cc.ca.cct.size() > 128) rd.fail(cct, "cc.ca.cct", "expected 1..128 entries");
        if (!ca["ccti_limit"]) cc.ca.ccti_limit = static_cast<unsigned>(cc.ca.cct.size() - 1);  // as OpenSM does
      } else {
        rd.expect_map(cct, "cc.ca.cct");
        if (cct["linear"] && cct["quadratic"]) rd.fail(cct, "cc.ca.cct", "give linear or quadratic, not both");
        const bool linear = static_cast<bool>(cct["linear"]);
        const auto shape = linear ? cct["linear"] : cct["quadratic"];
        const std::string p = linear ? "cc.ca.cct.linear" : "cc.ca.cct.quadratic";
        if (!shape) rd.fail(cct, "cc.ca.cct", "expected linear or quadratic");
        rd.expect_map(shape, p);
        auto u = [&](const char* key) {
          return static_cast<unsigned>(shape[key] ? rd.uint(shape[key], p + "." + key) : Reader::uint_default(p + "." + key));
        };
        const unsigned shift = u("shift"), maxm = u("max_multiplier"), entries = u("entries");
        for (unsigned i = 0; i < entries; ++i) {
          const double x = static_cast<double>(i) / (entries - 1);
          const unsigned mult = static_cast<unsigned>(maxm * (linear ? x : x * x));
          cc.ca.cct.push_back(static_cast<uint16_t>(shift << 14 | mult));
        }
        if (!ca["ccti_limit"]) cc.ca.ccti_limit = entries - 1;
      }
    }
    // CCTI_Limit is the highest valid index: beyond the table, the IRD would be read from
    // entries nobody wrote.
    const size_t entries = cc.ca.cct.empty() ? 128 : cc.ca.cct.size();
    if (cc.ca.ccti_limit >= entries) {
      rd.fail(ca["ccti_limit"] ? ca["ccti_limit"] : ca, "cc.ca.ccti_limit",
              fmt::format("CCTI_Limit {} is beyond the CCT, whose last index is {} ({} entries)", cc.ca.ccti_limit,
                          entries - 1, entries));
    }
  }
}

}  // namespace ibcc::net
