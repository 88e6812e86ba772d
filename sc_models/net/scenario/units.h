// Quantities with units, as scenario files write them: "20Gb/s", "5ns", "1ms", "16KiB",
// "250MHz". Each parser returns nullopt on anything it does not understand; the caller
// reports file, line and key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibcc::net {

// The units a quantity takes and each one's scale to its base unit (ps, b/s, B, Hz): the
// parsers below and the scenario schema (its patterns and "x-units") both come from these.
struct UnitScale {
  const char* suffix;
  double scale;
};
const std::vector<UnitScale>& time_units();
const std::vector<UnitScale>& rate_units();
const std::vector<UnitScale>& size_units();
const std::vector<UnitScale>& freq_units();

// Time in picoseconds: ps, ns, us, ms, s.
// The longest time a value may give, in ps (10^6 s, 11.6 days: far beyond any run, and far
// inside the model's 64-bit picosecond and cycle counters).
constexpr double kMaxTimePs = 1e18;
std::optional<uint64_t> parse_time_ps(const std::string& text);
// Rate in bits per second: b/s, Kb/s, Mb/s, Gb/s, Tb/s (decimal prefixes).
std::optional<double> parse_rate_bps(const std::string& text);
// Size in bytes: B, KB, MB (decimal), KiB, MiB (binary); a bare number is bytes.
std::optional<uint64_t> parse_bytes(const std::string& text);
// A time range "FROM..TO" (each a time with a unit), FROM < TO; nullopt otherwise.
std::optional<std::pair<uint64_t, uint64_t>> parse_time_range_ps(const std::string& text);
// Frequency in Hz: Hz, kHz, MHz, GHz.
std::optional<uint64_t> parse_hz(const std::string& text);

// A link's line encodings: the share of its signalling rate that carries data. 256b257b_rs544
// is PAM4 IB's (HDR, NDR, XDR): 256b/257b transcoding under RS(544,514) FEC, 16/17.
struct LinkEncoding {
  const char* name;
  double efficiency;
};
inline constexpr LinkEncoding kEncodings[] = {
    {"8b10b", 0.8}, {"64b66b", 64.0 / 66}, {"256b257b_rs544", 256.0 * 514 / (257.0 * 544)}, {"none", 1.0}};

// Lane rates (Gb/s signalling) and encodings of the IB link speeds. SDR..QDR: 8b/10b; FDR10..EDR:
// 64b/66b; HDR, NDR and XDR (PAM4): 256b/257b transcoding under RS(544,514) forward error
// correction, 256/257 x 514/544 = 16/17 of the signalling rate (4x: 200, 400 and 800 Gb/s of
// data from 212.5, 425 and 850 Gb/s).
struct LinkSpeed {
  const char* name;
  double lane_gbps;
  double efficiency;
};
inline constexpr LinkSpeed kSpeeds[] = {
    {"SDR", 2.5, 0.8},          {"DDR", 5.0, 0.8},          {"QDR", 10.0, 0.8},
    {"FDR10", 10.3125, 64.0 / 66}, {"FDR", 14.0625, 64.0 / 66}, {"EDR", 25.78125, 64.0 / 66},
    {"HDR", 53.125, kEncodings[2].efficiency}, {"NDR", 106.25, kEncodings[2].efficiency},
    {"XDR", 212.5, kEncodings[2].efficiency},
};

// The encoding of efficiency `eff` (the nearest of kEncodings).
const char* encoding_of(double eff);

// One cycle of a clock of `hz`, in whole picoseconds (at least 1): the model's time step.
uint64_t cycle_ps(uint64_t hz);

// The same quantities written back with a unit, for messages and summaries.
std::string format_time_ps(uint64_t ps);
std::string format_rate_bps(double bps);

}  // namespace ibcc::net
