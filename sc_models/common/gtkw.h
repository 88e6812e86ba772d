// GTKWave save files (.gtkw): the dump, the time window and marker, and the signals in named
// groups. Shared by the co-simulation's waves (tb/waves.cpp) and the network model's
// (sc_models/net/observe/net_waves.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibcc {

// GTKWave trace flags (gtkwave's analyzer.h): display format.
inline constexpr unsigned kGtkwHex = 0x22;  // TR_HEX | TR_RJUSTIFY
inline constexpr unsigned kGtkwDec = 0x24;  // TR_DEC | TR_RJUSTIFY
inline constexpr unsigned kGtkwBin = 0x28;  // TR_BIN | TR_RJUSTIFY

struct WaveSignal {
  std::string name;  // below the scope, with its [msb:lsb] as the dump names it ("": a comment row showing `alias`)
  unsigned flags;    // GTKWave display flags
  std::string alias = {};  // shown instead of the leaf name when set (GTKWave's "+{alias}")
  // An enum's names: each value as GTKWave prints it in `flags`' format -> its name (a
  // translate filter file written beside the save file).
  std::vector<std::pair<std::string, std::string>> names = {};
  unsigned analog_rows = 0;  // > 0: drawn as an analog step trace this many rows high
};

// The translate table of a per-VL bit mask shown in binary (congestion state): "00" none,
// "01" VL0, "11" VL0+VL1, ...
std::vector<std::pair<std::string, std::string>> vl_mask_names(unsigned vls);

struct WaveGroup {
  std::string name;
  std::vector<WaveSignal> signals;
};

struct WaveMarker {
  uint64_t time_ps = 0;  // 0: no marker
  uint64_t period_ps = 0;
  // The view: from view_from_ps, span_ps wide (0: 12 periods before the marker, as before).
  uint64_t view_from_ps = 0;
  uint64_t span_ps = 0;
};

// Writes `path` showing `dump`; each signal is `scope` + its name. With a marker, the view
// starts 12 periods before it.
void write_gtkw(const std::string& path, const std::string& dump, const std::vector<WaveGroup>& groups,
                const std::string& scope, const WaveMarker& marker, const std::string& writer);

}  // namespace ibcc
