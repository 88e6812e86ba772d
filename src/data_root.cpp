// ibcc's data root (data_root.h): beside the binary when installed, else its source tree.
#include "data_root.h"

#include <filesystem>
#include <system_error>

namespace ibcc {
namespace {

namespace fs = std::filesystem;

struct Root {
  std::string dir;
  bool installed = false;
};

const Root& root() {
  static const Root r = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const fs::path share = exe.parent_path().parent_path() / "share" / "ibcc";
      if (fs::is_regular_file(share / "python" / "ibcc" / "__init__.py", ec)) return Root{share.string(), true};
    }
    return Root{IBCC_SOURCE_DIR, false};
  }();
  return r;
}

}  // namespace

const std::string& data_root() { return root().dir; }
bool installed() { return root().installed; }

}  // namespace ibcc
