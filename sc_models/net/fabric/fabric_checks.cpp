// The model's own checks: invariants after every log interval, stalled flows, and the
// wait-for cycle of a deadlock with its report.
#include "net/fabric/fabric.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "net/fabric/hca.h"
#include "net/fabric/switch.h"

namespace ibcc::net {

CheckRows Fabric::check_rows() const {
  CheckRows rows;
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    if (!runs_here(n)) continue;
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.out.size(); ++p) {
      const OutPort& op = node.out[p];
      if (op.peer < 0) continue;
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        OutVlRow& r = rows.outs.emplace_back();
        r.node = n;
        r.port = p;
        r.vl = v;
        r.credits = op.vls[v].credits;
        r.sent = op.vls[v].sent;
        r.returning = op.vls[v].returning;
        r.capacity = op.capacity;
        r.uncredited = op.uncredited;
        r.user_bound = op.user_bound;
        r.credits_back = op.user_bound ? node.end(p).credits_back(v) : 0;
      }
    }
    for (unsigned p = 1; p < node.in.size(); ++p) {
      const InputUnit& in = node.in[p];
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        InVlRow& r = rows.ins.emplace_back();
        r.node = n;
        r.port = p;
        r.vl = v;
        r.arrived = in.vl[v].arrived;
        r.used = in.vl[v].used;
        r.released = in.vl[v].released;
        r.capacity = in.capacity;
      }
    }
    if (n >= topo_.num_switches) {
      const Hca& h = static_cast<const Hca&>(node);
      rows.held += h.sink_queue_packets() + h.cnp_queue_packets();
    } else {
      // Packets held in switches are counted through the VoQs.
      rows.held += static_cast<const Switch&>(node).queued_packets();
    }
  }
  return rows;
}

void Fabric::check_invariants() const {
  CheckRows rows = check_rows();
  if (ranked()) {  // (rank 0, with the other processes' rows of the interval or the end)
    rows.outs.insert(rows.outs.end(), other_rows_.outs.begin(), other_rows_.outs.end());
    rows.ins.insert(rows.ins.end(), other_rows_.ins.begin(), other_rows_.ins.end());
    rows.held += other_rows_.held;
  }
  check_invariants(std::move(rows));
}

void Fabric::check_invariants(CheckRows rows) const {
  auto fail = [&](const std::string& what) {
    throw ModelError(fmt::format("invariant broken at {} us: {}", static_cast<double>(ps(now_)) / 1e6, what));
  };
  if (injected != delivered + dropped + discarded + live_packets()) {
    fail(fmt::format("packets not conserved: {} injected != {} delivered + {} dropped + {} discarded + {} in flight",
                     injected, delivered, dropped, discarded, live_packets()));
  }
  if (dropped && !s_.fabric.lossy) fail(fmt::format("{} packets dropped in a lossless fabric", dropped));
  // The input VLs by node, port and VL (rows of several processes come in any order).
  std::vector<size_t> first_in(nodes_.size() + 1, 0);
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    first_in[n + 1] = first_in[n] + nodes_[n]->in.size() * s_.fabric.vls;
  }
  std::vector<const InVlRow*> in_at(first_in.back(), nullptr);
  for (const InVlRow& r : rows.ins) in_at[first_in[r.node] + r.port * s_.fabric.vls + r.vl] = &r;
  // The first broken link in node, port and VL order, whichever process sent its rows (one
  // process's rows are in that order already).
  const auto by_link = [](const OutVlRow& a, const OutVlRow& b) {
    return std::tie(a.node, a.port, a.vl) < std::tie(b.node, b.port, b.vl);
  };
  if (!std::is_sorted(rows.outs.begin(), rows.outs.end(), by_link)) std::sort(rows.outs.begin(), rows.outs.end(), by_link);
  for (const OutVlRow& r : rows.outs) {
    const Node& node = *nodes_[r.node];
    const OutPort& op = node.out[r.port];
    const InVlRow* peer_in = in_at[first_in[op.peer] + op.peer_port * s_.fabric.vls + r.vl];
    if (!peer_in) fail(fmt::format("no state of {}/{} VL{} to check", nodes_[op.peer]->basename(), op.peer_port, r.vl));
    if (r.uncredited) {
      // PFC has no credits to conserve: a sender is open or paused, and the buffer's bound
      // (the lossless invariant) is checked by accept() at every arrival.
      if (r.credits != 0 && r.credits != OutPort::kPfcOpen) {
        fail(fmt::format("PFC state of {}/{} VL{} is {}, neither paused nor open", node.basename(), r.port, r.vl, r.credits));
      }
      if (peer_in->used > peer_in->capacity) {
        fail(fmt::format("buffer overflow at {}/{} VL{}", nodes_[op.peer]->basename(), op.peer_port, r.vl));
      }
      continue;
    }
    const uint32_t wire = r.sent - peer_in->arrived;  // (both count mod 2^32)
    // Credits the peer sent back that a module bound into the link still holds (none on a
    // link between two ports of the fabric, whose returns reach the sender at once).
    const uint32_t held_back = r.user_bound ? peer_in->released - r.credits_back : 0;
    const uint64_t sum = uint64_t{r.credits} + wire + peer_in->used + r.returning + held_back;
    if (sum != r.capacity) {
      fail(fmt::format("credits not conserved on link {}/{} -> {}/{} VL{}: {} free + {} on the wire + {} buffered + {} "
                       "returning{} = {}, buffer is {}",
                       node.basename(), r.port, nodes_[op.peer]->basename(), op.peer_port, r.vl, r.credits, wire,
                       peer_in->used, r.returning,
                       held_back ? fmt::format(" + {} held by a module in the link", held_back) : std::string(), sum,
                       r.capacity));
    }
  }
  const uint64_t held = on_wire + rows.held;
  if (held != live_packets()) {
    fail(fmt::format("packets not conserved: {} in flight but {} found on wires, in VoQs, sinks and CNP queues", live_packets(), held));
  }
}

std::vector<unsigned> Fabric::stalled_flows(uint64_t cycles) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < flows_.size(); ++i) {
    FlowStats& st = flows_[i].stats;
    // (a dropped packet is resolved too: it is no longer in flight)
    const bool in_flight = st.injected_packets > st.delivered_packets + st.dropped_packets + st.discarded_packets;
    // Packets in flight since this check at the earliest, if none were at the last: the flow
    // is stalled only once it has had them for the timeout (found up to a check late).
    if (in_flight && st.idle_at_check) st.progress_cycle = std::max(st.progress_cycle, now_);
    st.idle_at_check = !in_flight;
    if (in_flight && now_ - st.progress_cycle > cycles) out.push_back(i);
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
        if (sw.in[p].vl[v].used == 0) continue;
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

void Fabric::blocked_buffer_check() {
  if (now_ - last_blocked_check_ < deadlock_cycles_ / 4) return;
  last_blocked_check_ = now_;
  uint64_t longest = 0;
  const Node* at = nullptr;
  unsigned at_port = 0, at_vl = 0;
  for (unsigned n = 0; n < topo_.num_switches; ++n) {
    const Node& sw = *nodes_[n];
    for (unsigned p = 1; p < sw.in.size(); ++p) {
      const InputUnit& ip = sw.in[p];
      for (unsigned v = 0; v < ip.vl.size(); ++v) {
        if (ip.vl[v].used == 0 || now_ - ip.vl[v].moved <= longest) continue;
        longest = now_ - ip.vl[v].moved;
        at = &sw;
        at_port = p;
        at_vl = v;
      }
    }
  }
  if (longest <= deadlock_cycles_) return;
  const auto cycle = deadlock_cycle();
  if (cycle.empty()) return;  // blocked behind something that will move: congestion, not deadlock
  throw ModelError(fmt::format("blocked: {} port {} VL{} has sent nothing for {} us at {} us\n", at->basename(), at_port,
                               at_vl, static_cast<double>(ps(longest)) / 1e6, static_cast<double>(ps(now_)) / 1e6) +
                   cycle_report(cycle));
}

std::string Fabric::cycle_report(const std::vector<BufferId>& cycle) const {
  std::string out = "partial deadlock: a cycle of switch input buffers that can never send (each waits for credits of the next):";
  for (const BufferId& b : cycle) {
    out += fmt::format("\n  {} port {} VL{}: {} of {} credits buffered", nodes_[b.node]->basename(), b.port, b.vl,
                       nodes_[b.node]->in[b.port].vl[b.vl].used, nodes_[b.node]->in[b.port].capacity);
  }
  return out;
}

std::string Fabric::stall_report(const std::vector<unsigned>& stuck) const {
  std::string names;
  for (size_t i = 0; i < stuck.size() && i < 12; ++i) names += (i ? ", " : "") + flows_[stuck[i]].spec.name;
  if (stuck.size() > 12) names += fmt::format(", ... ({} flows)", stuck.size());
  std::string out = fmt::format("stalled: {} delivered nothing for {} us at {} us while packets of theirs were in flight",
                                names, static_cast<double>(ps(stall_cycles_)) / 1e6, static_cast<double>(ps(now_)) / 1e6);
  out += fmt::format(" (sim.stall_timeout, {} us, sets how long counts as stalled)",
                     static_cast<double>(ps(stall_cycles_)) / 1e6);
  const auto cycle = deadlock_cycle();
  if (!cycle.empty()) return out + "\n" + cycle_report(cycle);
  out += "; no cycle of stuck buffers found (starved rather than deadlocked). Where they wait:";
  for (size_t i = 0; i < stuck.size() && i < 4; ++i) {
    unsigned listed = 0;
    for (unsigned n = 0; n < topo_.num_switches && listed < 4; ++n) {
      const auto& sw = static_cast<const Switch&>(*nodes_[n]);
      for (const std::string& line : sw.where_flow_waits(static_cast<int32_t>(stuck[i]), 4 - listed)) {
        out += fmt::format("\n  {}: {}", flows_[stuck[i]].spec.name, line);
        ++listed;
      }
    }
    if (listed == 0) out += fmt::format("\n  {}: in no switch queue (at a link or an HCA)", flows_[stuck[i]].spec.name);
  }
  return out;
}

std::string Fabric::deadlock_report() const {
  std::string out = fmt::format("deadlock: no packet has moved for {} us at {} us while {} packets wait. Blocked:",
                                static_cast<double>(ps(now_ - last_progress_)) / 1e6, static_cast<double>(ps(now_)) / 1e6,
                                live_packets());
  unsigned listed = 0;
  for (unsigned n = 0; n < nodes_.size() && listed < 32; ++n) {
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.in.size() && listed < 32; ++p) {
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        if (node.in[p].vl[v].used == 0) continue;
        out += fmt::format("\n  {} port {} VL{}: {} of {} credits buffered", node.basename(), p, v, node.in[p].vl[v].used, node.in[p].capacity);
        ++listed;
      }
    }
  }
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.out.size(); ++p) {
      const OutPort& op = node.out[p];
      for (unsigned v = 0; v < s_.fabric.vls && op.peer >= 0; ++v) {
        if (op.vls[v].credits == 0 && listed < 64) {
          out += fmt::format("\n  {} port {} VL{}: no credits toward {}/{}", node.basename(), p, v, nodes_[op.peer]->basename(), op.peer_port);
          ++listed;
        }
      }
    }
  }
  return out;
}

std::vector<PortReport> Fabric::port_reports(unsigned shard) const {
  // (Over processes, rank 0's report of the whole fabric is every process's, gathered at the end.)
  if (shard == kAllShards && ranked()) return end_ports_;
  return port_reports_of([&](unsigned n) { return shard == kAllShards || plan_.part_of[n] == shard; });
}

std::vector<PortReport> Fabric::port_reports_here() const {
  return port_reports_of([&](unsigned n) { return runs_here(n); });
}

std::vector<PortReport> Fabric::port_reports_of(const std::function<bool(unsigned)>& mine) const {
  std::vector<PortReport> rows;
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    if (!mine(n)) continue;
    const Node& node = *nodes_[n];
    const bool is_switch = n < topo_.num_switches;
    for (unsigned p = 1; p < node.out.size(); ++p) {
      const OutPort& op = node.out[p];
      PortReport& r = rows.emplace_back();
      r.node = n;
      r.port = p;
      r.packets = op.packets;
      r.bytes = op.bytes;
      r.marked = op.marked;
      r.pauses_received = op.pauses;
      r.egress_drops = op.drops;
      if (p < node.in.size()) {
        const InputUnit& in = node.in[p];
        for (const auto& v : in.vl) r.input_peak = std::max<uint64_t>(r.input_peak, v.peak);
        r.pauses_sent = in.pauses_sent;
        r.input_drops = in.drops;
      }
      if (!is_switch) continue;
      const auto& sw = static_cast<const Switch&>(node);
      if (p > sw.ports()) continue;
      // The performance counters over the run, as perfquery reads them after a reset at its
      // start.
      const PortCounters& pc = sw.counters(p);
      for (unsigned v = 0; v < pc.vls(); ++v) {
        r.xmit_bytes += pc.vl(v).xmit_bytes;
        r.rcv_bytes += pc.vl(v).rcv_bytes;
        r.xmit_pkts += pc.vl(v).xmit_pkts;
        r.rcv_pkts += pc.vl(v).rcv_pkts;
      }
      r.xmit_wait = pc.xmit_wait(now_);
      r.egress_peak = sw.egress_peak(p);
    }
  }
  return rows;
}

}  // namespace ibcc::net
