// `ibcc list`: the scenarios and studies shipped under topologies/, one line each.
#pragma once

#include <string>

namespace ibcc {

// Prints one line per shipped scenario (*.yaml) and study (studies/*.sh) under `root`:
// kind, path relative to the source tree, and the first line of the file's leading comment.
// Returns the exit code (2 if `root` is not there).
int run_list(const std::string& source_dir);

}  // namespace ibcc
