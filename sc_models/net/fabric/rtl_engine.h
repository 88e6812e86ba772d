// A Verilated CC block in the network model's loop ("RTL in the loop", ibcc run --rtl): the
// interface the adapters (MarkerPort, CctiPort) drive it through, in place of the C++ core.
// Implementations are compiled from rtl_loop/*.cpp against a Verilation of the RTL made for
// the block's parameters and loaded at run time (net/rtl_loop.h); this header is all the two
// sides share, so it holds only plain data and pure virtual calls.
#pragma once

#include <cstdint>

#include "cc/ccti_block.h"
#include "cc/fecn_marker.h"

namespace ibcc::net {

// What every block in the loop offers.
class RtlEngine {
 public:
  virtual ~RtlEngine() = default;
  // A register write through the block's AXI4-Lite slave (clock edges pass while it runs);
  // true when the slave answers OKAY.
  virtual bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) = 0;
  // Edges until the block's timebase is where the C++ core's is after reset (the writes
  // above took edges the core does not take): a multiple of the tick period since reset.
  virtual void align_timebase() = 0;
  // Waves (FST) of every signal of the block from now on, its time axis the fabric's
  // (`edge0` is the fabric cycle of the block's next edge, `period_ps` a cycle), written
  // for the edges of fabric cycles from..to (to 0: to the end); close() ends the file.
  virtual void open_trace(const char* path, uint64_t edge0, uint64_t period_ps, uint64_t from, uint64_t to) = 0;
  virtual void close() = 0;
};

class RtlMarkerEngine : public RtlEngine {
 public:
  // One rising clock edge with these inputs held; outputs are those after the edge.
  virtual void edge(const cc::FecnMarkerInputs& in) = 0;
  virtual bool fecn_mark() const = 0;
  virtual bool congested(unsigned vl) const = 0;
};

class RtlCctiEngine : public RtlEngine {
 public:
  // One rising clock edge with these BECN and query inputs held.
  virtual void edge(const cc::CctiBlockInputs& in) = 0;
  // The registered lookup after the last edge (ird_o, ccti_o): the query of that edge.
  virtual uint32_t ird() const = 0;
  virtual uint32_t ccti() const = 0;
  // Observation, not a port: flow f's CCTI register (for the model's statistics and waves;
  // reading it changes nothing in the block).
  virtual uint32_t flow_ccti(unsigned f) const = 0;
};

}  // namespace ibcc::net
