// Waveform outputs of a co-simulation: the directory, and GTKWave save files that group the
// signals the way one debugs a block (config, inputs, state, outputs, bus).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/gtkw.h"

namespace ibcc::tb {

using ibcc::WaveGroup;
using ibcc::WaveMarker;
using ibcc::WaveSignal;

void make_wave_dir(const std::string& dir);

// The signal groups of each block in the RTL's FST (rtl = true) or the reference's VCD.
std::vector<WaveGroup> fecn_groups(bool rtl, unsigned num_inputs, unsigned num_vls, unsigned fill_width);
std::vector<WaveGroup> ccti_groups(bool rtl, unsigned traced_flows, unsigned qp_bits);
size_t count_signals(const std::vector<WaveGroup>& groups);

// DIR/<block>_rtl.gtkw and DIR/<block>_ref.gtkw.
void write_block_gtkw(const std::string& dir, const std::string& block, const std::vector<WaveGroup>& rtl,
                      const std::vector<WaveGroup>& ref, const WaveMarker& marker);

}  // namespace ibcc::tb
