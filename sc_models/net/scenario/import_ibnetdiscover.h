// A fabric from `ibnetdiscover` output (and optionally its forwarding tables from
// `dump_lfts` output) as a scenario file of ours: switches and HCAs with their LIDs, links
// with their width and speed, routing computed (up*/down*) or the LFTs as read.
#pragma once

#include <string>

namespace ibcc::net {

struct IbnetdiscoverImport {
  std::string yaml;        // a complete scenario (sim, fabric, topology, cc, traffic)
  unsigned switches = 0, hcas = 0, links = 0, lft_entries = 0;
};

// Errors: ScenarioError "FILE:LINE: what was expected".
IbnetdiscoverImport import_ibnetdiscover(const std::string& topology_file, const std::string& lfts_file = "");

}  // namespace ibcc::net
