// Example: a SystemC module of one's own, bound to a fabric port with standard TLM-2.0
// sockets. LinkTap sits in the middle of one link (say the cable between switch S2's port 1
// and HCA H4) and forwards both ways: packets on the forward path, credits on the backward
// path (the link protocol of sc_models/net/fabric/link_socket.h). It counts what crosses it and can
// lengthen the link by `extra` core cycles each way, as a retimer or a longer cable would, in
// one of two ways:
//   annotate  forwards at once, adding `extra` to the call's delay (loosely timed);
//   thread    holds each packet and credit in a payload event queue until `extra` after it
//             arrived and forwards it from its own SC_THREAD (as a module with state would).
//
//   ibcc_tlm_link_tap SCENARIO NODE PORT EXTRA_CYCLES SIM_TIME [annotate|thread]
//
// builds the scenario's fabric, claims the link at NODE/PORT, binds the tap between its two
// ends, runs, and prints JSON: the tap's counters, the port's own counters, and each flow's
// delivered packets and bytes and round-trip times. With EXTRA_CYCLES 0 the fabric behaves
// exactly as without the tap, and either way as with a link longer by EXTRA_CYCLES
// (verif/net/check_tlm_link_tap.py compares with `ibcc run`). The tap reads the packets' header
// and never writes it: the fabric times a packet's tail from where its head arrives.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/fabric/fabric.h"
#include "net/fabric/link_socket.h"
#include "net/scenario/scenario_yaml.h"
#include "net/scenario/units.h"

namespace {

using ibcc::net::CreditPayload;
using ibcc::net::IbCredit;
using ibcc::net::IbExtension;
using ibcc::net::IbLinkProtocol;

class LinkTap : public sc_core::sc_module {
 public:
  // One direction of the link: packets come in on `in` and leave on `out`; the credits for
  // them come back on `out`'s backward path and go on through `in`'s.
  struct Way {
    tlm_utils::simple_target_socket<LinkTap, 32, IbLinkProtocol> in;
    tlm_utils::simple_initiator_socket<LinkTap, 32, IbLinkProtocol> out;
    uint64_t packets = 0, bytes = 0, fecn = 0, becn = 0, credits_back = 0;
    // Thread mode: what is held until it goes on (the fabric's credit payload is reused
    // once the call returns, so a held credit is a copy of our own).
    tlm_utils::peq_with_get<tlm::tlm_generic_payload> packets_held, credits_held;
    std::deque<CreditPayload> owned;   // every copy made (a deque keeps them in place)
    std::vector<CreditPayload*> spare;  // those not held now
    Way(const char* in_name, const char* out_name)
        : in(in_name), out(out_name), packets_held((std::string(in_name) + "_packets").c_str()),
          credits_held((std::string(in_name) + "_credits").c_str()) {}
  };

  SC_HAS_PROCESS(LinkTap);
  LinkTap(sc_core::sc_module_name name, sc_core::sc_time extra, bool thread)
      : sc_module(name), a_to_b("a_in", "b_out"), b_to_a("b_in", "a_out"), extra_(extra), thread_(thread) {
    a_to_b.in.register_nb_transport_fw(this, &LinkTap::forward_ab);
    b_to_a.in.register_nb_transport_fw(this, &LinkTap::forward_ba);
    a_to_b.out.register_nb_transport_bw(this, &LinkTap::credits_ab);
    b_to_a.out.register_nb_transport_bw(this, &LinkTap::credits_ba);
    if (thread_) {
      SC_THREAD(release_ab);
      SC_THREAD(release_ba);
    }
  }

  Way a_to_b, b_to_a;

 private:
  tlm::tlm_sync_enum forward(Way& w, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    // The fabric's packets carry their IB header as an extension.
    if (const IbExtension* h = gp.get_extension<IbExtension>()) {
      ++w.packets;
      w.bytes += h->wire_bytes;
      w.fecn += h->fecn;
      w.becn += h->becn;
    }
    if (thread_) {
      w.packets_held.notify(gp, delay + extra_);
      return tlm::TLM_ACCEPTED;
    }
    delay += extra_;
    return w.out->nb_transport_fw(gp, phase, delay);
  }
  tlm::tlm_sync_enum credits(Way& w, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    const IbCredit* c = gp.get_extension<IbCredit>();
    if (c) w.credits_back += c->credits;
    if (thread_ && c) {
      if (w.spare.empty()) w.spare.push_back(&w.owned.emplace_back());
      CreditPayload* copy = w.spare.back();
      w.spare.pop_back();
      copy->credit = *c;
      w.credits_held.notify(*copy, delay + extra_);
      return tlm::TLM_ACCEPTED;
    }
    delay += extra_;
    return w.in->nb_transport_bw(gp, phase, delay);
  }
  // Thread mode: each held packet and credit goes on, with no further delay, at its time.
  void release(Way& w) {
    for (;;) {
      sc_core::wait(w.packets_held.get_event() | w.credits_held.get_event());
      while (tlm::tlm_generic_payload* gp = w.packets_held.get_next_transaction()) {
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        sc_core::sc_time none = sc_core::SC_ZERO_TIME;
        w.out->nb_transport_fw(*gp, phase, none);
      }
      while (tlm::tlm_generic_payload* gp = w.credits_held.get_next_transaction()) {
        tlm::tlm_phase phase = ibcc::net::IB_CREDIT;
        sc_core::sc_time none = sc_core::SC_ZERO_TIME;
        w.in->nb_transport_bw(*gp, phase, none);
        w.spare.push_back(static_cast<CreditPayload*>(gp));
      }
    }
  }
  void release_ab() { release(a_to_b); }
  void release_ba() { release(b_to_a); }
  tlm::tlm_sync_enum forward_ab(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) { return forward(a_to_b, gp, ph, d); }
  tlm::tlm_sync_enum forward_ba(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) { return forward(b_to_a, gp, ph, d); }
  tlm::tlm_sync_enum credits_ab(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) { return credits(a_to_b, gp, ph, d); }
  tlm::tlm_sync_enum credits_ba(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) { return credits(b_to_a, gp, ph, d); }

  sc_core::sc_time extra_;
  bool thread_;
};

nlohmann::json way_json(const LinkTap::Way& w) {
  return {{"packets", w.packets}, {"bytes", w.bytes}, {"fecn", w.fecn}, {"becn", w.becn}, {"credits_back", w.credits_back}};
}

}  // namespace

int sc_main(int argc, char** argv) {
  const bool thread = argc == 7 && std::strcmp(argv[6], "thread") == 0;
  if ((argc != 6 && argc != 7) || (argc == 7 && !thread && std::strcmp(argv[6], "annotate") != 0)) {
    std::fprintf(stderr, "usage: %s SCENARIO NODE PORT EXTRA_CYCLES SIM_TIME [annotate|thread]\n", argv[0]);
    return 2;
  }
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);  // "stopped by user"
  try {
    using namespace ibcc::net;
    const Scenario s = load_scenario(argv[1], {Override("sim.time", argv[5])});
    Fabric fabric("fabric", s);
    const int a = fabric.topology().find(argv[2]);
    const unsigned pa = static_cast<unsigned>(std::stoul(argv[3]));
    if (a < 0) throw std::invalid_argument(std::string("no node ") + argv[2]);
    fabric.claim_link(static_cast<unsigned>(a), pa);
    Node& na = fabric.node(static_cast<unsigned>(a));
    Node& nb = fabric.node(static_cast<unsigned>(na.out[pa].peer));
    const unsigned pb = na.out[pa].peer_port;

    const sc_core::sc_time cycle = sc_core::sc_time::from_value(fabric.ps_per_cycle());
    LinkTap tap("tap", cycle * static_cast<double>(std::stoull(argv[4])), thread);
    // A's port out -> tap -> B's port in, and back: the standard initiator-to-target binding.
    na.end(pa).out.bind(tap.a_to_b.in);
    tap.a_to_b.out.bind(nb.end(pb).in);
    nb.end(pb).out.bind(tap.b_to_a.in);
    tap.b_to_a.out.bind(na.end(pa).in);

    fabric.run();

    nlohmann::json j;
    j["tap"] = {{"a", na.basename()}, {"b", nb.basename()}, {"a_to_b", way_json(tap.a_to_b)}, {"b_to_a", way_json(tap.b_to_a)}};
    j["port"] = {{"a_out_packets", na.out[pa].packets}, {"b_out_packets", nb.out[pb].packets},
                 {"a_out_bytes", na.out[pa].bytes}, {"b_out_bytes", nb.out[pb].bytes}};
    for (const Flow& f : fabric.flows()) {
      j["flows"].push_back({{"name", f.spec.name},
                            {"delivered_packets", f.stats.delivered_packets},
                            {"delivered_bytes", f.stats.delivered_bytes},
                            {"fecn_marked", f.stats.fecn_marked},
                            {"becn_received", f.stats.becn_received},
                            {"rtt_count", f.stats.pingpong_rtt.count()},
                            {"rtt_min_ps", fabric.ps(f.stats.pingpong_rtt.min())},
                            {"rtt_max_ps", fabric.ps(f.stats.pingpong_rtt.max())}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tlm_link_tap: error: %s\n", e.what());
    return 1;
  }
}
