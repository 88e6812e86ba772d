// The open design choices of IB CC (IBCC_SPEC sections 2 and 3), each a named policy.
// Configuration selects them by name; the registers carry their encodings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibcc::cc {

// How a switch output compares the fill of the VoQs headed for it with Threshold.
enum class ThresholdMapping : uint8_t {
  kPerVoq = 0,       // any single VoQ's fill ratio reaches the trip level
  kSum = 1,          // the sum of the VoQs' fill ratios reaches the trip level
  kSumDivPorts = 2,  // the sum reaches the trip level divided by the contributing inputs
};

// How Marking_Rate spaces the marked packets among the eligible ones.
enum class MarkingMode : uint8_t {
  kCounter = 0,  // mark one, then skip exactly Marking_Rate eligible packets
  kRandom = 1,   // mark one, then skip a uniform draw from [0, 2 * Marking_Rate]
};

// How a CCT entry becomes an injection rate delay.
enum class IrdFormula : uint8_t {
  kOmniPath = 0,   // (MTU_TX_CYCLES >> shift) * multiplier core cycles
  kShiftLeft = 1,  // (multiplier << shift) core cycles
};

template <typename E>
struct PolicyName {
  E value;
  const char* name;
  const char* doc;
};

inline constexpr PolicyName<ThresholdMapping> kThresholdMappings[] = {
    {ThresholdMapping::kPerVoq, "per_voq", "each VoQ's fill ratio against the trip level"},
    {ThresholdMapping::kSum, "sum", "the sum of the VoQs' fill ratios against the trip level"},
    {ThresholdMapping::kSumDivPorts, "sum_div_ports",
     "the sum against the trip level divided by the number of contributing inputs"},
};

inline constexpr PolicyName<MarkingMode> kMarkingModes[] = {
    {MarkingMode::kCounter, "counter", "mark one eligible packet, skip Marking_Rate"},
    {MarkingMode::kRandom, "random", "mark one, skip a uniform draw from [0, 2*Marking_Rate]"},
};

inline constexpr PolicyName<IrdFormula> kIrdFormulas[] = {
    {IrdFormula::kOmniPath, "omnipath", "(MTU transmit cycles >> shift) * multiplier"},
    {IrdFormula::kShiftLeft, "shift_left", "multiplier << shift core cycles"},
};

template <typename E, size_t N>
std::optional<E> policy_from_name(const PolicyName<E> (&table)[N], std::string_view name) {
  for (const auto& p : table) {
    if (name == p.name) return p.value;
  }
  return std::nullopt;
}

template <typename E, size_t N>
const char* policy_name(const PolicyName<E> (&table)[N], E value) {
  for (const auto& p : table) {
    if (p.value == value) return p.name;
  }
  return "?";
}

template <typename E, size_t N>
std::string policy_names(const PolicyName<E> (&table)[N]) {
  std::string out;
  for (const auto& p : table) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

// The trip level of Threshold T in sixteenths of the buffer capacity ("linear16"): T = 1
// trips at 15/16, T = 15 at 1/16; T = 0 never trips. A Port VL in the congestion state
// leaves it only below the trip level minus the hysteresis (never below 1/16).
inline constexpr unsigned enter_level16(unsigned threshold) { return 16u - threshold; }
inline constexpr unsigned exit_level16(unsigned threshold, unsigned hysteresis) {
  const unsigned enter = enter_level16(threshold);
  return enter > hysteresis + 1u ? enter - hysteresis : 1u;
}

// 16-bit Galois LFSR, x^16 + x^14 + x^13 + x^11 + 1 (maximal length), as in the RTL.
inline constexpr uint16_t lfsr16_next(uint16_t state) {
  const bool lsb = state & 1u;
  state = static_cast<uint16_t>(state >> 1);
  return lsb ? static_cast<uint16_t>(state ^ 0xB400u) : state;
}

// A uniform draw from [0, 2 * rate] scaled from a 16-bit random value (a multiplier, no
// divider, so it fits the RTL).
inline constexpr uint32_t random_gap(uint16_t random, uint32_t rate) {
  return static_cast<uint32_t>((uint64_t{random} * (2u * uint64_t{rate} + 1u)) >> 16);
}

// The injection rate delay of one CCT entry, in core-clock cycles.
inline constexpr uint32_t ird_cycles(IrdFormula formula, uint16_t cct_entry,
                                     uint32_t mtu_tx_cycles) {
  const uint32_t shift = cct_entry >> 14;
  const uint32_t multiplier = cct_entry & 0x3fffu;
  return formula == IrdFormula::kOmniPath ? (mtu_tx_cycles >> shift) * multiplier
                                          : multiplier << shift;
}

}  // namespace ibcc::cc
