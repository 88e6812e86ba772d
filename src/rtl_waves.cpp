#include "rtl_waves.h"

#include "common/wave_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "tb/waves.h"

namespace ibcc {

std::vector<RtlWaveFile> open_rtl_waves(net::Fabric& fabric, const std::string& dir, uint64_t from_ps,
                                        uint64_t to_ps) {
  std::vector<RtlWaveFile> files;
  if (fabric.rtl_blocks().empty()) return files;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", dir, ec.message()));
  const uint64_t period = fabric.ps_per_cycle();
  const uint64_t from = from_ps / period, to = to_ps ? (to_ps + period - 1) / period : 0;
  for (const auto& b : fabric.rtl_blocks()) {
    std::string safe = b.name;
    std::replace(safe.begin(), safe.end(), '/', '_');
    RtlWaveFile f{b.name, dir + "/rtl_" + safe + ".fst", dir + "/rtl_" + safe + ".gtkw"};
    // The adapters run the blocks' edges from fabric cycle 1 (none has run yet).
    b.engine->open_trace(f.fst.c_str(), 1, period, from, to);
    std::vector<WaveGroup> groups;
    std::string top;
    if (b.marker) {
      groups = tb::fecn_groups(true, b.num_inputs, b.num_vls, b.fill_width);
      top = "fecn_marker";
    } else {
      unsigned qp_bits = 0;  // the RTL's QpWidth, $clog2(NumQps)
      while ((1u << qp_bits) < b.num_qps) ++qp_bits;
      groups = tb::ccti_groups(true, std::min(16u, b.num_qps), qp_bits);
      top = "ccti_block";
    }
    WaveMarker view;
    view.view_from_ps = from_ps;
    view.span_ps = to_ps > from_ps ? to_ps - from_ps : 0;
    view.period_ps = period;
    write_gtkw(f.gtkw, f.fst, groups, top + "." + top + ".", view, "ibcc run --rtl --waves (" + b.name + ")");
    files.push_back(std::move(f));
  }
  return files;
}

void close_rtl_waves(net::Fabric& fabric, const std::vector<RtlWaveFile>& files) {
  for (const auto& b : fabric.rtl_blocks()) b.engine->close();
  for (const auto& f : files) check_fst_file(f.fst, 0);  // Verilator's writer reports no write errors
}

}  // namespace ibcc
