// The network model's nodes (Switch, Hca) and the calendar that drives them.
#include "net/fabric.h"
#include "net/net_waves.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <random>

#include <fmt/format.h>

namespace ibcc::net {

using tlm::tlm_generic_payload;

// ---------------------------------------------------------------------------------------------
// Links: what every port does to send a packet.

namespace {

uint64_t ser_cycles(const OutPort& o, uint32_t wire_bytes) {
  return static_cast<uint64_t>(std::ceil(wire_bytes * o.cycles_per_byte - 1e-9));
}

}  // namespace

tlm::tlm_sync_enum Node::nb_transport_fw(tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  (void)phase;
  const uint64_t cyc = fabric_.now() + delay.value() / fabric_.ps_per_cycle();
  fabric_.schedule(cyc, EventKind::kArrive, index_, ib(gp).in_port, 0, 0, &gp);
  return tlm::TLM_ACCEPTED;
}

// Starts sending `pkt` on port `port` of `from` at the current cycle; the head reaches the peer
// after the propagation delay, the tail `ser` cycles later (or when the tail reaches this node,
// whichever is later: virtual cut-through cannot send what has not arrived). Returns the
// cycle the port is free again.
static uint64_t transmit(Fabric& f, Node& from, unsigned port, tlm_generic_payload* pkt, uint64_t tail_in) {
  OutPort& o = from.out[port];
  IbExtension& e = ib(pkt);
  const uint64_t now = f.now();
  const uint64_t end = std::max(now + ser_cycles(o, e.wire_bytes), tail_in);
  if (!f.scenario().faults.ignore_credits) o.credits[e.vl] -= e.credits;
  o.on_wire[e.vl] += e.credits;
  o.busy_until = end;
  o.packets++;
  o.bytes += e.wire_bytes;
  e.in_port = static_cast<uint16_t>(o.peer_port);
  e.tail_cycle = end + o.prop_cycles;
  ++e.hop;
  ++f.on_wire;
  ++f.hops;
  f.progress();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::sc_time::from_value(o.prop_cycles * f.ps_per_cycle());
  f.node(static_cast<unsigned>(o.peer)).nb_transport_fw(*pkt, phase, delay);
  return end;
}

// Buffer accounting when a head arrives; throws on overflow.
static void accept(Fabric& f, Node& at, const char* what, unsigned port, tlm_generic_payload* pkt) {
  IbExtension& e = ib(pkt);
  InPort& in = at.in[port];
  OutPort& up = f.node(static_cast<unsigned>(in.upstream)).out[in.upstream_port];
  up.on_wire[e.vl] -= e.credits;
  --f.on_wire;
  in.used[e.vl] += e.credits;
  in.peak[e.vl] = std::max(in.peak[e.vl], in.used[e.vl]);
  if (in.used[e.vl] > in.capacity) {
    throw ModelError(fmt::format("invariant broken at {} us: buffer overflow at {} {}/{} VL{}: {} credits in a {}-credit buffer",
                                 static_cast<double>(f.ps(f.now())) / 1e6, what, at.basename(), port, e.vl, in.used[e.vl], in.capacity));
  }
  e.head_cycle = f.now();
}

// Frees a packet's buffer space and sends the credits back over the link.
static void release_credits(Fabric& f, Node& at, unsigned port, unsigned vl, uint32_t credits, bool leak) {
  InPort& in = at.in[port];
  in.used[vl] -= credits;
  OutPort& up = f.node(static_cast<unsigned>(in.upstream)).out[in.upstream_port];
  up.returning[vl] += credits;
  f.schedule(f.now() + up.prop_cycles, EventKind::kCredit, static_cast<uint32_t>(in.upstream), in.upstream_port, vl,
             leak ? 0u : credits);
  if (leak) up.returning[vl] -= credits;  // the fault: these credits never come back
}

// ---------------------------------------------------------------------------------------------
// Switch: input buffers with VoQs per (output, VL), round-robin output arbitration, the
// FECN marker on every output.

class Switch : public Node {
 public:
  Switch(sc_core::sc_module_name name, Fabric& f, unsigned index, unsigned ports)
      : Node(name, f, index), nports_(ports), nvl_(f.num_vls()),
        voq_((ports + 1) * nvl_ * (ports + 1)), fill_(voq_.size(), 0), pending_(ports + 1, 0),
        words_((ports * nvl_ + 63) / 64), requests_((ports + 1) * words_, 0), markers_(ports + 1),
        marker_input_(ports + 1, 0) {
    out.resize(ports + 1);
    in.resize(ports + 1);
  }

  void attach_marker(unsigned port, std::unique_ptr<MarkerPort> m) { markers_[port] = std::move(m); }
  // The marker sees the VoQs of linked input ports only, numbered in port order.
  unsigned number_marker_inputs() {
    unsigned n = 0;
    for (unsigned p = 1; p <= nports_; ++p) {
      if (in[p].upstream >= 0) marker_input_[p] = n++;
    }
    return n;
  }
  MarkerPort* marker(unsigned port) { return markers_[port].get(); }
  unsigned ports() const { return nports_; }
  uint64_t latency = 0;
  bool fill_from_head = false;
  bool credit_in_order = false;

  uint64_t queued_packets() const {
    uint64_t n = 0;
    for (const PacketFifo& q : voq_) n += q.count;
    return n;
  }

  // For the wait-for graph: each non-empty VoQ of input `in_port`, VL `vl` whose head can
  // not leave now for want of credits, as the output it waits on; `can_move` is set if some
  // head of that buffer could leave (credits free or on their way back, or its output is
  // sending from it).
  void waits_of(unsigned in_port, unsigned vl, std::vector<unsigned>* outputs, bool* can_move) const {
    *can_move = false;
    for (unsigned o = 1; o <= nports_; ++o) {
      const PacketFifo& q = voq_[voq_index(in_port, vl, o)];
      if (q.empty()) continue;
      const OutPort& op = out[o];
      const uint32_t need = ib(q.head).credits;
      if (op.peer < 0 || op.credits[vl] + op.returning[vl] >= need || (op.tx_active && op.tx_input == in_port)) {
        *can_move = true;
        return;
      }
      outputs->push_back(o);
    }
  }

  void handle(const Event& e) override {
    switch (e.kind) {
      case EventKind::kArrive: on_arrive(e.port, e.pkt); break;
      case EventKind::kTailIn: on_tail_in(e.port, e.value, e.pkt); break;
      case EventKind::kArbitrate:
        if (out[e.port].arb_at == e.cycle) {
          out[e.port].arb_at = UINT64_MAX;
          arbitrate(e.port);
        }
        break;
      case EventKind::kTxDone: on_tx_done(e.port); break;
      case EventKind::kCredit: on_credit(e.port, e.vl, e.value); break;
      default: break;
    }
  }

 private:
  size_t voq_index(unsigned in_port, unsigned vl, unsigned out_port) const {
    return (in_port * nvl_ + vl) * (nports_ + 1) + out_port;
  }
  PacketFifo& voq(unsigned in_port, unsigned vl, unsigned out_port) { return voq_[voq_index(in_port, vl, out_port)]; }

  void wake(unsigned port, uint64_t cycle) {
    OutPort& o = out[port];
    if (cycle < o.arb_at) {
      o.arb_at = cycle;
      fabric_.schedule(cycle, EventKind::kArbitrate, index_, port);
    }
  }

  void on_arrive(unsigned port, tlm_generic_payload* pkt) {
    accept(fabric_, *this, "switch", port, pkt);
    IbExtension& e = ib(pkt);
    const auto& lft = fabric_.topology().lft[index_];
    const unsigned o = e.dlid < lft.size() ? lft[e.dlid] : 0;
    if (o == 0 || out[o].peer < 0) {
      throw ModelError(fmt::format("switch {} has no route for DLID {} (a lossless fabric cannot drop it)", basename(), e.dlid));
    }
    e.eligible_cycle = fabric_.now() + latency;
    e.in_fill = false;
    PacketFifo& q = voq(port, e.vl, o);
    if (q.empty()) {
      ++pending_[o];
      set_request(o, (port - 1) * nvl_ + e.vl, true);
    }
    q.push(pkt);
    if (markers_[o]) {
      if (fill_from_head) on_tail_in(o, e.hop, pkt);
      else fabric_.schedule(e.tail_cycle, EventKind::kTailIn, index_, o, 0, e.hop, pkt);
    }
    if (out[o].busy_until <= e.eligible_cycle) wake(o, e.eligible_cycle);
  }

  // The VoQ fill the FECN marker sees counts the packets that are fully received and still
  // waiting: a packet that cuts straight through never adds to it (docs/network_model.md).
  void on_tail_in(unsigned o, uint32_t hop, tlm_generic_payload* pkt) {
    IbExtension& e = ib(pkt);
    if (e.hop != hop) return;  // already sent on
    e.in_fill = true;
    uint32_t& fill = fill_[voq_index(e.in_port, e.vl, o)];
    fill += e.credits;
    markers_[o]->set_fill(fabric_.now(), marker_input_[e.in_port], e.vl, fill);
    if (NetWaves* w = fabric_.waves) {
      w->fill(index_, o, e.in_port, e.vl, fill);
      w->congestion(index_, o, markers_[o]->core().outputs().cong_state);
    }
  }

  // Picks the next packet for output `o` (round robin over inputs and VLs, or the
  // VLArbitration tables) and starts it.
  void arbitrate(unsigned o) {
    OutPort& op = out[o];
    const uint64_t now = fabric_.now();
    if (op.tx_active || op.busy_until > now || pending_[o] == 0) return;
    std::fill(op.need.begin(), op.need.end(), UINT32_MAX);
    op.xbar_waiting = false;
    const unsigned n = nports_ * nvl_;
    uint64_t next_eligible = UINT64_MAX;
    const bool ignore_credits = fabric_.scenario().faults.ignore_credits;
    const bool tables = fabric_.scenario().fabric.vlarb_tables;
    std::array<int, cc::FecnMarker::kMaxVls> first_ready;
    first_ready.fill(-1);
    const uint64_t* req = &requests_[o * words_];
    uint32_t held = 0;  // VLs held by a head waiting for credits (credit_in_order)
    // Visit the requesting (input, VL) pairs from the round-robin pointer on, wrapping once.
    // Round robin starts the first that may go; with VLArbitration tables, the first that may
    // go on each VL is noted and the tables choose the VL.
    for (unsigned pass = 0; pass < 2; ++pass) {
      const unsigned from = pass == 0 ? op.rr : 0, to = pass == 0 ? n : op.rr;
      for (unsigned w = from / 64; w * 64 < to; ++w) {
        uint64_t bits = req[w];
        if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
        while (bits) {
          const unsigned idx = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
          bits &= bits - 1;
          if (idx >= to) break;
          if (held & (1u << (idx % nvl_))) continue;
          if (!may_go(o, idx, ignore_credits, &next_eligible)) {
            // In order: the first head that lacks credits holds its VL until they are back.
            if (credit_in_order && op.need[idx % nvl_] != UINT32_MAX) held |= 1u << (idx % nvl_);
            continue;
          }
          if (!tables) {
            begin(o, idx);
            return;
          }
          if (first_ready[idx % nvl_] < 0) first_ready[idx % nvl_] = static_cast<int>(idx);
        }
      }
    }
    if (tables) {
      const int vl = vlarb_pick(op, first_ready);
      if (vl >= 0) {
        begin(o, static_cast<unsigned>(first_ready[vl]));
        return;
      }
    }
    if (next_eligible != UINT64_MAX) wake(o, next_eligible);
  }

  void set_request(unsigned o, unsigned idx, bool on) {
    uint64_t& w = requests_[o * words_ + idx / 64];
    if (on) w |= uint64_t{1} << (idx % 64);
    else w &= ~(uint64_t{1} << (idx % 64));
  }

  // May the head of VoQ (idx -> input, VL) toward `o` go now? Notes what it waits for.
  bool may_go(unsigned o, unsigned idx, bool ignore_credits, uint64_t* next_eligible) {
    OutPort& op = out[o];
    const unsigned ip = idx / nvl_ + 1, vl = idx % nvl_;
    IbExtension& e = ib(voq(ip, vl, o).head);
    if (e.eligible_cycle > fabric_.now()) {
      *next_eligible = std::min(*next_eligible, e.eligible_cycle);
      return false;
    }
    if (!ignore_credits && op.credits[vl] < e.credits) {
      op.need[vl] = std::min(op.need[vl], e.credits);
      return false;
    }
    const InPort& inp = in[ip];
    if (inp.xbar_active > 0 && inp.xbar_active + op.rate_bytes_per_cycle > inp.xbar_capacity + 1e-9) {
      op.xbar_waiting = true;
      return false;
    }
    return true;
  }

  void begin(unsigned o, unsigned idx) {
    OutPort& op = out[o];
    const unsigned ip = idx / nvl_ + 1, vl = idx % nvl_;
    op.rr = (idx + 1) % (nports_ * nvl_);
    PacketFifo& q = voq(ip, vl, o);
    if (fabric_.scenario().fabric.vlarb_tables) vlarb_sent(op, vl, ib(q.head).wire_bytes);
    start(o, ip, vl, q);
  }

  // IB VLArbitration: the high-priority table is served while LimitOfHighPriority allows
  // (in 4 KiB units; 0 = one packet; 255 = no limit) or while no low-priority VL may send;
  // in each table, an entry lets its VL send `weight` x 64 bytes before the next entry
  // with a ready VL gets its turn. Returns the VL to serve, or -1.
  int vlarb_pick(OutPort& op, const std::array<int, cc::FecnMarker::kMaxVls>& first_ready) {
    const auto& fp = fabric_.scenario().fabric;
    auto walk = [&](const std::vector<std::pair<unsigned, unsigned>>& table, unsigned t, bool commit) -> int {
      const size_t size = table.size();
      if (size == 0) return -1;
      auto ready = [&](size_t i) { return table[i].second > 0 && table[i].first < nvl_ && first_ready[table[i].first] >= 0; };
      const size_t cur = op.vlarb_entry[t] % size;
      if (ready(cur) && op.vlarb_left[t] > 0) return static_cast<int>(table[cur].first);
      for (size_t k = 1; k <= size; ++k) {
        const size_t i = (cur + k) % size;
        if (!ready(i)) continue;
        if (commit) {
          op.vlarb_entry[t] = static_cast<unsigned>(i);
          op.vlarb_left[t] = static_cast<int64_t>(table[i].second) * 64;
        }
        return static_cast<int>(table[i].first);
      }
      return -1;
    };
    const bool low_ready = walk(fp.vlarb_low, 1, false) >= 0;
    const bool high_allowed = !low_ready || fp.vlarb_high_limit == 255 || op.high_count == 0 ||
                              op.high_count < uint64_t{fp.vlarb_high_limit} * 4096u;
    if (high_allowed) {
      const int vl = walk(fp.vlarb_high, 0, true);
      if (vl >= 0) {
        op.vlarb_from_high = true;
        return vl;
      }
    }
    op.vlarb_from_high = false;
    return walk(fp.vlarb_low, 1, true);
  }

  void vlarb_sent(OutPort& op, unsigned vl, uint32_t bytes) {
    (void)vl;
    const unsigned t = op.vlarb_from_high ? 0 : 1;
    op.vlarb_left[t] -= bytes;
    if (op.vlarb_from_high) op.high_count += bytes;
    else op.high_count = 0;
  }

  void start(unsigned o, unsigned ip, unsigned vl, PacketFifo& q) {
    OutPort& op = out[o];
    tlm_generic_payload* pkt = q.pop();
    if (q.empty()) {
      --pending_[o];
      set_request(o, (ip - 1) * nvl_ + vl, false);
    }
    IbExtension& e = ib(pkt);
    const uint64_t now = fabric_.now();
    if (MarkerPort* m = markers_[o].get()) {
      const bool mark = m->depart(now, vl, e.sl, e.slid, e.dlid, e.credits);
      if (mark && e.opcode == Opcode::kData) {
        e.fecn = true;
        ++op.marked;
      }
      if (e.in_fill) {
        uint32_t& fill = fill_[voq_index(ip, vl, o)];
        fill -= e.credits;
        m->set_fill(now, marker_input_[ip], vl, fill);
      }
      m->set_credits(now, vl, op.credits[vl] >= e.credits ? op.credits[vl] - e.credits : 0);
    }
    op.tx_input = ip;
    op.tx_vl = vl;
    op.tx_credits = e.credits;
    op.tx_rate = op.rate_bytes_per_cycle;
    op.tx_active = true;
    in[ip].xbar_active += op.tx_rate;
    const uint64_t tail_in = e.tail_cycle;
    const bool marked = e.fecn;
    const uint64_t end = transmit(fabric_, *this, o, pkt, tail_in);
    fabric_.schedule(end, EventKind::kTxDone, index_, o);
    if (NetWaves* w = fabric_.waves) {
      w->departure(index_, o, marked, end);
      w->credits(index_, o, vl, op.credits[vl]);
      if (markers_[o]) {
        w->fill(index_, o, ip, vl, fill_[voq_index(ip, vl, o)]);
        w->congestion(index_, o, markers_[o]->core().outputs().cong_state);
      }
    }
  }

  void on_tx_done(unsigned o) {
    OutPort& op = out[o];
    op.tx_active = false;
    InPort& inp = in[op.tx_input];
    inp.xbar_active -= op.tx_rate;
    if (inp.xbar_active < 1e-9) inp.xbar_active = 0;
    release_credits(fabric_, *this, op.tx_input, op.tx_vl, op.tx_credits, false);
    arbitrate(o);
    // The input's crossbar port is free again: outputs it was holding back may go now.
    for (unsigned p = 1; p <= nports_; ++p) {
      if (p != o && out[p].xbar_waiting && !out[p].tx_active && out[p].busy_until <= fabric_.now()) arbitrate(p);
    }
  }

  void on_credit(unsigned o, unsigned vl, uint32_t credits) {
    OutPort& op = out[o];
    op.returning[vl] -= credits;
    op.credits[vl] += credits;
    if (markers_[o]) markers_[o]->set_credits(fabric_.now(), vl, op.credits[vl]);
    if (NetWaves* w = fabric_.waves) w->credits(index_, o, vl, op.credits[vl]);
    // Only a head that was waiting for credits on this VL can go now (arbitration records
    // the least any of them needs); other waits have their own wake-ups.
    if (!op.tx_active && pending_[o] && op.credits[vl] >= op.need[vl]) arbitrate(o);
  }

  unsigned nports_;
  unsigned nvl_;
  std::vector<PacketFifo> voq_;
  std::vector<uint32_t> fill_;     // marker-visible fill per VoQ, credits
  std::vector<unsigned> pending_;  // non-empty VoQs per output
  unsigned words_;                 // 64-bit words of one output's request mask
  std::vector<uint64_t> requests_; // [output][word]: bit (input-1)*VLs+VL set = VoQ non-empty
  std::vector<std::unique_ptr<MarkerPort>> markers_;
  std::vector<unsigned> marker_input_;  // [port] -> the marker's input index (linked ports only)
};

// ---------------------------------------------------------------------------------------------
// HCA: flows with IRD from the CCTI block, CNPs ahead of data, a rate-limited sink.

class Hca : public Node {
 public:
  Hca(sc_core::sc_module_name name, Fabric& f, unsigned index, uint64_t seed)
      : Node(name, f, index), rng_(seed * 0x9E3779B97F4A7C15ULL + index) {
    out.resize(2);
    in.resize(2);
  }

  std::vector<unsigned> flows;       // indices into Fabric::flows()
  std::unique_ptr<CctiPort> ccti;
  double host_cycles_per_byte = 0;   // inject_rate limit
  double sink_cycles_per_byte = 0;
  bool cc_enabled = false;
  bool becn_in_ack = false;
  uint64_t hiccup_period = 0, hiccup_duration = 0;
  uint64_t completion_cycles = 0;
  bool leak_one_credit = false, lose_one_packet = false;

  void handle(const Event& e) override {
    switch (e.kind) {
      case EventKind::kArrive: on_arrive(e.pkt); break;
      case EventKind::kTxDone: try_send(); break;
      case EventKind::kCredit:
        out[1].returning[e.vl] -= e.value;
        out[1].credits[e.vl] += e.value;
        try_send();
        break;
      case EventKind::kHcaWake:
        if (wake_at_ == e.cycle) {
          wake_at_ = UINT64_MAX;
          try_send();
        }
        break;
      case EventKind::kSinkDone: sink_done(); break;
      default: break;
    }
  }

  // The CCTI block and one IRD pacing slot per entry it throttles (a QP, or an SL).
  void attach_ccti(std::unique_ptr<CctiPort> block) {
    ccti = std::move(block);
    const cc::CctiBlock& core = ccti->core();
    ird_until_.assign(core.sl_based() ? cc::CctiBlock::kNumSls : core.params().num_qps, 0);
  }

  void wake(uint64_t cycle) {
    if (cycle < wake_at_) {
      wake_at_ = cycle;
      fabric_.schedule(cycle, EventKind::kHcaWake, index_);
    }
  }

  void try_send() {
    OutPort& o = out[1];
    const uint64_t now = fabric_.now();
    if (o.busy_until > now) {
      wake(o.busy_until);
      return;
    }
    const bool ignore_credits = fabric_.scenario().faults.ignore_credits;
    // Congestion notifications first.
    if (!cnps_.empty()) {
      IbExtension& e = ib(cnps_.head);
      if (ignore_credits || o.credits[e.vl] >= e.credits) {
        tlm_generic_payload* pkt = cnps_.pop();
        const uint64_t end = transmit(fabric_, *this, 1, pkt, 0);
        fabric_.schedule(end, EventKind::kTxDone, index_, 1);
        return;
      }
    }
    if (host_ready_ > now) {
      wake(host_ready_);
      return;
    }
    const auto& sc = fabric_.scenario();
    std::vector<Flow>& all = fabric_.flows();
    uint64_t next = UINT64_MAX;
    // Ping-pong answers next (the probe's reply is what its application waits for).
    if (!replies_.empty()) {
      Reply& r = replies_.front();
      const uint64_t ready = std::max(r.ready, paced_until(all[r.flow].spec.qp, all[r.flow].spec.sl));
      if (ready > now) {
        next = ready;
      } else {
        const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(r.left, sc.fabric.mtu));
        const uint32_t wire = fabric_.wire_bytes(payload);
        const unsigned vl = sc.fabric.sl_to_vl[all[r.flow].spec.sl];
        if (ignore_credits || o.credits[vl] >= Fabric::credits_of(wire)) {
          send_reply(r, vl, payload, wire);
          return;
        }
      }
    }
    const size_t n = flows.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t idx = (rr_ + k) % n;
      Flow& f = all[flows[idx]];
      if (now >= f.stop_cycle) continue;
      if (f.start_cycle > now) {
        next = std::min(next, f.start_cycle);
        continue;
      }
      const unsigned vl = sc.fabric.sl_to_vl[f.spec.sl];
      const size_t nl = f.lanes.size();
      for (size_t m = 0; m < nl; ++m) {
        const size_t li = (f.lane_rr + m) % nl;
        Flow::Lane& lane = f.lanes[li];
        if (lane.message_left == 0) {
          // A new message: a ping waits for the previous answer, an offered-rate flow for
          // its application to create the next message.
          if (f.spec.pingpong) {
            if (f.pp_waiting) continue;  // the answer's arrival wakes us
            if (f.pp_next > now) {
              next = std::min(next, f.pp_next);
              continue;
            }
          }
          uint64_t created = now;
          if (f.rate_cycles_per_byte > 0) {
            const uint64_t due = static_cast<uint64_t>(std::ceil(f.next_message_cycle));
            if (due > now) {
              next = std::min(next, due);
              continue;
            }
            created = due;
          }
          new_message(f, lane, created);
        }
        // The IRD spaces the packets of what the CCTI throttles (a QP, or an SL with
        // SL-based control), however many messages or flows share it.
        const uint64_t paced = paced_until(lane.qp, f.spec.sl);
        if (paced > now) {
          next = std::min(next, paced);
          continue;
        }
        const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(lane.message_left, sc.fabric.mtu));
        const uint32_t wire = fabric_.wire_bytes(payload);
        const uint32_t credits = Fabric::credits_of(wire);
        if (!ignore_credits && o.credits[vl] < credits) break;  // a credit return wakes us
        rr_ = (idx + 1) % n;
        f.lane_rr = static_cast<unsigned>((li + 1) % nl);
        send_data(f, lane, flows[idx], vl, payload, wire);
        return;
      }
    }
    if (next != UINT64_MAX) wake(next);
  }

  uint64_t sink_queue_packets() const { return sink_.count; }
  uint64_t cnp_queue_packets() const { return cnps_.count; }

 private:
  // A ping-pong answer being sent back to the ping's source.
  struct Reply {
    unsigned flow = 0;
    uint16_t dlid = 0;
    uint64_t left = 0;         // bytes still to send
    uint64_t ready = 0;        // the answer may start (ping drained + completion latency)
    uint64_t ping_cycle = 0;   // the ping's creation
  };

  // IRD pacing per CCTI entry (Congestion Control Table index owner: QP or SL).
  uint64_t paced_until(uint32_t qp, uint32_t sl) const {
    return ccti ? ird_until_[ccti->core().flow_index(qp, sl)] : 0;
  }
  void pace(uint32_t qp, uint32_t sl, uint64_t until) {
    if (ccti) ird_until_[ccti->core().flow_index(qp, sl)] = until;
  }

  void new_message(Flow& f, Flow::Lane& lane, uint64_t created) {
    lane.message_left = f.spec.message_bytes;
    lane.create_cycle = created;
    if (f.rate_cycles_per_byte > 0) {
      f.next_message_cycle += static_cast<double>(f.spec.message_bytes) * f.rate_cycles_per_byte;
    }
    if (f.spec.pingpong) f.pp_waiting = true;
    if (f.dst < 0) {
      if (f.spec.dst_order == DstOrder::kSequence) {
        lane.dlid = f.uniform_lids[f.next_dst];
        f.next_dst = (f.next_dst + 1) % f.uniform_lids.size();
      } else {
        std::uniform_real_distribution<double> u01(0, 1);
        if (!f.hot_lids.empty() && u01(rng_) < f.spec.hot_share) {
          lane.dlid = f.hot_lids[rng_() % f.hot_lids.size()];
        } else {
          lane.dlid = f.uniform_lids[rng_() % f.uniform_lids.size()];
        }
      }
    }
    switch (f.spec.qp_policy) {
      case QpPolicy::kPerFlow: lane.qp = f.spec.qp; break;
      case QpPolicy::kPerDestination: lane.qp = f.spec.qp + lane.dlid; break;
      case QpPolicy::kPerSl: lane.qp = f.spec.sl; break;
    }
  }

  // A data packet from this HCA, leaving now (send_data and ping-pong answers).
  tlm_generic_payload* data_packet(uint16_t dlid, unsigned sl, unsigned vl, uint32_t qp, uint32_t payload, uint32_t wire,
                                   unsigned flow) {
    tlm_generic_payload* pkt = fabric_.pool().alloc();
    IbExtension& e = ib(pkt);
    e.slid = fabric_.topology().nodes[index_].lid;
    e.dlid = dlid;
    e.sl = static_cast<uint8_t>(sl);
    e.vl = static_cast<uint8_t>(vl);
    e.opcode = Opcode::kData;
    e.qp = qp;
    e.payload_bytes = payload;
    e.wire_bytes = wire;
    e.credits = Fabric::credits_of(wire);
    e.inject_cycle = fabric_.now();
    e.flow = static_cast<int32_t>(flow);
    pkt->set_command(tlm::TLM_WRITE_COMMAND);
    pkt->set_data_length(payload);
    return pkt;
  }

  void send_reply(Reply& r, unsigned vl, uint32_t payload, uint32_t wire) {
    const uint64_t now = fabric_.now();
    Flow& f = fabric_.flows()[r.flow];
    tlm_generic_payload* pkt = data_packet(r.dlid, f.spec.sl, vl, f.spec.qp, payload, wire, r.flow);
    IbExtension& e = ib(pkt);
    e.create_cycle = r.ready;
    e.ping_cycle = r.ping_cycle;
    e.reply = true;
    r.left -= payload;
    e.last = r.left == 0;
    ++fabric_.injected;
    // The answer is paced by this HCA's CCTI for the flow's QP, like any data it sends.
    const uint64_t ird = cc_enabled ? ccti->ird(now, e.qp, f.spec.sl) : 0;
    const uint64_t end = transmit(fabric_, *this, 1, pkt, 0);
    pace(e.qp, f.spec.sl, end + ird);
    if (e.last) replies_.pop_front();
    host_ready_ = now + static_cast<uint64_t>(std::ceil(wire * host_cycles_per_byte));
    fabric_.schedule(end, EventKind::kTxDone, index_, 1);
  }

  void send_data(Flow& f, Flow::Lane& lane, unsigned flow_index, unsigned vl, uint32_t payload, uint32_t wire) {
    const uint64_t now = fabric_.now();
    tlm_generic_payload* pkt = data_packet(lane.dlid, f.spec.sl, vl, lane.qp, payload, wire, flow_index);
    IbExtension& e = ib(pkt);
    e.psn = f.psn++;
    e.create_cycle = lane.create_cycle;
    lane.message_left -= payload;
    e.last = lane.message_left == 0;
    ++fabric_.injected;
    if (f.stats.injected_packets == f.stats.delivered_packets) f.stats.progress_cycle = now;  // none was in flight
    f.stats.injected_packets++;
    f.stats.injected_bytes += payload;
    const uint64_t ird = cc_enabled ? ccti->ird(now, lane.qp, f.spec.sl) : 0;
    if (NetWaves* w = fabric_.waves) {
      w->flow_packet(static_cast<int>(flow_index), f.stats.injected_packets);
      w->flow_ird(static_cast<int>(flow_index), ird);
      if (cc_enabled) w->flow_ccti(static_cast<int>(flow_index), ccti->ccti(now, lane.qp, f.spec.sl));
    }
    const uint64_t end = transmit(fabric_, *this, 1, pkt, 0);
    pace(lane.qp, f.spec.sl, end + ird);
    host_ready_ = now + static_cast<uint64_t>(std::ceil(wire * host_cycles_per_byte));
    fabric_.schedule(end, EventKind::kTxDone, index_, 1);
  }

  void on_arrive(tlm_generic_payload* pkt) {
    accept(fabric_, *this, "HCA", 1, pkt);
    IbExtension& e = ib(pkt);
    const uint64_t now = fabric_.now();
    std::vector<Flow>& all = fabric_.flows();
    if (e.opcode == Opcode::kData) {
      if (e.fecn) all[e.flow].stats.fecn_marked++;
      // FECN is answered unless the packet also carries BECN, is multicast, an ACK or a CNP.
      if (e.fecn && !e.becn && !e.multicast && cc_enabled) send_cnp(e);
    } else if (e.becn && cc_enabled) {
      if (e.flow >= 0) all[e.flow].stats.becn_received++;
      ccti->becn(now, e.qp, e.sl, e.slid);
      if (NetWaves* w = fabric_.waves; w && e.flow >= 0) {
        w->flow_becn(e.flow, all[e.flow].stats.becn_received);
        w->flow_ccti(e.flow, ccti->core().ccti(ccti->core().flow_index(e.qp, e.sl)));
      }
    }
    sink_.push(pkt);
    if (!sink_busy_) start_drain();
  }

  void send_cnp(const IbExtension& data) {
    tlm_generic_payload* cnp = fabric_.pool().alloc();
    IbExtension& c = ib(cnp);
    c.slid = fabric_.topology().nodes[index_].lid;
    c.dlid = data.slid;
    c.sl = data.sl;
    c.vl = data.vl;
    c.becn = true;
    c.opcode = becn_in_ack ? Opcode::kAck : Opcode::kCnp;
    c.qp = data.qp;
    c.payload_bytes = 0;
    c.wire_bytes = becn_in_ack ? fabric_.scenario().fabric.ack_bytes : fabric_.scenario().fabric.cnp_bytes;
    c.credits = Fabric::credits_of(c.wire_bytes);
    c.inject_cycle = fabric_.now();
    c.flow = data.flow;
    cnp->set_command(tlm::TLM_WRITE_COMMAND);
    cnp->set_data_length(0);
    ++fabric_.injected;
    ++fabric_.cnps;
    cnps_.push(cnp);
    try_send();
  }

  void start_drain() {
    if (sink_.empty()) return;
    const uint64_t now = fabric_.now();
    IbExtension& e = ib(sink_.head);
    uint64_t begin = now;
    if (hiccup_period) {
      const uint64_t phase = begin % hiccup_period;
      if (phase < hiccup_duration) begin += hiccup_duration - phase;
    }
    const uint64_t end = std::max(begin + static_cast<uint64_t>(std::ceil(e.wire_bytes * sink_cycles_per_byte)), e.tail_cycle);
    sink_busy_ = true;
    fabric_.schedule(end, EventKind::kSinkDone, index_, 1);
  }

  void sink_done() {
    sink_busy_ = false;
    tlm_generic_payload* pkt = sink_.pop();
    IbExtension& e = ib(pkt);
    const bool leak = leak_one_credit;
    leak_one_credit = false;
    release_credits(fabric_, *this, 1, e.vl, e.credits, leak);
    fabric_.progress();
    if (lose_one_packet) {
      lose_one_packet = false;  // the fault: the packet vanishes without being counted
    } else {
      if (e.opcode == Opcode::kData && e.flow >= 0) {
        Flow& f = fabric_.flows()[e.flow];
        FlowStats& st = f.stats;
        const uint64_t now = fabric_.now();
        st.delivered_bytes += e.payload_bytes;
        st.delivered_packets++;
        st.progress_cycle = now;
        st.interval_bytes += e.payload_bytes;
        const bool record = fabric_.in_stats_window();
        if (record) st.packet_latency.add(now - e.create_cycle);
        if (e.last) {
          const uint64_t done = now + completion_cycles;
          if (record) st.message_latency.add(done - e.create_cycle);
          if (f.spec.pingpong && !e.reply) {
            // The ping is in: answer it with a message of the same size.
            Reply r;
            r.flow = static_cast<unsigned>(e.flow);
            r.dlid = e.slid;
            r.left = f.spec.message_bytes;
            r.ready = done;
            r.ping_cycle = e.create_cycle;
            replies_.push_back(r);
            wake(done);
          } else if (f.spec.pingpong) {
            if (record) st.pingpong_rtt.add(done - e.ping_cycle);
            f.pp_waiting = false;
            f.pp_next = done + fabric_.cycles(f.spec.pingpong_gap_ps);
            static_cast<Hca&>(fabric_.node(f.src)).wake(f.pp_next);
          }
        }
      }
      ++fabric_.delivered;
      pkt->release();
    }
    start_drain();
  }

  std::mt19937_64 rng_;
  PacketFifo cnps_;
  std::deque<Reply> replies_;
  std::vector<uint64_t> ird_until_;  // per CCTI entry: its next packet may not leave before
  PacketFifo sink_;
  bool sink_busy_ = false;
  uint64_t host_ready_ = 0;
  uint64_t wake_at_ = UINT64_MAX;
  size_t rr_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Fabric: building, the calendar, statistics, invariants.

Fabric::Fabric(sc_core::sc_module_name name, const Scenario& s)
    : sc_module(name), s_(s), topo_(build_topology(s)) {
  ps_per_cycle_ = static_cast<uint64_t>(std::llround(1e12 / static_cast<double>(s.fabric.core_clock_hz)));
  if (ps_per_cycle_ == 0) ps_per_cycle_ = 1;
  end_cycle_ = s.sim.sim_time_ps / ps_per_cycle_;
  log_cycles_ = std::max<uint64_t>(1, cycles(s.sim.log_interval_ps));
  uint64_t dl = s.sim.deadlock_timeout_ps;
  if (dl == 0) dl = 1000000000ull + s.fabric.sink_hiccup.duration_ps;  // 1 ms
  deadlock_cycles_ = cycles(dl);
  stall_cycles_ = cycles(s.sim.stall_timeout_ps ? s.sim.stall_timeout_ps : 10 * dl);
  build();
  SC_METHOD(pump);
}

Fabric::~Fabric() = default;

void Fabric::build() {
  const unsigned nvl = s_.fabric.vls;
  const uint64_t tick_cycles = std::max<uint64_t>(2, cycles(1024000));  // 1.024 us
  for (unsigned n = 0; n < topo_.nodes.size(); ++n) {
    const auto& tn = topo_.nodes[n];
    if (tn.is_switch) {
      auto sw = std::make_unique<Switch>(tn.name.c_str(), *this, n, tn.ports);
      sw->latency = cycles(s_.fabric.switch_latency_ps);
      sw->fill_from_head = s_.fabric.fill_from_head;
      sw->credit_in_order = s_.fabric.credit_in_order;
      nodes_.push_back(std::move(sw));
    } else {
      nodes_.push_back(std::make_unique<Hca>(tn.name.c_str(), *this, n, s_.sim.seed));
    }
  }
  // Ports and links.
  for (unsigned n = 0; n < topo_.nodes.size(); ++n) {
    Node& node = *nodes_[n];
    const auto& tn = topo_.nodes[n];
    for (unsigned p = 1; p <= tn.ports; ++p) {
      const PortWire& w = topo_.wire[n][p];
      InPort& ip = node.in[p];
      const uint64_t buf = tn.is_switch ? s_.fabric.switch_buffer_per_vl : s_.fabric.hca_buffer_per_vl;
      ip.capacity = static_cast<uint32_t>(buf / 64);
      ip.used.assign(nvl, 0);
      ip.peak.assign(nvl, 0);
      OutPort& op = node.out[p];
      op.credits.assign(nvl, 0);
      op.need.assign(nvl, UINT32_MAX);
      op.on_wire.assign(nvl, 0);
      op.returning.assign(nvl, 0);
      if (w.peer < 0) continue;
      const LinkSpec& l = s_.links[w.link];
      op.peer = w.peer;
      op.peer_port = w.peer_port;
      const double bytes_per_ps = l.data_bps / 8.0 / 1e12;
      op.rate_bytes_per_cycle = bytes_per_ps * static_cast<double>(ps_per_cycle_);
      op.cycles_per_byte = 1.0 / op.rate_bytes_per_cycle;
      op.prop_cycles = cycles(l.propagation_ps);
      ip.upstream = w.peer;
      ip.upstream_port = w.peer_port;
      ip.xbar_capacity = op.rate_bytes_per_cycle * s_.fabric.crossbar_speedup;
    }
  }
  for (unsigned n = 0; n < topo_.nodes.size(); ++n) {
    for (unsigned p = 1; p < nodes_[n]->out.size(); ++p) {
      OutPort& op = nodes_[n]->out[p];
      if (op.peer < 0) continue;
      op.capacity = nodes_[op.peer]->in[op.peer_port].capacity;
      op.credits.assign(nvl, op.capacity);
    }
  }
  // Credits must hold an MTU packet, or nothing could ever move.
  const uint32_t mtu_credits = credits_of(wire_bytes(s_.fabric.mtu));
  if (s_.fabric.switch_buffer_per_vl / 64 < mtu_credits || s_.fabric.hca_buffer_per_vl / 64 < mtu_credits) {
    throw ScenarioError(fmt::format("{}: fabric.*.buffer_per_vl must hold at least one MTU packet ({} bytes)", s_.file,
                                    mtu_credits * 64));
  }
  // CC units on every switch output and in every HCA.
  for (const auto& o : s_.cc.ports) {
    const int sw = topo_.find(o.switch_name);
    if (sw < 0 || !topo_.nodes[sw].is_switch) throw ScenarioError(fmt::format("{}:{}: cc.ports[].port: no switch named '{}'", s_.file, o.line, o.switch_name));
    if (o.port > topo_.nodes[sw].ports) throw ScenarioError(fmt::format("{}:{}: cc.ports[].port: {} has ports 1..{}", s_.file, o.line, o.switch_name, topo_.nodes[sw].ports));
  }
  for (unsigned n = 0; n < topo_.num_switches; ++n) {
    Switch& sw = static_cast<Switch&>(*nodes_[n]);
    const unsigned marker_inputs = std::max(1u, sw.number_marker_inputs());
    for (unsigned p = 1; p <= sw.ports(); ++p) {
      const OutPort& op = sw.out[p];
      if (op.peer < 0 || !s_.cc.enabled) continue;
      const PortCcOverride* ovr = nullptr;
      for (const auto& o : s_.cc.ports) {
        if (o.switch_name == topo_.nodes[n].name && o.port == p) ovr = &o;
      }
      bool victim = (s_.cc.sw.victim_mask_hca_ports && !topo_.nodes[op.peer].is_switch) ||
                    std::find(s_.cc.sw.victim_ports.begin(), s_.cc.sw.victim_ports.end(), p) != s_.cc.sw.victim_ports.end();
      if (ovr && ovr->victim_mask) victim = *ovr->victim_mask;
      cc::FecnMarkerParams mp;
      mp.num_inputs = marker_inputs;
      mp.num_vls = nvl;
      mp.fill_width = 16;
      mp.port_num = p;
      mp.tick_cycles = static_cast<uint32_t>(tick_cycles);
      sw.attach_marker(p, std::make_unique<MarkerPort>(mp, s_.cc.sw, ovr, victim, sw.in[p].capacity));
    }
  }
  // Flows. Destination lists shared by the flows of a pattern become one shared list of LIDs.
  std::map<const void*, std::shared_ptr<const std::vector<uint16_t>>> shared_lids;
  for (const auto& fs : s_.flows) {
    Flow f;
    f.spec = fs;
    const int src = topo_.find(fs.src);
    auto bad = [&](const std::string& what) { throw ScenarioError(fmt::format("{}:{}: traffic flow {}: {}", s_.file, fs.line, fs.name, what)); };
    if (src < 0 || topo_.nodes[src].is_switch) bad("src '" + fs.src + "' is not an HCA");
    f.src = static_cast<unsigned>(src);
    std::string why;
    auto check_route = [&](unsigned dst) {
      if (topo_.route(f.src, dst, &why).empty()) bad("no route: " + why);
    };
    if (!fs.dst.empty()) {
      const int dst = topo_.find(fs.dst);
      if (dst < 0 || topo_.nodes[dst].is_switch) bad("dst '" + fs.dst + "' is not an HCA");
      if (dst == src) bad("src and dst are the same HCA");
      f.dst = dst;
      Flow::Lane lane;
      lane.dlid = topo_.nodes[dst].lid;
      lane.qp = fs.qp;
      f.lanes.push_back(lane);
      check_route(static_cast<unsigned>(dst));
    } else {
      if (!fs.uniform_dsts.empty()) {
        auto& lids = shared_lids[fs.uniform_dsts.all().get()];
        if (!lids) {
          std::vector<uint16_t> all;
          all.reserve(fs.uniform_dsts.all()->size());
          for (const auto& d : *fs.uniform_dsts.all()) {
            const int dst = topo_.find(d);
            if (dst < 0 || topo_.nodes[dst].is_switch) bad("unknown destination " + d);
            all.push_back(topo_.nodes[dst].lid);
          }
          lids = std::make_shared<const std::vector<uint16_t>>(std::move(all));
        }
        f.uniform_lids = fs.uniform_dsts.same_view(lids);
        for (uint16_t dlid : f.uniform_lids) {
          const unsigned dst = static_cast<unsigned>(topo_.lid_node[dlid]);
          if (dst == f.src) bad("src and dst are the same HCA");
          if (!topo_.reaches(f.src, dst)) check_route(dst);  // the error names what is wrong
        }
      }
      for (const auto& d : fs.hot_dsts) {
        const int dst = topo_.find(d);
        if (dst < 0) bad("unknown hotspot " + d);
        f.hot_lids.push_back(topo_.nodes[dst].lid);
      }
      if (f.uniform_lids.empty() && f.hot_lids.empty()) bad("no destinations");
      if (f.uniform_lids.empty()) f.spec.hot_share = 1.0;
      f.lanes.resize(fs.outstanding);
    }
    if (!fs.dst.empty()) {
      f.lanes.resize(fs.pingpong ? 1 : fs.outstanding, f.lanes.front());
      if (fs.qp_policy == QpPolicy::kPerSl) {
        for (auto& lane : f.lanes) lane.qp = fs.sl;
      }
    }
    f.start_cycle = cycles(fs.start_ps);
    f.stop_cycle = fs.stop_ps == UINT64_MAX ? UINT64_MAX : cycles(fs.stop_ps);
    if (fs.rate_bps > 0) f.rate_cycles_per_byte = 8.0 * 1e12 / fs.rate_bps / static_cast<double>(ps_per_cycle_);
    f.next_message_cycle = static_cast<double>(f.start_cycle);
    flows_.push_back(std::move(f));
  }
  const uint32_t qps = s_.cc.ca.num_qps;
  for (unsigned n = topo_.num_switches; n < topo_.nodes.size(); ++n) {
    Hca& h = static_cast<Hca&>(*nodes_[n]);
    const OutPort& op = h.out[1];
    h.cc_enabled = s_.cc.enabled;
    h.becn_in_ack = s_.cc.ca.becn_in_ack;
    const double link_cpb = op.cycles_per_byte;
    h.host_cycles_per_byte = s_.fabric.hca_inject_bps > 0 ? 8.0 * 1e12 / s_.fabric.hca_inject_bps / ps_per_cycle_ : link_cpb;
    h.sink_cycles_per_byte = s_.fabric.hca_sink_bps > 0 ? 8.0 * 1e12 / s_.fabric.hca_sink_bps / ps_per_cycle_ : link_cpb;
    h.hiccup_period = s_.fabric.sink_hiccup.period_ps ? cycles(s_.fabric.sink_hiccup.period_ps) : 0;
    h.hiccup_duration = cycles(s_.fabric.sink_hiccup.duration_ps);
    h.completion_cycles = cycles(s_.fabric.hca_completion_latency_ps);
    if (s_.cc.enabled) {
      cc::CctiBlockParams cp;
      cp.num_qps = qps;
      cp.cct_entries = 128;
      cp.tick_cycles = static_cast<uint32_t>(tick_cycles);
      // T_pkt of the Omni-Path IRD formula: an MTU packet on this HCA's link (or host
      // interface, if slower).
      const double cpb = std::max(link_cpb, h.host_cycles_per_byte);
      const uint32_t mtu_tx = static_cast<uint32_t>(std::ceil(wire_bytes(s_.fabric.mtu) * cpb));
      h.attach_ccti(std::make_unique<CctiPort>(cp, s_.cc.ca, mtu_tx));
    }
  }
  for (unsigned i = 0; i < flows_.size(); ++i) {
    Hca& h = static_cast<Hca&>(*nodes_[flows_[i].src]);
    h.flows.push_back(i);
  }
  if (s_.faults.leak_credit_return || s_.faults.lose_packet) {
    // The HCA with the first flow's destination misbehaves once.
    for (const auto& f : flows_) {
      if (f.dst < 0) continue;
      Hca& h = static_cast<Hca&>(*nodes_[f.dst]);
      h.leak_one_credit = s_.faults.leak_credit_return;
      h.lose_one_packet = s_.faults.lose_packet;
      break;
    }
  }
}

void Fabric::pump() {
  try {
    now_ = sc_core::sc_time_stamp().value() / ps_per_cycle_;
    if (!queue_.empty() && queue_.next_cycle() == now_) {
      std::vector<Event>& bucket = queue_.open(now_);
      // Handlers may add events of this very cycle: the bucket grows while we walk it.
      for (size_t i = 0; i < bucket.size(); ++i) {
        const Event e = bucket[i];
        ++events;
        if (e.kind == EventKind::kLogTick) log_tick();
        else nodes_[e.node]->handle(e);
      }
      queue_.done(now_);
    }
    if (stop_flag_ && stop_flag_->load(std::memory_order_relaxed)) {
      interrupted_ = true;
      sc_core::sc_stop();
      return;
    }
    if (queue_.empty()) return;
    const uint64_t next = queue_.next_cycle();
    if (next > end_cycle_) {
      sc_core::sc_stop();
      return;
    }
    next_trigger(sc_core::sc_time::from_value((next - now_) * ps_per_cycle_));
  } catch (const std::exception& ex) {
    failure_ = ex.what();
    sc_core::sc_stop();
  }
}

void Fabric::run() {
  for (unsigned n = topo_.num_switches; n < nodes_.size(); ++n) {
    Hca& h = static_cast<Hca&>(*nodes_[n]);
    uint64_t first = UINT64_MAX;
    for (unsigned fi : h.flows) first = std::min(first, flows_[fi].start_cycle);
    if (first != UINT64_MAX) h.wake(first);
  }
  for (uint64_t t = log_cycles_; t <= end_cycle_; t += log_cycles_) schedule(t, EventKind::kLogTick, 0);
  if (end_cycle_ % log_cycles_) schedule(end_cycle_, EventKind::kLogTick, 0);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time::from_value(end_cycle_ * ps_per_cycle_ + 1));
  wall_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  if (!failure_.empty()) throw ModelError(failure_);
  check_invariants();
}

void Fabric::log_tick() {
  std::vector<uint64_t> row(flows_.size());
  for (size_t i = 0; i < flows_.size(); ++i) {
    row[i] = flows_[i].stats.interval_bytes;
    flows_[i].stats.interval_bytes = 0;
  }
  interval_bytes.push_back(std::move(row));
  std::vector<uint16_t> ccti(flows_.size(), 0);
  for (size_t i = 0; i < flows_.size(); ++i) {
    Hca& h = static_cast<Hca&>(*nodes_[flows_[i].src]);
    // The flow's highest CCTI over its messages in progress (one QP each).
    if (h.ccti) {
      for (const auto& lane : flows_[i].lanes) {
        ccti[i] = std::max(ccti[i], static_cast<uint16_t>(h.ccti->ccti(now_ ? now_ - 1 : 0, lane.qp, flows_[i].spec.sl)));
      }
    }
  }
  interval_ccti.push_back(std::move(ccti));
  interval_end_cycle.push_back(now_);
  for (unsigned n = 0; n < topo_.num_switches; ++n) {
    Switch& sw = static_cast<Switch&>(*nodes_[n]);
    for (unsigned p = 1; p <= sw.ports(); ++p) {
      if (sw.out[p].peer < 0) continue;
      MarkerPort* m = sw.marker(p);
      if (m && now_ > 0) m->advance_to(now_ - 1);
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        InPort& ip = sw.in[p];
        const MarkerPort::Stats st = m ? m->take_stats(v) : MarkerPort::Stats{};
        port_samples.push_back({now_, n, p, v, ip.used[v], ip.peak[v], m && m->core().congested(v), st.congested_edges,
                                st.marks});
        ip.peak[v] = ip.used[v];
      }
    }
  }
  check_invariants();
  if (pool_.live() > 0 && now_ - last_progress_ > deadlock_cycles_) {
    throw ModelError(deadlock_report());
  }
  // A partial deadlock: some flows stuck while others keep the fabric busy.
  if (now_ - last_stall_check_ >= stall_cycles_ / 4) {
    last_stall_check_ = now_;
    const std::vector<unsigned> stuck = stalled_flows(stall_cycles_);
    if (!stuck.empty()) throw ModelError(stall_report(stuck));
  }
  if (on_log_tick) on_log_tick(ps(now_));
}

void Fabric::check_invariants() const {
  auto fail = [&](const std::string& what) {
    throw ModelError(fmt::format("invariant broken at {} us: {}", static_cast<double>(ps(now_)) / 1e6, what));
  };
  if (injected != delivered + pool_.live()) {
    fail(fmt::format("packets not conserved: {} injected != {} delivered + {} in flight", injected, delivered, pool_.live()));
  }
  uint64_t held = on_wire;
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.out.size(); ++p) {
      const OutPort& op = node.out[p];
      if (op.peer < 0) continue;
      const InPort& peer_in = nodes_[op.peer]->in[op.peer_port];
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        const uint64_t sum = uint64_t{op.credits[v]} + op.on_wire[v] + peer_in.used[v] + op.returning[v];
        if (sum != op.capacity) {
          fail(fmt::format("credits not conserved on link {}/{} -> {}/{} VL{}: {} free + {} on the wire + {} buffered + {} "
                           "returning = {}, buffer is {}",
                           node.basename(), p, nodes_[op.peer]->basename(), op.peer_port, v, op.credits[v], op.on_wire[v],
                           peer_in.used[v], op.returning[v], sum, op.capacity));
        }
      }
    }
  }
  for (unsigned n = topo_.num_switches; n < nodes_.size(); ++n) {
    const Hca& h = static_cast<const Hca&>(*nodes_[n]);
    held += h.sink_queue_packets() + h.cnp_queue_packets();
  }
  // Packets held in switches are counted through the VoQs.
  uint64_t voq_packets = 0;
  for (unsigned n = 0; n < topo_.num_switches; ++n) voq_packets += static_cast<const Switch&>(*nodes_[n]).queued_packets();
  held += voq_packets;
  if (held != pool_.live()) {
    fail(fmt::format("packets not conserved: {} in flight but {} found on wires, in VoQs, sinks and CNP queues", pool_.live(), held));
  }
}

std::vector<unsigned> Fabric::stalled_flows(uint64_t cycles) const {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < flows_.size(); ++i) {
    const FlowStats& st = flows_[i].stats;
    if (st.injected_packets > st.delivered_packets && now_ - st.progress_cycle > cycles) out.push_back(i);
  }
  return out;
}

std::vector<Fabric::BufferId> Fabric::deadlock_cycle() const {
  // The stuck buffers: start from every non-empty switch input buffer whose heads all wait
  // for credits, and drop, until nothing changes, any that waits on a buffer not in the set
  // (that one can drain, and free the credits). What remains can never move.
  std::map<BufferId, std::vector<BufferId>> waits;
  for (unsigned n = 0; n < topo_.num_switches; ++n) {
    const Switch& sw = static_cast<const Switch&>(*nodes_[n]);
    for (unsigned p = 1; p <= sw.ports(); ++p) {
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        if (sw.in[p].used[v] == 0) continue;
        std::vector<unsigned> outs;
        bool can_move = false;
        sw.waits_of(p, v, &outs, &can_move);
        if (can_move || outs.empty()) continue;
        std::vector<BufferId> next;
        for (unsigned o : outs) next.push_back({static_cast<unsigned>(sw.out[o].peer), sw.out[o].peer_port, v});
        waits[{n, p, v}] = next;
      }
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = waits.begin(); it != waits.end();) {
      const bool free = std::any_of(it->second.begin(), it->second.end(),
                                    [&](const BufferId& b) { return b.node >= topo_.num_switches || !waits.count(b); });
      if (free) {
        it = waits.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
  if (waits.empty()) return {};
  // A cycle inside the stuck set: follow first waits from any member until one repeats.
  std::vector<BufferId> path{waits.begin()->first};
  std::map<BufferId, size_t> at{{path[0], 0}};
  for (;;) {
    const BufferId next = waits.at(path.back()).front();
    const auto seen = at.find(next);
    if (seen != at.end()) return std::vector<BufferId>(path.begin() + static_cast<long>(seen->second), path.end());
    at[next] = path.size();
    path.push_back(next);
  }
}

std::string Fabric::stall_report(const std::vector<unsigned>& stuck) const {
  std::string names;
  for (size_t i = 0; i < stuck.size() && i < 12; ++i) names += (i ? ", " : "") + flows_[stuck[i]].spec.name;
  if (stuck.size() > 12) names += fmt::format(", ... ({} flows)", stuck.size());
  std::string out = fmt::format("stalled: {} delivered nothing for {} us at {} us while packets of theirs were in flight",
                                names, static_cast<double>(ps(stall_cycles_)) / 1e6, static_cast<double>(ps(now_)) / 1e6);
  const auto cycle = deadlock_cycle();
  if (cycle.empty()) {
    return out + "; no cycle of stuck buffers found (starved rather than deadlocked: check VL arbitration and credits)";
  }
  out += "\npartial deadlock: a cycle of switch input buffers that can never send (each waits for credits of the next):";
  for (const BufferId& b : cycle) {
    out += fmt::format("\n  {} port {} VL{}: {} of {} credits buffered", nodes_[b.node]->basename(), b.port, b.vl,
                       nodes_[b.node]->in[b.port].used[b.vl], nodes_[b.node]->in[b.port].capacity);
  }
  return out;
}

std::string Fabric::deadlock_report() const {
  std::string out = fmt::format("deadlock: no packet has moved for {} us at {} us while {} packets wait. Blocked:",
                                static_cast<double>(ps(now_ - last_progress_)) / 1e6, static_cast<double>(ps(now_)) / 1e6,
                                pool_.live());
  unsigned listed = 0;
  for (unsigned n = 0; n < nodes_.size() && listed < 32; ++n) {
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.in.size() && listed < 32; ++p) {
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        if (node.in[p].used[v] == 0) continue;
        out += fmt::format("\n  {} port {} VL{}: {} of {} credits buffered", node.basename(), p, v, node.in[p].used[v], node.in[p].capacity);
        ++listed;
      }
    }
  }
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.out.size(); ++p) {
      const OutPort& op = node.out[p];
      for (unsigned v = 0; v < s_.fabric.vls && op.peer >= 0; ++v) {
        if (op.credits[v] == 0 && listed < 64) {
          out += fmt::format("\n  {} port {} VL{}: no credits toward {}/{}", node.basename(), p, v, nodes_[op.peer]->basename(), op.peer_port);
          ++listed;
        }
      }
    }
  }
  return out;
}

}  // namespace ibcc::net
