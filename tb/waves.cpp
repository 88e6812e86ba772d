// Waveform directory and GTKWave save files: one for the RTL's FST, one for the reference's
// VCD, both grouped the way one debugs the block, with the marker on the first mismatch.
#include "tb/waves.h"

#include "cc/ccti_block_regs.h"
#include "cc/fecn_marker_regs.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ibcc::tb {

namespace {

constexpr unsigned kHex = kGtkwHex;
constexpr unsigned kDec = kGtkwDec;
constexpr unsigned kBin = kGtkwBin;

}  // namespace

void make_wave_dir(const std::string& dir) { std::filesystem::create_directories(dir); }

size_t count_signals(const std::vector<WaveGroup>& groups) {
  size_t n = 0;
  for (const auto& g : groups) n += g.signals.size();
  return n;
}

std::vector<WaveGroup> axil_group(const std::string& extra_prefix, bool rtl, unsigned addr_bits) {
  const std::string a = fmt::format("[{}:0]", addr_bits - 1);
  WaveGroup g{"Bus (AXI4-Lite)", {}};
  for (const char* s : {"s_axil_awvalid_i", "s_axil_awready_o"}) g.signals.push_back({s, kBin});
  g.signals.push_back({"s_axil_awaddr_i" + a, kHex});
  for (const char* s : {"s_axil_wvalid_i", "s_axil_wready_o"}) g.signals.push_back({s, kBin});
  g.signals.push_back({"s_axil_wdata_i[31:0]", kHex});
  g.signals.push_back({"s_axil_wstrb_i[3:0]", kBin});
  for (const char* s : {"s_axil_bvalid_o", "s_axil_bready_i"}) g.signals.push_back({s, kBin});
  g.signals.push_back({"s_axil_bresp_o[1:0]", kDec});
  for (const char* s : {"s_axil_arvalid_i", "s_axil_arready_o"}) g.signals.push_back({s, kBin});
  g.signals.push_back({"s_axil_araddr_i" + a, kHex});
  for (const char* s : {"s_axil_rvalid_o", "s_axil_rready_i"}) g.signals.push_back({s, kBin});
  g.signals.push_back({"s_axil_rdata_o[31:0]", kHex});
  g.signals.push_back({"s_axil_rresp_o[1:0]", kDec});
  if (rtl) {
    for (auto s : {"reg_we", "reg_werror", "reg_re", "reg_rerror"}) g.signals.push_back({extra_prefix + s, kBin});
    g.signals.push_back({extra_prefix + "reg_waddr" + a, kHex});
    g.signals.push_back({extra_prefix + "reg_raddr" + a, kHex});
    g.signals.push_back({extra_prefix + "reg_rdata[31:0]", kHex});
  }
  return {g};
}

std::vector<WaveGroup> fecn_groups(bool rtl, unsigned num_inputs, unsigned num_vls, unsigned fill_width) {
  // The reference traces its ports and mirrored register state at the RTL's widths.
  auto r = [](const std::string& name, unsigned bits) { return name + "[" + std::to_string(bits - 1) + ":0]"; };
  const auto& w = r;
  // A generate scope is g[i] in the RTL's FST and g(i) in SystemC's VCD.
  auto idx = [rtl](unsigned i) { return rtl ? fmt::format("[{}]", i) : fmt::format("({})", i); };
  std::vector<WaveGroup> g;
  const std::vector<std::pair<std::string, std::string>> mappings = {{"0", "per_voq"}, {"1", "sum"},
                                                                      {"2", "sum_div_ports"}};
  g.push_back({"Config", {{r("threshold", 4), kDec}, {r("packet_size", 8), kDec}, {r("marking_rate", 16), kDec},
                          {r("mapping_q", 2), kDec, {}, mappings}, {"marking_mode_q", kDec},
                          {r("hysteresis_q", 4), kDec}, {r("capacity_q", fill_width), kDec}, {"victim_mask_q", kBin}}});
  g.push_back({"Inputs", {{"pkt_valid_i", kBin}, {w("pkt_vl_i", 4), kDec}, {w("pkt_sl_i", 4), kDec},
                          {w("pkt_len_i", 8), kDec}, {w("pkt_slid_i", 16), kHex}, {w("pkt_dlid_i", 16), kHex}}});
  // The fill and credit buses split per input and VL, as registered at the last edge.
  WaveGroup fills{"VoQ fills (input, VL)", {}};
  for (unsigned p = 0; p < num_inputs; ++p) {
    for (unsigned v = 0; v < num_vls; ++v) {
      fills.signals.push_back({r("g_fill_in" + idx(p) + ".g_vl" + idx(v) + ".fill", fill_width), kDec,
                               fmt::format("fill in{} vl{}[{}:0]", p, v, fill_width - 1), {}, 2});
    }
  }
  g.push_back(fills);
  WaveGroup credits{"Credits (VL)", {}};
  for (unsigned v = 0; v < num_vls; ++v) {
    credits.signals.push_back({r("g_credits" + idx(v) + ".credits", fill_width), kDec,
                               fmt::format("credits vl{}[{}:0]", v, fill_width - 1), {}, 2});
  }
  g.push_back(credits);
  WaveGroup state{"Congestion state", {}};
  if (rtl) {
    state.signals = {{"enter_level[4:0]", kDec}, {"exit_level[4:0]", kDec}, {r("cong_d", num_vls), kBin, {}, vl_mask_names(num_vls)}};
  }
  state.signals.push_back({r("cong_state_o", num_vls), kBin, {}, vl_mask_names(num_vls)});
  g.push_back(state);
  WaveGroup fecn{"FECN", {}};
  if (rtl) fecn.signals = {{"eligible", kBin}, {"mark", kBin}};
  for (unsigned v = 0; v < num_vls; ++v) {
    fecn.signals.push_back({rtl ? fmt::format("skip_q[{}][16:0]", v) : fmt::format("skip_q({})[16:0]", v), kDec});
  }
  fecn.signals.push_back({r("lfsr_q", 16), kHex});
  fecn.signals.push_back({"fecn_valid_o", kBin});
  fecn.signals.push_back({"fecn_mark_o", kBin});
  fecn.signals.push_back({r("pkts_marked_q", 32), kDec});
  fecn.signals.push_back({rtl ? "u_log.count_q[3:0]" : "log_count_q[3:0]", kDec});
  fecn.signals.push_back({r("timestamp", 32), kDec});
  g.push_back(fecn);
  // What one debugs a marking decision with on top: the marks, the congestion state, then
  // the fills and credits it follows from; the configuration and the bus below.
  g = {g[5], g[4], g[2], g[3], g[1], g[0]};
  for (auto& b : axil_group("", rtl, regs::fecn_marker::kAddrWidth)) g.push_back(b);
  return g;
}

std::vector<WaveGroup> ccti_groups(bool rtl, unsigned traced_flows, unsigned qp_bits) {
  // The reference traces its ports and mirrored register state at the RTL's widths.
  auto r = [](const std::string& name, unsigned bits) { return name + "[" + std::to_string(bits - 1) + ":0]"; };
  const auto& w = r;
  std::vector<WaveGroup> g;
  WaveGroup config{"Config", {{"sl_based_q", kBin}}};
  if (rtl) {
    config.signals.push_back({"control_map_q[15:0]", kBin});
    config.signals.push_back({"cct_limit_q[15:0]", kDec});
    config.signals.push_back({"ird_formula_q", kBin});
    config.signals.push_back({"mtu_cycles_q[15:0]", kDec});
  }
  config.signals.push_back({r("limit", 7), kDec});
  g.push_back(config);
  g.push_back({"Inputs", {{"becn_valid_i", kBin}, {w("becn_qp_i", qp_bits), kDec}, {w("becn_sl_i", 4), kDec},
                          {w("becn_rqpn_i", 24), kHex}, {w("becn_rlid_i", 16), kHex}, {w("becn_llid_i", 16), kHex},
                          {w("query_qp_i", qp_bits), kDec}, {w("query_sl_i", 4), kDec}}});
  WaveGroup timers{"Per-SL timers", {}};
  if (rtl) timers.signals.push_back({"tick", kBin});
  timers.signals.push_back({r("timer_running_q", 16), kBin});
  timers.signals.push_back({w("timer_expired_o", 16), kBin});
  for (unsigned s = 0; s < 16; ++s) {
    timers.signals.push_back({rtl ? fmt::format("timer_count_q[{}][15:0]", s) : fmt::format("timer_count_q({})[15:0]", s), kDec});
  }
  g.push_back(timers);
  WaveGroup ccti{"CCTI", {}};
  for (unsigned f = 0; f < traced_flows; ++f) {
    ccti.signals.push_back({rtl ? fmt::format("flow_ccti[{}][6:0]", f) : fmt::format("flow_ccti({})[6:0]", f), kDec});
  }
  if (rtl) {
    ccti.signals.push_back({"becn_in_q", kBin});  // the BECN registered at the last edge
    ccti.signals.push_back({w("becn_flow_q", qp_bits), kDec});
    ccti.signals.push_back({"becn_next[6:0]", kDec});
  }
  ccti.signals.push_back({"trigger_event_o", kBin});
  ccti.signals.push_back({rtl ? "u_log.count_q[3:0]" : "log_count_q[3:0]", kDec});
  ccti.signals.push_back({r("timestamp", 32), kDec});
  g.push_back(ccti);
  WaveGroup ird{"IRD", {}};
  if (rtl) ird.signals.push_back({"query_index[6:0]", kDec});
  ird.signals.push_back({w("ccti_o", 16), kDec});
  ird.signals.push_back({"ird_o[31:0]", kDec});
  g.push_back(ird);
  // On top: the CCTIs and the BECNs that raise them, the IRD they select, the timers that
  // lower them; the inputs and configuration below.
  g = {g[3], g[4], g[2], g[1], g[0]};
  for (auto& b : axil_group("", rtl, regs::ccti_block::kAddrWidth)) g.push_back(b);
  return g;
}

void write_block_gtkw(const std::string& dir, const std::string& block, const std::vector<WaveGroup>& rtl,
                      const std::vector<WaveGroup>& ref, const WaveMarker& marker) {
  const std::string top = block == "fecn" ? "fecn_marker" : "ccti_block";
  write_gtkw(dir + "/" + block + "_rtl.gtkw", dir + "/" + block + "_rtl.fst", rtl,
             block + "_tb.rtl." + top + ".", marker, "ibcc cosim");
  write_gtkw(dir + "/" + block + "_ref.gtkw", dir + "/" + block + "_ref.vcd", ref,
             "SystemC." + block + "_tb.ref.", marker, "ibcc cosim");
}

}  // namespace ibcc::tb
