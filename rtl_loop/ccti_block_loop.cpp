// The Verilated CCTI block behind net::RtlCctiEngine. Compiled at run time by
// net/rtl_loop/rtl_loop.cpp, together with a Verilation of rtl/ccti_block.sv for one parameter set
// (IBCC_LOOP_* definitions), into a shared object the network model loads.
#include "Vccti_block.h"
#include "Vccti_block___024root.h"  // flow_ccti(): the flow RAM and the SL counters, observed
#include "cc/ccti_block_regs.h"     // the block's storage layout (its register map's, as the RTL's)
#include "loop_driver.h"

#include <type_traits>

namespace {

class CctiLoop final : public ibcc::loop::DrivenEngine<ibcc::net::RtlCctiEngine, Vccti_block> {
 public:
  CctiLoop() : DrivenEngine("ccti_block", IBCC_LOOP_TICK_CYCLES) {}

  void edge(const ibcc::cc::CctiBlockInputs& in) override {
    Vccti_block& m = d_.model();
    m.becn_valid_i = in.becn_valid;
    m.becn_qp_i = in.becn_qp;
    m.becn_sl_i = in.becn_sl;
    m.becn_rqpn_i = in.becn_rqpn;
    m.becn_rlid_i = in.becn_rlid;
    m.becn_llid_i = in.becn_llid;
    m.becn_st_i = in.becn_st;
    m.query_qp_i = in.query_qp & (IBCC_LOOP_QPS - 1u);
    m.query_sl_i = in.query_sl & 0xfu;
    d_.tick();
  }
  uint32_t ird() const override { return d_.model().ird_o; }
  uint32_t ccti() const override { return d_.model().ccti_o; }
  // Bit `f` of a Verilated vector: an integer up to 64 bits, 32-bit words (VlWide) beyond.
  template <typename V>
  static bool bit(const V& v, unsigned f) {
    if constexpr (std::is_integral_v<V>) {
      return (v >> f) & 1u;
    } else {
      return (v[f / 32] >> (f % 32)) & 1u;
    }
  }
  // The flow's CCTI from its RAM word as the block's CSR window computes it: word {base,
  // SL, stamp}, decayed by its SL's expiries since the stamp (modulo the stamp's width; the
  // block's scrubber keeps stamps fresh).
  uint32_t flow_ccti(unsigned f) const override {
    namespace layout = ibcc::regs::ccti_block;
    auto* r = d_.model().rootp;
    f &= IBCC_LOOP_QPS - 1u;
    if (!written(r, f)) return 0;
    constexpr unsigned kStampBits = layout::kFlowStampWidth;
    constexpr unsigned kSlBits = layout::kFlowSlWidth;
    const uint32_t w = r->ccti_block__DOT__flow_ram[f];
    const uint32_t stamp = w & ((1u << kStampBits) - 1u);
    const uint32_t sl = (w >> kStampBits) & ((1u << kSlBits) - 1u);
    const uint32_t base = w >> (kStampBits + kSlBits);
    const uint32_t age = (r->ccti_block__DOT__expiries_sl_q[sl] - stamp) & ((1u << kStampBits) - 1u);
    return ibcc::cc::decayed_ccti(base, age, r->ccti_block__DOT__u_regs__DOT__ca_sl_min_ccti_min_q[sl]);
  }
  // Written since reset: its group valid and, beyond WRITTEN_FLOP_QPS, its bit in the group's
  // word (up to it, a group is one flow). A template so that the RAM's member is named only
  // where the block has it.
  template <typename Root>
  static bool written(const Root* r, unsigned f) {
    namespace layout = ibcc::regs::ccti_block;
    if constexpr (IBCC_LOOP_QPS > layout::kWrittenFlopQps) {
      constexpr unsigned kGroupBits = layout::kWrittenGroupBits;
      if (!bit(r->ccti_block__DOT__group_valid_q, f >> kGroupBits)) return false;
      return (r->ccti_block__DOT__written_ram[f >> kGroupBits] >> (f & ((1u << kGroupBits) - 1u))) & 1u;
    } else {
      return bit(r->ccti_block__DOT__group_valid_q, f);
    }
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) ibcc::net::RtlCctiEngine* ibcc_rtl_ccti_new() {
  return new CctiLoop();
}
