#include "net/scenario/units.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace ibcc::net {
namespace {

// Splits "12.5Gb/s" into 12.5 and "Gb/s" and looks the suffix up. Spaces between are allowed.
std::optional<double> parse_with(const std::string& text, const std::vector<UnitScale>& units, bool bare_ok) {
  const char* s = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(s, &end);
  if (end == s || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string suffix(end);
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.front()))) suffix.erase(0, 1);
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.back()))) suffix.pop_back();
  if (suffix.empty()) return bare_ok ? std::optional<double>(value) : std::nullopt;
  for (const UnitScale& u : units) {
    if (suffix == u.suffix) return value * u.scale;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<UnitScale>& time_units() {
  static const std::vector<UnitScale> u = {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
  return u;
}
const std::vector<UnitScale>& rate_units() {
  static const std::vector<UnitScale> u = {{"b/s", 1}, {"Kb/s", 1e3}, {"Mb/s", 1e6}, {"Gb/s", 1e9}, {"Tb/s", 1e12}};
  return u;
}
const std::vector<UnitScale>& size_units() {
  static const std::vector<UnitScale> u = {{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"KiB", 1024}, {"MiB", 1048576}};
  return u;
}
const std::vector<UnitScale>& freq_units() {
  static const std::vector<UnitScale> u = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  return u;
}

std::optional<uint64_t> parse_time_ps(const std::string& text) {
  const auto v = parse_with(text, time_units(), false);
  if (!v || *v > kMaxTimePs) return std::nullopt;
  return static_cast<uint64_t>(std::round(*v));
}

std::optional<std::pair<uint64_t, uint64_t>> parse_time_range_ps(const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return std::nullopt;
  const auto from = parse_time_ps(text.substr(0, dots));
  const auto to = parse_time_ps(text.substr(dots + 2));
  if (!from || !to || *to <= *from) return std::nullopt;
  return std::make_pair(*from, *to);
}

std::optional<double> parse_rate_bps(const std::string& text) { return parse_with(text, rate_units(), false); }

std::optional<uint64_t> parse_bytes(const std::string& text) {
  const auto v = parse_with(text, size_units(), true);
  if (!v || *v > 1.8e19 || std::floor(*v) != *v) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

std::optional<uint64_t> parse_hz(const std::string& text) {
  const auto v = parse_with(text, freq_units(), false);
  if (!v || *v < 1) return std::nullopt;
  return static_cast<uint64_t>(std::llround(*v));
}

uint64_t cycle_ps(uint64_t hz) {
  const auto ps = static_cast<uint64_t>(std::llround(1e12 / static_cast<double>(hz)));
  return ps ? ps : 1;
}

std::string format_time_ps(uint64_t ps) {
  if (ps % 1000000000000ull == 0) return fmt::format("{}s", ps / 1000000000000ull);
  if (ps % 1000000000ull == 0) return fmt::format("{}ms", ps / 1000000000ull);
  if (ps % 1000000ull == 0) return fmt::format("{}us", ps / 1000000ull);
  if (ps % 1000ull == 0) return fmt::format("{}ns", ps / 1000ull);
  return fmt::format("{}ps", ps);
}

std::string format_rate_bps(double bps) { return fmt::format("{:g}Gb/s", bps / 1e9); }

const char* encoding_of(double eff) {
  const LinkEncoding* best = &kEncodings[0];
  for (const LinkEncoding& e : kEncodings) {
    if (std::abs(e.efficiency - eff) < std::abs(best->efficiency - eff)) best = &e;
  }
  return best->name;
}

}  // namespace ibcc::net
