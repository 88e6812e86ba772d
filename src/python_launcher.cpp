// Python behind the CLI: `ibcc sweep`, `ibcc tune` and `ibcc plot` parse their options here
// and run the campaign layer or the plots in python/ibcc as a child process.
#include "python_launcher.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "data_root.h"
#include "exit_codes.h"

extern char** environ;

namespace ibcc {
namespace {

// While python runs, a SIGTERM, SIGHUP or SIGINT sent to this process (kill, a job
// scheduler) goes on to it, and this process waits for it to stop: killed alone, it would
// leave python (and the trial it runs) going on behind a resumed command. A Ctrl-C typed at
// the terminal reaches python by itself (the whole foreground group gets it): not sent twice.
volatile sig_atomic_t g_child = 0;    // the python process, once started
volatile sig_atomic_t g_pending = 0;  // a signal that came before it started
void forward_signal(int sig, siginfo_t* info, void*) {
  if (info && info->si_code == SI_KERNEL) return;  // from the terminal: python has it too
  if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
  else g_pending = sig;
}

}  // namespace

int run_python(const std::vector<std::string>& args, const char* who, bool hand_over_signals) {
  const std::string src_python = data_root() + "/python";
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = old && *old ? src_python + ":" + old : src_python;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("PYTHONPATH=", 0) != 0) env_strings.emplace_back(*e);
  }
  env_strings.push_back("PYTHONPATH=" + path);
  // python ends with this process, even after kill -9 of it (ibcc.campaign.processes sets PR_SET_PDEATHSIG).
  env_strings.push_back("IBCC_PYTHON_PARENT=" + std::to_string(getpid()));
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = {"python3"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  struct sigaction fwd {};
  fwd.sa_sigaction = forward_signal;
  fwd.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&fwd.sa_mask);
  const int forwarded[] = {SIGTERM, SIGHUP, SIGINT};
  struct sigaction saved[3];
  g_child = 0;
  g_pending = 0;
  for (int i = 0; i < 3; ++i) sigaction(forwarded[i], &fwd, &saved[i]);
  auto restore = [&] {
    for (int i = 0; i < 3; ++i) sigaction(forwarded[i], &saved[i], nullptr);
    g_child = 0;
  };
  pid_t pid = 0;
  // Handed over: python starts with SIGINT, SIGTERM and SIGHUP blocked and unblocks them once
  // its handlers are in place (ibcc.campaign.processes.install), so that a signal during its
  // start-up (imports take a while on a loaded machine) is answered, not fatal or a traceback.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (hand_over_signals) {
    sigset_t blocked;
    sigemptyset(&blocked);
    for (int sig : forwarded) sigaddset(&blocked, sig);
    posix_spawnattr_setsigmask(&attr, &blocked);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  }
  const int spawned = posix_spawnp(&pid, "python3", nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    restore();
    std::cerr << who << ": error: cannot start python3 (run scripts/bootstrap.sh)\n";
    return cli::kBadInput;
  }
  g_child = pid;
  if (g_pending) kill(pid, g_pending);
  int status = 0;
  pid_t got = 0;
  while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  restore();
  if (got < 0) {
    std::cerr << who << ": error: lost track of python3 (waitpid failed)\n";
    return cli::kFailed;
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? 130 : 128 + sig;  // interrupted: 130, as run and sweep
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace ibcc
