# Tests (CTest). Labels: unit, smoke (short co-simulations), regression (the long
# co-simulation runs with coverage), mutation, waves, lint, regmap, synth, coverage.
# Every test has a timeout.
enable_testing()
include(GoogleTest)

add_executable(ibcc_unit_tests
  tests/test_regmap.cpp
  tests/test_fecn_marker.cpp
  tests/test_ccti_block.cpp
  tests/test_lazy_advance.cpp)
find_package(yaml-cpp REQUIRED)
target_compile_definitions(ibcc_unit_tests PRIVATE IBCC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_link_libraries(ibcc_unit_tests PRIVATE ibcc_cc GTest::gtest GTest::gtest_main yaml-cpp)
target_compile_options(ibcc_unit_tests PRIVATE ${IBCC_WARNINGS})
gtest_discover_tests(ibcc_unit_tests PROPERTIES LABELS unit TIMEOUT 120)
