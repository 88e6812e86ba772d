// The Verilated FECN marker behind net::RtlMarkerEngine. Compiled at run time by
// net/rtl_loop.cpp, together with a Verilation of rtl/fecn_marker.sv for one parameter set
// (IBCC_LOOP_* definitions), into a shared object the network model loads.
#include <memory>

#include "Vfecn_marker.h"
#include "net/rtl_engine.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace {

constexpr unsigned kInputs = IBCC_LOOP_INPUTS;
constexpr unsigned kVls = IBCC_LOOP_VLS;
constexpr unsigned kFillWidth = IBCC_LOOP_FILL_WIDTH;
constexpr unsigned kTickCycles = IBCC_LOOP_TICK_CYCLES;
constexpr uint64_t kHalfPeriod = IBCC_LOOP_HALF_PERIOD_PS;

// Writes `width` bits of `value` at bit `lsb` of a Verilator wide (or narrow) port.
template <typename Port>
void put_bits(Port& port, unsigned lsb, unsigned width, uint32_t value) {
  for (unsigned b = 0; b < width; ++b) {
    const unsigned bit = lsb + b;
    const uint32_t mask = 1u << (bit % 32);
    uint32_t& word = reinterpret_cast<uint32_t*>(&port)[bit / 32];
    word = ((value >> b) & 1u) ? (word | mask) : (word & ~mask);
  }
}

class FecnLoop final : public ibcc::net::RtlMarkerEngine {
 public:
  FecnLoop() : model_(&ctx_, "fecn_marker") {
    ctx_.traceEverOn(true);
    model_.clk_i = 0;
    model_.rst_ni = 0;
    model_.eval();
    for (int i = 0; i < 2; ++i) tick();  // reset held over two edges
    model_.rst_ni = 1;
    model_.eval();
  }
  ~FecnLoop() override { close(); }

  bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) override {
    model_.s_axil_awvalid_i = 1;
    model_.s_axil_awaddr_i = addr;
    model_.s_axil_wvalid_i = 1;
    model_.s_axil_wdata_i = wdata;
    model_.s_axil_wstrb_i = wstrb;
    model_.s_axil_bready_i = 1;
    bool aw = false, w = false;
    for (int guard = 0; guard < 64; ++guard) {
      model_.eval();
      const bool aw_hs = !aw && model_.s_axil_awready_o;
      const bool w_hs = !w && model_.s_axil_wready_o;
      const bool b_hs = model_.s_axil_bvalid_o;
      const bool ok = model_.s_axil_bresp_o == 0;
      tick();
      aw = aw || aw_hs;
      w = w || w_hs;
      if (aw) model_.s_axil_awvalid_i = 0;
      if (w) model_.s_axil_wvalid_i = 0;
      if (b_hs) {
        model_.s_axil_bready_i = 0;
        model_.eval();
        return ok;
      }
    }
    return false;  // no response: the caller reports a refused write
  }

  void align_timebase() override {
    while (edges_ % kTickCycles != 0) tick();
  }

  void edge(const ibcc::cc::FecnMarkerInputs& in) override {
    if (in.fill_version != fill_version_ || !fills_known_) {
      for (unsigned i = 0; i < kInputs * kVls; ++i) put_bits(model_.voq_fill_i, i * kFillWidth, kFillWidth, in.voq_fill[i]);
      fill_version_ = in.fill_version;
      fills_known_ = in.tracked;
    }
    for (unsigned v = 0; v < kVls; ++v) put_bits(model_.credits_i, v * kFillWidth, kFillWidth, in.credits[v]);
    model_.pkt_valid_i = in.pkt_valid;
    model_.pkt_vl_i = in.pkt_vl;
    model_.pkt_sl_i = in.pkt_sl;
    model_.pkt_slid_i = in.pkt_slid;
    model_.pkt_dlid_i = in.pkt_dlid;
    model_.pkt_len_i = in.pkt_len;
    tick();
  }
  bool fecn_mark() const override { return model_.fecn_valid_o && model_.fecn_mark_o; }
  bool congested(unsigned vl) const override { return (model_.cong_state_o >> vl) & 1u; }

  void open_trace(const char* path) override {
    trace_ = std::make_unique<VerilatedFstC>();
    model_.trace(trace_.get(), 99);
    trace_->open(path);
    trace_->dump(edges_ * 2 * kHalfPeriod);
  }
  void close() override {
    if (trace_) {
      trace_->close();
      trace_.reset();
    }
    model_.final();
  }

 private:
  VerilatedContext ctx_;
  Vfecn_marker model_;
  std::unique_ptr<VerilatedFstC> trace_;
  uint64_t edges_ = 0;
  uint64_t fill_version_ = 0;
  bool fills_known_ = false;

  // One clock period: inputs already set, rising edge, outputs after it.
  void tick() {
    model_.clk_i = 0;
    model_.eval();
    if (trace_) trace_->dump(edges_ * 2 * kHalfPeriod + kHalfPeriod);
    model_.clk_i = 1;
    model_.eval();
    ++edges_;
    if (trace_) trace_->dump(edges_ * 2 * kHalfPeriod);
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) ibcc::net::RtlMarkerEngine* ibcc_rtl_marker_new() {
  return new FecnLoop();
}
