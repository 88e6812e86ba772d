// Links between ports: the transmit side (serialisation, propagation, credits taken), the
// receive side (what the port's InputUnit decides on a head's arrival: accepted, dropped,
// pause the sender) and credit return (what it decides goes back upstream), carried out over
// the port's sockets. Every Switch and Hca port uses these.
#pragma once

#include <tlm>

#include <cmath>
#include <cstdint>

#include "net/fabric/packet.h"

namespace ibcc::net {

using tlm::tlm_generic_payload;

class NodeContext;
class Node;
struct OutPort;

// Cycles to serialise `wire_bytes` on the port's link.
uint64_t ser_cycles(const OutPort& o, uint32_t wire_bytes);

// Starts sending `pkt` on port `port` of `from` at the current cycle; the head reaches the
// peer after the propagation delay, the tail `ser` cycles later (or when the tail reaches
// this node, whichever is later: virtual cut-through cannot send what has not arrived).
// Returns the cycle the port is free again.
uint64_t transmit(NodeContext& f, Node& from, unsigned port, tlm_generic_payload* pkt, uint64_t tail_in);

// Buffer accounting when a head arrives at input `port` of `at`; throws ModelError on overflow
// (a lossless fabric loses no packet). On a lossy link a packet that does not fit is dropped:
// counted, released, and false returned.
bool accept(NodeContext& f, Node& at, const char* what, unsigned port, tlm_generic_payload* pkt);

// Lossy fabrics: drops a packet that arrived at input `port` of `at` and was accounted in its
// buffer (accept()), for want of room further on (an output's or the switch's limit).
// `out_port` (not 0): the drop is that output's (an output-buffered or shared switch's
// limit), counted there instead of at the input.
void drop(NodeContext& f, Node& at, unsigned port, tlm_generic_payload* pkt, bool accounted, unsigned out_port = 0);

// PFC: sends XOFF (`pause`) or XON for `vl` from input `port` of `at` to its upstream sender.
void send_pause(NodeContext& f, Node& at, unsigned port, unsigned vl, bool pause);

// Frees a packet's buffer space and sends the credits back over the link (`leak`: the fault
// that loses them).
void release_credits(NodeContext& f, Node& at, unsigned port, unsigned vl, uint32_t credits, bool leak);

}  // namespace ibcc::net
