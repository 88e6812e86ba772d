// Waveform directory and GTKWave save files.
#include "tb/waves.h"

#include <filesystem>

namespace ibcc::tb {

void make_wave_dir(const std::string& dir) { std::filesystem::create_directories(dir); }
void write_fecn_gtkw(const std::string&, unsigned) {}
void write_ccti_gtkw(const std::string&, unsigned) {}

}  // namespace ibcc::tb
