// NodeContext: the clock, the node table, port wiring and a SystemC-free event loop.
#include "net/fabric/node_context.h"
#include "net/scenario/units.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

namespace ibcc::net {

void packet_fifo_overflow() {
  throw ModelError(fmt::format("a packet queue would hold more than {} packets, the most the model counts in one queue",
                               PacketFifo::kMaxCount));
}

NodeContext::NodeContext(const Scenario& s, Topology topo)
    : s_(s), world_(std::make_shared<NodeWorld>(NodeWorld{std::move(topo), {}, {}})), topo_(world_->topo),
      nodes_(world_->nodes), flows_(world_->flows) {
  ps_per_cycle_ = cycle_ps(s.fabric.core_clock_hz);
}

NodeContext::NodeContext(NodeContext& primary)
    : wake_(), s_(primary.s_), world_(primary.world_), topo_(world_->topo), ps_per_cycle_(primary.ps_per_cycle_),
      nodes_(world_->nodes), flows_(world_->flows) {
  primary.shards_.push_back(this);
}

// SystemC's registries find a port or export to remove by searching back from the newest:
// tearing down newest first keeps that O(1) per socket (oldest first: O(sockets) each, which
// was seconds at 11,664 hosts).
NodeContext::~NodeContext() {
  if (world_.use_count() == 1) {
    while (!nodes_.empty()) nodes_.pop_back();
  }
}

Node::~Node() {
  while (!ends_.empty()) ends_.pop_back();
}

Node::Node(sc_core::sc_module_name name, NodeContext& ctx, unsigned index) : sc_module(name), ctx_(ctx), index_(index) {
  const unsigned ports = index < ctx.topology().nodes.size() ? ctx.topology().nodes[index].ports : 0;
  ends_.resize(ports + 1);
  for (unsigned p = 1; p <= ports; ++p) ends_[p] = std::make_unique<PortEnd>(*this, p);
}

Node& NodeContext::add_node(std::unique_ptr<Node> n) {
  if (nodes_.size() >= topo_.nodes.size()) {
    throw std::logic_error(fmt::format("NodeContext::add_node: the topology has {} nodes", topo_.nodes.size()));
  }
  nodes_.push_back(std::move(n));
  return *nodes_.back();
}

void NodeContext::wire_ports() {
  if (nodes_.size() != topo_.nodes.size()) {
    throw std::logic_error(fmt::format("NodeContext::wire_ports: {} of {} nodes added", nodes_.size(), topo_.nodes.size()));
  }
  const unsigned nvl = s_.fabric.vls;
  // A node's input buffer per VL, credits.
  auto buffer = [&](unsigned n) {
    return static_cast<uint32_t>((topo_.nodes[n].is_switch ? s_.fabric.switch_buffer_per_vl : s_.fabric.hca_buffer_per_vl) / 64);
  };
  // The transmit sides: rate and propagation of each port's link.
  for (unsigned n = 0; n < topo_.nodes.size(); ++n) {
    Node& node = *nodes_[n];
    const auto& tn = topo_.nodes[n];
    node.out.resize(std::max<size_t>(node.out.size(), tn.ports + 1));
    node.in.resize(std::max<size_t>(node.in.size(), tn.ports + 1));
    for (unsigned p = 1; p <= tn.ports; ++p) {
      const PortWire& w = topo_.wire[n][p];
      OutPort& op = node.out[p];
      op.vls.assign(nvl, OutPort::Vl{});
      if (w.peer < 0) continue;
      const LinkSpec& l = s_.links[w.link];
      op.peer = w.peer;
      op.peer_port = w.peer_port;
      const double bytes_per_ps = l.data_bps / 8.0 / 1e12;
      op.rate_bytes_per_cycle = bytes_per_ps * static_cast<double>(ps_per_cycle_);
      op.cycles_per_byte = 1.0 / op.rate_bytes_per_cycle;
      op.prop_cycles = cycles(l.propagation_ps);
      op.prop_delay = link_delay(op.prop_cycles);
      op.capacity = buffer(w.peer);
      if (!s_.fabric.credited()) {
        // No credits: the receiver pauses the VL (PFC) or drops what does not fit (lossy).
        op.uncredited = true;
        op.set_all_credits(OutPort::kPfcOpen);
      } else {
        op.set_all_credits(op.capacity);
      }
    }
  }
  // The receive sides, each connected to its link as a whole (one propagation per link, both ways).
  for (unsigned n = 0; n < topo_.nodes.size(); ++n) {
    Node& node = *nodes_[n];
    for (unsigned p = 1; p <= topo_.nodes[n].ports; ++p) {
      const PortWire& w = topo_.wire[n][p];
      InputUnit::Link l;
      l.capacity = buffer(n);
      l.vls = nvl;
      if (w.peer >= 0) {
        const OutPort& sender = nodes_[w.peer]->out[w.peer_port];
        l.upstream = w.peer;
        l.upstream_port = w.peer_port;
        l.prop_cycles = sender.prop_cycles;
        l.prop_delay = sender.prop_delay;
        if (s_.fabric.pfc) {
          pfc_link(node, p, sender, l);
        } else if (s_.fabric.lossy) {
          l.flow_control = InputUnit::FlowControl::kLossy;
          // An output-buffered or shared switch limits its egress queues, not its inputs.
          if (topo_.nodes[n].is_switch && s_.egress_drop_tail()) l.capacity = UINT32_MAX / 2;
        }
      }
      node.in[p].connect(l);
    }
  }
  for (auto& n : nodes_) n->wired();
}

void NodeContext::pfc_link(const Node& receiver, unsigned port, const OutPort& sender, InputUnit::Link& l) const {
  const FabricParams& f = s_.fabric;
  l.flow_control = InputUnit::FlowControl::kPfc;
  l.pause_cycles = static_cast<uint64_t>(std::ceil(f.pfc_pause_bytes * sender.cycles_per_byte));
  // Headroom: after the buffer crosses XOFF, the sender may finish the packet it is in and
  // keep sending until the pause frame has crossed the link; what was on the wire then
  // still arrives. Two MTU packets plus a round trip and a pause frame at the link's rate.
  const uint32_t mtu = credits_of(wire_bytes(f.mtu));
  const double in_flight = sender.rate_bytes_per_cycle * static_cast<double>(2 * l.prop_cycles + l.pause_cycles + 1);
  const uint32_t headroom = 2 * mtu + static_cast<uint32_t>(std::ceil(in_flight / 64.0));
  const std::string where = fmt::format("{}/{}", receiver.basename(), port);
  if (f.pfc_xoff_bytes) {
    l.xoff = static_cast<uint32_t>(f.pfc_xoff_bytes / 64);
    if (l.xoff > l.capacity) {
      throw ScenarioError(fmt::format("{}: fabric.pfc.xoff ({} bytes) is above the buffer of {} ({} bytes)", s_.file,
                                      f.pfc_xoff_bytes, where, uint64_t{l.capacity} * 64));
    }
  } else {
    if (l.capacity < headroom + mtu) {
      throw ScenarioError(fmt::format("{}: the buffer of {} ({} bytes per VL) cannot hold PFC's headroom ({} bytes: 2 MTU "
                                      "packets and a round trip of its link) and a packet below XOFF; give a larger buffer",
                                      s_.file, where, uint64_t{l.capacity} * 64, uint64_t{headroom} * 64));
    }
    l.xoff = l.capacity - headroom;
  }
  if (f.pfc_xon_bytes) {
    l.xon = static_cast<uint32_t>(f.pfc_xon_bytes / 64);
  } else {
    l.xon = l.xoff > 2 * mtu ? l.xoff - 2 * mtu : 0;
  }
  l.xon = std::min(l.xon, l.xoff);
}

void NodeContext::claim_link(unsigned node, unsigned port) {
  if (node >= nodes_.size() || port == 0 || port >= nodes_[node]->out.size() || nodes_[node]->out[port].peer < 0) {
    throw std::invalid_argument(fmt::format("NodeContext::claim_link: node {} port {} has no link", node, port));
  }
  OutPort& o = nodes_[node]->out[port];
  o.user_bound = true;
  nodes_[static_cast<unsigned>(o.peer)]->out[o.peer_port].user_bound = true;
}

void NodeContext::bind_links() {
  for (auto& n : nodes_) {
    for (unsigned p = 1; p < n->out.size() && p <= n->num_ends(); ++p) {
      const OutPort& o = n->out[p];
      if (o.peer < 0 || o.user_bound) continue;
      n->end(p).out.bind(nodes_[static_cast<unsigned>(o.peer)]->end(o.peer_port).in);
    }
  }
}

uint64_t NodeContext::run_until(uint64_t last) {
  uint64_t ran = 0;
  while (!queue_.empty() && queue_.next_cycle() <= last) {
    now_ = queue_.next_cycle();
    run_cycle<false>(now_, [this, &ran](const Event& e) {
      ++ran;
      if (e.node >= nodes_.size()) throw std::logic_error(fmt::format("NodeContext::run_until: event for node {}", e.node));
      nodes_[e.node]->handle(e);
    });
  }
  if (now_ < last) now_ = last;
  return ran;
}

uint64_t NodeContext::arrival_from_kernel(const sc_core::sc_time& delay) {
  const uint64_t stamp = sc_core::sc_time_stamp().value();
  const uint64_t cycle = std::max<uint64_t>(now_, (stamp + delay.value()) / ps_per_cycle_);
  const uint64_t t = cycle * ps_per_cycle_;
  wake_.notify(t > stamp ? sc_core::sc_time::from_value(t - stamp) : sc_core::SC_ZERO_TIME);
  return cycle;
}

void NodeContext::deliver(const WireMessage& m) {
  if (m.at < now_) {
    throw std::logic_error(fmt::format("NodeContext::deliver: a message due at cycle {} reached its shard at {}", m.at, now_));
  }
  if (m.node >= nodes_.size() || m.port == 0 || m.port > nodes_[m.node]->num_ends()) {
    throw std::logic_error(fmt::format("NodeContext::deliver: a message for port {} of node {}, which has no such port",
                                       m.port, m.node));
  }
  PortEnd& target = nodes_[m.node]->end(m.port);
  sc_core::sc_time delay = link_delay(m.at - now_);
  scheduled_at_ = m.sent;
  if (m.head) {
    tlm::tlm_generic_payload* pkt = pool_.alloc();
    static_cast<IbFields&>(ib(pkt)) = m.packet;
    ib(pkt).next = nullptr;
    pkt->set_data_length(m.data_length);
    pkt->set_command(static_cast<tlm::tlm_command>(m.command));
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    target.nb_transport_fw(*pkt, phase, delay);
  } else {
    credit_payload.credit.vl = m.vl;
    credit_payload.credit.credits = m.credits;
    credit_payload.credit.pfc = m.pfc;
    tlm::tlm_phase phase = IB_CREDIT;
    target.nb_transport_bw(credit_payload, phase, delay);
    credit_payload.credit.pfc = IbCredit::kCredits;
  }
  scheduled_at_ = kNow;
}

void FlowStats::add_share(FlowStats& s) {
  for (uint64_t FlowStats::* m : kShareSums) this->*m += s.*m;
  progress_cycle = std::max(progress_cycle, s.progress_cycle);
  for (LatencyHistogram FlowStats::* h : kShareHistograms) (this->*h).merge(s.*h);
  s = FlowStats{};
}

void FlowStats::share_to_bytes(ByteWriter& w) const {
  for (uint64_t FlowStats::* m : kShareSums) w.put(this->*m);
  w.put(progress_cycle);
  for (LatencyHistogram FlowStats::* h : kShareHistograms) (this->*h).to_bytes(w);
}

FlowStats FlowStats::share_from_bytes(ByteReader& r) {
  FlowStats s;
  for (uint64_t FlowStats::* m : kShareSums) s.*m = r.take<uint64_t>("a flow's share of its counts");
  s.progress_cycle = r.take<uint64_t>("a flow's progress");
  for (LatencyHistogram FlowStats::* h : kShareHistograms) s.*h = LatencyHistogram::from_bytes(r);
  return s;
}

FlowStats FlowStats::take_share() {
  FlowStats s;
  for (uint64_t FlowStats::* m : kShareSums) {
    s.*m = this->*m;
    this->*m = 0;
  }
  s.progress_cycle = progress_cycle;
  for (LatencyHistogram FlowStats::* h : kShareHistograms) {
    s.*h = std::move(this->*h);
    this->*h = LatencyHistogram{};
  }
  return s;
}

void FlowStats::source_to_bytes(ByteWriter& w) const {
  for (uint64_t FlowStats::* m : kSourceCounts) w.put(this->*m);
  for (const auto& row : chain) {
    for (uint64_t n : row) w.put(n);
  }
  for (LatencyHistogram FlowStats::* h : kSourceHistograms) (this->*h).to_bytes(w);
}

void FlowStats::take_source_bytes(ByteReader& r) {
  // Read whole before any field is replaced: cut bytes leave the flow as it was.
  uint64_t counts[std::size(kSourceCounts)];
  for (uint64_t& n : counts) n = r.take<uint64_t>("a flow's source counts");
  uint64_t events[kNoEvent][kNoEvent];
  for (auto& row : events) {
    for (uint64_t& n : row) n = r.take<uint64_t>("a flow's Go-Back-N chain");
  }
  LatencyHistogram hists[std::size(kSourceHistograms)];
  for (LatencyHistogram& h : hists) h = LatencyHistogram::from_bytes(r);
  for (size_t i = 0; i < std::size(kSourceCounts); ++i) this->*kSourceCounts[i] = counts[i];
  std::copy(&events[0][0], &events[0][0] + kNoEvent * kNoEvent, &chain[0][0]);
  for (size_t i = 0; i < std::size(kSourceHistograms); ++i) this->*kSourceHistograms[i] = std::move(hists[i]);
}

void NodeContext::absorb(NodeContext& sh) {
  sh.fold_shares();
  injected += sh.injected;
  delivered += sh.delivered;
  on_wire += sh.on_wire;
  hops += sh.hops;
  cnps += sh.cnps;
  events += sh.events;
  dropped += sh.dropped;
  discarded += sh.discarded;
  sh.injected = sh.delivered = sh.on_wire = sh.hops = sh.cnps = sh.events = sh.dropped = sh.discarded = 0;
  last_progress_ = std::max(last_progress_, sh.last_progress_);
}

}  // namespace ibcc::net
