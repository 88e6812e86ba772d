// Runs python3 with the source tree's python/ package first on PYTHONPATH, as a child that
// ends with this process: what `ibcc sweep`, `ibcc tune` and `ibcc plot` run.
#pragma once

#include <string>
#include <vector>

namespace ibcc {

// Runs `python3 ARGS...`; its exit code (130 when it ended by SIGINT, SIGTERM or SIGHUP; 2
// if python3 cannot be started). A SIGTERM, SIGHUP or SIGINT sent to this process goes on to
// it, and this process waits for it to stop. `hand_over_signals`: python starts with those
// three signals blocked and unblocks them when its handlers are in place (the campaign
// layer does, ibcc.campaign.processes.install); one that came before is answered then.
int run_python(const std::vector<std::string>& args, const char* who, bool hand_over_signals = false);

}  // namespace ibcc
