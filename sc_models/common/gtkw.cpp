#include "common/gtkw.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "common/output_files.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ibcc {
namespace {
constexpr unsigned kGroupBegin = 0x800200;
constexpr unsigned kGroupEnd = 0x1000200;
}  // namespace

void write_gtkw(const std::string& path, const std::string& dump, const std::vector<WaveGroup>& groups,
                const std::string& scope, const WaveMarker& marker, const std::string& writer) {
  std::ostringstream f;
  f << "[*] GTKWave save file written by " << writer << "\n";
  f << "[dumpfile] \"" << std::filesystem::absolute(dump).string() << "\"\n";
  if (marker.span_ps != 0) {
    // GTKWave's zoom: the view spans about 2^-zoom x 4.88 time units in the 1600x900 window
    // this file asks for (calibrated: zoom -14 shows 80 ns of a 1 ps dump).
    constexpr double kUnitsAtZoomZero = 4.88;
    const double zoom = -std::log2(std::max(1.0, static_cast<double>(marker.span_ps) / kUnitsAtZoomZero));
    f << "[timestart] " << marker.view_from_ps << "\n";
    f << "*" << std::fixed << std::setprecision(6) << zoom << std::defaultfloat << " "
      << (marker.time_ps ? static_cast<int64_t>(marker.time_ps) : -1)
      << " -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n";
  } else if (marker.time_ps != 0) {
    // Show the cycles before and after the marker, marker on it.
    const uint64_t window = 12ull * marker.period_ps;
    f << "[timestart] " << (marker.time_ps > window ? marker.time_ps - window : 0) << "\n";
    f << "*-14.000000 " << marker.time_ps << " -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n";
  } else {
    f << "[timestart] 0\n";
    f << "*-14.000000 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n";
  }
  f << "[size] 1600 900\n[pos] 0 0\n[sst_expanded] 1\n[signals_width] 300\n[sst_width] 200\n";
  for (const WaveGroup& g : groups) {
    f << "@" << std::hex << kGroupBegin << std::dec << "\n-" << g.name << "\n";
    for (const WaveSignal& s : g.signals) {
      f << "@" << std::hex << s.flags << std::dec << "\n";
      if (!s.alias.empty()) f << "+{" << s.alias << "} ";
      f << scope << s.name << "\n";
    }
    f << "@" << std::hex << kGroupEnd << std::dec << "\n-" << g.name << "\n";
  }
  write_file_atomic(path, f.str());
}

}  // namespace ibcc
