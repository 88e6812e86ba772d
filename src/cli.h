// The command line's parts: each subcommand registers its options and its action in its own
// file (add_*), and main.cpp parses and dispatches. What several subcommands share is here.
#pragma once

#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exit_codes.h"

namespace ibcc::net {
struct RunOptions;
}

namespace ibcc::cli {

// A registered subcommand: its CLI11 app and what to do once the command line parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> action;
  bool stops_gracefully = false;  // keeps the stop handlers (run, sweep, tune); others get the default action
};

// The whole command line, for the commands that record or pass it on.
struct Invocation {
  int argc = 0;
  char** argv = nullptr;
};

// Set by SIGINT, SIGTERM or SIGHUP from static initialisation on (main.cpp).
extern std::atomic<bool> g_stop;

Command add_cosim(CLI::App& app, const Invocation& inv);
Command add_run(CLI::App& app, const Invocation& inv);
Command add_plot(CLI::App& app);
Command add_import(CLI::App& app);
Command add_topo(CLI::App& app);
Command add_describe(CLI::App& app);
Command add_list(CLI::App& app);
Command add_keys(CLI::App& app);
Command add_sweep(CLI::App& app, const Invocation& inv);
Command add_tune(CLI::App& app, const Invocation& inv);

// A non-negative integer option (--seed): no sign, no wrap, the whole text.
std::optional<uint64_t> parse_unsigned(const std::string& text);
// --cc, --seed and --set as run and describe take them, into `opt`; false (message printed
// as `cmd: error: ...`) on bad input.
bool scenario_options(const char* cmd, const std::string& cc, const std::string& seed,
                      const std::vector<std::string>& sets, ibcc::net::RunOptions* opt);
// `ibcc plot`'s pictures of one directory, or of several runs compared (`labels`: theirs),
// drawn by scripts/ibcc_plot.py; its exit code.
int run_plot(const std::vector<std::string>& dirs, const std::vector<std::string>& metrics, const std::string& out,
             const std::vector<std::string>& labels = {});
// This binary's path, for the runs a sweep or a tune starts (argv[0] if /proc is unreadable).
std::string self_exe(const char* argv0);
// A sweep's or tune's child run (IBCC_PARENT=<pid>) ends with its parent, even after kill -9.
void die_with_sweep_parent();

}  // namespace ibcc::cli
