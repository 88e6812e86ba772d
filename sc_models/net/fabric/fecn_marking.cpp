#include "net/fabric/fecn_marking.h"

#include <algorithm>

#include <fmt/format.h>

#include "net/fabric/node_context.h"

namespace ibcc::net {

namespace {

// A remark if Threshold `threshold` can never trip on a VL buffer of `capacity` credits: per
// VoQ, a Threshold trips at (16 - T)/16 of the buffer, and a VoQ of MTU packets holds whole
// packets only. (The summed mappings add VoQs up and reach any level with two inputs.)
void note_unreachable_trip(const MarkingSetup& setup, unsigned threshold, uint32_t capacity, const std::string& key) {
  const Scenario& s = setup.ctx.scenario();
  if (threshold == 0 || s.cc.sw.mapping != cc::ThresholdMapping::kPerVoq || !setup.note) return;
  const uint32_t pkt = NodeContext::credits_of(setup.ctx.wire_bytes(s.fabric.mtu));
  const uint64_t trip = (uint64_t{cc::enter_level16(threshold)} * capacity + 15) / 16;
  const uint64_t most = uint64_t{capacity / pkt} * pkt;
  if (most >= trip) return;
  setup.note(fmt::format(
      "{} {} trips at {} of a VL buffer's {} credits (per_voq), but a VoQ of MTU packets ({} credits each) holds at most "
      "{}: its ports never mark unless smaller packets fill a VoQ (a higher Threshold trips earlier)",
      key, threshold, trip, capacity, pkt, most));
}

}  // namespace

std::unique_ptr<MarkingPoint> FecnMarking::make(const MarkingSetup& setup) {
  const Scenario& s = setup.ctx.scenario();
  const Topology& topo = setup.ctx.topology();
  const unsigned n = setup.node, p = setup.port;
  const PortCcOverride* ovr = nullptr;
  for (const auto& o : s.cc.ports) {
    if (o.switch_name == topo.nodes[n].name && o.port == p) ovr = &o;
  }
  const int peer = setup.ctx.node(n).out[p].peer;
  bool victim = (s.cc.sw.victim_mask_hca_ports && !topo.nodes[peer].is_switch) ||
                std::find(s.cc.sw.victim_ports.begin(), s.cc.sw.victim_ports.end(), p) != s.cc.sw.victim_ports.end();
  if (ovr && ovr->victim_mask) victim = *ovr->victim_mask;
  cc::FecnMarkerParams mp;
  mp.num_inputs = setup.inputs;
  mp.num_vls = s.fabric.vls;
  mp.fill_width = 16;
  mp.port_num = p;
  mp.tick_cycles = setup.tick_cycles;
  std::unique_ptr<RtlMarkerEngine> engine = setup.rtl ? setup.rtl(mp) : nullptr;
  note_unreachable_trip(setup, ovr && ovr->threshold ? *ovr->threshold : s.cc.sw.threshold, setup.buffer_credits,
                        ovr && ovr->threshold ? fmt::format("cc.ports[{}/{}].threshold", topo.nodes[n].name, p)
                                              : std::string("cc.switch.threshold"));
  // Random marking draws from a generator of its own per port (a 16-bit LFSR must not start
  // at 0).
  const uint16_t lfsr_seed = static_cast<uint16_t>((setup.seed ^ (setup.seed >> 16)) & 0xffffu) | 1u;
  return std::make_unique<FecnMarking>(mp, s.cc.sw, ovr, victim, setup.buffer_credits, std::move(engine), lfsr_seed);
}

}  // namespace ibcc::net
