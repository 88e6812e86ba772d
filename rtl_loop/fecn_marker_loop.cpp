// The Verilated FECN marker behind net::RtlMarkerEngine. Compiled at run time by
// net/rtl_loop/rtl_loop.cpp, together with a Verilation of rtl/fecn_marker.sv for one parameter set
// (IBCC_LOOP_* definitions), into a shared object the network model loads.
#include "Vfecn_marker.h"
#include "loop_driver.h"

namespace {

constexpr unsigned kInputs = IBCC_LOOP_INPUTS;
constexpr unsigned kVls = IBCC_LOOP_VLS;
constexpr unsigned kFillWidth = IBCC_LOOP_FILL_WIDTH;

using ibcc::loop::put_bits;

class FecnLoop final : public ibcc::loop::DrivenEngine<ibcc::net::RtlMarkerEngine, Vfecn_marker> {
 public:
  FecnLoop() : DrivenEngine("fecn_marker", IBCC_LOOP_TICK_CYCLES) {}

  void edge(const ibcc::cc::FecnMarkerInputs& in) override {
    Vfecn_marker& m = d_.model();
    if (in.fill_version != fill_version_ || !fills_known_) {
      for (unsigned i = 0; i < kInputs * kVls; ++i) put_bits(m.voq_fill_i, i * kFillWidth, kFillWidth, in.voq_fill[i]);
      fill_version_ = in.fill_version;
      fills_known_ = in.tracked;
    }
    for (unsigned v = 0; v < kVls; ++v) put_bits(m.credits_i, v * kFillWidth, kFillWidth, in.credits[v]);
    m.pkt_valid_i = in.pkt_valid;
    m.pkt_vl_i = in.pkt_vl;
    m.pkt_sl_i = in.pkt_sl;
    m.pkt_slid_i = in.pkt_slid;
    m.pkt_dlid_i = in.pkt_dlid;
    m.pkt_len_i = in.pkt_len;
    d_.tick();
  }
  bool fecn_mark() const override { return d_.model().fecn_valid_o && d_.model().fecn_mark_o; }
  bool congested(unsigned vl) const override { return (d_.model().cong_state_o >> vl) & 1u; }

 private:
  uint64_t fill_version_ = 0;
  bool fills_known_ = false;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) ibcc::net::RtlMarkerEngine* ibcc_rtl_marker_new() {
  return new FecnLoop();
}
