// ibcc run --waves with RTL in the loop (cc.rtl): each Verilated block's FST beside the
// network's waves, on the fabric's time axis, with a GTKWave save file grouping its signals
// as the co-simulation's do, opening on the block's first event in the window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/gtkw.h"
#include "net/fabric/fabric.h"
#include "net/observe/net_waves.h"

namespace ibcc {

struct RtlWaveFile {
  std::string block;  // SWITCH/PORT or HCA
  std::string fst, gtkw;
  bool marker = false;  // the FECN marker (else the CCTI block)
  std::vector<WaveGroup> groups;
  std::string scope;
};

// Opens DIR/rtl_<block>.fst for every block in the loop (edges of [from_ps, to_ps]; to_ps 0:
// to the end). Throws std::runtime_error if a file cannot be written.
std::vector<RtlWaveFile> open_rtl_waves(net::Fabric& fabric, const std::string& dir, uint64_t from_ps,
                                        uint64_t to_ps);
// Ends every block's FST (flushes it) and writes DIR/rtl_<block>.gtkw: the view on the block's
// first event in the window that `waves` saw (the marker's first FECN mark; the CCTI block's
// first CCTI raised in one of its HCA's flows), marker on it; else the whole window.
void close_rtl_waves(net::Fabric& fabric, const std::vector<RtlWaveFile>& files, const net::NetWaves* waves,
                     uint64_t from_ps, uint64_t to_ps);

}  // namespace ibcc
