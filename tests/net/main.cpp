// The network-model tests link SystemC, whose library defines main() and calls sc_main
// (../shared/notes/TOOLCHAIN.md): run GoogleTest from sc_main. CTest runs every test in its
// own process (gtest_discover_tests), so a test may elaborate one fabric.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

namespace {
const int kQuietSystemC = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}

int sc_main(int argc, char** argv) {
  (void)kQuietSystemC;
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
