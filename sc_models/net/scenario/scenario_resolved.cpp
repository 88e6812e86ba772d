// The resolved scenario (resolved.yaml): the document as read, with --set applied and every
// default the reader used written in, so that a run can be repeated from it alone.
#include "net/scenario/scenario_reader.h"
#include "net/scenario/yaml_document.h"

namespace ibcc::net {

std::string resolved_scenario_yaml(const std::string& text, const std::string& name_for_errors,
                                   const std::vector<Override>& overrides, const Scenario& s) {
  return resolved_yaml_of(parse_document(text, name_for_errors), name_for_errors, overrides, s);
}

std::string resolved_yaml_of(YAML::Node root, const std::string& name_for_errors, const std::vector<Override>& overrides,
                             const Scenario& s) {
  for (const auto& o : overrides) apply_override(root, o);
  auto time = [](uint64_t ps) { return format_time_ps(ps); };
  auto rate = [](double bps) {
    const double g = bps / 1e9;
    return g * 1e9 == bps ? fmt::format("{}Gb/s", g) : fmt::format("{}b/s", bps);
  };
  auto bytes = [](uint64_t b) { return b % 1024 == 0 ? fmt::format("{}KiB", b / 1024) : fmt::format("{}", b); };
  auto flow = [](YAML::Node n) {
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  };

  YAML::Node sim(YAML::NodeType::Map);
  sim["time"] = time(s.sim.sim_time_ps);
  sim["log_interval"] = time(s.sim.log_interval_ps);
  sim["seed"] = s.sim.seed;
  sim["deadlock_timeout"] = time(s.sim.deadlock_timeout_ps);
  sim["stall_timeout"] = time(s.sim.stall_timeout_ps);
  root["sim"] = sim;

  const FabricParams& f = s.fabric;
  YAML::Node fab = root["fabric"] ? root["fabric"] : YAML::Node(YAML::NodeType::Map);
  fab["core_clock"] = fmt::format("{}Hz", f.core_clock_hz);
  fab["mtu"] = f.mtu;
  fab["vls"] = f.vls;
  YAML::Node sl2vl(YAML::NodeType::Sequence);
  for (unsigned v : f.sl_to_vl) sl2vl.push_back(v);
  fab["sl_to_vl"] = flow(sl2vl);
  fab["routing"] = f.routing;
  fab["adaptive_routing"] = f.adaptive_routing == FabricParams::AdaptiveRouting::kLeastOccupancy ? "least_occupancy"
                            : f.adaptive_routing == FabricParams::AdaptiveRouting::kBounded     ? "bounded"
                                                                                                : "static";
  fab["ar_bound"] = bytes(f.ar_bound_bytes);
  fab["flow_control"] = f.pfc ? "pfc" : f.lossy ? "none" : "credits";
  YAML::Node pfc(YAML::NodeType::Map);
  pfc["xoff"] = bytes(f.pfc_xoff_bytes);
  pfc["xon"] = bytes(f.pfc_xon_bytes);
  pfc["pause_frame"] = f.pfc_pause_bytes;
  fab["pfc"] = pfc;
  YAML::Node sw(YAML::NodeType::Map);
  sw["latency"] = time(f.switch_latency_ps);
  sw["buffer_per_vl"] = bytes(f.switch_buffer_per_vl);
  sw["crossbar_speedup"] = f.crossbar_speedup;
  sw["buffering"] = f.buffering == FabricParams::Buffering::kOutput ? "output"
                  : f.buffering == FabricParams::Buffering::kShared ? "shared" : "input";
  sw["output_buffer"] = bytes(f.switch_output_buffer);
  sw["shared_buffer"] = bytes(f.switch_shared_buffer);
  sw["fill_count"] = f.fill_from_head ? "head" : "tail";
  sw["credit_order"] = f.credit_in_order ? "in_order" : "first_fit";
  sw["input_arbitration"] = f.oldest_first ? "oldest_first" : "round_robin";
  if (f.vlarb_tables) {
    YAML::Node a(YAML::NodeType::Map);
    auto table = [&](const std::vector<std::pair<unsigned, unsigned>>& t) {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& [vl, w] : t) {
        YAML::Node e(YAML::NodeType::Sequence);
        e.push_back(vl);
        e.push_back(w);
        seq.push_back(flow(e));
      }
      return flow(seq);
    };
    if (!f.vlarb.high.empty()) a["high"] = table(f.vlarb.high);
    a["low"] = table(f.vlarb.low);
    a["high_limit"] = f.vlarb.high_limit;
    sw["vl_arbitration"] = a;
  } else {
    sw["vl_arbitration"] = "round_robin";
  }
  fab["switch"] = sw;
  YAML::Node pb(YAML::NodeType::Map);
  pb["data_header"] = f.data_header_bytes;
  pb["cnp"] = f.cnp_bytes;
  pb["ack"] = f.ack_bytes;
  fab["packet_bytes"] = pb;
  YAML::Node hca(YAML::NodeType::Map);
  hca["buffer_per_vl"] = bytes(f.hca_buffer_per_vl);
  if (f.hca_inject_bps > 0) hca["inject_rate"] = rate(f.hca_inject_bps);
  if (f.hca_sink_bps > 0) hca["sink_rate"] = rate(f.hca_sink_bps);
  if (f.sink_hiccup.period_ps) {
    YAML::Node h(YAML::NodeType::Map);
    h["period"] = time(f.sink_hiccup.period_ps);
    h["duration"] = time(f.sink_hiccup.duration_ps);
    hca["sink_hiccup"] = h;
  }
  hca["completion_latency"] = time(f.hca_completion_latency_ps);
  hca["transport"] = f.transport == FabricParams::Transport::kGbn ? "gbn"
                   : f.transport == FabricParams::Transport::kSimpleGbn ? "simple_gbn" : "none";
  hca["gbn_window"] = f.gbn_window;
  hca["send_jitter"] = time(f.hca_send_jitter_ps);
  hca["gbn_timeout"] = time(f.gbn_timeout_ps);
  fab["hca"] = hca;
  root["fabric"] = fab;

  const CcSpec& cc = s.cc;
  YAML::Node c(YAML::NodeType::Map);
  c["enabled"] = cc.enabled;
  YAML::Node csw(YAML::NodeType::Map);
  csw["threshold"] = cc.sw.threshold;
  csw["packet_size"] = cc.sw.packet_size;
  csw["marking_rate"] = cc.sw.marking_rate;
  csw["mapping"] = cc::policy_name(cc::kThresholdMappings, cc.sw.mapping);
  csw["marking_mode"] = cc::policy_name(cc::kMarkingModes, cc.sw.marking_mode);
  csw["hysteresis"] = cc.sw.hysteresis;
  if (!cc.sw.victim_ports.empty()) {
    YAML::Node vp(YAML::NodeType::Sequence);
    for (unsigned p : cc.sw.victim_ports) vp.push_back(p);
    csw["victim_mask"] = flow(vp);
  } else {
    csw["victim_mask"] = cc.sw.victim_mask_hca_ports ? "hca_ports" : "none";
  }
  c["switch"] = csw;
  if (!cc.ports.empty()) {
    YAML::Node ps(YAML::NodeType::Sequence);
    for (const auto& o : cc.ports) {
      YAML::Node e(YAML::NodeType::Map);
      e["port"] = fmt::format("{}/{}", o.switch_name, o.port);
      if (o.threshold) e["threshold"] = *o.threshold;
      if (o.packet_size) e["packet_size"] = *o.packet_size;
      if (o.marking_rate) e["marking_rate"] = *o.marking_rate;
      if (o.victim_mask) e["victim_mask"] = *o.victim_mask;
      ps.push_back(flow(e));
    }
    c["ports"] = ps;
  }
  YAML::Node ca(YAML::NodeType::Map);
  ca["control"] = cc.ca.sl_based ? "sl" : "qp";
  ca["control_map"] = fmt::format("0x{:04x}", cc.ca.control_map);
  ca["ccti_timer"] = cc.ca.sl_default.ccti_timer;
  ca["ccti_increase"] = cc.ca.sl_default.ccti_increase;
  ca["trigger_threshold"] = cc.ca.sl_default.trigger_threshold;
  ca["ccti_min"] = cc.ca.sl_default.ccti_min;
  ca["ccti_limit"] = cc.ca.ccti_limit;
  ca["ird_formula"] = cc::policy_name(cc::kIrdFormulas, cc.ca.ird_formula);
  ca["num_qps"] = cc.ca.num_qps;
  ca["becn"] = cc.ca.becn_in_ack ? "ack" : "cnp";
  if (!cc.ca.per_sl.empty()) {
    YAML::Node per(YAML::NodeType::Sequence);
    for (const auto& [sl, v] : cc.ca.per_sl) {
      YAML::Node e(YAML::NodeType::Map);
      e["sl"] = sl;
      e["ccti_timer"] = v.ccti_timer;
      e["ccti_increase"] = v.ccti_increase;
      e["trigger_threshold"] = v.trigger_threshold;
      e["ccti_min"] = v.ccti_min;
      per.push_back(flow(e));
    }
    ca["per_sl"] = per;
  }
  YAML::Node cct(YAML::NodeType::Sequence);
  for (uint16_t e : cc.ca.cct) cct.push_back(fmt::format("{}:{}", e >> 14, e & 0x3fff));
  ca["cct"] = flow(cct);
  c["ca"] = ca;
  c["marking"] = cc::policy_name(kMarkings, cc.marking);
  c["reaction"] = cc::policy_name(kReactions, cc.reaction);
  {  // (written whatever the strategies: the resolved file holds every setting)
    YAML::Node e(YAML::NodeType::Map);
    e["kmin"] = bytes(cc.ecn.kmin_bytes);
    e["kmax"] = bytes(cc.ecn.kmax_bytes);
    e["pmax"] = cc.ecn.pmax;
    c["ecn"] = e;
  }
  {
    const NvidiaMarkingSpec& m = cc.nvidia;
    YAML::Node nv(YAML::NodeType::Map);
    nv["aqs_weight"] = m.aqs_weight;
    nv["aqs_time"] = time(m.aqs_time_ps);
    auto profile = [&](const NvidiaProfileSpec& p, YAML::Node n) {
      n["percent"] = p.percent;
      n["min"] = bytes(p.min_bytes);
      n["max"] = bytes(p.max_bytes);
      return flow(n);
    };
    nv["profile"] = profile(m.profile, YAML::Node(YAML::NodeType::Map));
    if (!m.vl_profiles.empty()) {
      YAML::Node list(YAML::NodeType::Sequence);
      for (const auto& [vl, p] : m.vl_profiles) {
        YAML::Node n(YAML::NodeType::Map);
        n["vl"] = vl;
        list.push_back(profile(p, n));
      }
      nv["vl_profiles"] = list;
    }
    c["nvidia"] = nv;
  }
  {
    const DcqcnSpec& q = cc.dcqcn;
    YAML::Node d(YAML::NodeType::Map);
    d["cnp_interval"] = time(q.cnp_interval_ps);
    d["cnp_generation"] = time(q.cnp_generation_ps);
    d["active_window"] = time(q.active_window_ps);
    d["alpha_timer"] = time(q.alpha_timer_ps);
    d["rate_timer"] = time(q.rate_timer_ps);
    d["byte_counter"] = bytes(q.byte_counter_bytes);
    d["fast_recovery_steps"] = q.fast_recovery_steps;
    d["ai_rate"] = rate(q.ai_rate_bps);
    d["hai_rate"] = rate(q.hai_rate_bps);
    d["min_rate"] = rate(q.min_rate_bps);
    d["g_shift"] = q.g_shift;
    d["alpha_init"] = q.alpha_init;
    d["reduce_period"] = time(q.reduce_period_ps);
    d["lambda"] = q.lambda;
    if (q.increase_bound_bps > 0) d["increase_bound"] = rate(q.increase_bound_bps);
    if (q.cnp_sl >= 0) d["cnp_sl"] = q.cnp_sl;
    d["rtt_probe_interval"] = time(q.rtt_probe_ps);
    if (q.rtt_resp_sl >= 0) d["rtt_resp_sl"] = q.rtt_resp_sl;
    d["gd_log2"] = q.gd_log2;
    d["min_dec_factor"] = q.min_dec_factor;
    if (q.first_cnp_rate_bps > 0) d["first_cnp_rate"] = rate(q.first_cnp_rate_bps);
    if (q.max_rate_bps > 0) d["max_rate"] = rate(q.max_rate_bps);
    c["dcqcn"] = d;
  }
  if (!cc.rtl.empty()) {
    YAML::Node r(YAML::NodeType::Sequence);
    for (const auto& b : cc.rtl) r.push_back(b);
    c["rtl"] = flow(r);
  }
  root["cc"] = c;
  // Only what the run reads: the keys of the regimes it does not use are left out (read
  // back, they would be refused as having no effect).
  remove_keys_of_other_regimes(root);

  YAML::Emitter out;
  out << root;
  // CCT entries are quoted: an unquoted 3:12 is the integer 192 to a YAML 1.1 reader (PyYAML's
  // sexagesimal numbers), so other tools would misread the table.
  std::string emitted = out.c_str();
  const size_t cct_at = emitted.find("cct: [");
  if (cct_at != std::string::npos) {
    const size_t end = emitted.find(']', cct_at);
    std::string list = emitted.substr(cct_at + 6, end - cct_at - 6), quoted;
    std::stringstream entries(list);
    for (std::string e; std::getline(entries, e, ',');) {
      e.erase(0, e.find_first_not_of(" \n"));
      quoted += (quoted.empty() ? "" : ", ") + ("\"" + e + "\"");
    }
    emitted = emitted.substr(0, cct_at + 6) + quoted + emitted.substr(end);
  }
  return fmt::format("# The resolved scenario: {} with every default filled in and every override applied.\n"
                     "# sim, fabric (but link_defaults) and cc are complete; topology and traffic are as given.\n"
                     "# `ibcc run` on this file reproduces the run.\n{}\n",
                     name_for_errors, emitted);
}

}  // namespace ibcc::net
