// A Verilated CC block in the network model's loop ("RTL in the loop", ibcc run --rtl): the
// interface the adapters (MarkerPort, CctiPort) drive it through, in place of the C++ core.
// Implementations are compiled from rtl_loop/*.cpp against a Verilation of the RTL made for
// the block's parameters and loaded at run time (net/rtl_loop.h); this header is all the two
// sides share, so it holds only plain data and pure virtual calls.
#pragma once

#include <cstdint>

#include "cc/fecn_marker.h"

namespace ibcc::net {

class RtlMarkerEngine {
 public:
  virtual ~RtlMarkerEngine() = default;
  // A register write through the block's AXI4-Lite slave (clock edges pass while it runs);
  // true when the slave answers OKAY.
  virtual bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) = 0;
  // Edges until the block's timebase is where the C++ core's is after reset (the writes
  // above took edges the core does not take): a multiple of the tick period since reset.
  virtual void align_timebase() = 0;
  // One rising clock edge with these inputs held; outputs are those after the edge.
  virtual void edge(const cc::FecnMarkerInputs& in) = 0;
  virtual bool fecn_mark() const = 0;
  virtual bool congested(unsigned vl) const = 0;
  // Waves (FST) of every signal of the block from now on; close() ends the file.
  virtual void open_trace(const char* path) = 0;
  virtual void close() = 0;
};

}  // namespace ibcc::net
