# The order `ctest -j` starts tests in on a fresh clone (it has no timings of its own yet and
# starts them in descending COST): the tests that run alone first (RUN_SERIAL, or taking
# both cores: nothing else is running yet, so none waits for the longest to end), then the
# longest, so that the short ones fill the cores beside them instead of leaving one long
# test to run on at the end.
# Past the first five, the costs are about the seconds each took in a CI run of the whole
# suite on 2 cores; only their order matters.
set(IBCC_TEST_COSTS
  synth_yosys 100000 docs_commands_run 90000 hostile_inputs 80000 parallel_identity 70000 mpi_identity 60000
  sanitize_unit_network_cosim 3000 fuzz_parsers 470 rtl_in_loop_scenario1 460 board_bitstream 290
  adaptive_routing_permutation 260 study_thesis_mesh 200
  large_fabric_scale 200 rtl_in_loop_mutant_ccti_timer_restart 120 fuzz_planted_regression 100
  scenario_schema 90 python_package 80 slurm_backend 70 workflow_plots 60 docs_validation_tables 60)
while(IBCC_TEST_COSTS)
  list(POP_FRONT IBCC_TEST_COSTS name cost)
  if(TEST ${name})
    set_tests_properties(${name} PROPERTIES COST ${cost})
  endif()
endwhile()
