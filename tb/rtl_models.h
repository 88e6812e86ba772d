// Verilator-free handle on the Verilated RTL models: the testbench binds signals through
// this API, so no testbench file includes <verilated.h> (see TOOLCHAIN notes). The
// implementation (rtl_models.cpp) is compiled into each Verilated library: the real RTL,
// each mutant, and the coverage-instrumented build.
#pragma once

#include <memory>
#include <string>
#include <systemc>

#include "wrappers/axil_ports.h"
#include "wrappers/vl_types.h"
#include "tb/rtl_variant.h"

// The parameters the co-simulation RTL is Verilated with (CMake passes the same values to
// Verilator as -G options and to this code as definitions).
#ifndef IBCC_COSIM_FECN_INPUTS
#error "build through CMake: IBCC_COSIM_* parameters are not defined"
#endif

namespace ibcc::tb {

inline constexpr unsigned kFecnInputs = IBCC_COSIM_FECN_INPUTS;
inline constexpr unsigned kFecnVls = IBCC_COSIM_FECN_VLS;
inline constexpr unsigned kFecnFillWidth = IBCC_COSIM_FECN_FILL_WIDTH;
inline constexpr unsigned kFecnPortNum = IBCC_COSIM_FECN_PORT_NUM;
inline constexpr unsigned kCctiQps = IBCC_COSIM_CCTI_QPS;
// The RTL's QpWidth, $clog2(kCctiQps).
inline constexpr unsigned kCctiQpBits = [] {
  unsigned b = 0;
  while ((1u << b) < kCctiQps) ++b;
  return b;
}();
inline constexpr unsigned kCctiEntries = IBCC_COSIM_CCTI_ENTRIES;
inline constexpr unsigned kTickCycles = IBCC_COSIM_TICK_CYCLES;

using FecnFillVec = sc::VlPort<kFecnInputs * kFecnVls * kFecnFillWidth>;
using FecnCreditVec = sc::VlPort<kFecnVls * kFecnFillWidth>;

struct FecnSignals {
  sc_core::sc_signal<bool>* clk;
  sc_core::sc_signal<bool>* rst_n;
  sc_core::sc_signal<FecnFillVec>* voq_fill;
  sc_core::sc_signal<FecnCreditVec>* credits;
  sc_core::sc_signal<bool>* pkt_valid;
  sc_core::sc_signal<uint32_t>* pkt_vl;
  sc_core::sc_signal<uint32_t>* pkt_sl;
  sc_core::sc_signal<uint32_t>* pkt_slid;
  sc_core::sc_signal<uint32_t>* pkt_dlid;
  sc_core::sc_signal<uint32_t>* pkt_len;
  sc_core::sc_signal<uint32_t>* cong_state;
  sc_core::sc_signal<bool>* fecn_valid;
  sc_core::sc_signal<bool>* fecn_mark;
  sc::AxilMasterSignals* axil_in;
  sc::AxilSlaveSignals* axil_out;
};

struct CctiSignals {
  sc_core::sc_signal<bool>* clk;
  sc_core::sc_signal<bool>* rst_n;
  sc_core::sc_signal<bool>* becn_valid;
  sc_core::sc_signal<uint32_t>* becn_qp;
  sc_core::sc_signal<uint32_t>* becn_sl;
  sc_core::sc_signal<uint32_t>* becn_rqpn;
  sc_core::sc_signal<uint32_t>* becn_rlid;
  sc_core::sc_signal<uint32_t>* becn_llid;
  sc_core::sc_signal<uint32_t>* becn_st;
  sc_core::sc_signal<uint32_t>* query_qp;
  sc_core::sc_signal<uint32_t>* query_sl;
  sc_core::sc_signal<uint32_t>* ird;
  sc_core::sc_signal<uint32_t>* ccti;
  sc_core::sc_signal<uint32_t>* ird_next;
  sc_core::sc_signal<uint32_t>* ccti_next;
  sc_core::sc_signal<uint32_t>* timer_expired;
  sc_core::sc_signal<bool>* trigger_event;
  sc::AxilMasterSignals* axil_in;
  sc::AxilSlaveSignals* axil_out;
};

class RtlModel {
 public:
  virtual ~RtlModel() = default;
  // FST of every RTL signal; call after elaboration (after sc_start(SC_ZERO_TIME)).
  virtual void open_trace(const std::string& fst_path) = 0;
  virtual void close_trace() = 0;
};

std::unique_ptr<RtlModel> make_fecn_rtl(const char* name, const FecnSignals& s);
std::unique_ptr<RtlModel> make_ccti_rtl(const char* name, const CctiSignals& s);

// Line/toggle coverage (only in the coverage build): write the data file.
bool rtl_coverage_enabled();
void rtl_write_coverage(const std::string& path);

}  // namespace ibcc::tb
