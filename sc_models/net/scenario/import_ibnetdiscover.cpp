#include "net/scenario/import_ibnetdiscover.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <re2/re2.h>

#include "net/scenario/scenario_yaml.h"
#include "net/scenario/topology.h"

namespace ibcc::net {
namespace {

struct Port {
  std::string peer;  // the peer's id ("S-..."/"H-...")
  unsigned peer_port = 0;
  std::string width = "4x", speed = "QDR";
  int line = 0;
};

struct Node {
  std::string id;    // "S-0002c9..." as ibnetdiscover names it
  std::string name;  // what the scenario calls it
  std::string desc;
  bool is_switch = false;
  unsigned ports = 0;
  unsigned lid = 0;
  std::string guid;  // switchguid / caguid, hex without 0x
  std::map<unsigned, Port> links;
  int line = 0;
};

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw ScenarioError(fmt::format("{}:{}: {}", file, line, what));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "node01 HCA-1" -> "node01_HCA-1"; names must be usable in YAML flow and as NODE/PORT.
std::string sanitize(const std::string& desc) {
  std::string out;
  for (char c : desc) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

// A decimal (or, with base 16, hex) number of at most `max`, else an error naming the line.
unsigned number(const std::string& text, unsigned max, const std::string& file, int line, const std::string& what,
                int base = 10) {
  unsigned long long v = 0;
  size_t used = 0;
  try {
    v = std::stoull(text, &used, base);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v > max) {
    fail(file, line, fmt::format("{}: expected {}..{}, got {}", what, base == 16 ? "0x0" : "0",
                                 base == 16 ? fmt::format("0x{:x}", max) : std::to_string(max), text));
  }
  return static_cast<unsigned>(v);
}

// A node description as a YAML comment: bytes outside printable ASCII become '?'.
std::string printable(const std::string& desc) {
  std::string out;
  for (char c : desc) out += c >= 0x20 && c < 0x7f ? c : '?';
  return out;
}

}  // namespace

IbnetdiscoverImport import_ibnetdiscover(const std::string& file, const std::string& lfts_file) {
  std::ifstream in(file);
  if (!in) throw ScenarioError(file + ": cannot open the ibnetdiscover output");
  // RE2, not std::regex: linear time and no recursion, whatever a line holds (libstdc++'s
  // std::regex recursed once per character and overflowed the stack on a 30 kB line).
  static const RE2 node_re(R"((Switch|Ca|Rt)\s+(\d+)\s+\"([^\"]+)\"\s*(#.*)?)", RE2::Latin1);
  static const RE2 port_re(R"(\[(\d+)\](\([0-9a-fA-F]+\))?\s+\"([^\"]+)\"\[(\d+)\](\([0-9a-fA-F]+\))?\s*(#.*)?)", RE2::Latin1);
  static const RE2 kv_re(R"((vendid|devid|sysimgguid|switchguid|caguid|routerguid)=0x([0-9a-fA-F]+)(\(.*\))?\s*)", RE2::Latin1);
  static const RE2 lid_re(R"(\blid\s+(\d+))", RE2::Latin1);
  static const RE2 speed_re(R"(((\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR))\b)", RE2::Latin1);
  static const RE2 any_speed_re(R"((\b(\d+)x([A-Za-z][A-Za-z0-9]*)\b))", RE2::Latin1);
  static const RE2 desc_re(R"(#\s*\"([^\"]*)\")", RE2::Latin1);
  std::vector<Node> nodes;
  std::map<std::string, size_t> by_id;
  std::string guid;
  std::string text;
  int n = 0;
  Node* cur = nullptr;
  while (std::getline(in, text)) {
    ++n;
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.pop_back();
    std::string m1, m2, m3, m4, m5, m6;
    if (text.empty()) {
      cur = nullptr;
      continue;
    }
    if (text[0] == '#') continue;
    if (RE2::FullMatch(text, kv_re, &m1, &m2, &m3)) {
      if (m1 == "switchguid" || m1 == "caguid" || m1 == "routerguid") guid = lower(m2);
      continue;
    }
    if (RE2::FullMatch(text, node_re, &m1, &m2, &m3, &m4)) {
      if (m1 == "Rt") fail(file, n, "routers (Rt) are not supported: ibcc models one subnet");
      Node node;
      node.is_switch = m1 == "Switch";
      node.ports = number(m2, 254, file, n, "port count");
      node.id = m3;
      node.guid = guid;
      node.line = n;
      const std::string comment = m4;
      std::string d;
      if (RE2::PartialMatch(comment, desc_re, &d)) node.desc = d;
      if (node.is_switch && RE2::PartialMatch(comment, lid_re, &d)) {
        node.lid = number(d, 0xbfff, file, n, "lid (unicast)");
        if (node.lid == 0) fail(file, n, "lid 0 is not a unicast LID");
      }
      if (node.ports < 1 || node.ports > 254) fail(file, n, fmt::format("{}: port count 1..254 expected, got {}", node.id, node.ports));
      if (by_id.count(node.id)) fail(file, n, fmt::format("{} is described twice (first at line {})", node.id, nodes[by_id[node.id]].line));
      by_id[node.id] = nodes.size();
      nodes.push_back(node);
      cur = &nodes.back();
      guid.clear();
      continue;
    }
    if (RE2::FullMatch(text, port_re, &m1, &m2, &m3, &m4, &m5, &m6)) {
      if (!cur) fail(file, n, "a port line outside a Switch or Ca block");
      const unsigned p = number(m1, 254, file, n, "port number");
      if (p < 1 || p > cur->ports) fail(file, n, fmt::format("{} has ports 1..{}, got [{}]", cur->id, cur->ports, p));
      if (cur->links.count(p)) fail(file, n, fmt::format("port [{}] of {} is listed twice", p, cur->id));
      Port port;
      port.peer = m3;
      port.peer_port = number(m4, 254, file, n, "peer port number");
      port.line = n;
      const std::string comment = m6;
      std::string token, width, speed;
      re2::StringPiece rest(comment);
      while (RE2::FindAndConsume(&rest, speed_re, &token, &width, &speed)) {  // the last width x speed of the line
        port.width = width + "x";
        port.speed = speed;
        // Widths a scenario link can have; a speed outside speed_re (4xGDR) is caught below.
        if (port.width != "1x" && port.width != "4x" && port.width != "8x" && port.width != "12x") {
          fail(file, n, "link width " + port.width + ": expected 1x, 4x, 8x or 12x");
        }
      }
      for (re2::StringPiece all(comment); RE2::FindAndConsume(&all, any_speed_re, &token, &width, &speed);) {
        if (!RE2::FullMatch(token, speed_re, nullptr, nullptr, nullptr)) {
          fail(file, n, "link speed " + token + ": expected WIDTHxSPEED with SPEED SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR");
        }
      }
      std::string lid;
      if (!cur->is_switch && RE2::PartialMatch(comment, lid_re, &lid) && cur->lid == 0) {
        cur->lid = number(lid, 0xbfff, file, n, "lid (unicast)");
        if (cur->lid == 0) fail(file, n, "lid 0 is not a unicast LID");
      }
      cur->links[p] = port;
      continue;
    }
    fail(file, n, "not a line of ibnetdiscover output (expected vendid=/devid=/...guid=, Switch/Ca N \"id\", or [port] \"peer\"[port])");
  }
  if (nodes.empty()) throw ScenarioError(file + ": no Switch or Ca blocks");

  // Both ends must agree; each link is kept once.
  struct Link {
    size_t a, b;
    unsigned ap, bp;
    Port info;
  };
  std::vector<Link> links;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& [p, port] : nodes[i].links) {
      const auto it = by_id.find(port.peer);
      if (it == by_id.end()) fail(file, port.line, fmt::format("the peer {} is not described in this file", port.peer));
      const Node& peer = nodes[it->second];
      const auto back = peer.links.find(port.peer_port);
      if (back != peer.links.end() && (back->second.peer != nodes[i].id || back->second.peer_port != p)) {
        fail(file, port.line, fmt::format("{}[{}] -> {}[{}], but line {} says {}[{}] -> {}[{}]", nodes[i].id, p, port.peer,
                                          port.peer_port, back->second.line, peer.id, port.peer_port, back->second.peer,
                                          back->second.peer_port));
      }
      if (port.peer_port < 1 || port.peer_port > peer.ports) {
        fail(file, port.line, fmt::format("{} has ports 1..{}, got [{}]", peer.id, peer.ports, port.peer_port));
      }
      if (std::make_pair(i, p) < std::make_pair(it->second, port.peer_port)) {
        links.push_back({i, it->second, p, port.peer_port, port});
      } else if (back == peer.links.end()) {
        links.push_back({it->second, i, port.peer_port, p, port});  // listed on one side only
      }
    }
  }
  for (const auto& node : nodes) {
    if (!node.is_switch && node.links.size() > 1) {
      fail(file, node.line, fmt::format("{} ({}) has {} cabled ports: ibcc models HCAs with one port", node.id, node.desc,
                                        node.links.size()));
    }
    if (!node.is_switch && node.links.empty()) fail(file, node.line, node.id + " is not cabled");
  }
  // Names: HCAs by their description when unique, switches by their id.
  std::map<std::string, unsigned> seen;
  for (const auto& node : nodes) {
    if (!node.is_switch && !node.desc.empty()) seen[sanitize(node.desc)]++;
  }
  for (auto& node : nodes) {
    node.name = !node.is_switch && !node.desc.empty() && seen[sanitize(node.desc)] == 1 ? sanitize(node.desc) : sanitize(node.id);
  }

  // Forwarding tables from dump_lfts output.
  std::map<std::string, std::map<unsigned, unsigned>> lfts;  // switch guid -> lid -> port
  std::map<std::string, std::map<unsigned, int>> lft_lines;  // switch guid -> lid -> its line
  IbnetdiscoverImport result;
  if (!lfts_file.empty()) {
    std::ifstream lin(lfts_file);
    if (!lin) throw ScenarioError(lfts_file + ": cannot open the dump_lfts output");
    static const RE2 head_re(R"(Unicast lids \[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\] of switch Lid (\d+) guid 0x([0-9a-fA-F]+).*:)", RE2::Latin1);
    static const RE2 entry_re(R"(0x([0-9a-fA-F]+)\s+(\d+)\s*:.*)", RE2::Latin1);
    std::string sw;
    int ln = 0;
    while (std::getline(lin, text)) {
      ++ln;
      while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
      if (!text.empty() && text[0] == '#') continue;
      std::string m1, m2;
      if (RE2::FullMatch(text, head_re, &m1, &m2)) {
        sw = lower(m2);
        if (std::none_of(nodes.begin(), nodes.end(), [&](const Node& x) { return x.is_switch && x.guid == sw; })) {
          fail(lfts_file, ln, "switch guid 0x" + m2 + " is not in " + file);
        }
        continue;
      }
      if (RE2::FullMatch(text, entry_re, &m1, &m2)) {
        if (sw.empty()) fail(lfts_file, ln, "an LFT entry before any 'Unicast lids ... of switch' line");
        const unsigned lid = number(m1, 0xbfff, lfts_file, ln, "LID (unicast)", 16);
        const unsigned port = number(m2, 254, lfts_file, ln, "port");
        if (lid == 0) fail(lfts_file, ln, "LID 0x0 is not a unicast LID");
        const auto swn = std::find_if(nodes.begin(), nodes.end(), [&](const Node& x) { return x.is_switch && x.guid == sw; });
        if (port > swn->ports) {
          fail(lfts_file, ln, fmt::format("port {}: switch {} has ports 1..{} (0 is the switch itself)", port, swn->id, swn->ports));
        }
        const auto [at, fresh] = lft_lines[sw].emplace(lid, ln);
        if (!fresh) {
          fail(lfts_file, ln, fmt::format("LID 0x{:04x} is listed twice for switch 0x{} (first at line {})", lid, sw, at->second));
        }
        lfts[sw][lid] = port;
        ++result.lft_entries;
        continue;
      }
      if (text.empty() || text.find("Lid  Out") != std::string::npos || text.find("Port     Info") != std::string::npos ||
          text.find("valid lids dumped") != std::string::npos) {
        continue;
      }
      fail(lfts_file, ln, "not a line of dump_lfts output (expected 'Unicast lids ... of switch Lid L guid 0x...:' or '0xLID PORT : ...')");
    }
  }

  // The scenario.
  std::ostringstream y;
  y << "# Imported by `ibcc import ibnetdiscover " << file << (lfts_file.empty() ? "" : " --lfts " + lfts_file)
    << "`: the fabric as discovered; sim, cc and traffic are defaults to edit.\n";
  y << "name: " << sanitize(file.substr(file.find_last_of('/') + 1)) << "\n";
  y << "sim: {time: 2ms, log_interval: 100us}\n";
  y << "fabric:\n  routing: " << (lfts_file.empty() ? "updown" : "explicit") << "\n";
  if (lfts_file.empty()) {
    // Roots of up*/down*: the switches without HCAs (the spines of a fat tree).
    std::vector<std::string> roots;
    for (const auto& node : nodes) {
      if (!node.is_switch) continue;
      bool has_hca = false;
      for (const auto& [p, port] : node.links) has_hca |= !nodes[by_id[port.peer]].is_switch;
      if (!has_hca) roots.push_back(node.name);
    }
    if (!roots.empty()) {
      y << "  updown_roots: [";
      for (size_t i = 0; i < roots.size(); ++i) y << (i ? ", " : "") << roots[i];
      y << "]\n";
    }
  }
  y << "topology:\n  switches:\n";
  for (const auto& node : nodes) {
    if (!node.is_switch) continue;
    ++result.switches;
    y << "    - {name: " << node.name << ", ports: " << node.ports;
    if (node.lid) y << ", lid: " << node.lid;
    if (!lfts_file.empty()) {
      const auto it = lfts.find(node.guid);
      if (it == lfts.end()) fail(file, node.line, node.id + ": no forwarding table for it in " + lfts_file);
      y << ", lft: {";
      bool first = true;
      for (const auto& [lid, port] : it->second) {
        if (port == 0) continue;  // the switch itself
        y << (first ? "" : ", ") << lid << ": " << port;
        first = false;
      }
      y << "}";
    }
    y << "}  # " << printable(node.id) << " \"" << printable(node.desc) << "\"\n";
  }
  y << "  hcas:\n";
  for (const auto& node : nodes) {
    if (node.is_switch) continue;
    ++result.hcas;
    y << "    - {name: " << node.name;
    if (node.lid) y << ", lid: " << node.lid;
    y << "}  # " << printable(node.id) << "\n";
  }
  y << "  links:\n";
  for (const auto& l : links) {
    ++result.links;
    auto end = [&](size_t i, unsigned p) { return nodes[i].is_switch ? fmt::format("{}/{}", nodes[i].name, p) : nodes[i].name; };
    y << "    - {a: " << end(l.a, l.ap) << ", b: " << end(l.b, l.bp) << ", width: " << l.info.width
      << ", speed: " << l.info.speed << "}\n";
  }
  y << "cc:\n  switch: {threshold: 15, marking_rate: 1, packet_size: 8}\n"
    << "  ca: {ccti_timer: 150, ccti_increase: 1, ccti_limit: 127}\n";
  y << "traffic:\n  patterns:\n    - {type: uniform, sources: all, message: 64KiB}\n";
  result.yaml = y.str();
  // What is emitted must be a scenario `ibcc run` accepts: read it back and build its
  // topology (wiring, LIDs, forwarding tables) here, so a defect shows at import, not later.
  try {
    const Scenario back = load_scenario_text(result.yaml, "(imported)");
    (void)build_topology(back);
  } catch (const ScenarioError& e) {
    throw ScenarioError(fmt::format("{}: the imported scenario would not run: {}", file, e.what()));
  }
  return result;
}

}  // namespace ibcc::net
