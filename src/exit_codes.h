// Exit codes of every subcommand (docs/configuration.md, "What every command promises").
#pragma once

namespace ibcc::cli {

constexpr int kOk = 0;
constexpr int kFailed = 1;     // a run or a write failed; results so far are kept
constexpr int kBadInput = 2;   // bad input or command line: nothing was run
constexpr int kStopped = 130;  // interrupted by SIGINT, SIGTERM or SIGHUP

}  // namespace ibcc::cli
