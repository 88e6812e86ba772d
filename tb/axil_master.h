// AXI4-Lite master bus functional model for the co-simulation: queued register reads and
// writes driven with random valid delays and ready stalls, so every handshake order occurs.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "cc/axil_slave.h"
#include "tb/fast_rng.h"

namespace ibcc::tb {

struct CsrOp {
  bool write = false;
  uint32_t addr = 0;
  uint32_t data = 0;
  uint32_t strb = 0xf;
};

struct CsrResult {
  CsrOp op;
  uint32_t resp = 0;
  uint32_t rdata = 0;
};

// Handshake orders and responses seen on the bus, for functional coverage.
struct AxiBusEvents {
  bool aw_before_w = false;
  bool w_before_aw = false;
  bool aw_with_w = false;
  bool b_stalled = false;
  bool r_stalled = false;
  bool write_slverr = false;
  bool read_slverr = false;
  bool partial_strobe = false;
  bool read_write_overlap = false;  // a read and a write in flight at one edge
};

class AxiLiteMaster {
 public:
  explicit AxiLiteMaster(uint64_t seed) : rng_(seed) {}

  // Percent chance per cycle of delaying a valid or stalling a ready (0 = full speed).
  void set_jitter(unsigned percent) { jitter_ = percent; }

  void push(const CsrOp& op) { (op.write ? writes_ : reads_).push_back(op); }
  bool idle() const { return writes_.empty() && reads_.empty() && !w_active_ && !r_active_; }
  size_t pending() const { return writes_.size() + reads_.size() + w_active_ + r_active_; }

  // Called between edges. `slave` holds the slave outputs after the last edge; `last_in`
  // what this master drove into it. Sets the master signals for the coming edge.
  void drive(const cc::AxiLiteOut& slave, cc::AxiLiteIn* next);

  const AxiBusEvents& events() const { return events_; }
  std::vector<CsrResult>& results() { return results_; }

 private:
  bool roll() { return jitter_ != 0 && (rng_() % 100) < jitter_; }

  FastRng rng_;
  unsigned jitter_ = 30;
  std::deque<CsrOp> writes_;
  std::deque<CsrOp> reads_;
  std::vector<CsrResult> results_;

  // The write in flight.
  bool w_active_ = false;
  CsrOp w_op_;
  bool aw_done_ = false, w_done_ = false;
  uint64_t aw_edge_ = 0, w_edge_ = 0;
  // The read in flight.
  bool r_active_ = false;
  CsrOp r_op_;
  bool ar_done_ = false;

  cc::AxiLiteIn driven_;     // what was driven into the last edge
  cc::AxiLiteOut before_;    // the slave outputs during the last edge
  uint64_t edge_ = 0;
  AxiBusEvents events_;
};

}  // namespace ibcc::tb
