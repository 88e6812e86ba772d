// The C++ models' register maps against the single-source YAML descriptions: every
// register answers at its offset with its documented reset value, read-only registers
// refuse writes, and addresses outside the map answer SLVERR. (The co-simulation then
// proves the RTL answers exactly as the C++ model does, every cycle.)
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "cc/ccti_block.h"
#include "cc/fecn_marker.h"

namespace {

struct Reg {
  std::string name;
  std::string access;
  uint32_t offset, count, stride;
  uint32_t reset = 0;  // all fields' resets in place
  uint32_t mask = 0;   // bits covered by fields
};

using Params = std::map<std::string, uint32_t>;

// An array's count_param or a field's param, "Name" or "Name / N" or "Name * N", for these block parameters.
uint32_t eval_count(const std::string& expr, const Params& params) {
  std::istringstream in(expr);
  std::string name, op;
  uint32_t n = 1;
  in >> name >> op >> n;
  const uint32_t v = params.at(name);
  if (op.empty()) return v;
  if (op == "/") return v / n;
  if (op == "*") return v * n;
  throw std::runtime_error("count_param: cannot read " + expr);
}

std::vector<Reg> load(const std::string& block, const Params& params) {
  const YAML::Node root = YAML::LoadFile(std::string(IBCC_SOURCE_DIR) + "/rtl/regs/" + block + ".yaml");
  std::vector<Reg> regs;
  for (const auto& r : root["registers"]) {
    Reg reg{r["name"].as<std::string>(), r["access"].as<std::string>(), r["offset"].as<uint32_t>(),
            r["count"] ? r["count"].as<uint32_t>() : 1u, r["stride"] ? r["stride"].as<uint32_t>() : 4u};
    // A parameter-sized array implements fewer elements than its window reserves; the
    // rest of the window is outside the map (SLVERR), which the sweep below checks.
    if (r["count_param"]) {
      const uint32_t n = eval_count(r["count_param"].as<std::string>(), params);
      EXPECT_LE(n, reg.count) << block << " " << reg.name << ": count_param beyond the window";
      reg.count = n;
    }
    for (const auto& f : r["fields"]) {
      const uint32_t lsb = f["lsb"].as<uint32_t>();
      const uint32_t width = f["width"].as<uint32_t>();
      const uint32_t m = (width == 32 ? 0xffffffffu : ((1u << width) - 1u)) << lsb;
      reg.mask |= m;
      // A field that reads a block parameter resets to that parameter's value.
      const uint32_t reset = f["param"] ? eval_count(f["param"].as<std::string>(), params) : f["reset"].as<uint32_t>();
      reg.reset |= (reset << lsb) & m;
    }
    regs.push_back(reg);
  }
  return regs;
}

template <typename Block>
void check_map(Block& block, const std::string& name, const Params& params) {
  std::set<uint32_t> mapped;
  for (const Reg& r : load(name, params)) {
    for (uint32_t i = 0; i < r.count; ++i) {
      const uint32_t addr = r.offset + i * r.stride;
      mapped.insert(addr);
      uint32_t v = 0xdeadbeef;
      ASSERT_TRUE(block.read_csr(addr, &v)) << name << " " << r.name << "[" << i << "] not readable";
      EXPECT_EQ(v & ~r.mask, 0u) << r.name << "[" << i << "] has bits outside its fields";
      if (r.access != "wo") {
        EXPECT_EQ(v, r.reset) << name << " " << r.name << "[" << i << "] reset value";
      }
      if (r.access == "ro") {
        EXPECT_FALSE(block.write_csr(addr, 0xffffffff, 0xf)) << r.name << " is read-only";
      } else {
        EXPECT_TRUE(block.write_csr(addr, r.reset, 0xf)) << r.name << " accepts its reset value";
      }
    }
  }
  for (uint32_t addr = 0; addr < 4096; addr += 4) {
    uint32_t v;
    if (!mapped.count(addr)) {
      EXPECT_FALSE(block.read_csr(addr, &v)) << name << " 0x" << std::hex << addr << " is not in the map";
      EXPECT_FALSE(block.write_csr(addr, 0, 0xf)) << name << " 0x" << std::hex << addr << " is not in the map";
    }
    EXPECT_FALSE(block.read_csr(addr + 1, &v)) << "unaligned";
  }
}

TEST(Regmap, FecnMarkerMatchesYaml) {
  const ibcc::cc::FecnMarkerParams p{};
  ibcc::cc::FecnMarker block(p);
  check_map(block, "fecn_marker", {{"PortNum", p.port_num}, {"FillWidth", p.fill_width}, {"NumVls", p.num_vls},
                                   {"NumInputs", p.num_inputs}});
}

TEST(Regmap, CctiBlockMatchesYaml) {
  // The smallest sizes: the parameter-sized arrays then end well inside their windows.
  ibcc::cc::CctiBlockParams p{};
  p.num_qps = 16;
  p.cct_entries = 64;
  ibcc::cc::CctiBlock block(p);
  check_map(block, "ccti_block", {{"CctEntries", p.cct_entries}, {"NumQps", p.num_qps}});
  // BLOCK_INFO and CONGESTION_INFO read the parameters (not the YAML's default resets).
  uint32_t v = 0;
  ASSERT_TRUE(block.read_csr(ibcc::regs::ccti_block::kBlockInfoOffset, &v));
  EXPECT_EQ(v, (64u << 16) | 16u);
  ASSERT_TRUE(block.read_csr(ibcc::regs::ccti_block::kCongestionInfoOffset, &v));
  EXPECT_EQ(v, 1u << 8);  // one CCT block of 64 entries
}

}  // namespace

namespace {

namespace fr = ibcc::regs::fecn_marker;
namespace cr = ibcc::regs::ccti_block;

// The decode's behaviour beyond offsets and resets, stated independently of the generator
// (util/regtool_top.py), which writes the RTL and the C++ decode alike: the co-simulation
// cannot see a mistake the two share, this test can.
TEST(Regmap, FecnMarkerDecodeSemantics) {
  ibcc::cc::FecnMarkerParams p{};
  p.port_num = 37;  // word 7 - 37 / 32 = 6, bit 5
  ibcc::cc::FecnMarker m(p);
  uint32_t v = 0;
  // Victim_Mask: only this port's bit is stored; other words take writes and read 0.
  EXPECT_TRUE(m.write_csr(fr::kSwVictimMaskOffset + 6 * 4, 0xffffffffu, 0xf));
  ASSERT_TRUE(m.read_csr(fr::kSwVictimMaskOffset + 6 * 4, &v));
  EXPECT_EQ(v, 1u << 5);
  EXPECT_TRUE(m.victim_mask());
  EXPECT_TRUE(m.write_csr(fr::kSwVictimMaskOffset + 7 * 4, 0u, 0xf));
  EXPECT_TRUE(m.victim_mask());
  ASSERT_TRUE(m.read_csr(fr::kSwVictimMaskOffset + 7 * 4, &v));
  EXPECT_EQ(v, 0u);
  // Byte strobes merge into the read-back value.
  EXPECT_TRUE(m.write_csr(fr::kPortSettingOffset, 0x8f12abcdu, 0xf));
  EXPECT_TRUE(m.write_csr(fr::kPortSettingOffset, 0x00000077u, 0x1));
  ASSERT_TRUE(m.read_csr(fr::kPortSettingOffset, &v));
  EXPECT_EQ(v, 0x8f12ab77u & ~(1u << 30));  // CONTROL_TYPE (bit 30) reads zero
  // Legality: an illegal value changes nothing.
  EXPECT_TRUE(m.write_csr(fr::kImplCtrlOffset, 0x2u, 0xf));
  EXPECT_FALSE(m.write_csr(fr::kImplCtrlOffset, 0x3u, 0xf));
  EXPECT_EQ(static_cast<unsigned>(m.mapping()), 2u);
  EXPECT_FALSE(m.write_csr(fr::kBufferCapacityOffset, 1u << p.fill_width, 0xf));  // stored bits all 0
  EXPECT_TRUE(m.write_csr(fr::kBufferCapacityOffset, (1u << p.fill_width) | 5u, 0xf));
  EXPECT_EQ(m.buffer_capacity(), 5u);  // only FillWidth bits are stored
  EXPECT_FALSE(m.write_csr(fr::kLfsrSeedOffset, 0u, 0xf));
  EXPECT_FALSE(m.write_csr(fr::kLfsrSeedOffset, 0xffff0000u, 0xf));
  EXPECT_TRUE(m.write_csr(fr::kLfsrSeedOffset, 0x1234u, 0x3));
  EXPECT_EQ(m.lfsr(), 0x1234u);
  // Write-only: reads 0 and takes writes; raz words the same.
  EXPECT_TRUE(m.write_csr(fr::kLogCtrlOffset, 1u, 0xf));
  ASSERT_TRUE(m.read_csr(fr::kLogCtrlOffset, &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(m.write_csr(fr::kSwCreditMaskOffset, 0xffffffffu, 0xf));
  ASSERT_TRUE(m.read_csr(fr::kSwCreditMaskOffset, &v));
  EXPECT_EQ(v, 0u);
  // BLOCK_INFO reads the parameters.
  ASSERT_TRUE(m.read_csr(fr::kBlockInfoOffset, &v));
  EXPECT_EQ(v, (37u << 24) | (p.fill_width << 16) | (p.num_vls << 8) | p.num_inputs);
}

TEST(Regmap, CctiBlockDecodeSemantics) {
  ibcc::cc::CctiBlock b(ibcc::cc::CctiBlockParams{});
  uint32_t v = 0;
  // PORT_CONTROL stores bit 0 only.
  EXPECT_TRUE(b.write_csr(cr::kCaSettingOffset, 0xffff00ffu, 0xf));
  ASSERT_TRUE(b.read_csr(cr::kCaSettingOffset, &v));
  EXPECT_EQ(v, 0x000100ffu);
  EXPECT_TRUE(b.sl_based());
  // SL arrays: interleaved timer and minimum words per SL.
  EXPECT_TRUE(b.write_csr(cr::kCaSlTimerOffset + 3 * cr::kCaSlTimerStride, 0x01020304u, 0xf));
  EXPECT_TRUE(b.write_csr(cr::kCaSlMinOffset + 3 * cr::kCaSlMinStride, 0x05ffffffu, 0xf));
  ASSERT_TRUE(b.read_csr(cr::kCaSlTimerOffset + 3 * cr::kCaSlTimerStride, &v));
  EXPECT_EQ(v, 0x01020304u);
  ASSERT_TRUE(b.read_csr(cr::kCaSlMinOffset + 3 * cr::kCaSlMinStride, &v));
  EXPECT_EQ(v, 0x05000000u);
  // CCT pairs: entry 2k in the high half, strobes merge.
  EXPECT_TRUE(b.write_csr(cr::kCctEntryPairOffset + 5 * 4, 0x4001c002u, 0xf));
  EXPECT_TRUE(b.write_csr(cr::kCctEntryPairOffset + 5 * 4, 0x00000099u, 0x1));
  EXPECT_EQ(b.cct_entry(10), 0x4001u);
  EXPECT_EQ(b.cct_entry(11), 0xc099u);
  // Beyond CctEntries / 2 pairs: outside the map.
  EXPECT_FALSE(b.write_csr(cr::kCctEntryPairOffset + 64 * 4, 0u, 0xf));
  EXPECT_FALSE(b.read_csr(cr::kCctEntryPairOffset + 64 * 4, &v));
}

}  // namespace
