// What the engines of rtl_loop/ share: a Verilated model with its own context, held in
// reset over two edges, clocked one period at a time, written through its AXI4-Lite slave,
// and traced as FST on the fabric's time axis. `Model` is the Verilator class (Vfecn_marker,
// Vccti_block); the ports named here are common to both blocks.
#pragma once

#include <cstdint>
#include <memory>

#include "net/fabric/rtl_engine.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace ibcc::loop {

template <typename Model>
class LoopDriver {
 public:
  LoopDriver(const char* name, unsigned tick_cycles) : model_(&ctx_, name), tick_cycles_(tick_cycles) {
    ctx_.traceEverOn(true);
    model_.clk_i = 0;
    model_.rst_ni = 0;
    model_.eval();
    for (int i = 0; i < 2; ++i) tick();  // reset held over two edges
    model_.rst_ni = 1;
    model_.eval();
    edges_ = 0;  // the timebase counts from here (it is held in reset above)
  }
  ~LoopDriver() { close(); }

  Model& model() { return model_; }
  const Model& model() const { return model_; }

  // One write: address and data offered together, BREADY high; the slave's answer.
  bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) {
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

  void align_timebase() {
    while (edges_ % tick_cycles_ != 0) tick();
  }

  // The waveform's time: the fabric's, the block's edge `edges_ + 1` at fabric cycle edge0.
  // Only the edges of fabric cycles from..to (to 0: to the end) are written.
  void open_trace(const char* path, uint64_t edge0, uint64_t period_ps, uint64_t from, uint64_t to) {
    trace_ = std::make_unique<VerilatedFstC>();
    model_.trace(trace_.get(), 99);
    trace_->open(path);
    period_ps_ = period_ps;
    offset_ = static_cast<int64_t>(edge0) - static_cast<int64_t>(edges_ + 1);
    from_ = from;
    to_ = to ? to : UINT64_MAX;
    dump(edges_, 0);
  }
  void close() {
    if (trace_) {
      trace_->close();
      trace_.reset();
    }
    if (!finished_) {
      model_.final();
      finished_ = true;
    }
  }

  // One clock period: inputs already set, rising edge, outputs after it.
  void tick() {
    model_.clk_i = 0;
    model_.eval();
    if (trace_) dump(edges_, period_ps_ / 2);
    model_.clk_i = 1;
    model_.eval();
    ++edges_;
    if (trace_) dump(edges_, 0);
  }

 private:
  VerilatedContext ctx_;
  Model model_;
  unsigned tick_cycles_;
  std::unique_ptr<VerilatedFstC> trace_;
  uint64_t edges_ = 0;  // since reset was released
  uint64_t period_ps_ = 0;
  int64_t offset_ = 0;  // fabric cycle minus block edge
  bool finished_ = false;

  uint64_t from_ = 0, to_ = UINT64_MAX;  // the window, fabric cycles

  // The state after `edge` (plus `late` ps: the falling edge), if inside the window.
  void dump(uint64_t edge, uint64_t late) {
    const int64_t c = static_cast<int64_t>(edge) + offset_;
    const uint64_t cycle = c > 0 ? static_cast<uint64_t>(c) : 0;
    if (cycle < from_ || cycle > to_) return;
    trace_->dump(cycle * period_ps_ + late);
  }
};

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

// An engine of the network model (`Interface`: net::RtlMarkerEngine, net::RtlCctiEngine)
// whose register writes, timebase alignment and waves are the driver's; the engine adds
// its block's inputs and outputs.
template <typename Interface, typename Model>
class DrivenEngine : public Interface {
 public:
  DrivenEngine(const char* name, unsigned tick_cycles) : d_(name, tick_cycles) {}

  bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) override { return d_.write_csr(addr, wdata, wstrb); }
  void align_timebase() override { d_.align_timebase(); }
  void open_trace(const char* path, uint64_t edge0, uint64_t period_ps, uint64_t from, uint64_t to) override {
    d_.open_trace(path, edge0, period_ps, from, to);
  }
  void close() override { d_.close(); }

 protected:
  LoopDriver<Model> d_;
};

}  // namespace ibcc::loop
