#include "rtl_waves.h"

#include "common/wave_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "net/scenario/topology.h"
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
    RtlWaveFile f;
    f.block = b.name;
    f.fst = dir + "/rtl_" + safe + ".fst";
    f.gtkw = dir + "/rtl_" + safe + ".gtkw";
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
    f.marker = b.marker;
    f.groups = std::move(groups);
    f.scope = top + "." + top + ".";
    files.push_back(std::move(f));
  }
  return files;
}

void close_rtl_waves(net::Fabric& fabric, const std::vector<RtlWaveFile>& files, const net::NetWaves* waves,
                     uint64_t from_ps, uint64_t to_ps) {
  for (const auto& b : fabric.rtl_blocks()) b.engine->close();
  const auto& topo = fabric.topology();
  const uint64_t end = to_ps ? to_ps : fabric.ps(fabric.now());
  for (const auto& f : files) {
    check_fst_file(f.fst, 0);  // Verilator's writer reports no write errors
    uint64_t first = 0;
    if (waves && f.marker) {
      const auto np = net::parse_node_port(f.block);
      const int node = np ? topo.find(np->node) : -1;
      if (node >= 0) first = waves->first_mark_ps(static_cast<unsigned>(node), np->port);
    } else if (waves) {
      const auto& flows = fabric.flows();
      for (size_t i = 0; i < flows.size(); ++i) {
        if (flows[i].spec.src != f.block) continue;
        const uint64_t t = waves->first_ccti_ps(static_cast<int>(i));
        if (t != 0 && (first == 0 || t < first)) first = t;
      }
    }
    WaveMarker view;
    view.period_ps = fabric.ps_per_cycle();
    if (first != 0) {
      // 2 us before the event to 8 us after it: the fills and credits that led to it, and
      // what followed (a few packet times at the seed's rates).
      view.time_ps = first;
      view.view_from_ps = std::max(from_ps, first > 2000000 ? first - 2000000 : 0);
      view.span_ps = 10000000;
    } else {
      view.view_from_ps = from_ps;
      view.span_ps = end > from_ps ? end - from_ps : 0;
    }
    write_gtkw(f.gtkw, f.fst, f.groups, f.scope, view,
               "ibcc run --rtl --waves (" + f.block + (first ? "; marker on its first " + std::string(
                   f.marker ? "FECN mark" : "CCTI raised") + " in the window)" : "; no event in the window)"));
  }
}

}  // namespace ibcc
