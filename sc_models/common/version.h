// What build this is: the project version (CMakeLists.txt) and the git revision it was built
// from (`git describe --dirty`; "unknown" outside a git checkout). Generated at build time
// by cmake/version.cmake, so a rebuild after a commit reports the new revision.
#pragma once

#include <string>

namespace ibcc {

const char* version_number();
const char* version_revision();
// "ibcc 0.9.0 (git 1a2b3c4d5e6f)": what `ibcc --version` prints and results record.
inline std::string version_string() {
  return std::string("ibcc ") + version_number() + " (git " + version_revision() + ")";
}

}  // namespace ibcc
