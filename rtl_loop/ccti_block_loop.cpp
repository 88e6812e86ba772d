// The Verilated CCTI block behind net::RtlCctiEngine. Compiled at run time by
// net/rtl_loop.cpp, together with a Verilation of rtl/ccti_block.sv for one parameter set
// (IBCC_LOOP_* definitions), into a shared object the network model loads.
#include "Vccti_block.h"
#include "loop_driver.h"
#include "net/rtl_engine.h"

namespace {

class CctiLoop final : public ibcc::net::RtlCctiEngine {
 public:
  CctiLoop() : d_("ccti_block", IBCC_LOOP_TICK_CYCLES) {}

  bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) override { return d_.write_csr(addr, wdata, wstrb); }
  void align_timebase() override { d_.align_timebase(); }
  void open_trace(const char* path, uint64_t edge0, uint64_t period_ps, uint64_t from, uint64_t to) override {
    d_.open_trace(path, edge0, period_ps, from, to);
  }
  void close() override { d_.close(); }

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
  ibcc::loop::LoopDriver<Vccti_block> d_;

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
