// Quantities with units, as scenario files write them: "20Gb/s", "5ns", "1ms", "16KiB",
// "250MHz". Each parser returns nullopt on anything it does not understand; the caller
// reports file, line and key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace ibcc::net {

// Time in picoseconds: ps, ns, us, ms, s.
std::optional<uint64_t> parse_time_ps(const std::string& text);
// Rate in bits per second: b/s, Kb/s, Mb/s, Gb/s, Tb/s (decimal prefixes).
std::optional<double> parse_rate_bps(const std::string& text);
// Size in bytes: B, KB, MB (decimal), KiB, MiB (binary); a bare number is bytes.
std::optional<uint64_t> parse_bytes(const std::string& text);
// A time range "FROM..TO" (each a time with a unit), FROM < TO; nullopt otherwise.
std::optional<std::pair<uint64_t, uint64_t>> parse_time_range_ps(const std::string& text);
// Frequency in Hz: Hz, kHz, MHz, GHz.
std::optional<uint64_t> parse_hz(const std::string& text);

// The same quantities written back with a unit, for messages and summaries.
std::string format_time_ps(uint64_t ps);
std::string format_rate_bps(double bps);

}  // namespace ibcc::net
