#include "net/net_waves.h"

#include <cerrno>
#include <cstring>

#include "common/output_files.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "common/gtkw.h"
#include "net/fabric.h"

namespace ibcc::net {
namespace {

std::string vcd_id(size_t n) {
  // Printable identifiers '!'..'~', several characters when needed.
  std::string id;
  do {
    id += static_cast<char>('!' + n % 94);
    n /= 94;
  } while (n);
  return id;
}

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out;
}

}  // namespace

NetWaves::NetWaves(const std::string& dir, const Fabric& f, const std::vector<std::string>& ports,
                   const std::vector<std::string>& flows, uint64_t from_ps, uint64_t to_ps)
    : f_(f), from_ps_(from_ps), to_ps_(to_ps) {
  std::filesystem::create_directories(dir);
  vcd_path_ = dir + "/network.vcd";
  gtkw_path_ = dir + "/network.gtkw";
  const Topology& t = f.topology();
  const unsigned nvl = f.num_vls();
  for (const auto& p : ports) {
    const auto slash = p.find('/');
    const int node = slash == std::string::npos ? -1 : t.find(p.substr(0, slash));
    unsigned port = 0;
    try {
      port = slash == std::string::npos ? 0 : static_cast<unsigned>(std::stoul(p.substr(slash + 1)));
    } catch (const std::exception&) {
      port = 0;
    }
    if (node < 0 || !t.nodes[node].is_switch || port < 1 || port > t.nodes[node].ports) {
      throw ScenarioError("--trace ports=" + p + ": expected SWITCH/PORT of this fabric");
    }
    if (t.wire[node][port].peer < 0) throw ScenarioError("--trace ports=" + p + ": the port is not linked");
    const std::string peer = t.nodes[t.wire[node][port].peer].name;
    const std::string scope = safe(fmt::format("{}_port{}_to_{}", t.nodes[node].name, port, peer));
    GroupSpec g{fmt::format("{}/{} -> {}", t.nodes[node].name, port, peer), {}};
    PortVars v;
    auto sig = [&](unsigned var, const std::string& name, unsigned width, unsigned flags) {
      g.signals.emplace_back(scope + "." + name + (width > 1 ? fmt::format("[{}:0]", width - 1) : ""), flags);
      return var;
    };
    v.credits0 = static_cast<unsigned>(vars_.size());
    for (unsigned vl = 0; vl < nvl; ++vl) {
      sig(add_var(scope, fmt::format("credits_vl{}", vl), 16), fmt::format("credits_vl{}", vl), 16, kGtkwDec);
    }
    v.cong = sig(add_var(scope, "cong_state", nvl), "cong_state", nvl, kGtkwBin);
    v.fecn = sig(add_var(scope, "fecn_mark", 1), "fecn_mark", 1, kGtkwHex);
    v.busy = sig(add_var(scope, "tx_busy", 1), "tx_busy", 1, kGtkwHex);
    v.fill0 = static_cast<unsigned>(vars_.size());
    unsigned idx = 0;
    for (unsigned in = 1; in <= t.nodes[node].ports; ++in) {
      if (t.wire[node][in].peer < 0) continue;
      v.input_index[in] = idx++;
      for (unsigned vl = 0; vl < nvl; ++vl) {
        const std::string name = safe(fmt::format("voq_fill_from_{}_vl{}", t.nodes[t.wire[node][in].peer].name, vl));
        sig(add_var(scope, name, 16), name, 16, kGtkwDec);
      }
    }
    ports_[{static_cast<unsigned>(node), port}] = v;
    groups_.push_back(g);
  }
  const auto& all = f.flows();
  for (const auto& name : flows) {
    int index = -1;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].spec.name == name) index = static_cast<int>(i);
    }
    if (index < 0) throw ScenarioError("--trace flows=" + name + ": no flow of that name in the scenario");
    const std::string scope = safe("flow_" + name);
    GroupSpec g{"flow " + name, {}};
    FlowVars v;
    v.ccti = add_var(scope, "ccti", 16);
    g.signals.emplace_back(scope + ".ccti[15:0]", kGtkwDec);
    v.ird = add_var(scope, "ird_cycles", 32);
    g.signals.emplace_back(scope + ".ird_cycles[31:0]", kGtkwDec);
    v.sent = add_var(scope, "packets_sent", 32);
    g.signals.emplace_back(scope + ".packets_sent[31:0]", kGtkwDec);
    v.becn = add_var(scope, "becns", 32);
    g.signals.emplace_back(scope + ".becns[31:0]", kGtkwDec);
    flows_[index] = v;
    groups_.push_back(g);
  }
  vcd_.open(vcd_path_);
  if (!vcd_) throw ScenarioError("cannot write " + vcd_path_);
  vcd_ << "$comment ibcc run: network waves of " << f.scenario().name << " $end\n$timescale 1ps $end\n";
  vcd_ << "$scope module fabric $end\n";
  for (const auto& [scope, ids] : scopes_) {
    vcd_ << "$scope module " << scope << " $end\n";
    for (unsigned i : ids) {
      const Var& v = vars_[i];
      // The name GTKWave shows: name, then [msb:0] for vectors (as the save file lists it).
      vcd_ << "$var wire " << v.width << " " << v.id << " " << names_[i];
      if (v.width > 1) vcd_ << " [" << v.width - 1 << ":0]";
      vcd_ << " $end\n";
    }
    vcd_ << "$upscope $end\n";
  }
  vcd_ << "$upscope $end\n$enddefinitions $end\n";
  // Initial credits: what the fabric starts with.
  for (const auto& [key, v] : ports_) {
    for (unsigned vl = 0; vl < nvl; ++vl) change(v.credits0 + vl, f.node(key.first).out[key.second].credits[vl], 0);
  }
}

NetWaves::~NetWaves() = default;

unsigned NetWaves::add_var(const std::string& scope, const std::string& name, unsigned width) {
  const unsigned index = static_cast<unsigned>(vars_.size());
  vars_.push_back({vcd_id(index), width, 0, false});
  if (scopes_.empty() || scopes_.back().first != scope) scopes_.push_back({scope, {}});
  scopes_.back().second.push_back(index);
  names_.push_back(name);
  return index;
}

void NetWaves::advance(uint64_t t_ps) {
  // Changes decided earlier for times up to t_ps go first, in time order.
  while (!pending_.empty() && pending_.top().t_ps <= t_ps) {
    const Pending p = pending_.top();
    pending_.pop();
    set_time(p.t_ps);
    last_time_ = p.t_ps;
    emit(p.var, p.value);
  }
  set_time(t_ps);
}

void NetWaves::set_time(uint64_t t_ps) {
  if (!started_ && t_ps >= from_ps_) {
    // The window opens: every signal's value at its start.
    started_ = true;
    time_ps_ = from_ps_;
    vcd_ << "#" << from_ps_ << "\n$dumpvars\n";
    for (unsigned i = 0; i < vars_.size(); ++i) {
      vars_[i].written = false;
      emit(i, vars_[i].value);
    }
    vcd_ << "$end\n";
  }
  if (started_ && t_ps > time_ps_ && (to_ps_ == 0 || t_ps <= to_ps_)) {
    time_ps_ = t_ps;
    vcd_ << "#" << time_ps_ << "\n";
  }
}

void NetWaves::emit(unsigned var, uint64_t value) {
  Var& v = vars_[var];
  if (v.written && v.value == value) return;
  v.value = value;
  if (!started_ || (to_ps_ != 0 && last_time_ > to_ps_)) {
    v.written = false;  // remembered; written when the window opens
    return;
  }
  v.written = true;
  if (v.width == 1) {
    vcd_ << (value & 1u) << v.id << "\n";
  } else {
    std::string bits;
    for (int b = static_cast<int>(v.width) - 1; b >= 0; --b) bits += (value >> b & 1u) ? '1' : '0';
    const auto first = bits.find('1');
    vcd_ << "b" << (first == std::string::npos ? "0" : bits.substr(first)) << " " << v.id << "\n";
  }
}

void NetWaves::change(unsigned var, uint64_t value, uint64_t t_ps) {
  advance(t_ps);
  last_time_ = t_ps;
  emit(var, value);
}

void NetWaves::credits(unsigned node, unsigned port, unsigned vl, uint32_t credits) {
  const auto it = ports_.find({node, port});
  if (it != ports_.end()) change(it->second.credits0 + vl, credits, f_.ps(f_.now()));
}

void NetWaves::fill(unsigned node, unsigned out_port, unsigned in_port, unsigned vl, uint32_t credits) {
  const auto it = ports_.find({node, out_port});
  if (it == ports_.end()) return;
  const auto in = it->second.input_index.find(in_port);
  if (in != it->second.input_index.end()) {
    change(it->second.fill0 + in->second * f_.num_vls() + vl, credits, f_.ps(f_.now()));
  }
}

void NetWaves::congestion(unsigned node, unsigned port, uint32_t vl_mask) {
  const auto it = ports_.find({node, port});
  if (it != ports_.end()) change(it->second.cong, vl_mask, f_.ps(f_.now()));
}

void NetWaves::departure(unsigned node, unsigned port, bool marked, uint64_t end_cycle) {
  const auto it = ports_.find({node, port});
  if (it == ports_.end()) return;
  const uint64_t now = f_.ps(f_.now());
  change(it->second.busy, 1, now);
  pending_.push({f_.ps(end_cycle), it->second.busy, 0});
  if (marked) {
    change(it->second.fecn, 1, now);
    pending_.push({now + f_.ps_per_cycle(), it->second.fecn, 0});
  }
}

void NetWaves::flow_ccti(int flow, uint32_t ccti) {
  const auto it = flows_.find(flow);
  if (it != flows_.end()) change(it->second.ccti, ccti, f_.ps(f_.now()));
}

void NetWaves::flow_ird(int flow, uint64_t ird) {
  const auto it = flows_.find(flow);
  if (it != flows_.end()) change(it->second.ird, ird, f_.ps(f_.now()));
}

void NetWaves::flow_packet(int flow, uint64_t sent) {
  const auto it = flows_.find(flow);
  if (it != flows_.end()) change(it->second.sent, sent, f_.ps(f_.now()));
}

void NetWaves::flow_becn(int flow, uint64_t becns) {
  const auto it = flows_.find(flow);
  if (it != flows_.end()) change(it->second.becn, becns, f_.ps(f_.now()));
}

void NetWaves::finish() {
  const uint64_t end = to_ps_ ? std::min(to_ps_, f_.ps(f_.now())) : f_.ps(f_.now());
  advance(end);
  errno = 0;
  vcd_.flush();
  vcd_.close();
  if (vcd_.fail()) throw OutputError("cannot write " + vcd_path_ + ": " + (errno ? std::strerror(errno) : "I/O error"));
  std::vector<WaveGroup> groups;
  for (const auto& g : groups_) {
    WaveGroup wg{g.name, {}};
    for (const auto& [name, flags] : g.signals) wg.signals.push_back({name, flags});
    groups.push_back(wg);
  }
  write_gtkw(gtkw_path_, vcd_path_, groups, "fabric.", {}, "ibcc run --waves");
}

}  // namespace ibcc::net
