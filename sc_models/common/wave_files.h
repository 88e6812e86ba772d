// Waveform files checked after they are closed. Their writers (fstapi, Verilator's FST
// writer, SystemC's VCD writer) report no write errors: a full disk leaves an empty or
// truncated file behind a successful close. So each file is read back: an FST must open with
// fstapi's reader and reach the last time written; a VCD must hold its definitions and end
// with a whole line. A failure throws OutputError naming the path.
#pragma once

#include <cstdint>
#include <string>

namespace ibcc {

void check_fst_file(const std::string& path, uint64_t last_time);
void check_vcd_file(const std::string& path);

}  // namespace ibcc
