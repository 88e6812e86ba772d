// Waveform outputs of a co-simulation: the directory, and GTKWave save files that group the
// signals the way one debugs a block (config, inputs, state, outputs, bus).
#pragma once

#include <string>

namespace ibcc::tb {

void make_wave_dir(const std::string& dir);
void write_fecn_gtkw(const std::string& dir, unsigned num_vls);
void write_ccti_gtkw(const std::string& dir, unsigned traced_flows);

}  // namespace ibcc::tb
