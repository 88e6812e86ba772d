# Verification targets: mutants (the scoreboard must catch them), the coverage-instrumented
# RTL build and its report, lint, the register-map check and FPGA synthesis.

set(IBCC_RTL_FILES
  ${CMAKE_SOURCE_DIR}/rtl/fecn_marker_reg_pkg.sv ${CMAKE_SOURCE_DIR}/rtl/ccti_block_reg_pkg.sv
  ${CMAKE_SOURCE_DIR}/rtl/fecn_marker_reg_top.sv ${CMAKE_SOURCE_DIR}/rtl/ccti_block_reg_top.sv
  ${CMAKE_SOURCE_DIR}/rtl/ibcc_timebase.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_axil_slave.sv
  ${CMAKE_SOURCE_DIR}/rtl/ibcc_event_log.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_fill_reduce.sv
  ${CMAKE_SOURCE_DIR}/rtl/fecn_marker.sv ${CMAKE_SOURCE_DIR}/rtl/ccti_block.sv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/verif/rtl/mutations.yaml ${CMAKE_SOURCE_DIR}/verif/rtl/mutate.py ${IBCC_RTL_FILES})

# --- Mutants ---------------------------------------------------------------------------------
execute_process(COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/mutate.py --list
  OUTPUT_VARIABLE mutation_lines RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "verif/rtl/mutate.py --list failed")
endif()
string(REPLACE "\n" ";" mutation_lines "${mutation_lines}")
set(IBCC_MUTANTS "")
foreach(line ${mutation_lines})
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE " " ";" fields "${line}")
  list(GET fields 0 mutant)
  list(GET fields 1 mutant_block)
  set(dir ${CMAKE_BINARY_DIR}/mutants/${mutant})
  execute_process(COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/mutate.py ${mutant} ${dir}
    RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "mutation ${mutant} does not apply")
  endif()
  # A mutant may leave a signal unused: lint warnings must not stop its build.
  ibcc_rtl_library(ibcc_rtl_${mutant} ${mutant}
    "${dir}/fecn_marker_reg_pkg.sv;${dir}/fecn_marker_reg_top.sv;${dir}/ibcc_timebase.sv;${dir}/ibcc_axil_slave.sv;${dir}/ibcc_event_log.sv;${dir}/ibcc_fill_reduce.sv;${dir}/fecn_marker.sv"
    "${dir}/ccti_block_reg_pkg.sv;${dir}/ccti_block_reg_top.sv;${dir}/ibcc_timebase.sv;${dir}/ibcc_axil_slave.sv;${dir}/ibcc_event_log.sv;${dir}/ibcc_fill_reduce.sv;${dir}/ccti_block.sv"
    "-Wno-fatal")
  add_executable(ibcc-mutant-${mutant} $<TARGET_OBJECTS:ibcc_cli>)
  target_link_libraries(ibcc-mutant-${mutant} PRIVATE ibcc_tb ibcc_rtl_${mutant} ${IBCC_CLI_LIBS})
  list(APPEND IBCC_MUTANTS ${mutant})
  set(IBCC_MUTANT_BLOCK_${mutant} ${mutant_block})
endforeach()

# --- Coverage-instrumented RTL (line, toggle and the RTL's cover points) ------------------
ibcc_rtl_library(ibcc_rtl_cov coverage "${RTL_FECN}" "${RTL_CCTI}" "" COVERAGE)
add_executable(ibcc-cov $<TARGET_OBJECTS:ibcc_cli>)
target_link_libraries(ibcc-cov PRIVATE ibcc_tb ibcc_rtl_cov ${IBCC_CLI_LIBS})
add_custom_target(rtl_coverage
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/rtl_coverage.py $<TARGET_FILE:ibcc-cov>
          ${CMAKE_BINARY_DIR}/rtl_coverage
  DEPENDS ibcc-cov
  COMMENT "Co-simulation regression on the coverage build; report in build/rtl_coverage/"
  USES_TERMINAL)

# --- FPGA synthesis (yosys) ---------------------------------------------------------------
add_custom_target(synth
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/synth.py ${CMAKE_BINARY_DIR}/synth --ecp5-seeds 3
  COMMENT "yosys synth_ice40, synth_xilinx and synth_ecp5 on both blocks; nextpnr on iCE40 HX8K and ECP5-85 (3 seeds)"
  USES_TERMINAL)

# The board top's bitstream (ULX3S, LFE5U-85F) at the co-simulation's parameters.
add_custom_target(bitstream
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/bitstream.py ${CMAKE_BINARY_DIR}/bitstream
          --param NumInputs=${COSIM_FECN_INPUTS} --param NumVls=${COSIM_FECN_VLS} --param FillWidth=${COSIM_FECN_FILL_WIDTH}
          --param PortNum=${COSIM_FECN_PORT_NUM} --param NumQps=${COSIM_CCTI_QPS} --param CctEntries=${COSIM_CCTI_ENTRIES}
          --param TickCycles=${COSIM_TICK_CYCLES}
  COMMENT "synth_ecp5, nextpnr-ecp5 (ULX3S pins, 100 MHz) and ecppack of the board top"
  USES_TERMINAL)

# --- Lint ------------------------------------------------------------------------------------
add_custom_target(lint
  COMMAND verilator --lint-only -Wall ${CMAKE_SOURCE_DIR}/rtl/fecn_marker_reg_pkg.sv ${CMAKE_SOURCE_DIR}/rtl/fecn_marker_reg_top.sv
          ${CMAKE_SOURCE_DIR}/rtl/ibcc_timebase.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_axil_slave.sv
          ${CMAKE_SOURCE_DIR}/rtl/ibcc_event_log.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_fill_reduce.sv ${CMAKE_SOURCE_DIR}/rtl/fecn_marker.sv --top-module fecn_marker
  COMMAND verilator --lint-only -Wall ${CMAKE_SOURCE_DIR}/rtl/ccti_block_reg_pkg.sv ${CMAKE_SOURCE_DIR}/rtl/ccti_block_reg_top.sv
          ${CMAKE_SOURCE_DIR}/rtl/ibcc_timebase.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_axil_slave.sv
          ${CMAKE_SOURCE_DIR}/rtl/ibcc_event_log.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_fill_reduce.sv ${CMAKE_SOURCE_DIR}/rtl/ccti_block.sv --top-module ccti_block
  COMMENT "verilator --lint-only -Wall on rtl/")
