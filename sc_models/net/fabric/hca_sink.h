// An HCA's sink: what arrives drains one packet at a time at the sink's rate (sink_rate, or
// the link's), paused by its hiccups (sink_hiccup); a drained packet returns its credits and
// is counted to its flow (delivered bytes, packet and message latency, a ping-pong's round
// trip). A ping drained whole is handed back to the HCA, which answers it. Unit-tested alone
// (tests/net/test_hca_sink.cpp).
#pragma once

#include <cstdint>

#include "net/fabric/node_context.h"
#include "net/fabric/packet.h"

namespace ibcc::net {

class HcaSink {
 public:
  struct Config {
    uint64_t hiccup_period = 0, hiccup_duration = 0;  // cycles (period 0: none)
    uint64_t completion_cycles = 0;  // a message's completion latency after its last packet drained
  };
  // A ping drained whole: the HCA answers it with a message of `bytes` to `dlid`, from `ready` on.
  struct PingIn {
    unsigned flow = 0;
    Lid dlid = 0;
    uint64_t bytes = 0;
    uint64_t ready = 0;
    uint64_t ping_cycle = 0;  // the ping's creation
  };

  // Drains what arrives on `node`'s port 1 (its credits go back through it); the node's
  // kSinkDone events are the drains' ends, which it hands to drained().
  HcaSink(NodeContext& ctx, Node& node, const Config& cfg) : ctx_(ctx), node_(node), cfg_(cfg) {}

  // Cycles per byte of the sink (set when the node's ports are wired).
  void set_cycles_per_byte(double c) { cycles_per_byte_ = c; }
  double cycles_per_byte() const { return cycles_per_byte_; }
  // Faults (faults.leak_credit_return, faults.lose_packet): the next packet drained returns
  // none of its credits, or vanishes uncounted.
  void arm_faults(bool leak_one_credit, bool lose_one_packet) {
    leak_one_credit_ = leak_one_credit;
    lose_one_packet_ = lose_one_packet;
  }

  // A packet arrived: queued, and drained when the sink is free.
  void push(tlm::tlm_generic_payload* pkt) {
    fifo_.push(pkt);
    if (!busy_) start();
  }
  // The head has drained (the node's kSinkDone): its credits are returned and it is counted;
  // true if it completed a ping, *ping then says what to answer. start() drains the next.
  bool drained(PingIn* ping);
  // Starts draining the head, if any.
  void start();

  uint64_t queue_packets() const { return fifo_.count; }

 private:
  NodeContext& ctx_;
  Node& node_;
  PacketFifo fifo_;
  SizeCycles memo_;  // a packet's cycles at the sink's rate
  double cycles_per_byte_ = 0;
  Config cfg_;
  bool busy_ = false;
  bool leak_one_credit_ = false, lose_one_packet_ = false;
};

}  // namespace ibcc::net
