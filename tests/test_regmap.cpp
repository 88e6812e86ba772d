// The C++ models' register maps against the single-source YAML descriptions: every
// register answers at its offset with its documented reset value, read-only registers
// refuse writes, and addresses outside the map answer SLVERR. (The co-simulation then
// proves the RTL answers exactly as the C++ model does, every cycle.)
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>
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

std::vector<Reg> load(const std::string& block) {
  const YAML::Node root = YAML::LoadFile(std::string(IBCC_SOURCE_DIR) + "/rtl/regs/" + block + ".yaml");
  std::vector<Reg> regs;
  for (const auto& r : root["registers"]) {
    Reg reg{r["name"].as<std::string>(), r["access"].as<std::string>(), r["offset"].as<uint32_t>(),
            r["count"] ? r["count"].as<uint32_t>() : 1u, r["stride"] ? r["stride"].as<uint32_t>() : 4u};
    for (const auto& f : r["fields"]) {
      const uint32_t lsb = f["lsb"].as<uint32_t>();
      const uint32_t width = f["width"].as<uint32_t>();
      const uint32_t m = (width == 32 ? 0xffffffffu : ((1u << width) - 1u)) << lsb;
      reg.mask |= m;
      reg.reset |= (f["reset"].as<uint32_t>() << lsb) & m;
    }
    regs.push_back(reg);
  }
  return regs;
}

template <typename Block>
void check_map(Block& block, const std::string& name) {
  std::set<uint32_t> mapped;
  for (const Reg& r : load(name)) {
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
  ibcc::cc::FecnMarker block(ibcc::cc::FecnMarkerParams{});
  check_map(block, "fecn_marker");
}

TEST(Regmap, CctiBlockMatchesYaml) {
  ibcc::cc::CctiBlock block(ibcc::cc::CctiBlockParams{});
  check_map(block, "ccti_block");
}

}  // namespace
