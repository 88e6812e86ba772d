// The congestion-control options of an OpenSM configuration (opensm.conf), with OpenSM's
// semantics (../shared/notes/IBCC_SPEC.md section 5), as overrides of a scenario's `cc` keys.
#pragma once

#include <string>
#include <vector>

#include "net/scenario/scenario_yaml.h"

namespace ibcc::net {

struct OpenSmImport {
  std::vector<Override> overrides;  // each names its origin as FILE:LINE: option
  std::vector<std::string> notes;   // options read but not modelled (management only)
};

// Reads the cc_* options and congestion_control; other OpenSM options are skipped (they
// configure the subnet manager, not CC). Malformed values: ScenarioError "FILE:LINE: option:
// expected ...".
OpenSmImport import_opensm_conf(const std::string& path);

// The same as the `cc:` section of a scenario file (ibcc import opensm).
std::string opensm_as_yaml(const OpenSmImport& imp);

}  // namespace ibcc::net
