# Tests (CTest). Labels: unit, smoke (short co-simulations), regression (the long
# co-simulation runs with coverage), mutation, rtl_in_loop, waves, lint, regmap, oracle, formal, synth, coverage, network,
# workflow, validation, sanitize (ASan + UBSan build), fuzz (libFuzzer on the parsers), dcqcn, lossy,
# nvidia_cc (NVIDIA-style CC), adaptive_routing.
# Every test has a timeout.
enable_testing()
include(GoogleTest)

add_executable(ibcc_unit_tests
  tests/test_regmap.cpp
  tests/test_fecn_marker.cpp
  tests/test_ccti_block.cpp
  tests/test_lazy_advance.cpp
  tests/test_aqs_marker.cpp)
target_compile_definitions(ibcc_unit_tests PRIVATE IBCC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_link_libraries(ibcc_unit_tests PRIVATE ibcc_cc GTest::gtest GTest::gtest_main yaml-cpp)
target_compile_options(ibcc_unit_tests PRIVATE ${IBCC_WARNINGS})
gtest_discover_tests(ibcc_unit_tests TEST_FILTER "-AqsMarker.*" PROPERTIES LABELS unit TIMEOUT 120)
# The NVIDIA-style marking core also carries the nvidia_cc label.
gtest_discover_tests(ibcc_unit_tests TEST_FILTER "AqsMarker.*" PROPERTIES LABELS "nvidia_cc;unit" TIMEOUT 120)

# The DCQCN cores: their own binary so that they carry the dcqcn label.
add_executable(ibcc_dcqcn_tests tests/test_dcqcn.cpp)
target_link_libraries(ibcc_dcqcn_tests PRIVATE ibcc_cc GTest::gtest GTest::gtest_main)
target_compile_options(ibcc_dcqcn_tests PRIVATE ${IBCC_WARNINGS})
gtest_discover_tests(ibcc_dcqcn_tests PROPERTIES LABELS "dcqcn;unit" TIMEOUT 120)

# --- Network model: units, scenarios, topologies, CC adapters, small fabrics ------------------
add_executable(ibcc_net_tests tests/net/main.cpp tests/net/test_scenario.cpp tests/net/test_scenario_keys.cpp tests/net/test_traffic.cpp tests/net/test_topology.cpp
  tests/net/test_cc_adapters.cpp tests/net/test_fabric.cpp tests/net/test_vl_arbiter.cpp
  tests/net/test_voq_arbiter.cpp tests/net/test_output_unit.cpp tests/net/test_input_unit.cpp tests/net/test_port_counters.cpp tests/net/test_hca_sender.cpp tests/net/test_switch.cpp tests/net/test_hca.cpp
  tests/net/test_event_calendar.cpp tests/net/test_packet_layout.cpp tests/net/test_rtl_loop_key.cpp
  tests/net/test_small_div.cpp tests/net/test_heap_pages.cpp tests/net/test_regimes.cpp
  tests/net/test_gbn_transport.cpp tests/net/test_crossbar.cpp tests/net/test_hca_sink.cpp tests/net/test_partition.cpp tests/net/test_parallel_profile.cpp tests/net/test_canonical_round.cpp
  tests/net/test_expected_load.cpp tests/net/test_rank_bytes.cpp)
target_compile_definitions(ibcc_net_tests PRIVATE IBCC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_include_directories(ibcc_net_tests PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(ibcc_net_tests PRIVATE ibcc_net ibcc_heap GTest::gtest)
target_compile_options(ibcc_net_tests PRIVATE ${IBCC_WARNINGS})
gtest_discover_tests(ibcc_net_tests PROPERTIES LABELS network TIMEOUT 120)

# The Ethernet and lossy regimes on the small fabric, labelled by regime.
add_executable(ibcc_regime_tests tests/net/main.cpp tests/net/test_pfc_dcqcn.cpp)
target_compile_definitions(ibcc_regime_tests PRIVATE IBCC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_include_directories(ibcc_regime_tests PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(ibcc_regime_tests PRIVATE ibcc_net GTest::gtest)
target_compile_options(ibcc_regime_tests PRIVATE ${IBCC_WARNINGS})
gtest_discover_tests(ibcc_regime_tests TEST_FILTER "Pfc.*:Dcqcn.*" PROPERTIES LABELS "dcqcn;network" TIMEOUT 120)
gtest_discover_tests(ibcc_regime_tests TEST_FILTER "Lossy.*" PROPERTIES LABELS "lossy;network" TIMEOUT 120)

# Bad scenario files and faults built into the model: clear errors, exit 2 / exit 1.
add_test(NAME network_bad_input_and_faults
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_scenario_errors.py $<TARGET_FILE:ibcc>
          ${CMAKE_SOURCE_DIR}/tests/scenarios/bad ${CMAKE_SOURCE_DIR}/tests/scenarios/faults
          ${CMAKE_SOURCE_DIR}/tests/opensm/bad ${CMAKE_SOURCE_DIR}/tests/ibnetdiscover/bad)
set_tests_properties(network_bad_input_and_faults PROPERTIES LABELS network TIMEOUT 300)

# Same seed, same inputs: byte-identical flows.csv (a random-destination scenario).
add_test(NAME network_reproducible
  COMMAND ${CMAKE_COMMAND} -DIBCC=$<TARGET_FILE:ibcc> -DSCENARIO=${CMAKE_SOURCE_DIR}/topologies/clos648/hotspot.yaml
          -DOUT=${CMAKE_BINARY_DIR}/test-out/reproducible -P ${CMAKE_SOURCE_DIR}/cmake/check_reproducible.cmake)
set_tests_properties(network_reproducible PROPERTIES LABELS network TIMEOUT 300)

# The shipped OpenSM configuration imports and simulates with the seed test bed.
add_test(NAME workflow_opensm_import
  COMMAND $<TARGET_FILE:ibcc> run ${CMAKE_SOURCE_DIR}/topologies/seed-testbed/scenario1.yaml
          --opensm-conf ${CMAKE_SOURCE_DIR}/topologies/opensm/opensm.conf --sim-time 2500ms --quiet --force
          --out ${CMAKE_BINARY_DIR}/test-out/opensm)
set_tests_properties(workflow_opensm_import PROPERTIES LABELS "workflow" TIMEOUT 300)

# The shipped ibnetdiscover sample (with and without its dump_lfts tables) imports and simulates.
add_test(NAME workflow_ibnetdiscover_import
  COMMAND ${CMAKE_COMMAND} -DIBCC=$<TARGET_FILE:ibcc> -DDIR=${CMAKE_SOURCE_DIR}/topologies/ibnetdiscover
          -DOUT=${CMAKE_BINARY_DIR}/test-out/ibnetdiscover -P ${CMAKE_SOURCE_DIR}/cmake/check_ibnetdiscover.cmake)
set_tests_properties(workflow_ibnetdiscover_import PROPERTIES LABELS "workflow" TIMEOUT 300)

# Network waves: the generated save file opens in GTKWave (Xvfb) with every trace resolved.
add_test(NAME waves_network_gtkwave
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_net_waves.py $<TARGET_FILE:ibcc>
          ${CMAKE_SOURCE_DIR}/topologies/seed-testbed/scenario1.yaml ${CMAKE_BINARY_DIR}/waves_check/network)
set_tests_properties(waves_network_gtkwave PROPERTIES LABELS "waves;workflow" TIMEOUT 600)

# ibcc run's outputs: provenance (version, command, input hashes, resolved.yaml that reproduces
# the run), interrupts (exit 130, partial tables), failed writes (full tmpfs, /dev/full), reuse of --out.
add_test(NAME workflow_run_outputs
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_run_outputs.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/run_outputs)
set_tests_properties(workflow_run_outputs PROPERTIES LABELS "workflow" TIMEOUT 600)

# ibcc sweep: parallel grid, interrupt and resume, errors.
add_test(NAME workflow_sweep
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_sweep.py $<TARGET_FILE:ibcc>
          ${CMAKE_SOURCE_DIR}/topologies/seed-testbed/scenario2.yaml ${CMAKE_BINARY_DIR}/test-out/sweep)
set_tests_properties(workflow_sweep PROPERTIES LABELS "workflow" TIMEOUT 600)

# ibcc tune: bad input refused before any trial, a two-objective tune killed mid-trial and
# resumed, its Pareto front, report and plots, the opensm.conf fragment read back by ibcc run.
add_test(NAME tune_study
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_tune.py $<TARGET_FILE:ibcc> ${CMAKE_BINARY_DIR}/test-out/tune)
set_tests_properties(tune_study PROPERTIES LABELS "tune;workflow" TIMEOUT 900)

# Lossy regime: the seed chapter's analytic Go-Back-N model reproduces its Table 4.1
# predicted column (Eqs. 4.9/4.10) within ±0.005, and its estimators (Eqs. 4.11-4.13).
# DCQCN and DCQCN+ reproductions of the dcqcn-plus dissertation: the 2:1 incast's
# convergence and the N-flow incast sweep, each checking the seed's trend.
add_test(NAME dcqcn_incast2
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_dcqcn.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/dcqcn incast2)
set_tests_properties(dcqcn_incast2 PROPERTIES LABELS "dcqcn;validation" TIMEOUT 300)
add_test(NAME dcqcn_incast_sweep
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_dcqcn.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/dcqcn sweep --flows 80,240,480,720)
set_tests_properties(dcqcn_incast_sweep PROPERTIES LABELS "dcqcn;validation" TIMEOUT 900)
# DCQCN and DCQCN+ at 80 and 160 flows on 40 Gb/s links, and the page's table of them.
add_test(NAME dcqcn_small_incast_40g
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_dcqcn.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/dcqcn_small40 small40)
set_tests_properties(dcqcn_small_incast_40g PROPERTIES LABELS "dcqcn;validation;docs" TIMEOUT 600)

# The chapter's many-to-one gather on the model's lossy switch under Go-Back-N.
add_test(NAME gbn_gather
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_gbn_gather.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/gbn_gather)
set_tests_properties(gbn_gather PROPERTIES LABELS "lossy;validation" TIMEOUT 600)

# One scenario three ways: IB CC over credits, DCQCN over PFC, lossy with Go-Back-N.
add_test(NAME regimes_side_by_side
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/compare_regimes.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/regimes)
set_tests_properties(regimes_side_by_side PROPERTIES LABELS "dcqcn;lossy;validation" TIMEOUT 600)

# Today's IB beside A10 and DCQCN: three regimes x static/adaptive routing on the 648-port and
# NDR hotspot loads; docs/validation.md's table checked against fresh runs.
add_test(NAME study_today_regimes
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/compare_today.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/today --check --jobs 2)
set_tests_properties(study_today_regimes PROPERTIES LABELS "validation;dcqcn" TIMEOUT 900)

add_test(NAME gbn_table41_checker COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_gbn_model.py)
set_tests_properties(gbn_table41_checker PROPERTIES LABELS lossy TIMEOUT 120)

# Slurm as the engine: a real single-node Slurm (munged, slurmctld, slurmd) started and stopped
# by the test; a sweep and a tune through it, each cancelled with scancel and resumed, equal
# to the local backend's results.
add_test(NAME slurm_backend
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_slurm.py $<TARGET_FILE:ibcc> ${CMAKE_BINARY_DIR}/test-out/slurm)
set_tests_properties(slurm_backend PROPERTIES LABELS "slurm;workflow" TIMEOUT 1200 RESOURCE_LOCK slurm)

# ibcc run --plot and ibcc plot: every PNG exists, is not blank and fits its figure (layout boxes).
add_test(NAME workflow_plots
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_plots.py $<TARGET_FILE:ibcc>
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-out/plots)
set_tests_properties(workflow_plots PROPERTIES LABELS "workflow" TIMEOUT 600)

# docs/configuration.md's key reference and docs/scenario.schema.json are what the one key
# table generates (scripts/update_generated_docs.py brings them up to date).
add_test(NAME config_reference_generated
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/update_generated_docs.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR} --check)
set_tests_properties(config_reference_generated PROPERTIES LABELS "network;unit;docs" TIMEOUT 60)

# --- The architecture walk names methods that exist (a rename or removal fails here) -------
add_test(NAME docs_walk_names_exist COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_walk_names.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs_walk_names_exist PROPERTIES LABELS "docs;unit" TIMEOUT 60)

# --- Model code: no file over 600 lines, nothing under sc_models/ prints or exits ---------
add_test(NAME model_code_rules COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_model_code.py ${CMAKE_SOURCE_DIR} --planted)
set_tests_properties(model_code_rules PROPERTIES LABELS "unit;docs" TIMEOUT 60)

# The man page and bash completion generated from --help cover every subcommand and option.
add_test(NAME cli_man_and_completion
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_man_completion.py $<TARGET_FILE:ibcc> ${CMAKE_BINARY_DIR})
set_tests_properties(cli_man_and_completion PROPERTIES LABELS "cli;docs" TIMEOUT 120)

# Every command block of README.md and docs/user_guide.md runs, and the numbers the text
# states come out (verif/cli/check_docs.py: annotations cap long runs and state tolerances).
add_test(NAME docs_commands_run
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_docs.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs_commands_run PROPERTIES LABELS "docs" TIMEOUT 1800 RUN_SERIAL TRUE)

# The JSON Schema accepts every shipped scenario and its resolved form, and rejects broken ones.
add_test(NAME scenario_schema
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_scenario_schema.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR})
set_tests_properties(scenario_schema PROPERTIES LABELS "network;unit" TIMEOUT 300)

# Every numeric key at and beyond its documented limits, through the reader and the model.
add_test(NAME scenario_key_limits
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_key_limits.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/key_limits)
set_tests_properties(scenario_key_limits PROPERTIES LABELS "network" TIMEOUT 600)

# The seed test-bed experiments (ib-cc-modelling-and-validation sections 5 and 6).
foreach(n 1 2)
  add_test(NAME validation_seed_scenario${n}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_validation.py $<TARGET_FILE:ibcc>
            ${CMAKE_SOURCE_DIR}/topologies/seed-testbed/scenario${n}.yaml ${CMAKE_BINARY_DIR}/test-out/validation${n}
            --scenario ${n})
  set_tests_properties(validation_seed_scenario${n} PROPERTIES LABELS "network;validation" TIMEOUT 900)
endforeach()

# --- Register map: generated files in sync with rtl/regs/*.yaml ---------------------------
add_test(NAME regmap_generated_files_current
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/util/regtool.py --check
          ${CMAKE_SOURCE_DIR}/rtl/regs/fecn_marker.yaml ${CMAKE_SOURCE_DIR}/rtl/regs/ccti_block.yaml)
set_tests_properties(regmap_generated_files_current PROPERTIES LABELS "regmap;unit" TIMEOUT 60)
add_test(NAME regmap_validator_refuses
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/test_regtool.py)
set_tests_properties(regmap_validator_refuses PROPERTIES LABELS "regmap;unit" TIMEOUT 60)

# --- Others' references (label oracle): the CC attribute layouts against libibmad's field table.
add_test(NAME oracle_ibmad_layout
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/check_ibmad_layout.py
          ${CMAKE_SOURCE_DIR}/rtl/regs/fecn_marker.yaml ${CMAKE_SOURCE_DIR}/rtl/regs/ccti_block.yaml)
set_tests_properties(oracle_ibmad_layout PROPERTIES LABELS "oracle;regmap" TIMEOUT 120)
# The AXI4-Lite slave proven against our property set (bounded, induction, covers), and every
# broken slave of verif/rtl/formal/axil_mutants.yaml refuted by a counterexample.
add_test(NAME oracle_axil_formal COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/formal_axil.py)
add_test(NAME oracle_axil_formal_mutants
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/formal_axil.py --mutants)
set_tests_properties(oracle_axil_formal oracle_axil_formal_mutants PROPERTIES LABELS "oracle;formal" TIMEOUT 300)
# A second lint: slang -Weverything, each warning fixed or waived with its reason.
add_test(NAME oracle_lint_slang COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/lint_slang.py)
set_tests_properties(oracle_lint_slang PROPERTIES LABELS "oracle;lint" TIMEOUT 120)

# --- RTL in the loop: scenario 1 (contributors started 0.25 s apart, 1 s simulated) with the
# Verilated FECN marker at S1's congested output and the Verilated CCTI block in the four
# contributors' HCAs gives byte-identical results; a mutant's marker (fecn_skip_counter) or
# CCTI block (ccti_timer_restart) must change them (0.3 s suffices). The waves test opens the
# in-loop blocks' FST in GTKWave and matches the marker's marks with the network's. The
# Verilated engines are cached in the build.
set(IBCC_LOOP_FLOWS --set traffic.flows[1].start=0s --set traffic.flows[2].start=250ms
    --set traffic.flows[3].start=500ms --set traffic.flows[4].start=750ms)
set(IBCC_LOOP_SCENARIO ${CMAKE_SOURCE_DIR}/topologies/seed-testbed/scenario1.yaml)
add_test(NAME rtl_in_loop_scenario1
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/check_rtl_in_loop.py $<TARGET_FILE:ibcc> $<TARGET_FILE:ibcc>
          ${IBCC_LOOP_SCENARIO} ${CMAKE_BINARY_DIR}/test-out/rtl_in_loop --sim-time 1s ${IBCC_LOOP_FLOWS}
          --rtl S1/36,H2,H3,H6,H7)
set_tests_properties(rtl_in_loop_scenario1 PROPERTIES LABELS rtl_in_loop TIMEOUT 2400)
set(IBCC_LOOP_TESTS rtl_in_loop_scenario1)
foreach(case "fecn_skip_counter;S1/36" "ccti_timer_restart;H2,H3,H6,H7")
  list(GET case 0 mutant)
  list(GET case 1 blocks)
  if(TARGET ibcc-mutant-${mutant})
    add_test(NAME rtl_in_loop_mutant_${mutant}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/check_rtl_in_loop.py $<TARGET_FILE:ibcc>
              $<TARGET_FILE:ibcc-mutant-${mutant}> ${IBCC_LOOP_SCENARIO} ${CMAKE_BINARY_DIR}/test-out/rtl_in_loop_${mutant}
              --sim-time 300ms ${IBCC_LOOP_FLOWS} --rtl ${blocks} --expect-differ)
    set_tests_properties(rtl_in_loop_mutant_${mutant} PROPERTIES LABELS rtl_in_loop TIMEOUT 900)
    list(APPEND IBCC_LOOP_TESTS rtl_in_loop_mutant_${mutant})
  endif()
endforeach()
add_test(NAME rtl_in_loop_waves
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/check_rtl_waves.py $<TARGET_FILE:ibcc> ${IBCC_LOOP_SCENARIO}
          ${CMAKE_BINARY_DIR}/test-out/rtl_in_loop_waves S1/36 H2 --sim-time 6ms --set traffic.flows[1].start=0s
          --set traffic.flows[2].start=5ms --waves-window 5ms..6ms)
set_tests_properties(rtl_in_loop_waves PROPERTIES LABELS "rtl_in_loop;waves" TIMEOUT 600)
list(APPEND IBCC_LOOP_TESTS rtl_in_loop_waves)
set_tests_properties(${IBCC_LOOP_TESTS} PROPERTIES ENVIRONMENT "XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/cache")

# --- Lint: verilator -Wall on each block -----------------------------------------------------
foreach(top fecn_marker ccti_block)
  add_test(NAME lint_${top}
    COMMAND verilator --lint-only -Wall ${CMAKE_SOURCE_DIR}/rtl/${top}_reg_pkg.sv ${CMAKE_SOURCE_DIR}/rtl/${top}_reg_top.sv
            ${CMAKE_SOURCE_DIR}/rtl/ibcc_timebase.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_axil_slave.sv
            ${CMAKE_SOURCE_DIR}/rtl/ibcc_event_log.sv ${CMAKE_SOURCE_DIR}/rtl/ibcc_fill_reduce.sv ${CMAKE_SOURCE_DIR}/rtl/${top}.sv --top-module ${top})
  set_tests_properties(lint_${top} PROPERTIES LABELS lint TIMEOUT 120)
endforeach()
add_test(NAME lint_ibcc_board_top COMMAND verilator --lint-only -Wall ${board_sources} --top-module ibcc_board_top)
set_tests_properties(lint_ibcc_board_top PROPERTIES LABELS lint TIMEOUT 120)

# --- Co-simulation: each directed test alone (smoke), then the regressions ----------------
set(IBCC_DIRECTED_fecn reset_values mapping_per_voq mapping_sum mapping_sum_div_ports root_victim
    victim_mask threshold_zero packet_size marking_rate_counter marking_rate_random hysteresis log log_saturation
    csr_corners)
set(IBCC_DIRECTED_ccti reset_values becn_burst_limit timer_decay trigger_threshold cct_index qp_vs_sl
    control_map ird_formulas expiry_with_becn log_saturation csr_corners)
foreach(block fecn ccti)
  foreach(t ${IBCC_DIRECTED_${block}})
    add_test(NAME cosim_${block}_${t} COMMAND ibcc cosim --block ${block} --test ${t} --seed 1 --quiet)
    set_tests_properties(cosim_${block}_${t} PROPERTIES LABELS "smoke;cosim" TIMEOUT 120)
  endforeach()
  add_test(NAME cosim_${block}_random_seed7 COMMAND ibcc cosim --block ${block} --test random
           --cycles 500000 --seed 7 --quiet)
  set_tests_properties(cosim_${block}_random_seed7 PROPERTIES LABELS "smoke;cosim" TIMEOUT 300)
  # The regression: every directed test, then constrained random up to 6 M cycles, with every
  # functional coverage bin required. Two blocks: 12 M co-simulated cycles per CI run.
  add_test(NAME cosim_${block}_regression COMMAND ibcc cosim --block ${block} --test all
           --cycles 6000000 --seed 1 --require-coverage
           --coverage-json ${CMAKE_BINARY_DIR}/coverage_${block}.json)
  set_tests_properties(cosim_${block}_regression PROPERTIES LABELS "regression;cosim" TIMEOUT 1200)
endforeach()
# The same tests against the board top Verilated with its UART (what `--board DEVICE` runs on
# an FPGA): every directed test, then constrained random up to 200 k cycles per block.
foreach(block fecn ccti)
  add_test(NAME cosim_board_verilated_${block} COMMAND ibcc cosim --block ${block} --test all --cycles 200000 --seed 1
           --board verilated --quiet)
  set_tests_properties(cosim_board_verilated_${block} PROPERTIES LABELS "cosim;board" TIMEOUT 300
    PASS_REGULAR_EXPRESSION "rtl=board \\(verilated\\).* 0 mismatches.*RESULT: PASS")
endforeach()

# --- Mutation: the regression must fail (with a mismatch) against each broken RTL ---------
foreach(mutant ${IBCC_MUTANTS})
  add_test(NAME mutation_${mutant}
    COMMAND ibcc-mutant-${mutant} cosim --block ${IBCC_MUTANT_BLOCK_${mutant}} --test all
            --cycles 1000000 --seed 1 --quiet)
  set_tests_properties(mutation_${mutant} PROPERTIES LABELS mutation TIMEOUT 600
    PASS_REGULAR_EXPRESSION "RESULT: FAIL \\(mismatch\\)")
endforeach()

# --- Command-line errors: bad input exits 2 with a message naming the option --------------
add_test(NAME cli_bad_input COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_cli_errors.py
         $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}/topologies/seed-testbed/scenario2.yaml ${CMAKE_BINARY_DIR}/test-out/cli)
set_tests_properties(cli_bad_input PROPERTIES LABELS "smoke;cli" TIMEOUT 120)

# --- An installed ibcc without its source tree: cmake --install, the prefix moved, pip ------
add_test(NAME install_relocatable COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_install.py
         ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(install_relocatable PROPERTIES LABELS "cli" TIMEOUT 1800)

# --- Waves: the generated save files load in real GTKWave (headless) ----------------------
foreach(case "fecn;hysteresis" "ccti;timer_decay")
  list(GET case 0 block)
  list(GET case 1 t)
  add_test(NAME waves_${block}_gtkwave COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/check_waves.py
           $<TARGET_FILE:ibcc> ${block} ${t} ${CMAKE_BINARY_DIR}/waves_check/${block})
  set_tests_properties(waves_${block}_gtkwave PROPERTIES LABELS waves TIMEOUT 300)
endforeach()

# The screenshots of the docs: each waveform view opens on its first FECN mark in real GTKWave.
add_test(NAME waves_screenshots COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/wave_screenshots.py
         $<TARGET_FILE:ibcc> ${CMAKE_BINARY_DIR}/test-out/wave_screenshots)
set_tests_properties(waves_screenshots PROPERTIES LABELS waves TIMEOUT 600)

# --- Verilator line/toggle coverage report (the rtl_coverage target's script) -------------
add_test(NAME rtl_coverage_report COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/rtl_coverage.py
         $<TARGET_FILE:ibcc-cov> ${CMAKE_BINARY_DIR}/rtl_coverage 300000)
set_tests_properties(rtl_coverage_report PROPERTIES LABELS coverage TIMEOUT 900)

# --- FPGA synthesis: resource counts of both blocks on iCE40, 7-series and ECP5 -----------
add_test(NAME synth_yosys COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/synth.py
         ${CMAKE_BINARY_DIR}/synth --jobs 2)
set_tests_properties(synth_yosys PROPERTIES LABELS synth TIMEOUT 2400 RUN_SERIAL TRUE)
# The board top from its sources to an ECP5 bitstream (ULX3S), both blocks at their smallest
# sizes: about 4 minutes here (the co-simulation's sizes: the bitstream target, half an hour).
add_test(NAME board_bitstream COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/rtl/check_bitstream.py
         ${CMAKE_BINARY_DIR}/test-out/board_bitstream)
set_tests_properties(board_bitstream PROPERTIES LABELS synth TIMEOUT 1200)

# Fabric studies: the 648-port hotspot study, the seed ping-pong trend, the CC
# dynamics trade-off on three contributors and a victim.
foreach(study clos648 pingpong dynamics)
  add_test(NAME study_${study}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_fabric_studies.py $<TARGET_FILE:ibcc>
            ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-out/studies ${study})
  set_tests_properties(study_${study} PROPERTIES LABELS "network;validation" TIMEOUT 900)
endforeach()

# A user's SystemC module bound into a fabric link through the ports' TLM-2.0 sockets.
add_test(NAME tlm_link_tap
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_tlm_link_tap.py $<TARGET_FILE:ibcc_tlm_link_tap>
          $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-out/tlm_link_tap)
set_tests_properties(tlm_link_tap PROPERTIES LABELS network TIMEOUT 600)

# libFuzzer (clang, ASan + UBSan) on every input parser for 30 s each, seeded with the shipped
# inputs and the bad-input cases; a finding fails the test and leaves its input in build/fuzz.
add_test(NAME fuzz_parsers COMMAND ${CMAKE_SOURCE_DIR}/verif/cli/fuzz.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} 30)
set_tests_properties(fuzz_parsers PROPERTIES LABELS fuzz TIMEOUT 900)
# The fuzzers find the alias walk the YAML layer replaced, planted back into a copy of the sources.
add_test(NAME fuzz_planted_regression COMMAND ${CMAKE_SOURCE_DIR}/verif/cli/fuzz_plant.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} 120)
set_tests_properties(fuzz_planted_regression PROPERTIES LABELS fuzz TIMEOUT 600)

# ASan + UBSan build of ibcc and the test binaries (build/sanitize), running the unit and
# network tests and a short co-simulation of each block; any sanitizer report fails.
add_test(NAME sanitize_unit_network_cosim COMMAND ${CMAKE_SOURCE_DIR}/verif/cli/sanitize.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(sanitize_unit_network_cosim PROPERTIES LABELS sanitize TIMEOUT 3300)

# --- The scaling benchmark runs (its numbers are printed, not checked: timings are noisy) ---
add_test(NAME bench_scaling_smoke COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/bench/scaling_benchmark.py
         ${CMAKE_BINARY_DIR} --hosts 128,648 --sim-time 5us --flows 2000)
set_tests_properties(bench_scaling_smoke PROPERTIES LABELS "workflow" TIMEOUT 300)

# `ibcc tune` over the new strategies' keys (times, sizes, strategy names) on the
# DCQCN 2:1 incast; ConnectX-4 as the seed hardware reference; no opensm.conf for DCQCN.
add_test(NAME tune_dcqcn
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/studies/check_tune_dcqcn.py $<TARGET_FILE:ibcc> ${CMAKE_BINARY_DIR}/test-out/tune_dcqcn)
set_tests_properties(tune_dcqcn PROPERTIES LABELS "tune;dcqcn" TIMEOUT 600)

# Answers at the corners of the parameter space: the 648-port sweep's starving corner delivers
# in every 1 ms interval, random marking follows the seed, an unreachable trip level is said.
add_test(NAME parameter_space_corners
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_parameter_space.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/parameter_space)
set_tests_properties(parameter_space_corners PROPERTIES LABELS "network;validation" TIMEOUT 600)

# A parallel run's results are a sequential run's byte for byte (ibcc run --threads): every
# shipped scenario with 1 and 2 threads, the 648-host uniform load with 1, 2, 3, 4 and 8.
add_test(NAME parallel_identity
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_parallel_identity.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/parallel_identity)
# Its runs of 2 to 8 threads take both cores: ctest runs nothing beside it (a thread waiting
# at a barrier for one that another process holds off its core slows both).
set_tests_properties(parallel_identity PROPERTIES LABELS "network;parallel" TIMEOUT 3000 PROCESSORS 2)

# The largest shipped IB fabric (45,056 hosts) and the full 64-port tree as a RoCE fabric
# (65,536 hosts) run 10 us within 16 GiB, their set-up time and peak memory printed; the full
# tree as an IB fabric is refused for its LIDs.
add_test(NAME large_fabric_scale
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_large_fabric.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/large_fabric)
set_tests_properties(large_fabric_scale PROPERTIES LABELS network TIMEOUT 600)

# Adaptive routing spreads a permutation that d-mod-k puts on one up-link per leaf; bounded
# AR with an unreachable bound is the static routing; identical on 2 threads.
add_test(NAME adaptive_routing_permutation
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_adaptive_routing.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/adaptive_routing)
set_tests_properties(adaptive_routing_permutation PROPERTIES LABELS "network;adaptive_routing" TIMEOUT 900)

# NVIDIA OpenSM's congestion control: the policy file's mapping onto the keys, bad files, HOL
# blocking removed on the seed test bed's scenario 1, the round trip through ibcc tune.
add_test(NAME nvidia_cc_policy
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_nvidia_cc.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/nvidia_cc)
set_tests_properties(nvidia_cc_policy PROPERTIES LABELS "nvidia_cc;dcqcn;workflow" TIMEOUT 600)

# The founding thesis's 2x2 mesh (Tables 5.3-5.6): CC off and the victim with CC on checked,
# the points the model does not reproduce printed as DIFFERS (docs/validation.md).
add_test(NAME study_thesis_mesh
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/thesis_mesh_study.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/thesis_mesh --jobs 2)
set_tests_properties(study_thesis_mesh PROPERTIES LABELS "network;validation" TIMEOUT 900)

# The scenario-1 tables of docs/validation.md against fresh runs (scripts/validation_tables.py
# writes them; this fails when the page and a run differ beyond the stated tolerance).
add_test(NAME docs_validation_tables
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/validation_tables.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/test-out/validation_tables --check --jobs 2)
set_tests_properties(docs_validation_tables PROPERTIES LABELS "docs;validation" TIMEOUT 600)

# The hostile-input suite (verif/cli/hostile.py): about 2,000 generated cases against every input
# of ibcc (each key at and beyond its range, YAML attacks, both importers, every command's
# options, full standard output, a full tmpfs when run as root, signals, kill -9), each with
# its expected class of outcome; prints the count per class.
add_test(NAME hostile_inputs
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/hostile.py $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR}/test-out/hostile --jobs 2
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(hostile_inputs PROPERTIES LABELS "hostile" TIMEOUT 900 RUN_SERIAL TRUE)

# The layout tables of README.md and docs/architecture.md name every folder, and only real ones.
add_test(NAME docs_layout_tables COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/cli/check_layout.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs_layout_tables PROPERTIES LABELS "docs")

# The testplan as data: every CTest belongs to a feature of verif/testplan.yaml, every test it
# names exists, and verif/testplan.md is generated from it.
add_test(NAME testplan_complete COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/testplan.py ${CMAKE_SOURCE_DIR}
         ${CMAKE_BINARY_DIR})
set_tests_properties(testplan_complete PROPERTIES LABELS "docs")

# The Python package (python/ibcc): its unit tests (pytest).
add_test(NAME python_package COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/python/tests)
set_tests_properties(python_package PROPERTIES LABELS "unit;python"
  ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/python;IBCC=$<TARGET_FILE:ibcc>")

# The ranks' exchange under an MPI launcher (as root in a container: Open MPI asks for
# consent to run as root, and its shared-memory transport for no cross-process copy).
add_executable(ibcc_rank_exchange_check tests/mpi/rank_exchange_check.cpp)
target_link_libraries(ibcc_rank_exchange_check PRIVATE ibcc_ranks)
target_compile_options(ibcc_rank_exchange_check PRIVATE ${IBCC_WARNINGS})
set(IBCC_MPI_ENV SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    OMPI_MCA_rmaps_base_oversubscribe=1)
foreach(n 2 3)
  add_test(NAME mpi_rank_exchange_${n}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} $<TARGET_FILE:ibcc_rank_exchange_check> ${n})
  set_tests_properties(mpi_rank_exchange_${n} PROPERTIES LABELS "parallel;mpi" TIMEOUT 120 ENVIRONMENT "${IBCC_MPI_ENV}")
endforeach()
# One simulation over 2 MPI processes x 2 threads: every shipped scenario's results those of
# one thread.
add_test(NAME mpi_identity
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_mpi_identity.py $<TARGET_FILE:ibcc> ${MPIEXEC_EXECUTABLE}
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-out/mpi_identity)
set_tests_properties(mpi_identity PROPERTIES LABELS "parallel;mpi" TIMEOUT 1500 PROCESSORS 2 ENVIRONMENT "${IBCC_MPI_ENV}")
# The same exchange launched by the test's own single-node Slurm (srun --mpi=pmix -n 2).
add_test(NAME mpi_srun
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/verif/net/check_mpi_srun.py $<TARGET_FILE:ibcc_rank_exchange_check>
          $<TARGET_FILE:ibcc> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-out/mpi_srun)
set_tests_properties(mpi_srun PROPERTIES LABELS "parallel;mpi;slurm" TIMEOUT 300 RESOURCE_LOCK slurm ENVIRONMENT "${IBCC_MPI_ENV}")
