// An IB packet as a TLM-2.0 generic payload with an IB extension, and the pool that recycles
// them (the fabric moves millions; none is allocated in the steady state).
#pragma once

#include <tlm>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "net/scenario/lid.h"

namespace ibcc::net {

// kRttRequest / kRttResponse: an RTT probe of a flow (cc.dcqcn.rtt_probe_interval) and its
// answer from the destination; neither is ever marked.
enum class Opcode : uint8_t { kData = 0, kAck = 1, kCnp = 2, kTransportAck = 3, kRttRequest = 4, kRttResponse = 5 };

// Header fields the CC loop needs (LRH/BTH) plus the model's per-hop bookkeeping. The fields
// every hop reads or writes (link arrival, VoQ, arbitration, departure) come first: in an
// IbPacket they share one cache line (IbPacket's layout, tests/net/test_packet_layout.cpp),
// so that a packet dequeued long after it arrived costs one miss, not three. Plain data
// (trivially copyable): a packet that crosses to another shard of a parallel run travels as
// a copy of these (WireMessage), within a process or between two.
struct IbFields {
  // Per hop (48 bytes).
  tlm::tlm_generic_payload* next = nullptr;  // intrusive VoQ/FIFO link
  uint64_t eligible_cycle = 0;  // may leave (head arrival + switch latency)
  uint64_t tail_cycle = 0;      // on the wire: cycles from head to tail; once arrived: the cycle its
                                // tail is in the input buffer (PortEnd::nb_transport_fw sets it)
  uint16_t credits = 0;         // 64-byte credits the packet occupies in a buffer (MTU <= 4096)
  uint16_t wire_bytes = 0;      // payload + LRH/BTH/ICRC/VCRC
  uint32_t hop = 0;             // transmissions so far (tells a stale tail event apart)
  Lid dlid = 0;
  Lid slid = 0;
  uint16_t in_port = 0;         // input port it sits in
  uint8_t vl = 0;               // VL on the current link
  uint8_t sl = 0;
  Opcode opcode = Opcode::kData;
  bool fecn = false;
  bool becn = false;
  bool in_fill = false;         // counted in its VoQ's fill (fully received, still waiting)

  // At the end points.
  uint32_t qp = 0;        // destination QP (for a CNP/ACK: the QP of the flow it throttles)
  uint32_t psn = 0;
  uint32_t payload_bytes = 0;
  int32_t flow = -1;        // index of the flow (statistics), -1 for CNPs
  uint64_t inject_cycle = 0;   // left the source
  uint64_t create_cycle = 0;   // its message was created (posted by the application)
  uint64_t ping_cycle = 0;     // ping-pong answer: when the ping it answers was created; RTT probe
                               // and its response: when the probe left its source
  uint64_t cnp_interval = 0;  // a DCQCN+ CNP: the NP's CNP interval, core cycles
  bool multicast = false;
  bool last = false;           // last packet of its message
  bool reply = false;          // a ping-pong answer (travels dst -> src of its flow)
  // Go-Back-N: a kTransportAck acknowledges every PSN below `psn` (`nack`: and asks the sender
  // to go back to `psn`); a data packet the receiver takes out of order is `discard`ed at
  // its sink (counted, not delivered).
  bool nack = false;
  bool discard = false;
};
static_assert(std::is_trivially_copyable_v<IbFields>, "a packet's fields travel between processes as bytes");

// The fields as a TLM-2.0 extension (other models find them with get_extension).
struct IbExtension : tlm::tlm_extension<IbExtension>, IbFields {
  tlm::tlm_extension_base* clone() const override { return new IbExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const IbExtension&>(other);
  }
};

// Every payload in the fabric comes from PacketPool, which allocates IbPackets: a generic
// payload with its IB extension inside it (attached the TLM way too, so that other models
// find it with get_extension). The model reads the header several times per hop: it lies
// next to the payload, at a fixed offset, instead of behind tlm_generic_payload's
// out-of-line get_extension and a second allocation (one cache miss less per touch). Aligned
// to a cache line, so that the extension's per-hop fields lie in one line (256 bytes in all).
class alignas(64) IbPacket : public tlm::tlm_generic_payload {
 public:
  explicit IbPacket(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) { set_extension(&ext_); }
  ~IbPacket() override { clear_extension(&ext_); }  // ours: the payload must not free it
  IbPacket(const IbPacket&) = delete;
  IbPacket& operator=(const IbPacket&) = delete;
  IbExtension& ext() { return ext_; }

 private:
  IbExtension ext_;
};

inline IbExtension& ib(tlm::tlm_generic_payload& p) { return static_cast<IbPacket&>(p).ext(); }
inline IbExtension& ib(tlm::tlm_generic_payload* p) { return static_cast<IbPacket*>(p)->ext(); }

// Throws ModelError: a queue would hold more packets than PacketFifo counts (a switch's
// credited buffers hold far fewer; a lossy output buffer of terabytes could).
[[noreturn, gnu::noinline, gnu::cold]] void packet_fifo_overflow();

// A FIFO of payloads chained through IbExtension::next. 32 bytes, aligned to them: a
// switch's VoQs lie in one array that arbiters scan, and no queue straddles two cache lines.
struct alignas(32) PacketFifo {
  tlm::tlm_generic_payload* head = nullptr;
  tlm::tlm_generic_payload* tail = nullptr;
  // The cycle the head may leave (IbExtension::eligible_cycle, which must be set before the
  // push) and its credits, kept here so that an arbiter scanning many queues reads them
  // without touching the packets.
  uint64_t head_eligible = 0;
  uint32_t count : 24;
  uint32_t head_credits : 8;  // (a packet of an MTU of at most 4096 bytes takes at most 66)
  // A switch VoQ's fill as its output's FECN marker sees it (credits of the packets counted
  // in it, IbExtension::in_fill), beside the queue it describes.
  uint32_t fill = 0;

  PacketFifo() : count(0), head_credits(0) {}
  bool empty() const { return head == nullptr; }
  void push(tlm::tlm_generic_payload* p) {
    if (count == kMaxCount) packet_fifo_overflow();
    IbExtension& e = ib(p);
    e.next = nullptr;
    if (tail) {
      ib(tail).next = p;
    } else {
      head = p;
      head_credits = e.credits;
      head_eligible = e.eligible_cycle;
    }
    tail = p;
    ++count;
  }
  static constexpr uint32_t kMaxCount = (1u << 24) - 1;
  tlm::tlm_generic_payload* pop() {
    tlm::tlm_generic_payload* p = head;
    IbExtension& e = ib(p);
    head = e.next;
    if (head) {
      const IbExtension& h = ib(head);
      head_credits = h.credits;
      head_eligible = h.eligible_cycle;
    } else {
      tail = nullptr;
    }
    e.next = nullptr;
    --count;
    return p;
  }
};
static_assert(sizeof(PacketFifo) == 32, "PacketFifo is meant to fill half a cache line");

// Owns every payload; free ones wait in a list. Implements tlm_mm_interface so that a
// payload released by its last holder comes back here.
class PacketPool : public tlm::tlm_mm_interface {
 public:
  tlm::tlm_generic_payload* alloc() {
    tlm::tlm_generic_payload* p;
    if (free_.empty()) {
      all_.push_back(std::make_unique<IbPacket>(this));
      p = all_.back().get();
    } else {
      p = free_.back();
      free_.pop_back();
      ib(p) = IbExtension{};
    }
    p->acquire();
    ++live_;
    return p;
  }
  // A packet is given back to the pool of the thread that frees it (home(): a parallel run's
  // shard, whose thread frees packets other shards took), else to the one it came from.
  void free(tlm::tlm_generic_payload* p) override {
    PacketPool* to = home() ? home() : this;
    to->free_.push_back(p);
    --to->live_;
  }
  // The calling thread's pool for free() (null: none; set by a parallel run's threads).
  static PacketPool*& home() {
    static thread_local PacketPool* h = nullptr;
    return h;
  }
  // Taken minus freed here (mod 2^64: a pool that frees others' packets counts below zero).
  uint64_t live() const { return live_; }
  size_t allocated() const { return all_.size(); }

 private:
  std::vector<std::unique_ptr<IbPacket>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
  uint64_t live_ = 0;
};

}  // namespace ibcc::net
