// One direction of a link between two shards of a parallel run (a cut link). The sending
// node's port calls it where it would call its peer's PortEnd (OutPort::fw for heads,
// InputUnit::bw for credits and pauses); it notes, in the sending shard's outbox toward the
// receiving shard, what arrives at the peer's end and at which cycle (the sender's time
// plus the link's delay, as the peer's end would have computed it), as a WireMessage: the
// peer's end by number, a head's packet as a copy of its fields (the sender keeps the packet
// until the window ends: NodeContext::crossed). At the next barrier the receiving shard
// hands each message to that end through its TLM-2.0 interface (NodeContext::deliver), with
// the delay that remains, so the end schedules it exactly where a sequential run does. A
// message always arrives after the window it was sent in (the window is the smallest delay
// of any cut link): no shard learns of it late.
#pragma once

#include <systemc>
#include <tlm>

#include <vector>

#include "net/fabric/node_context.h"

namespace ibcc::net {

class CutLinkEnd : public PortEnd::FwIf, public PortEnd::BwIf {
 public:
  // From a port of a node of shard `from`, toward port `port` of node `node` (the peer's end,
  // `target`), through `box` (from's outbox toward the target's shard).
  CutLinkEnd(NodeContext& from, PortEnd& target, unsigned node, unsigned port, std::vector<WireMessage>& box)
      : from_(from), target_(target), node_(node), port_(port), box_(box) {}

  // A head (forward path): its fields travel; the payload goes back to the sender's pool
  // when the window ends.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time& delay) override {
    WireMessage& m = post(delay);
    m.head = true;
    m.data_length = gp.get_data_length();
    m.command = static_cast<uint8_t>(gp.get_command());
    m.packet = ib(gp);
    m.packet.next = nullptr;
    from_.crossed.push_back(&gp);
    return tlm::TLM_ACCEPTED;
  }
  // Credits or a pause (backward path): the credit payload is the sender's, so its content
  // travels in the message.
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time& delay) override {
    const IbCredit& c = static_cast<CreditPayload&>(gp).credit;
    WireMessage& m = post(delay);
    m.vl = c.vl;
    m.credits = c.credits;
    m.pfc = c.pfc;
    return tlm::TLM_ACCEPTED;
  }
  // Not part of the link protocol (PortEnd's: b_transport is refused there).
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override { target_.b_transport(gp, delay); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  WireMessage& post(const sc_core::sc_time& delay) {
    WireMessage& m = box_.emplace_back();
    m.at = from_.arrival_cycle(delay);
    m.sent = from_.now();
    m.node = node_;
    m.port = port_;
    return m;
  }
  NodeContext& from_;
  PortEnd& target_;
  unsigned node_, port_;
  std::vector<WireMessage>& box_;
};

}  // namespace ibcc::net
