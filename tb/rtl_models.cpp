// The Verilated RTL (`--cc`) behind the Verilator-free API of rtl_models.h. Compiled inside
// each Verilated library target (real RTL, mutants, coverage build).
#include <verilated.h>
#include <verilated_fst_c.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include "Vccti_block.h"
#include "Vfecn_marker.h"
#include "tb/port_fields.h"
#include "tb/rtl_models.h"

#ifndef IBCC_RTL_VARIANT
#define IBCC_RTL_VARIANT "rtl"
#endif

namespace ibcc::tb {

namespace {

// What both blocks share: the model, its clock, reset, bus and trace.
template <typename V, typename Interface>
class VerilatedBlock : public Interface {
 public:
  explicit VerilatedBlock(const char* name) {
    Verilated::traceEverOn(true);
    dut_ = std::make_unique<V>(name);
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->eval();
  }
  ~VerilatedBlock() override {
    close_trace();
    dut_->final();
  }

  void set_reset_n(bool rst_n) override { dut_->rst_ni = rst_n; }
  void clock(bool level, uint64_t time_ps) override {
    dut_->clk_i = level;
    dut_->eval();
    if (trace_) trace_->dump(time_ps);
  }
  void open_trace(const std::string& fst_path, uint64_t time_ps) override {
    trace_ = std::make_unique<VerilatedFstC>();
    dut_->trace(trace_.get(), 99);
    trace_->open(fst_path.c_str());
    trace_->dump(time_ps);
  }
  void close_trace() override {
    if (trace_) {
      trace_->close();
      trace_.reset();
    }
  }

 protected:
  void drive_bus(const cc::AxiLiteIn& a) {
    V& d = *dut_;
    d.s_axil_awvalid_i = a.awvalid;
    d.s_axil_awaddr_i = a.awaddr;
    d.s_axil_wvalid_i = a.wvalid;
    d.s_axil_wdata_i = a.wdata;
    d.s_axil_wstrb_i = a.wstrb;
    d.s_axil_bready_i = a.bready;
    d.s_axil_arvalid_i = a.arvalid;
    d.s_axil_araddr_i = a.araddr;
    d.s_axil_rready_i = a.rready;
  }
  void bus_outputs(cc::AxiLiteOut* a) const {
    const V& d = *dut_;
    a->awready = d.s_axil_awready_o;
    a->wready = d.s_axil_wready_o;
    a->bvalid = d.s_axil_bvalid_o;
    a->bresp = d.s_axil_bresp_o;
    a->arready = d.s_axil_arready_o;
    a->rvalid = d.s_axil_rvalid_o;
    a->rdata = d.s_axil_rdata_o;
    a->rresp = d.s_axil_rresp_o;
  }

  std::unique_ptr<V> dut_;
  std::unique_ptr<VerilatedFstC> trace_;
};

class FecnModel final : public VerilatedBlock<Vfecn_marker, FecnRtl> {
 public:
  using VerilatedBlock::VerilatedBlock;

  void drive(const cc::FecnMarkerInputs& in) override {
    Vfecn_marker& d = *dut_;
    // The fill bus is wide and changes a few fields per cycle: only those are written.
    if (fill_.size() != in.voq_fill.size()) fill_.assign(in.voq_fill.size(), ~0u);
    for (size_t i = 0; i < fill_.size(); ++i) {
      if (in.voq_fill[i] != fill_[i]) {
        fill_[i] = in.voq_fill[i];
        put_field(d.voq_fill_i, static_cast<unsigned>(i) * kFecnFillWidth, kFecnFillWidth, fill_[i]);
      }
    }
    for (unsigned v = 0; v < in.credits.size(); ++v) {
      put_field(d.credits_i, v * kFecnFillWidth, kFecnFillWidth, in.credits[v]);
    }
    d.pkt_valid_i = in.pkt_valid;
    d.pkt_vl_i = in.pkt_vl;
    d.pkt_sl_i = in.pkt_sl;
    d.pkt_slid_i = in.pkt_slid;
    d.pkt_dlid_i = in.pkt_dlid;
    d.pkt_len_i = in.pkt_len;
    drive_bus(in.axi);
  }
  void outputs(cc::FecnMarkerOutputs* out) const override {
    const Vfecn_marker& d = *dut_;
    out->cong_state = d.cong_state_o;
    out->fecn_valid = d.fecn_valid_o;
    out->fecn_mark = d.fecn_mark_o;
    bus_outputs(&out->axi);
  }

 private:
  std::vector<uint32_t> fill_;  // the fields last written to voq_fill_i
};

class CctiModel final : public VerilatedBlock<Vccti_block, CctiRtl> {
 public:
  using VerilatedBlock::VerilatedBlock;

  void drive(const cc::CctiBlockInputs& in) override {
    Vccti_block& d = *dut_;
    d.becn_valid_i = in.becn_valid;
    d.becn_qp_i = in.becn_qp;
    d.becn_sl_i = in.becn_sl;
    d.becn_rqpn_i = in.becn_rqpn;
    d.becn_rlid_i = in.becn_rlid;
    d.becn_llid_i = in.becn_llid;
    d.becn_st_i = in.becn_st;
    d.query_qp_i = in.query_qp;
    d.query_sl_i = in.query_sl;
    drive_bus(in.axi);
  }
  void outputs(cc::CctiBlockOutputs* out) const override {
    const Vccti_block& d = *dut_;
    out->ird = d.ird_o;
    out->ccti = d.ccti_o;
    out->timer_expired = d.timer_expired_o;
    out->trigger_event = d.trigger_event_o;
    bus_outputs(&out->axi);
  }
};

}  // namespace

std::unique_ptr<FecnRtl> make_fecn_rtl(const char* name) { return std::make_unique<FecnModel>(name); }
std::unique_ptr<CctiRtl> make_ccti_rtl(const char* name) { return std::make_unique<CctiModel>(name); }

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
