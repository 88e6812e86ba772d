// The Verilated RTL behind the Verilator-free API of rtl_models.h. Compiled inside each
// Verilated library target (real RTL, mutants, coverage build), where VM_SC is defined.
#include <verilated.h>
#include <verilated_fst_sc.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include "Vccti_block.h"
#include "Vfecn_marker.h"
#include "tb/rtl_models.h"

#ifndef IBCC_RTL_VARIANT
#define IBCC_RTL_VARIANT "rtl"
#endif

namespace ibcc::tb {

namespace {

template <typename V>
class VerilatedModel : public RtlModel {
 public:
  explicit VerilatedModel(const char* name) {
    Verilated::traceEverOn(true);
    dut_ = std::make_unique<V>(name);
  }
  ~VerilatedModel() override { close_trace(); }

  void open_trace(const std::string& fst_path) override {
    trace_ = std::make_unique<VerilatedFstSc>();
    dut_->trace(trace_.get(), 99);
    trace_->open(fst_path.c_str());
  }
  void close_trace() override {
    if (trace_) {
      trace_->close();
      trace_.reset();
    }
  }

  V& dut() { return *dut_; }

 private:
  std::unique_ptr<V> dut_;
  std::unique_ptr<VerilatedFstSc> trace_;
};

template <typename V>
void bind_axil(V& d, const sc::AxilMasterSignals& cm, sc::AxilSlaveSignals& s) {
  auto& m = const_cast<sc::AxilMasterSignals&>(cm);
  d.s_axil_awvalid_i(m.awvalid);
  d.s_axil_awaddr_i(m.awaddr);
  d.s_axil_wvalid_i(m.wvalid);
  d.s_axil_wdata_i(m.wdata);
  d.s_axil_wstrb_i(m.wstrb);
  d.s_axil_bready_i(m.bready);
  d.s_axil_arvalid_i(m.arvalid);
  d.s_axil_araddr_i(m.araddr);
  d.s_axil_rready_i(m.rready);
  d.s_axil_awready_o(s.awready);
  d.s_axil_wready_o(s.wready);
  d.s_axil_bvalid_o(s.bvalid);
  d.s_axil_bresp_o(s.bresp);
  d.s_axil_arready_o(s.arready);
  d.s_axil_rvalid_o(s.rvalid);
  d.s_axil_rdata_o(s.rdata);
  d.s_axil_rresp_o(s.rresp);
}

}  // namespace

std::unique_ptr<RtlModel> make_fecn_rtl(const char* name, const FecnSignals& s) {
  auto model = std::make_unique<VerilatedModel<Vfecn_marker>>(name);
  Vfecn_marker& d = model->dut();
  d.clk_i(*s.clk);
  d.rst_ni(*s.rst_n);
  d.voq_fill_i(*s.voq_fill);
  d.credits_i(*s.credits);
  d.pkt_valid_i(*s.pkt_valid);
  d.pkt_vl_i(*s.pkt_vl);
  d.pkt_sl_i(*s.pkt_sl);
  d.pkt_slid_i(*s.pkt_slid);
  d.pkt_dlid_i(*s.pkt_dlid);
  d.pkt_len_i(*s.pkt_len);
  d.cong_state_o(*s.cong_state);
  d.fecn_valid_o(*s.fecn_valid);
  d.fecn_mark_o(*s.fecn_mark);
  bind_axil(d, *s.axil_in, *s.axil_out);
  return model;
}

std::unique_ptr<RtlModel> make_ccti_rtl(const char* name, const CctiSignals& s) {
  auto model = std::make_unique<VerilatedModel<Vccti_block>>(name);
  Vccti_block& d = model->dut();
  d.clk_i(*s.clk);
  d.rst_ni(*s.rst_n);
  d.becn_valid_i(*s.becn_valid);
  d.becn_qp_i(*s.becn_qp);
  d.becn_sl_i(*s.becn_sl);
  d.becn_rqpn_i(*s.becn_rqpn);
  d.becn_rlid_i(*s.becn_rlid);
  d.becn_llid_i(*s.becn_llid);
  d.becn_st_i(*s.becn_st);
  d.query_qp_i(*s.query_qp);
  d.query_sl_i(*s.query_sl);
  d.ird_o(*s.ird);
  d.ccti_o(*s.ccti);
  d.ird_next_o(*s.ird_next);
  d.ccti_next_o(*s.ccti_next);
  d.timer_expired_o(*s.timer_expired);
  d.trigger_event_o(*s.trigger_event);
  bind_axil(d, *s.axil_in, *s.axil_out);
  return model;
}

const char* rtl_variant() { return IBCC_RTL_VARIANT; }
const char* rtl_source_dir() { return IBCC_RTL_DIR; }

bool rtl_coverage_enabled() { return VM_COVERAGE != 0; }

void rtl_write_coverage(const std::string& path) {
#if VM_COVERAGE
  Verilated::threadContextp()->coveragep()->write(path.c_str());
#else
  (void)path;
#endif
}

}  // namespace ibcc::tb
