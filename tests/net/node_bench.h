// A bench for one node of the network model alone: a NodeContext over a scenario's topology
// in which one node is the real Switch or Hca under test and every other node is a Probe,
// a scripted neighbour that sends the packets a test asks for, records what reaches it and
// returns credits (or holds them, to starve the node under test). The test runs the event
// calendar itself (NodeContext::run_until); no Fabric, no SystemC scheduler.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "net/fabric/link.h"
#include "net/fabric/node_context.h"
#include "net/scenario/scenario_yaml.h"
#include "net/scenario/topology.h"

namespace ibcc::net::testing {

class Probe : public Node {
 public:
  Probe(const std::string& name, NodeContext& ctx, unsigned index, unsigned ports)
      : Node(name.c_str(), ctx, index) {
    out.resize(ports + 1);
    in.resize(ports + 1);
  }

  struct Got {
    uint64_t head = 0, tail = 0;  // cycles the head and the tail arrived
    unsigned port = 0;
    IbExtension hdr;
  };
  std::vector<Got> got;
  // Drain each packet as its tail arrives and return its credits; false: hold them all
  // (release_held() frees them later).
  bool drain = true;

  // Queues a packet to send on `port`: it leaves as soon as the port is free and the peer
  // has the credits for it.
  void send(unsigned port, const IbExtension& hdr) {
    to_send_.push_back({port, hdr});
    ctx_.schedule(ctx_.now(), EventKind::kHcaWake, index_);
  }
  size_t unsent() const { return to_send_.size(); }
  void release_held() {
    for (auto* p : held_) ctx_.schedule(ctx_.now(), EventKind::kSinkDone, index_, ib(p).in_port, 0, 0, p);
    held_.clear();
  }

  void handle(const Event& e) override {
    switch (e.kind) {
      case EventKind::kArrive: {
        accept(ctx_, *this, "probe", e.port, e.pkt);
        const IbExtension& h = ib(e.pkt);
        got.push_back({ctx_.now(), h.tail_cycle, e.port, h});
        if (drain) ctx_.schedule(h.tail_cycle, EventKind::kSinkDone, index_, e.port, 0, 0, e.pkt);
        else held_.push_back(e.pkt);
        break;
      }
      case EventKind::kSinkDone: {
        const IbExtension& h = ib(e.pkt);
        release_credits(ctx_, *this, e.port, h.vl, h.credits, false);
        ++ctx_.delivered;
        e.pkt->release();
        break;
      }
      case EventKind::kCredit:
        out[e.port].vls[e.vl].returning -= e.value;
        out[e.port].vls[e.vl].credits += e.value;
        try_send();
        break;
      case EventKind::kTxDone:
      case EventKind::kHcaWake: try_send(); break;
      default: break;
    }
  }

 private:
  void try_send() {
    if (to_send_.empty()) return;
    const Pending& p = to_send_.front();
    OutPort& o = out[p.port];
    if (o.busy_until > ctx_.now()) return;  // its kTxDone comes
    if (o.vls[p.hdr.vl].credits < p.hdr.credits) return;  // a credit return comes
    tlm::tlm_generic_payload* pkt = ctx_.pool().alloc();
    IbExtension& e = ib(pkt);
    e = p.hdr;
    e.inject_cycle = ctx_.now();
    pkt->set_command(tlm::TLM_WRITE_COMMAND);
    ++ctx_.injected;
    const unsigned port = p.port;
    to_send_.pop_front();
    const uint64_t end = transmit(ctx_, *this, port, pkt, 0);
    ctx_.schedule(end, EventKind::kTxDone, index_, port);
  }

  struct Pending {
    unsigned port;
    IbExtension hdr;
  };
  std::deque<Pending> to_send_;
  std::vector<tlm::tlm_generic_payload*> held_;
};

// A context over `s`'s topology with probes everywhere but the node built by `make` at
// index `real` (Make: unique_ptr<Node>(NodeContext&, unsigned index)). The links' sockets
// are bound and elaborated (sc_start(SC_ZERO_TIME)); a test that makes a second bench gets a
// fresh SystemC context for it (the first one's stays alive: its modules may still be).
// `before_bind` runs after the ports are wired, before the builder binds the links (a test
// claims a link there, NodeContext::claim_link, and binds its own module to it).
template <typename Make, typename BeforeBind = void (*)(NodeContext&)>
std::unique_ptr<NodeContext> bench(const Scenario& s, unsigned real, Make make, BeforeBind before_bind = [](NodeContext&) {}) {
  if (sc_core::sc_get_curr_simcontext()->elaboration_done()) {
    static std::vector<sc_core::sc_simcontext*> retired;  // kept reachable, never freed
    retired.push_back(sc_core::sc_curr_simcontext);
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  }
  auto ctx = std::make_unique<NodeContext>(s, build_topology(s));
  const Topology& t = ctx->topology();
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    if (n == real) ctx->add_node(make(*ctx, n));
    else ctx->add_node(std::make_unique<Probe>(t.nodes[n].name, *ctx, n, t.nodes[n].ports));
  }
  ctx->wire_ports();
  before_bind(*ctx);
  ctx->bind_links();
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_, sc_core::SC_DO_NOTHING);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  return ctx;
}

inline Probe& probe(NodeContext& ctx, const std::string& name) {
  return static_cast<Probe&>(ctx.node(static_cast<unsigned>(ctx.topology().find(name))));
}

// A flow of `spec` from node `src` to the node named `dst`, with one lane (its message in
// progress) toward it, as Fabric builds one; added to the context's flows, its index returned.
inline unsigned add_flow(NodeContext& ctx, const FlowSpec& spec, unsigned src, const std::string& dst) {
  const Topology& t = ctx.topology();
  Flow f;
  f.spec = spec;
  f.src = src;
  f.dst = t.find(dst);
  Flow::Lane lane;
  lane.dlid = t.nodes[f.dst].lid;
  lane.qp = f.spec.qp;
  f.lanes.assign(1, lane);
  ctx.flows().push_back(f);
  return static_cast<unsigned>(ctx.flows().size() - 1);
}

// A data packet's header as an HCA would send it.
inline IbExtension data_header(const NodeContext& ctx, const std::string& src, const std::string& dst, uint32_t payload,
                               unsigned sl = 0) {
  const Topology& t = ctx.topology();
  IbExtension e;
  e.slid = t.nodes[t.find(src)].lid;
  e.dlid = t.nodes[t.find(dst)].lid;
  e.sl = static_cast<uint8_t>(sl);
  e.vl = static_cast<uint8_t>(ctx.scenario().fabric.sl_to_vl[sl]);
  e.opcode = Opcode::kData;
  e.payload_bytes = payload;
  e.wire_bytes = ctx.wire_bytes(payload);
  e.credits = NodeContext::credits_of(e.wire_bytes);
  e.flow = 0;
  e.last = true;
  return e;
}

}  // namespace ibcc::net::testing
