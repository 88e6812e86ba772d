#include "net/fabric/cc_adapters.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cc/ccti_block_regs.h"
#include "cc/fecn_marker_regs.h"

namespace ibcc::net {
namespace {

template <typename Block>
void write(Block& core, uint32_t addr, uint32_t value, const char* what) {
  if (!core.write_csr(addr, value, 0xfu)) {
    throw std::logic_error(std::string("CC register write refused: ") + what);
  }
}

}  // namespace

template <typename Block>
void configure_marker(Block& core_, const cc::FecnMarkerParams& params, const SwitchCcSpec& sw,
                      const PortCcOverride* port, bool victim_mask, uint32_t buffer_credits, uint16_t lfsr_seed) {
  namespace r = regs::fecn_marker;
  // Control_Map: Victim_Mask, Threshold + Packet_Size, Marking_Rate (OpenSM bit order).
  write(core_, r::kSwControlMapOffset, 0x1u | 0x4u | 0x10u, "Control_Map");
  if (victim_mask) {
    const unsigned word = params.port_num / 32u;
    write(core_, r::kSwVictimMaskOffset + word * r::kSwVictimMaskStride, 1u << (params.port_num % 32u), "Victim_Mask");
  }
  write(core_, r::kSwSettingThresholdOffset,
        r::kSwSettingThresholdThreshold.put(sw.threshold) | r::kSwSettingThresholdPacketSize.put(sw.packet_size),
        "Threshold/Packet_Size");
  write(core_, r::kSwSettingMarkingOffset, r::kSwSettingMarkingMarkingRate.put(sw.marking_rate), "Marking_Rate");
  if (port && (port->threshold || port->packet_size || port->marking_rate)) {
    write(core_, r::kPortSettingOffset,
          r::kPortSettingValid.put(1) | r::kPortSettingThreshold.put(port->threshold.value_or(sw.threshold)) |
              r::kPortSettingPacketSize.put(port->packet_size.value_or(sw.packet_size)) |
              r::kPortSettingCongParm.put(port->marking_rate.value_or(sw.marking_rate)),
          "SwitchPortCongestionSetting");
  }
  write(core_, r::kImplCtrlOffset,
        r::kImplCtrlThresholdMapping.put(static_cast<uint32_t>(sw.mapping)) |
            r::kImplCtrlMarkingMode.put(static_cast<uint32_t>(sw.marking_mode)) | r::kImplCtrlHysteresis.put(sw.hysteresis),
        "IMPL_CTRL");
  write(core_, r::kBufferCapacityOffset, r::kBufferCapacityCredits.put(buffer_credits), "BUFFER_CAPACITY");
  if (lfsr_seed != 0) write(core_, r::kLfsrSeedOffset, r::kLfsrSeedSeed.put(lfsr_seed), "LFSR_SEED");
}

template void configure_marker(cc::FecnMarker&, const cc::FecnMarkerParams&, const SwitchCcSpec&,
                               const PortCcOverride*, bool, uint32_t, uint16_t);
template void configure_marker(RtlMarkerEngine&, const cc::FecnMarkerParams&, const SwitchCcSpec&,
                               const PortCcOverride*, bool, uint32_t, uint16_t);

MarkerPort::MarkerPort(const cc::FecnMarkerParams& params, const SwitchCcSpec& sw, const PortCcOverride* port,
                       bool victim_mask, uint32_t buffer_credits, std::unique_ptr<RtlMarkerEngine> rtl,
                       uint16_t lfsr_seed)
    : MarkingPoint({true, false}), num_vls_(params.num_vls), fill_max_((1u << params.fill_width) - 1u), rtl_(std::move(rtl)), in_(params),
      core_(params) {
  in_.tracked = true;  // fills change through set_fill only
  settle_edges_ = core_.settle_edges();
  configure_marker(core_, params, sw, port, victim_mask, buffer_credits, lfsr_seed);
  if (rtl_) {
    // The same writes through the RTL's AXI4-Lite port; they take edges the core does not,
    // so the RTL's timebase is then brought to a tick boundary, where the core's is. What
    // differs is its TimeStamp (by whole ticks): it appears in the block's log registers,
    // which the network model does not read.
    configure_marker(*rtl_, params, sw, port, victim_mask, buffer_credits, lfsr_seed);
    rtl_->align_timebase();
  }
}

MarkingPoint::Sample MarkerPort::take_sample(uint64_t cycle, unsigned vl, uint64_t /*egress_bytes*/) {
  advance_to(cycle);
  const Stats st = take_stats(vl);
  return {congested(vl), st.congested_edges, st.marks};
}

MarkingPoint::TripLevel MarkerPort::trip_level() const {
  // (The RTL in the loop is configured with the same registers as the core.)
  const char* measure = "";
  switch (core_.mapping()) {
    case cc::ThresholdMapping::kPerVoq: measure = "the largest VoQ fill"; break;
    case cc::ThresholdMapping::kSum: measure = "the sum of the VoQ fills"; break;
    case cc::ThresholdMapping::kSumDivPorts: measure = "the sum of the VoQ fills x the contributing inputs"; break;
  }
  return {measure, core_.enter_level_credits(), core_.exit_level_credits()};
}

void MarkerPort::rtl_advance_to(uint64_t cycle) {
  while (done_ < cycle) {
    rtl_->edge(in_);
    ++done_;
    count_congested(1);
  }
}

bool MarkerPort::depart(uint64_t cycle, unsigned vl, unsigned sl, unsigned slid, unsigned dlid, unsigned credits) {
  // The packet is sampled at the edge of `cycle`, unless that edge already ran (a fill or
  // credit change earlier in the same cycle advanced the core through it): then at the next
  // edge. Every edge runs exactly once, so the core's timebase stays with the fabric.
  const uint64_t edge = std::max(cycle, done_ + 1);
  advance_to(edge - 1);
  in_.pkt_valid = true;
  in_.pkt_vl = vl;
  in_.pkt_sl = sl;
  in_.pkt_slid = slid;
  in_.pkt_dlid = dlid;
  in_.pkt_len = credits > 255 ? 255 : credits;
  if (rtl_) {
    rtl_->edge(in_);
    in_.pkt_valid = false;
    done_ = edge;
    count_congested(1);
    const bool mark = rtl_->fecn_mark();
    if (mark) ++stats_[vl].marks;
    return mark;
  }
  core_.step(in_);
  in_.pkt_valid = false;
  forget_registered_changes();
  done_ = edge;
  // The packet's edge registered the same inputs as an idle edge would; what it changed
  // besides (skip counter, LFSR, log, counters) idle edges never touch.
  settled_ = settled_ >= 3 ? 3u : settled_ + 1;
  count_congested(1);
  if (core_.outputs().fecn_mark) ++stats_[vl].marks;
  return core_.outputs().fecn_mark;
}

template <typename Block>
void configure_ccti(Block& core_, const cc::CctiBlockParams& params, const CaCcSpec& ca, uint32_t mtu_tx_cycles) {
  namespace r = regs::ccti_block;
  write(core_, r::kCaSettingOffset,
        r::kCaSettingPortControl.put(ca.sl_based ? 1u : 0u) | r::kCaSettingControlMap.put(ca.control_map), "CA setting");
  for (unsigned sl = 0; sl < cc::CctiBlock::kNumSls; ++sl) {
    SlCcSpec s = ca.sl_default;
    for (const auto& [psl, spec] : ca.per_sl) {
      if (psl == sl) s = spec;
    }
    write(core_, r::kCaSlTimerOffset + sl * r::kCaSlTimerStride,
          r::kCaSlTimerCctiTimer.put(s.ccti_timer) | r::kCaSlTimerCctiIncrease.put(s.ccti_increase) |
              r::kCaSlTimerTriggerThreshold.put(s.trigger_threshold),
          "CA SL timer");
    write(core_, r::kCaSlMinOffset + sl * r::kCaSlMinStride, r::kCaSlMinCctiMin.put(s.ccti_min), "CA SL min");
  }
  write(core_, r::kCctLimitOffset, r::kCctLimitCctiLimit.put(ca.ccti_limit), "CCTI_Limit");
  for (size_t i = 0; i < ca.cct.size() && i < params.cct_entries; i += 2) {
    const uint16_t odd = i + 1 < ca.cct.size() ? ca.cct[i + 1] : 0;
    write(core_, r::kCctEntryPairOffset + static_cast<uint32_t>(i / 2) * r::kCctEntryPairStride,
          r::kCctEntryPairEntryEven.put(ca.cct[i]) | r::kCctEntryPairEntryOdd.put(odd), "CCT entry");
  }
  write(core_, r::kImplCtrlOffset, r::kImplCtrlIrdFormula.put(static_cast<uint32_t>(ca.ird_formula)), "IMPL_CTRL");
  write(core_, r::kMtuTxCyclesOffset, r::kMtuTxCyclesCycles.put(mtu_tx_cycles > 0xffff ? 0xffff : mtu_tx_cycles),
        "MTU_TX_CYCLES");
}

template void configure_ccti(cc::CctiBlock&, const cc::CctiBlockParams&, const CaCcSpec&, uint32_t);
template void configure_ccti(RtlCctiEngine&, const cc::CctiBlockParams&, const CaCcSpec&, uint32_t);

CctiPort::CctiPort(const cc::CctiBlockParams& params, const CaCcSpec& ca, uint32_t mtu_tx_cycles,
                   std::unique_ptr<RtlCctiEngine> rtl)
    : rtl_(std::move(rtl)), core_(params) {
  configure_ccti(core_, params, ca, mtu_tx_cycles);
  if (rtl_) {
    // As MarkerPort: the same writes through the AXI4-Lite port, then the timebase (which
    // drives the CCTI_Timers) brought to the core's phase.
    configure_ccti(*rtl_, params, ca, mtu_tx_cycles);
    rtl_->align_timebase();
  }
}

CctiPort::Lookup CctiPort::lookup(uint64_t cycle, uint32_t qp, uint32_t sl) {
  const uint64_t edge = std::max(cycle, done_ + 1);
  if (!rtl_ && idle_.query_qp == qp && idle_.query_sl == sl) {
    // The query the inputs already hold: the idle edges up to the query and its two edges
    // see the same inputs, so they are one run (advance_idle equals stepping,
    // tests/test_lazy_advance.cpp).
    core_.advance_idle(idle_, edge + 1 - done_);
    done_ = edge + 1;
    return {core_.outputs().ird, core_.outputs().ccti};
  }
  advance_to(edge - 1);
  // The query stays on the block's inputs after its edge, as a send arbiter holds its last
  // request: the answer after the second edge does not depend on that edge's query, and the
  // idle edges that follow ask the same, so the core can skip them in bulk.
  idle_.query_qp = qp;
  idle_.query_sl = sl;
  Lookup l;
  if (rtl_) {
    rtl_->edge(idle_);
    rtl_->edge(idle_);
    l = {rtl_->ird(), rtl_->ccti()};
  } else {
    core_.advance_idle(idle_, 2);  // equal to two step()s (tests/test_lazy_advance.cpp)
    l = {core_.outputs().ird, core_.outputs().ccti};
  }
  done_ = edge + 1;
  return l;
}

void CctiPort::becn(uint64_t cycle, uint32_t qp, uint32_t sl, uint32_t rlid, uint32_t llid) {
  // As MarkerPort::depart: the edge of `cycle`, or the next one if that already ran.
  const uint64_t edge = std::max(cycle, done_ + 1);
  advance_to(edge - 1);
  cc::CctiBlockInputs in = idle_;  // the last query held
  in.becn_valid = true;
  in.becn_qp = qp;
  in.becn_sl = sl;
  in.becn_rlid = rlid;
  in.becn_llid = llid;
  in.becn_rqpn = qp;
  in.becn_st = 0;  // RC
  if (rtl_) {
    rtl_->edge(in);
  } else {
    core_.step(in);
  }
  done_ = edge;
}

}  // namespace ibcc::net
