// Which RTL this binary was built with (defined in rtl_models.cpp, one per Verilated library).
#pragma once

namespace ibcc::tb {

// "rtl", or the name of a mutant.
const char* rtl_variant();
// The directory of the RTL sources this binary's models were Verilated from (rtl/, or a
// mutant's copy): what ibcc run --rtl Verilates for the loop.
const char* rtl_source_dir();

}  // namespace ibcc::tb
