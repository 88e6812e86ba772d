// CCTI block co-simulation testbench.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tb/cosim_harness.h"

namespace ibcc::tb {

std::vector<std::string> ccti_tests();
std::unique_ptr<CosimHarness> make_ccti_cosim(const CosimOptions& opts);

}  // namespace ibcc::tb
