// The ports' TLM-2.0 sockets and the link protocol they speak. Every port of a Switch or an
// Hca has a PortEnd: an initiator socket for the link out and a target socket for the link
// in. The fabric builder binds each link's two ends (NodeContext::bind_links); a SystemC
// user may claim a link first (NodeContext::claim_link) and bind their own module between
// the ends instead (tb/tlm_link_tap.cpp). The protocol (docs/network_model.md, "Link
// protocol"):
//
//   forward, initiator -> target:  nb_transport_fw(packet, BEGIN_REQ, delay)
//       the packet's head reaches the target's input buffer `delay` after the call (the
//       link's propagation). The target returns TLM_ACCEPTED and owns the packet from then
//       on; it never answers with END_REQ or a response (a link has no handshake: the
//       sender has already taken the credits the packet needs).
//   backward, target -> initiator: nb_transport_bw(credit, IB_CREDIT, delay)
//       the target freed `credits` 64-byte credits of VL `vl` (the IbCredit of a
//       CreditPayload); they are back at the initiator's port `delay` after the call. The
//       initiator returns TLM_ACCEPTED; the credit payload stays the target's.
//
// Packets are IbPackets from the fabric's PacketPool (packet.h): any other payload is a
// protocol error (a ModelError; checked where the peer is not a PortEnd, whose transmit()
// sends pool packets only), and so is a credit that is not a CreditPayload. The sockets use their own protocol traits
// (IbLinkProtocol), so that a socket of the TLM base protocol cannot be bound to a link by
// mistake; b_transport, DMI and debug transport are not part of the protocol.
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>
#include <vector>

namespace ibcc::net {

class Node;
class NodeContext;

// An output port's credit state of one VL (OutPort::vls, node_context.h).
struct OutPort;

struct OutPortVl {
  uint32_t credits = 0;        // free space in the peer's buffer
  uint32_t need = UINT32_MAX;  // least credits a head waiting for credits needs
  uint32_t sent = 0;           // credits of the packets sent so far (mod 2^32; on the wire: sent - the peer's InputUnit arrived)
  uint32_t returning = 0;      // credits on their way back
  uint32_t deferred = 0;       // of those, arrived while the port was sending (OutPort::defer_credits)
};

struct IbLinkProtocol {
  using tlm_payload_type = tlm::tlm_generic_payload;
  using tlm_phase_type = tlm::tlm_phase;
};

DECLARE_EXTENDED_PHASE(IB_CREDIT);

// The credits a credit payload returns.
struct IbCredit : tlm::tlm_extension<IbCredit> {
  uint32_t vl = 0;
  uint32_t credits = 0;
  // PFC (fabric.flow_control: pfc): a pause frame instead of credits, kPause (XOFF) or
  // kResume (XON) for VL `vl`; credits 0.
  enum : uint32_t { kCredits = 0, kPause = 1, kResume = 2 };
  uint32_t pfc = kCredits;
  tlm::tlm_extension_base* clone() const override { return new IbCredit(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const IbCredit&>(other); }
};

// The payload a target's credits travel in: a generic payload with its IbCredit inside it
// (as IbPacket carries its IbExtension; also attached the TLM way, for get_extension).
class CreditPayload : public tlm::tlm_generic_payload {
 public:
  CreditPayload() { set_extension(&credit); }
  ~CreditPayload() override { clear_extension(&credit); }  // ours: the payload must not free it
  CreditPayload(const CreditPayload&) = delete;
  CreditPayload& operator=(const CreditPayload&) = delete;
  IbCredit credit;
};

// One end of a link may stay unbound (an unconnected port).
using LinkInitiatorSocket = tlm::tlm_initiator_socket<32, IbLinkProtocol, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
using LinkTargetSocket = tlm::tlm_target_socket<32, IbLinkProtocol, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

// A port's two sockets and the node's side of the protocol on them.
class PortEnd : public tlm::tlm_fw_transport_if<IbLinkProtocol>, public tlm::tlm_bw_transport_if<IbLinkProtocol> {
 public:
  using FwIf = tlm::tlm_fw_transport_if<IbLinkProtocol>;
  using BwIf = tlm::tlm_bw_transport_if<IbLinkProtocol>;

  // Must be made while `node` is being constructed (SystemC creates sockets only there).
  PortEnd(Node& node, unsigned port);
  PortEnd(const PortEnd&) = delete;
  PortEnd& operator=(const PortEnd&) = delete;

 private:
  // What a call on either path needs first, next to the object's vtable pointers.
  NodeContext& ctx_;
  Node& node_;
  unsigned node_index_;
  unsigned port_;
  OutPort* out_port_ = nullptr;  // this port's transmit side (noted at the end of elaboration)
  // The target socket is bound to another PortEnd of the fabric (noted at the end of
  // elaboration): its packets come from that end's transmit(), which sends PacketPool
  // packets only, so they are IbPackets by construction and the forward path does not ask
  // each one's dynamic type (which lies in a cache line the hop does not otherwise touch).
  // A link bound to anything else (a user's module) checks every payload.
  bool peer_is_fabric_ = false;
  // On a link bound to a user's module: per VL, the credits whose return reached this port so
  // far (mod 2^32); the peer's InputUnit released minus these are held by the module.
  std::vector<uint32_t> credits_back_;
  void note_credits_back(unsigned vl, uint32_t credits);
  friend class Node;

 public:
  LinkInitiatorSocket out;  // "out_<port>": the link toward the peer
  LinkTargetSocket in;      // "in_<port>": the link from the peer

  // After elaboration: the interfaces the two sockets are bound to (null if unbound). The
  // hot path calls them as `out->` and `in->` would, without the socket's lookup.
  FwIf* bound_fw();
  BwIf* bound_bw();
  // Credits of VL `vl` whose return reached this port through a user's module (0 on a link
  // between two ports of the fabric).
  uint32_t credits_back(unsigned vl) const { return vl < credits_back_.size() ? credits_back_[vl] : 0; }

  // Forward path (the target socket): a packet's head arrives.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) override;
  // Backward path (the initiator socket): credits come back.
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) override;
  // Not part of the link protocol: b_transport throws ModelError, the others do nothing.
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

}  // namespace ibcc::net
