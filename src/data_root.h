// Where ibcc finds what it ships besides the binary: the Python package (sweep, tune, plot),
// the scenarios under topologies/, and the sources RTL in the loop Verilates.
#pragma once

#include <string>

namespace ibcc {

// An installed ibcc (cmake --install: PREFIX/bin/ibcc) finds them in PREFIX/share/ibcc,
// relative to the binary wherever the prefix was moved; a binary in a build tree, in the
// source tree it was built from.
const std::string& data_root();
// True when data_root() is an installed share/ibcc (not a source tree).
bool installed();

}  // namespace ibcc
