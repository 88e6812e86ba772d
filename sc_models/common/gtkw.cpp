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
constexpr unsigned kComment = 0x200;         // TR_BLANK: a row of text
constexpr unsigned kTranslated = 0x2000;     // TR_FTRANSLATED: a translate filter file names the values
constexpr unsigned kAnalogStep = 0x8000;     // TR_ANALOG_STEP
constexpr unsigned kAnalogStretch = 0x20000;  // TR_ANALOG_BLANK_STRETCH: a row of an analog trace's height
}  // namespace

std::vector<std::pair<std::string, std::string>> vl_mask_names(unsigned vls) {
  std::vector<std::pair<std::string, std::string>> out;
  for (unsigned m = 0; m < (1u << vls) && m < 256; ++m) {
    std::string bits, name;
    for (unsigned b = vls; b-- > 0;) bits += (m >> b) & 1u ? '1' : '0';
    for (unsigned v = 0; v < vls; ++v) {
      if ((m >> v) & 1u) name += (name.empty() ? "" : "+") + std::string("VL") + std::to_string(v);
    }
    out.emplace_back(bits, m ? name : "none");
  }
  return out;
}

void write_gtkw(const std::string& path, const std::string& dump, const std::vector<WaveGroup>& groups,
                const std::string& scope, const WaveMarker& marker, const std::string& writer) {
  std::ostringstream f;
  f << "[*] GTKWave save file written by " << writer << "\n";
  // With the save file's own path beside the dump's, GTKWave finds the dump (and the
  // translate filters) relative to wherever the save file is now: the pair can be moved.
  f << "[dumpfile] \"" << std::filesystem::absolute(dump).string() << "\"\n";
  f << "[savefile] \"" << std::filesystem::absolute(path).string() << "\"\n";
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
  // Enum names: a translate filter file per distinct table, beside the save file.
  std::vector<std::vector<std::pair<std::string, std::string>>> tables;
  const std::filesystem::path base = std::filesystem::absolute(path);
  auto filter_file = [&](size_t i) {
    return (base.parent_path() / (base.stem().string() + "_names" + std::to_string(i + 1) + ".txt")).string();
  };
  for (const WaveGroup& g : groups) {
    f << "@" << std::hex << kGroupBegin << std::dec << "\n-" << g.name << "\n";
    for (const WaveSignal& s : g.signals) {
      if (s.name.empty()) {  // a comment row
        f << "@" << std::hex << kComment << std::dec << "\n-" << s.alias << "\n";
        continue;
      }
      unsigned flags = s.flags;
      size_t table = 0;
      if (!s.names.empty()) {
        table = std::find(tables.begin(), tables.end(), s.names) - tables.begin();
        if (table == tables.size()) tables.push_back(s.names);
        flags |= kTranslated;
      }
      if (s.analog_rows) flags |= kAnalogStep;
      f << "@" << std::hex << flags << std::dec << "\n";
      if (!s.names.empty()) f << "^" << table + 1 << " " << filter_file(table) << "\n";
      if (!s.alias.empty()) f << "+{" << s.alias << "} ";
      f << scope << s.name << "\n";
      if (s.analog_rows > 1) {
        f << "@" << std::hex << kAnalogStretch << std::dec << "\n";
        for (unsigned r = 1; r < s.analog_rows; ++r) f << "-\n";
      }
    }
    f << "@" << std::hex << kGroupEnd << std::dec << "\n-" << g.name << "\n";
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    std::string text = "# GTKWave translate filter written by " + writer + ": a value as shown -> its name\n";
    for (const auto& [value, name] : tables[i]) text += value + " " + name + "\n";
    write_file_atomic(filter_file(i), text);
  }
  write_file_atomic(path, f.str());
}

}  // namespace ibcc
