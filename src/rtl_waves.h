// ibcc run --waves with RTL in the loop (cc.rtl): each Verilated block's FST beside the
// network's waves, on the fabric's time axis, with a GTKWave save file grouping its signals
// as the co-simulation's do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/fabric/fabric.h"

namespace ibcc {

struct RtlWaveFile {
  std::string block;  // SWITCH/PORT or HCA
  std::string fst, gtkw;
};

// Opens DIR/rtl_<block>.fst for every block in the loop (edges of [from_ps, to_ps]; to_ps 0:
// to the end) and writes DIR/rtl_<block>.gtkw. Throws std::runtime_error if a file cannot be
// written.
std::vector<RtlWaveFile> open_rtl_waves(net::Fabric& fabric, const std::string& dir, uint64_t from_ps,
                                        uint64_t to_ps);
// Ends every block's FST (flushes it).
void close_rtl_waves(net::Fabric& fabric, const std::vector<RtlWaveFile>& files);

}  // namespace ibcc
