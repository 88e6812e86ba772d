// Verilator-free handle on the Verilated RTL models (`--cc`, no SystemC): the testbench drives
// their inputs and reads their outputs as the C++ cores' own input and output structs, so no
// testbench file includes <verilated.h> (see TOOLCHAIN notes). The implementation
// (rtl_models.cpp) is compiled into each Verilated library: the real RTL, each mutant, and the
// coverage-instrumented build.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cc/ccti_block.h"
#include "cc/fecn_marker.h"
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

// One Verilated block. The testbench sets its inputs, then moves the clock one level at a
// time; each move evaluates the model and, while a trace is open, dumps it at `time_ps`.
class RtlModel {
 public:
  virtual ~RtlModel() = default;
  virtual void set_reset_n(bool rst_n) = 0;
  virtual void clock(bool level, uint64_t time_ps) = 0;
  // FST of every RTL signal, its first sample at `time_ps`.
  virtual void open_trace(const std::string& fst_path, uint64_t time_ps) = 0;
  virtual void close_trace() = 0;
};

class FecnRtl : public RtlModel {
 public:
  // The datapath and bus inputs (the fill and credit vectors are packed into the RTL's buses).
  virtual void drive(const cc::FecnMarkerInputs& in) = 0;
  // The outputs after the last evaluation.
  virtual void outputs(cc::FecnMarkerOutputs* out) const = 0;
};

class CctiRtl : public RtlModel {
 public:
  virtual void drive(const cc::CctiBlockInputs& in) = 0;
  virtual void outputs(cc::CctiBlockOutputs* out) const = 0;
};

std::unique_ptr<FecnRtl> make_fecn_rtl(const char* name);
std::unique_ptr<CctiRtl> make_ccti_rtl(const char* name);

// Line/toggle coverage (only in the coverage build): write the data file.
bool rtl_coverage_enabled();
void rtl_write_coverage(const std::string& path);

}  // namespace ibcc::tb
