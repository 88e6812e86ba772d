// The receive side of a port (a switch's or an HCA's), as gem5 Garnet's InputUnit less the
// VoQs (they sit at the outputs, OutputUnit): the input buffer's fill per VL in 64-byte
// credits, its flow control toward the upstream sender (credits back; PFC pause and resume
// with their hysteresis; none on a lossy link, which drops what does not fit) and the tail
// still arriving. Its methods decide; the link (link.cpp) carries out what they decide over
// the port's TLM-2.0 socket, so the unit is tested alone (tests/net/test_input_unit.cpp).
#pragma once

#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "net/fabric/link_socket.h"
#include "net/fabric/vl_array.h"

namespace ibcc::net {

// Laid out by use, in cache lines (the class is line-aligned; asserted below).
class alignas(64) InputUnit {
 public:
  // --- The link as connect() set it (fixed while the model runs), and the state.
  // Line 0: what a head's arrival, a crossbar check and a credit return read.
  uint32_t capacity = 0;        // per VL, credits
  bool pfc = false;             // fabric.flow_control: pfc (no credits; XOFF/XON)
  bool lossy = false;           // fabric.flow_control: none: a packet that does not fit is dropped
  PortEnd::BwIf* bw = nullptr;  // what the port's target socket is bound to (after elaboration)
  sc_core::sc_time prop_delay;  // the link's propagation as a TLM delay (credits take it back upstream)
  // The packet whose tail is still coming in (a link delivers one at a time), and its
  // kTailIn (a calendar handle), cancelled if it leaves first (cut-through): that event would
  // find it gone. A tail event not noted here (two pending in one cycle, or beyond the
  // calendar's wheel) runs and sees from the packet's hop count that it is gone.
  struct PendingTail {
    tlm::tlm_generic_payload* pkt = nullptr;
    uint32_t hop = 0;
    uint32_t event = UINT32_MAX;  // (EventCalendar's kNoHandle)
  } tail;
  uint32_t paused = 0;          // PFC: the VLs (bits) whose upstream sender this buffer paused

  // Line 1 (for up to four VLs): per VL, credits used, the peak since the last log tick,
  // the last cycle a packet left or the buffer went from empty to non-empty (how long a
  // non-empty buffer has been blocked: Fabric::blocked_buffer_check), and the credits of the
  // packets that arrived so far (mod 2^32: the sender's OutPortVl::sent minus these are on
  // the wire; the count stays on this side, so an arrival does not touch the sender).
  struct Vl {
    uint32_t used = 0;
    uint32_t peak = 0;
    uint64_t moved = 0;
    uint32_t arrived = 0;
    uint32_t released = 0;  // credits sent back so far (mod 2^32; see PortEnd::credits_back)
  };
  alignas(64) VlArray<Vl> vl;
  int upstream = -1;            // the sender's node, -1: unconnected
  unsigned upstream_port = 0;
  uint64_t prop_cycles = 0;     // the link's propagation, cycles
  // PFC: thresholds in credits (a VL pauses its sender at xoff and resumes it at xon) and
  // the cycles a pause frame takes on the link.
  uint32_t xoff = 0, xon = 0;
  uint64_t pause_cycles = 0;
  uint64_t pauses_sent = 0;
  uint64_t drops = 0;           // packets dropped here

  // --- How it is connected: its link, known once both ends exist (NodeContext::wire_ports),
  // given whole and checked here.
  enum class FlowControl : uint8_t { kCredits, kPfc, kLossy };
  struct Link {
    uint32_t capacity = 0;        // per VL, credits
    unsigned vls = 1;
    int upstream = -1;            // the sender's node (-1: unconnected, nothing else matters)
    unsigned upstream_port = 0;
    uint64_t prop_cycles = 0;
    sc_core::sc_time prop_delay;
    FlowControl flow_control = FlowControl::kCredits;
    uint32_t xoff = 0, xon = 0;   // kPfc: thresholds, credits (xon <= xoff <= capacity)
    uint64_t pause_cycles = 0;    // kPfc: a pause frame's time on the link
  };
  // Takes the link (the buffer emptied, no VL paused); std::invalid_argument for a link it
  // cannot serve: no VL or more than kMaxVls, or PFC thresholds out of order.
  void connect(const Link& l) {
    if (l.vls == 0 || l.vls > kMaxVls) throw std::invalid_argument("InputUnit: 1 to 15 VLs");
    if (l.flow_control == FlowControl::kPfc && (l.xon > l.xoff || l.xoff > l.capacity)) {
      throw std::invalid_argument("InputUnit: PFC needs XON <= XOFF <= the buffer");
    }
    capacity = l.capacity;
    vl.assign(l.vls, Vl{});
    upstream = l.upstream;
    upstream_port = l.upstream_port;
    prop_cycles = l.prop_cycles;
    prop_delay = l.prop_delay;
    pfc = l.flow_control == FlowControl::kPfc;
    lossy = l.flow_control == FlowControl::kLossy;
    xoff = pfc ? l.xoff : 0;
    xon = pfc ? l.xon : 0;
    pause_cycles = pfc ? l.pause_cycles : 0;
    paused = 0;
  }

  // --- What the unit decides.
  // A head of `credits` arrives on `vl` at `now`. kDrop: a lossy link's buffer has no room
  // (counted as arrived, not as used: the caller drops it). kOverflow: a lossless buffer
  // holds more than its capacity (an invariant broken: the sender had no credits for it).
  // kPause: accepted, and the VL crossed XOFF: its sender is to be paused (pause_sent()).
  enum class Arrival : uint8_t { kAccepted, kDrop, kOverflow, kPause };
  Arrival arrive(unsigned v, uint32_t credits, uint64_t now) {
    Vl& q = vl[v];
    q.arrived += credits;
    if (lossy && q.used + credits > capacity) return Arrival::kDrop;
    if (q.used == 0) q.moved = now;
    q.used += credits;
    q.peak = std::max(q.peak, q.used);
    if (q.used > capacity) return Arrival::kOverflow;
    if (pfc && !(paused >> v & 1u) && q.used >= xoff) return Arrival::kPause;
    return Arrival::kAccepted;
  }
  // A packet accounted by arrive() and dropped further on (a lossy switch's output limit).
  void unaccount(unsigned v, uint32_t credits) { vl[v].used -= credits; }

  // A packet of `credits` on `vl` leaves the buffer at `now`. What goes back upstream:
  // credits (a credited link; `leak`, the fault that loses them: none), a resume (PFC, the
  // VL paused and now at or below XON) or nothing.
  struct Return {
    enum Kind : uint8_t { kNothing, kCredits, kResume } kind = kNothing;
    uint32_t credits = 0;
  };
  Return release(unsigned v, uint32_t credits, uint64_t now, bool leak) {
    Vl& q = vl[v];
    q.used -= credits;
    q.moved = now;
    if (lossy) return {};  // no credits on a lossy link
    if (pfc) {             // no credits with PFC: a paused sender is resumed below XON
      if ((paused >> v & 1u) && q.used <= xon) return {Return::kResume, 0};
      return {};
    }
    const uint32_t back = leak ? 0u : credits;
    q.released += back;
    return {Return::kCredits, back};
  }

  // PFC: the pause frame for `vl` went upstream (`pause`: XOFF, else XON).
  void pause_sent(unsigned v, bool pause) {
    if (pause) {
      paused |= 1u << v;
      ++pauses_sent;
    } else {
      paused &= ~(1u << v);
    }
  }
};

// The layout above, held: line 0 ends by `paused`, the VLs start line 1.
static_assert(alignof(InputUnit) == 64);
static_assert(offsetof(InputUnit, paused) + sizeof(uint32_t) <= 64, "an arrival's fields fit line 0");
static_assert(offsetof(InputUnit, vl) == 64, "the per-VL fill starts line 1");

}  // namespace ibcc::net
