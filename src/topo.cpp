// `ibcc topo`: look at a fabric before simulating it: counts, links, routes between nodes,
// the output ports its traffic oversubscribes (where congestion trees will root), and the
// generated topology written out as explicit YAML.
#include "topo.h"

#include <memory>

#include "cli.h"

#include <sstream>

#include "common/output_files.h"
#include "python_launcher.h"
#include "common/version.h"
#include "common/provenance.h"

#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "net/scenario/scenario_yaml.h"
#include "net/parallel/partition.h"
#include "net/scenario/expected_load.h"
#include "net/scenario/topology.h"
#include "net/scenario/units.h"
#include "net/scenario/yaml_document.h"

namespace ibcc {
namespace {

using net::FlowDestinations;
using net::PortLoad;
using net::Scenario;
using net::Topology;

std::string port_name(const Topology& t, unsigned node, unsigned port) {
  return t.nodes[node].is_switch ? fmt::format("{}/{}", t.nodes[node].name, port) : t.nodes[node].name;
}

void print_route(const Topology& t, const Scenario& s, unsigned a, unsigned b) {
  std::string why;
  const auto path = t.route(a, b, &why);
  if (path.empty()) {
    std::cout << fmt::format("route {} -> {}: none: {}\n", t.nodes[a].name, t.nodes[b].name, why);
    return;
  }
  std::string line = t.nodes[a].name;
  for (size_t k = 1; k < path.size(); ++k) {
    const unsigned from = path[k - 1], to = path[k];
    unsigned out_port = 1;
    if (t.nodes[from].is_switch) out_port = t.lft[from][t.nodes[b].lid];
    const auto& w = t.wire[from][out_port];
    const auto& link = s.links[w.link];
    line += fmt::format(" -[{}]-> {}", net::format_rate_bps(link.signal_bps), port_name(t, to, w.peer_port));
    if (t.nodes[to].is_switch) line += fmt::format(" (out {})", t.lft[to][t.nodes[b].lid]);
  }
  std::cout << fmt::format("route {} -> {} (LID {}), {} switch hops:\n  {}\n", t.nodes[a].name, t.nodes[b].name,
                           t.nodes[b].lid, path.size() - 2, line);
}

void congestion_candidates(const Topology& t, const Scenario& s, const std::vector<PortLoad>& rows, unsigned show) {
  std::cout << "congestion-tree candidates (switch outputs whose expected offered load exceeds what they can send):\n";
  unsigned shown = 0;
  for (const auto& r : rows) {
    // Above 1.0x as printed: 1.004x shows as 1.00x, which does not exceed anything.
    if (std::round(r.ratio * 100) <= 100 || shown >= show) break;
    ++shown;
    std::set<std::string> sorted;
    for (unsigned fi : r.flows) sorted.insert(s.flows[fi].name);
    std::string names;
    for (const auto& n : sorted) names += (names.empty() ? "" : ", ") + n;
    const auto& w = t.wire[r.sw][r.port];
    std::cout << fmt::format("  {:>10} -> {:<10} offered {:>8} of {:>8} ({:.2f}x)  flows: {}{}\n",
                             port_name(t, r.sw, r.port), t.nodes[w.peer].name, net::format_rate_bps(r.offered),
                             net::format_rate_bps(r.capacity), r.ratio, names,
                             r.flows.size() >= 6 ? ", ..." : "");
  }
  if (shown == 0) std::cout << "  none: every switch output can carry what its flows offer\n";
}

// --partitions N: how a parallel run would split the fabric, and the window it would get.
void print_partitions(const Topology& t, const Scenario& s, const std::vector<PortLoad>& loads, unsigned parts) {
  const uint64_t ps_per_cycle = net::cycle_ps(s.fabric.core_clock_hz);
  const net::PartitionPlan plan = net::partition_fabric(t, s, loads, parts, ps_per_cycle);
  std::cout << fmt::format("partitions: {} over {} units (a switch with its HCAs), METIS k-way weighed by the expected "
                           "load\n", parts, plan.units);
  if (plan.window_cycles == 0) {
    std::cout << "  nothing is cut: one calendar, no window\n";
  } else {
    const double ns = static_cast<double>(plan.window_cycles * ps_per_cycle) / 1e3;
    std::cout << fmt::format("  window: {} cycles ({} ns): the fastest message across a cut, over {} (propagation {}); "
                             "{:.0f} barriers per simulated ms\n",
                             plan.window_cycles, ns, plan.window_link, net::format_time_ps(plan.window_link_ps),
                             1e6 / ns);
  }
  std::cout << fmt::format("  cut: {} of {} links; load imbalance {:.3f} (the busiest group over the mean)\n",
                           plan.cut_links, plan.links, plan.imbalance);
  double total = 0;
  for (const auto& g : plan.groups) total += g.load_bps;
  for (unsigned g = 0; g < plan.groups.size(); ++g) {
    const auto& grp = plan.groups[g];
    std::cout << fmt::format("  group {:>3}: {:>6} switches {:>7} HCAs, expected load {:>10} ({:.1f} %)\n", g,
                             grp.switches, grp.hcas, net::format_rate_bps(grp.load_bps),
                             total > 0 ? 100.0 * grp.load_bps / total : 0.0);
  }
}

// --draw FILE: the fabric with each switch output's expected load, drawn by the Python package
// (ibcc.topo_draw) from FILE's stem + .json, which stays beside the picture as its record:
// the scenario (path, sha256, --set), this version, and per output its peer and loads.
int draw_loads(const TopoOptions& opt, const Topology& t, const Scenario& s, const std::vector<PortLoad>& rows) {
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& r : rows) {
    ports.push_back({{"port", port_name(t, r.sw, r.port)},
                     {"to", t.nodes[t.wire[r.sw][r.port].peer].name},
                     {"offered_bps", r.offered},
                     {"capacity_bps", r.capacity},
                     {"ratio", r.ratio}});
  }
  const nlohmann::json spec = {{"name", s.name},
                               {"scenario", opt.scenario},
                               {"scenario_sha256", sha256_file(opt.scenario)},
                               {"sets", opt.sets},
                               {"version", version_string()},
                               {"command", "ibcc topo --draw"},
                               {"ports", ports}};
  const std::filesystem::path json = std::filesystem::path(opt.draw).replace_extension(".json");
  if (!json.parent_path().empty()) std::filesystem::create_directories(json.parent_path());
  write_file_atomic(json.string(), spec.dump(2) + "\n");
  const int rc = run_python({"-m", "ibcc.topo_draw", json.string(), opt.draw}, "ibcc topo");
  if (rc == 0) std::cout << "wrote " << opt.draw << " (and " << json.string() << ")\n";
  return rc;
}

void write_expanded(const std::string& file, const Scenario& s, const std::string& path) {
  YAML::Node root = net::parse_document(net::read_text_file(file, "scenario file"), file);
  YAML::Node topo(YAML::NodeType::Map);
  for (const auto& sw : s.switches) {
    YAML::Node n;
    n["name"] = sw.name;
    n["ports"] = sw.ports;
    n.SetStyle(YAML::EmitterStyle::Flow);
    topo["switches"].push_back(n);
  }
  for (const auto& h : s.hcas) topo["hcas"].push_back(h.name);
  topo["hcas"].SetStyle(YAML::EmitterStyle::Flow);
  for (const auto& l : s.links) {
    YAML::Node n;
    n["a"] = l.a_port == 1 && std::none_of(s.switches.begin(), s.switches.end(), [&](const auto& sw) { return sw.name == l.a_node; })
                 ? l.a_node : fmt::format("{}/{}", l.a_node, l.a_port);
    n["b"] = fmt::format("{}/{}", l.b_node, l.b_port);
    n["rate"] = net::format_rate_bps(l.signal_bps);
    n["encoding"] = net::encoding_of(l.data_bps / l.signal_bps);
    n["propagation"] = net::format_time_ps(l.propagation_ps);
    n.SetStyle(YAML::EmitterStyle::Flow);
    topo["links"].push_back(n);
  }
  root["topology"] = topo;
  if (!s.fabric.updown_roots.empty() && !root["fabric"]["updown_roots"]) {
    for (const auto& r : s.fabric.updown_roots) root["fabric"]["updown_roots"].push_back(r);
    root["fabric"]["updown_roots"].SetStyle(YAML::EmitterStyle::Flow);
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ostringstream out;
  out << "# Expanded by `ibcc topo " << file << " --write " << path << "`: the generated topology as explicit data.\n";
  out << root << "\n";
  write_file_atomic(path, out.str());
}

}  // namespace

int run_topo(const TopoOptions& opt) {
  try {
    std::vector<net::Override> ov;
    for (const auto& kv : opt.sets) ov.push_back(net::parse_override(kv));
    const Scenario s = net::load_scenario(opt.scenario, ov);
    const Topology t = net::build_topology(s);
    // Every flow's routes must exist (as ibcc run checks before simulating).
    size_t checked = 0;
    FlowDestinations dests(t);
    for (const auto& f : s.flows) {
      const int src = t.find(f.src);
      if (src < 0 || t.nodes[src].is_switch) throw net::ScenarioError(fmt::format("{}:{}: traffic flow {}: src '{}' is not an HCA", s.file, f.line, f.name, f.src));
      const auto ds = dests.all(f);
      for (size_t k = 0; k < ds.size(); ++k) {
        const int dst = ds[k].first;
        if (dst < 0 || t.nodes[dst].is_switch) {
          throw net::ScenarioError(fmt::format("{}:{}: traffic flow {}: dst '{}' is not an HCA", s.file, f.line, f.name, *ds[k].second));
        }
        if (!t.reaches(static_cast<unsigned>(src), static_cast<unsigned>(dst))) {
          std::string why;
          t.route(static_cast<unsigned>(src), static_cast<unsigned>(dst), &why);
          throw net::ScenarioError(fmt::format("{}:{}: traffic flow {}: no route: {}", s.file, f.line, f.name, why));
        }
        ++checked;
      }
    }
    std::map<std::string, unsigned> speeds;
    unsigned sw_links = 0;
    for (const auto& l : s.links) {
      speeds[net::format_rate_bps(l.signal_bps)]++;
      if (t.find(l.a_node) < static_cast<int>(t.num_switches) && t.find(l.b_node) < static_cast<int>(t.num_switches)) ++sw_links;
    }
    std::cout << fmt::format("{} ({}): {} switches, {} HCAs, {} links ({} between switches), routing {}\n", s.name,
                             s.file, t.num_switches, t.nodes.size() - t.num_switches, s.links.size(), sw_links,
                             s.fabric.routing);
    std::string sp;
    for (const auto& [k, n] : speeds) sp += fmt::format("{}{} x {}", sp.empty() ? "" : ", ", n, k);
    std::cout << "  links: " << sp << "\n";
    std::cout << fmt::format("  flows: {}, routes checked: {} (all reach their destination)\n", s.flows.size(), checked);
    const net::DependencyCheck dep = net::find_dependency_cycle(t);
    const std::string ar = !s.adaptive_routing()
                               ? "" : " with every adaptive-routing candidate";
    std::cout << (dep.cycle.empty()
                      ? fmt::format("  channel dependencies{}: {} channels, {} dependencies, no cycle (credits cannot "
                                    "deadlock)\n", ar, dep.channels, dep.dependencies)
                      : fmt::format("  channel dependencies{}: {} channels, {} dependencies, a cycle: {} (credits may "
                                    "deadlock unless VLs break it)\n", ar, dep.channels, dep.dependencies, dep.cycle));
    for (const auto& [a, b] : opt.routes) {
      const int na = t.find(a), nb = t.find(b);
      if (na < 0 || nb < 0 || t.nodes[na].is_switch || t.nodes[nb].is_switch) {
        throw net::ScenarioError("--route " + a + " " + b + ": both must be HCAs of the fabric");
      }
      print_route(t, s, static_cast<unsigned>(na), static_cast<unsigned>(nb));
    }
    const std::vector<PortLoad> loads = net::expected_loads(t, s);
    if (!s.flows.empty()) congestion_candidates(t, s, loads, opt.candidates);
    if (!opt.write.empty()) {
      write_expanded(opt.scenario, s, opt.write);
      std::cout << "wrote " << opt.write << "\n";
    }
    if (opt.partitions) print_partitions(t, s, loads, opt.partitions);
    if (!opt.draw.empty()) return draw_loads(opt, t, s, loads);
    return cli::kOk;
  } catch (const net::ScenarioError& e) {
    std::cerr << "ibcc topo: error: " << e.what() << "\n";
    return cli::kBadInput;
  } catch (const YAML::Exception& e) {
    std::cerr << "ibcc topo: error: " << e.what() << "\n";
    return cli::kBadInput;
  } catch (const OutputError& e) {
    std::cerr << "ibcc topo: error: " << e.what() << "\n";
    return cli::kFailed;
  } catch (const net::PartitionError& e) {
    std::cerr << "ibcc topo: error: --partitions " << opt.partitions << ": " << e.what() << "\n";
    return cli::kBadInput;
  } catch (const ProvenanceError& e) {
    std::cerr << "ibcc topo: error: " << e.what() << "\n";
    return cli::kFailed;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "ibcc topo: error: cannot create " << e.path1().string() << ": " << e.code().message() << "\n";
    return cli::kFailed;
  }
}

}  // namespace ibcc

namespace ibcc::cli {

Command add_topo(CLI::App& app) {
  struct Options {
    ibcc::TopoOptions topo;
    std::vector<std::string> routes;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "topo", "Validate and inspect a scenario's fabric: counts, links, routes, congestion-tree candidates; "
              "--write expands a generated topology into explicit YAML");
  cmd->add_option("scenario", o->topo.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", o->topo.sets, "Override a scenario key, KEY=VALUE (as ibcc run)");
  cmd->add_option("--route", o->routes, "Show the route between two HCAs: --route SRC DST (repeatable)")
      ->expected(2)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--candidates", o->topo.candidates, "How many congestion-tree candidates to list")
      ->capture_default_str();
  cmd->add_option("--write", o->topo.write, "Write the scenario with its topology expanded to this YAML file");
  cmd->add_option("--partitions", o->topo.partitions,
                  "Show how a parallel run would split the fabric into N groups (a switch with its HCAs as the unit, "
                  "balanced by expected load): the window (the fastest message across a cut), the cut links, each "
                  "group's share")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--draw", o->topo.draw,
                  "Draw the fabric with each switch output coloured by the load its flows are expected to offer "
                  "(congestion-tree candidates solid) to this picture (.png, .svg or .pdf), its data beside it as .json")
      ->check([](const std::string& v) {
        const std::string ext = std::filesystem::path(v).extension().string();
        return ext == ".png" || ext == ".svg" || ext == ".pdf" ? std::string()
                                                               : "expected a picture file ending .png, .svg or .pdf";
      });
  return {cmd, [o] {
            if (o->routes.size() % 2) {
              std::cerr << "ibcc topo: error: --route takes two names, SRC DST; got " << o->routes.size() << "\n";
              return cli::kBadInput;
            }
            for (size_t i = 0; i + 1 < o->routes.size(); i += 2) o->topo.routes.emplace_back(o->routes[i], o->routes[i + 1]);
            return ibcc::run_topo(o->topo);
          }};
}

}  // namespace ibcc::cli
