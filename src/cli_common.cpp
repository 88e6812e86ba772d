// What several subcommands share (cli.h).
#include "cli.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "net/scenario/scenario_yaml.h"
#include "run.h"
#include "python_launcher.h"

namespace ibcc::cli {

std::optional<uint64_t> parse_unsigned(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(text, &used, 10);
    if (used != text.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool scenario_options(const char* cmd, const std::string& cc, const std::string& seed,
                      const std::vector<std::string>& sets, ibcc::net::RunOptions* opt) {
  if (!cc.empty()) opt->cc = cc == "on";
  if (!seed.empty()) {
    opt->seed = parse_unsigned(seed);
    if (!opt->seed) {
      std::cerr << cmd << ": error: --seed: expected an integer 0.." << UINT64_MAX << ", got '" << seed << "'\n";
      return false;
    }
  }
  try {
    for (const auto& kv : sets) opt->overrides.push_back(ibcc::net::parse_override(kv));
  } catch (const ibcc::net::ScenarioError& e) {
    std::cerr << cmd << ": error: " << e.what() << "\n";
    return false;
  }
  return true;
}

int run_plot(const std::vector<std::string>& dirs, const std::vector<std::string>& metrics, const std::string& out,
             const std::vector<std::string>& labels) {
  std::vector<std::string> args = {"-m", "ibcc.plots"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  for (const auto& m : metrics) args.insert(args.end(), {"--metric", m});
  for (const auto& l : labels) args.insert(args.end(), {"--label", l});
  if (!out.empty()) args.insert(args.end(), {"--out", out});
  return ibcc::run_python(args, "ibcc plot");
}

std::string self_exe(const char* argv0) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : self.string();
}

void die_with_sweep_parent() {
  const char* parent = std::getenv("IBCC_PARENT");
  if (!parent) return;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (std::to_string(getppid()) != parent) std::raise(SIGTERM);  // it died before prctl
}

}  // namespace ibcc::cli
