// ibcc: the command line. One binary, one subcommand per job.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>
#include <systemc>

#include "cli.h"
#include "common/did_you_mean.h"
#include "common/heap_pages.h"
#include "common/version.h"

namespace ibcc::cli {
std::atomic<bool> g_stop{false};
}  // namespace ibcc::cli

namespace {

using ibcc::cli::g_stop;

// The SystemC banner is printed before sc_main runs: silence it at static initialization.
const int kQuietSystemC = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);

// One signal policy for every command. SIGINT, SIGTERM and SIGHUP (a closed terminal) are
// caught from static initialisation on, before anything is read or written: `ibcc run` then
// stops at the next event boundary and writes the results so far (result "interrupted",
// exit 130; a second signal ends at once); `ibcc sweep` and `ibcc tune` install their own
// handlers that end their runs with them; every other command gets the default action back
// (and takes a signal that came during start-up).
std::atomic<int> g_stop_signal{0};
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
extern "C" void on_stop_signal(int sig) {
  if (g_stop.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  g_stop_signal.store(sig);
}
// A file mapped in memory (fstapi maps its work files) that cannot be backed on a full disk
// raises SIGBUS on the write: said as a failed write (exit 1), not a crash.
extern "C" void on_bus_error(int) {
  static const char msg[] = "ibcc: error: a file mapped in memory could not be written (a full disk?): bus error\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(ibcc::cli::kFailed);
}
const bool kStopHandlers = [] {
  for (int sig : kStopSignals) std::signal(sig, on_stop_signal);
  std::signal(SIGBUS, on_bus_error);
  return true;
}();
// For a command that does not stop gracefully: the default action, and a signal that came
// during start-up delivered now.
void default_stop_signals() {
  for (int sig : kStopSignals) std::signal(sig, SIG_DFL);
  if (const int sig = g_stop_signal.load()) std::raise(sig);
}

// After a parse error: a word that is not a subcommand, or an option the subcommand lacks,
// and the nearest valid one ("" when there is none to suggest).
std::string suggestions(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> subs;
  for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) subs.push_back(s->get_name());
  if (argc < 2) return "";
  const std::string first = argv[1];
  if (first.empty() || first[0] == '-') return "";
  CLI::App* sub = nullptr;
  try {
    sub = app.get_subcommand(first);
  } catch (const CLI::OptionNotFound&) {
    const auto s = ibcc::closest(first, subs);
    return s ? "ibcc: error: '" + first + "' is not a subcommand; did you mean '" + *s + "'?\n" : "";
  }
  std::vector<std::string> longs = {"--help"};
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) longs.push_back("--" + l);
  }
  std::string out;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) continue;
    a = a.substr(0, a.find('='));
    if (std::find(longs.begin(), longs.end(), a) != longs.end()) continue;
    if (const auto s = ibcc::closest(a, longs)) out += "ibcc " + first + ": error: '" + a + "' is not an option; did you mean '" + *s + "'?\n";
  }
  return out;
}

// Every repeatable option takes one value per occurrence (`--set k=v SCENARIO` leaves SCENARIO
// to the positional), except those that name how many they take.
// An empty value (--seed "", --out "", --waves "") is never what was meant: an error naming
// the option, for every option of every subcommand, rather than a default silently restored.
void one_value_per_option(CLI::App& app) {
  const CLI::Validator not_empty(
      [](std::string& v) { return v.empty() ? std::string("an empty value; give one, or leave the option out") : ""; },
      "", "not empty");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options()) {
      if (o->get_type_size_max() >= 1) o->check(not_empty);
      if (o->get_positional() || o->get_items_expected_max() <= 1 || o->get_items_expected_min() > 1) continue;
      o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  }
}

int dispatch(int argc, char** argv);

// What a command printed must have reached the standard output: a full disk or a closed pipe
// is exit 1 with the reason, never exit 0 with a short or empty file.
int finish_standard_output(int rc, int argc, char** argv) {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return rc;
  const int err = errno;
  const std::string sub = argc > 1 && argv[1][0] != '-' ? std::string(" ") + argv[1] : "";
  std::cerr << "ibcc" << sub << ": error: cannot write the standard output"
            << (err ? std::string(": ") + std::strerror(err) : "") << "\n";
  return rc == 0 ? 1 : rc;
}

}  // namespace

// libsystemc provides main() and calls sc_main (see ../shared/notes/TOOLCHAIN.md).
int sc_main(int argc, char** argv) { return finish_standard_output(dispatch(argc, argv), argc, argv); }

namespace {
int dispatch(int argc, char** argv) {
  (void)kQuietSystemC;
  (void)kStopHandlers;
  // Before the model allocates: 2 MiB pages for its state where the kernel allows
  // (heap_pages.h; `ibcc run` asks again after the build and reports it in summary.json).
  ibcc::advise_heap_huge_pages();
  // sc_stop() ends every run; its "stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  CLI::App app{"ibcc: cycle-level InfiniBand congestion control models, RTL and co-simulation"};
  app.require_subcommand(0, 1);  // an unknown word is then reported as such
  app.set_version_flag("--version", ibcc::version_string(), "Print the version and git revision, and exit");

  // Each subcommand registers its options and its action in its own file (cli.h).
  using namespace ibcc::cli;
  const Invocation inv{argc, argv};
  const std::vector<Command> commands = {add_cosim(app, inv), add_run(app, inv), add_plot(app),     add_import(app),
                                         add_topo(app),       add_describe(app), add_list(app),     add_keys(app),
                                         add_sweep(app, inv), add_tune(app, inv)};

  one_value_per_option(app);
  // A usage error in ibcc's words, like every other error: "ibcc SUBCOMMAND: error: ...".
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string who = "ibcc";
    for (const CLI::App* sub : a->get_subcommands()) who += " " + sub->get_name();
    return who + ": error: " + e.what() + "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A typo gets its nearest valid word: instead of CLI11's account of the words left over
    // ("not expected"), after any other error.
    const std::string tips = e.get_exit_code() != 0 ? suggestions(app, argc, argv) : "";
    if (!tips.empty() && dynamic_cast<const CLI::ExtrasError*>(&e)) {
      std::cerr << tips << "Run with --help for more information.\n";
      return kBadInput;
    }
    const int rc = app.exit(e);
    std::cerr << tips;
    return rc == 0 ? kOk : kBadInput;
  }
  for (const Command& c : commands) {
    if (!app.got_subcommand(c.app)) continue;
    if (!c.stops_gracefully) default_stop_signals();
    return c.action();
  }
  default_stop_signals();
  std::cerr << "ibcc: a subcommand is required: run, sweep, tune, plot, topo, describe, keys, list, import or cosim (see ibcc --help)\n";
  return kBadInput;
}

}  // namespace
