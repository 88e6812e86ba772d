// Speed of the CC blocks without SystemC: the raw Verilated models (--cc, C++ loop) and the
// C++ reference cores, in cycles per second (Google Benchmark's items_per_second).
// The co-simulation's own cycles/s are printed by `ibcc cosim`; bench/run_benchmarks.py
// runs both and prints the table with the ratios.
#include <benchmark/benchmark.h>

#include <vector>

#include "Vccti_block_raw.h"
#include "Vfecn_marker_raw.h"
#include "cc/ccti_block.h"
#include "cc/fecn_marker.h"
#include "cc/fecn_marker_regs.h"
#include "cc/ccti_block_regs.h"
#include "tb/port_fields.h"
#include "verilated.h"

namespace {

constexpr unsigned kInputs = IBCC_COSIM_FECN_INPUTS;
constexpr unsigned kVls = IBCC_COSIM_FECN_VLS;
constexpr unsigned kFillWidth = IBCC_COSIM_FECN_FILL_WIDTH;
constexpr size_t kPatterns = 4096;  // precomputed stimulus, so the loop measures the model

uint64_t next(uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

// Stimulus shared by RTL and core: fills, credits, packets.
struct FecnPattern {
  std::vector<uint32_t> fill;
  uint32_t credits[kVls];
  bool pkt_valid;
  uint32_t vl, len;
};

std::vector<FecnPattern> fecn_patterns() {
  std::vector<FecnPattern> out(kPatterns);
  uint64_t s = 88172645463325252ull;
  for (auto& p : out) {
    p.fill.resize(kInputs * kVls);
    for (auto& f : p.fill) f = next(s) % 300;
    for (auto& c : p.credits) c = next(s) % 4 ? next(s) % 100 : 0;
    p.pkt_valid = next(s) % 2;
    p.vl = next(s) % kVls;
    p.len = next(s) % 64;
  }
  return out;
}

// A Verilated model taken through reset.
template <typename V>
std::unique_ptr<V> reset_model(VerilatedContext* ctx) {
  auto dut = std::make_unique<V>(ctx);
  dut->rst_ni = 0;
  dut->clk_i = 0;
  dut->eval();
  dut->rst_ni = 1;
  dut->eval();
  return dut;
}

// One clock cycle of a Verilated model: rising edge, then falling edge.
template <typename V>
void clock_cycle(V* dut) {
  dut->clk_i = 1;
  dut->eval();
  dut->clk_i = 0;
  dut->eval();
}

void BM_RawRtlFecn(benchmark::State& state) {
  const auto pats = fecn_patterns();
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = reset_model<Vfecn_marker_raw>(ctx.get());
  size_t i = 0;
  for (auto _ : state) {
    const FecnPattern& p = pats[i++ % kPatterns];
    for (unsigned k = 0; k < kInputs * kVls; ++k) ibcc::tb::put_field(dut->voq_fill_i, k * kFillWidth, kFillWidth, p.fill[k]);
    for (unsigned v = 0; v < kVls; ++v) ibcc::tb::put_field(dut->credits_i, v * kFillWidth, kFillWidth, p.credits[v]);
    dut->pkt_valid_i = p.pkt_valid;
    dut->pkt_vl_i = p.vl;
    dut->pkt_len_i = p.len;
    clock_cycle(dut.get());
  }
  benchmark::DoNotOptimize(dut->fecn_mark_o);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RawRtlFecn);

void BM_CoreFecn(benchmark::State& state) {
  const auto pats = fecn_patterns();
  ibcc::cc::FecnMarkerParams params;
  params.num_inputs = kInputs;
  params.num_vls = kVls;
  params.fill_width = kFillWidth;
  ibcc::cc::FecnMarker core(params);
  core.write_csr(ibcc::regs::fecn_marker::kSwSettingThresholdOffset,
                 ibcc::regs::fecn_marker::kSwSettingThresholdThreshold.put(12), 0xf);
  ibcc::cc::FecnMarkerInputs in(params);
  size_t i = 0;
  for (auto _ : state) {
    const FecnPattern& p = pats[i++ % kPatterns];
    in.voq_fill = p.fill;
    for (unsigned v = 0; v < kVls; ++v) in.credits[v] = p.credits[v];
    in.pkt_valid = p.pkt_valid;
    in.pkt_vl = p.vl;
    in.pkt_len = p.len;
    benchmark::DoNotOptimize(core.step(in));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CoreFecn);

// Stimulus shared by RTL and core: a BECN on a quarter of the cycles, an IRD query on all.
std::vector<ibcc::cc::CctiBlockInputs> ccti_patterns() {
  std::vector<ibcc::cc::CctiBlockInputs> out(kPatterns);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (auto& in : out) {
    const uint32_t p = static_cast<uint32_t>(next(s));
    in.becn_valid = (p & 3) == 0;
    in.becn_qp = (p >> 2) % IBCC_COSIM_CCTI_QPS;
    in.becn_sl = (p >> 10) & 0xf;
    in.query_qp = (p >> 14) % IBCC_COSIM_CCTI_QPS;
    in.query_sl = (p >> 22) & 0xf;
  }
  return out;
}

void BM_RawRtlCcti(benchmark::State& state) {
  const auto pats = ccti_patterns();
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = reset_model<Vccti_block_raw>(ctx.get());
  size_t i = 0;
  for (auto _ : state) {
    const ibcc::cc::CctiBlockInputs& p = pats[i++ % kPatterns];
    dut->becn_valid_i = p.becn_valid;
    dut->becn_qp_i = p.becn_qp;
    dut->becn_sl_i = p.becn_sl;
    dut->query_qp_i = p.query_qp;
    dut->query_sl_i = p.query_sl;
    clock_cycle(dut.get());
  }
  benchmark::DoNotOptimize(dut->ird_o);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RawRtlCcti);

void BM_CoreCcti(benchmark::State& state) {
  ibcc::cc::CctiBlockParams params;
  params.num_qps = IBCC_COSIM_CCTI_QPS;
  ibcc::cc::CctiBlock core(params);
  const auto pats = ccti_patterns();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(core.step(pats[i++ % kPatterns]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CoreCcti);

// Lazy advance: a million idle cycles with running timers, in one call.
void BM_CoreCctiAdvanceIdle(benchmark::State& state) {
  namespace r = ibcc::regs::ccti_block;
  ibcc::cc::CctiBlockParams params;
  ibcc::cc::CctiBlock core(params);
  core.write_csr(r::kCaSettingOffset, r::kCaSettingControlMap.put(0xffff), 0xf);
  core.write_csr(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(127), 0xf);
  for (unsigned sl = 0; sl < 16; ++sl) {
    core.write_csr(r::kCaSlTimerOffset + sl * r::kCaSlTimerStride,
                   r::kCaSlTimerCctiTimer.put(150) | r::kCaSlTimerCctiIncrease.put(1), 0xf);
  }
  ibcc::cc::CctiBlockInputs becn;
  for (auto _ : state) {
    for (unsigned k = 0; k < 100; ++k) {
      becn.becn_valid = true;
      becn.becn_qp = k % 64;
      becn.becn_sl = k % 16;
      core.step(becn);
    }
    becn.becn_valid = false;
    core.advance_idle(becn, 1000000);
  }
  state.SetItemsProcessed(state.iterations() * 1000100);
}
BENCHMARK(BM_CoreCctiAdvanceIdle);

}  // namespace

BENCHMARK_MAIN();
