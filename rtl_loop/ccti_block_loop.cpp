// The Verilated CCTI block behind net::RtlCctiEngine. Compiled at run time by
// net/rtl_loop.cpp, together with a Verilation of rtl/ccti_block.sv for one parameter set
// (IBCC_LOOP_* definitions), into a shared object the network model loads.
#include "Vccti_block.h"
#include "loop_driver.h"

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
    d_.tick();
  }
  uint32_t ird_next(uint32_t qp, uint32_t sl) override {
    query(qp, sl);
    return d_.model().ird_next_o;
  }
  uint32_t ccti_next(uint32_t qp, uint32_t sl) override {
    query(qp, sl);
    return d_.model().ccti_next_o;
  }

 private:
  // The lookahead outputs are combinational in the query inputs: set them and settle.
  void query(uint32_t qp, uint32_t sl) {
    Vccti_block& m = d_.model();
    const uint32_t q = qp & (IBCC_LOOP_QPS - 1u);
    if (m.query_qp_i != q || m.query_sl_i != (sl & 0xfu)) {
      m.query_qp_i = q;
      m.query_sl_i = sl & 0xfu;
      m.eval();
    }
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) ibcc::net::RtlCctiEngine* ibcc_rtl_ccti_new() {
  return new CctiLoop();
}
