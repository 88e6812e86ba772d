// The one way ibcc turns YAML text into a yaml-cpp tree (scenario files, --set values, the
// files `topo --write` rewrites). Before yaml-cpp builds anything, one pass over the parser's
// events checks what a tree walk could not survive or would silently accept:
//   - text that is not UTF-8, or holds control characters YAML does not allow;
//   - an alias inside the node it names (a cycle: every walk of the tree would recurse forever);
//   - aliases that expand the document past kMaxExpandedNodes (an "alias bomb": 511 bytes can
//     name 10^9 nodes), counted from each anchor's size without expanding anything;
//   - a key given twice in one map (yaml-cpp keeps both and lookups see the first);
//   - a second document after the first.
// Each is a ScenarioError "NAME:LINE: ..." naming the key path where there is one. The pass
// visits each node of the text once, so its cost is the text's, whatever the aliases.
#pragma once

#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

namespace ibcc::net {

// Nodes a document may have once its aliases are expanded. A scenario of 10^5 flows has
// about 10^6; the bound leaves ten times that and stops a bomb before any walk.
constexpr uint64_t kMaxExpandedNodes = 10'000'000;

// One YAML document checked as above; `name_for_errors` starts each message (a path, or
// "--set cc.switch"). Throws ScenarioError.
YAML::Node parse_document(const std::string& text, const std::string& name_for_errors);

// "NAME:LINE: not UTF-8 ..." if `text` is not valid UTF-8 or holds a control character other
// than tab, line feed and carriage return (ScenarioError); nothing otherwise.
void check_text_encoding(const std::string& text, const std::string& name_for_errors);

}  // namespace ibcc::net
