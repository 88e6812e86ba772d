// The RTL loop's cache key covers what its engines are compiled against: the engine's source
// and every header it includes from the model, transitively (include_closure). Before, a
// change to a struct the engine shares with the model (FecnMarkerInputs) kept the old key,
// and `ibcc run --rtl` loaded a stale library that crashed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "net/rtl_loop/rtl_loop.h"

namespace ibcc::net {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(RtlLoopKey, CoversHeadersIncludedTransitivelyFromTheModel) {
  const fs::path root = fs::temp_directory_path() / ("ibcc_key_" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "engine" / "loop.cpp", "#include \"Vgenerated.h\"\n#include \"driver.h\"\nint f();\n");
  write(root / "engine" / "driver.h", "  #include \"net/iface.h\"\n#include <vector>\n");
  write(root / "model" / "net" / "iface.h", "#include \"cc/core.h\"\n#include \"net/iface.h\"\n");
  write(root / "model" / "cc" / "core.h", "struct Inputs { int a; };\n");
  const std::vector<fs::path> dirs = {root / "engine", root / "model"};
  const std::string before = include_closure(root / "engine" / "loop.cpp", dirs);
  EXPECT_NE(before.find("struct Inputs { int a; };"), std::string::npos) << "a header two includes away";
  EXPECT_EQ(before, include_closure(root / "engine" / "loop.cpp", dirs)) << "the same files give the same text";
  write(root / "model" / "cc" / "core.h", "struct Inputs { long a; };\n");
  EXPECT_NE(before, include_closure(root / "engine" / "loop.cpp", dirs)) << "a changed layout changes the key";
  fs::remove_all(root);
}

TEST(RtlLoopKey, TheMarkerEngineKeyCoversItsInputsStruct) {
  const fs::path src(IBCC_SOURCE_DIR);
  const std::string text =
      include_closure(src / "rtl_loop" / "fecn_marker_loop.cpp", {src / "rtl_loop", src / "sc_models"});
  EXPECT_NE(text.find("struct FecnMarkerInputs {"), std::string::npos);
  EXPECT_NE(text.find("struct CctiBlockInputs {"), std::string::npos);
}

}  // namespace
}  // namespace ibcc::net
