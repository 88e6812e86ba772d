// What the network model reports as it acts, for an observer that records some of it
// (NetWaves, the waveforms of `ibcc run --waves`). The model holds a Probe* (NodeContext::probe),
// null when nothing observes, and calls these at the moment the state changes; an observer
// never reaches into the model's units. Nodes and ports are the topology's indices.
#pragma once

#include <cstdint>

namespace ibcc::net {

class Probe {
 public:
  virtual ~Probe() = default;
  // An output port's credits on a VL changed.
  virtual void credits(unsigned node, unsigned port, unsigned vl, uint32_t credits) = 0;
  // The fill (credits) of the VoQ from `in_port` to `out_port` on a VL changed.
  virtual void fill(unsigned node, unsigned out_port, unsigned in_port, unsigned vl, uint32_t credits) = 0;
  // An output port's congestion state (one bit per VL) as its marker holds it now.
  virtual void congestion(unsigned node, unsigned port, uint32_t vl_mask) = 0;
  // A packet left an output port, FECN-marked or not, its transmission ending at `end_cycle`.
  virtual void departure(unsigned node, unsigned port, bool marked, uint64_t end_cycle) = 0;
  // A flow's CCTI, the IRD its next packet waits, its packets sent, its BECNs received.
  virtual void flow_ccti(int flow, uint32_t ccti) = 0;
  virtual void flow_ird(int flow, uint64_t ird_cycles) = 0;
  virtual void flow_packet(int flow, uint64_t sent) = 0;
  virtual void flow_becn(int flow, uint64_t becns) = 0;
  // DCQCN (cc.reaction dcqcn | dcqcn_plus): the rate the flow's QP sends at, Mb/s.
  virtual void flow_rate(int flow, uint64_t mbps) = 0;
  // Lossy fabrics: packets dropped so far at a port (its output's limit, or its input).
  virtual void drops(unsigned node, unsigned port, uint64_t count) = 0;
};

}  // namespace ibcc::net
