#include "net/observe/net_waves.h"

#include "common/wave_files.h"

#include <cerrno>
#include <cstring>

#include "common/output_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/gtkw.h"
#include "gtkwave/fstapi.h"
#include "net/fabric/fabric.h"

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

// The dump format behind NetWaves: declarations, then time and value changes.
class DumpWriter {
 public:
  virtual ~DumpWriter() = default;
  virtual void scope(const std::string& name) = 0;
  virtual void upscope() = 0;
  virtual void var(unsigned index, const std::string& name, unsigned width) = 0;
  virtual void end_definitions() = 0;
  virtual void time(uint64_t t_ps, bool first) = 0;
  virtual void value(unsigned index, unsigned width, uint64_t v) = 0;
  virtual void close() = 0;  // throws OutputError on a failed write
};

namespace {

std::string bits_of(uint64_t v, unsigned width) {
  std::string s(width, '0');
  for (unsigned b = 0; b < width; ++b) s[width - 1 - b] = (v >> b & 1u) ? '1' : '0';
  return s;
}

class VcdWriter : public DumpWriter {
 public:
  VcdWriter(const std::string& path, const std::string& title) : path_(path), out_(path) {
    if (!out_) throw OutputError("cannot write " + path);
    out_ << "$comment " << title << " $end\n$timescale 1ps $end\n";
  }
  void scope(const std::string& name) override { out_ << "$scope module " << name << " $end\n"; }
  void upscope() override { out_ << "$upscope $end\n"; }
  void var(unsigned index, const std::string& name, unsigned width) override {
    ids_.push_back(vcd_id(index));
    // The name GTKWave shows: name, then [msb:0] for vectors (as the save file lists it).
    out_ << "$var wire " << width << " " << ids_.back() << " " << name;
    if (width > 1) out_ << " [" << width - 1 << ":0]";
    out_ << " $end\n";
  }
  void end_definitions() override { out_ << "$enddefinitions $end\n"; }
  void time(uint64_t t_ps, bool first) override {
    if (in_dumpvars_) out_ << "$end\n";
    in_dumpvars_ = false;
    out_ << "#" << t_ps << "\n";
    if (first) {
      out_ << "$dumpvars\n";
      in_dumpvars_ = true;
    }
  }
  void value(unsigned index, unsigned width, uint64_t v) override {
    if (width == 1) {
      out_ << (v & 1u) << ids_[index] << "\n";
    } else {
      const std::string bits = bits_of(v, width);
      const auto first = bits.find('1');
      out_ << "b" << (first == std::string::npos ? "0" : bits.substr(first)) << " " << ids_[index] << "\n";
    }
  }
  void close() override {
    if (in_dumpvars_) out_ << "$end\n";
    errno = 0;
    out_.flush();
    out_.close();
    if (out_.fail()) throw OutputError("cannot write " + path_ + ": " + (errno ? std::strerror(errno) : "I/O error"));
  }

 private:
  std::string path_;
  std::ofstream out_;
  std::vector<std::string> ids_;
  bool in_dumpvars_ = false;
};

// FST through the writer Verilator ships (include/gtkwave/fstapi.h): about 40x smaller than
// VCD, and what GTKWave opens fastest.
class FstWriter : public DumpWriter {
 public:
  FstWriter(const std::string& path, const std::string& title) : path_(path) {
    ctx_ = fstWriterCreate(path.c_str(), 1);
    if (!ctx_) throw OutputError("cannot write " + path + ": " + std::strerror(errno));
    fstWriterSetTimescale(ctx_, -12);  // 1 ps
    fstWriterSetComment(ctx_, title.c_str());
  }
  ~FstWriter() override {
    if (ctx_) fstWriterClose(ctx_);
  }
  void scope(const std::string& name) override { fstWriterSetScope(ctx_, FST_ST_VCD_MODULE, name.c_str(), nullptr); }
  void upscope() override { fstWriterSetUpscope(ctx_); }
  void var(unsigned, const std::string& name, unsigned width) override {
    const std::string shown = width > 1 ? fmt::format("{} [{}:0]", name, width - 1) : name;
    handles_.push_back(fstWriterCreateVar(ctx_, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, width, shown.c_str(), 0));
  }
  void end_definitions() override {}
  void time(uint64_t t_ps, bool) override {
    fstWriterEmitTimeChange(ctx_, t_ps);
    last_ps_ = t_ps;
  }
  void value(unsigned index, unsigned width, uint64_t v) override {
    const std::string bits = bits_of(v, width);
    fstWriterEmitValueChange(ctx_, handles_[index], bits.c_str());
  }
  void close() override {
    fstWriterClose(ctx_);
    ctx_ = nullptr;
    check_fst_file(path_, last_ps_);  // fstapi reports no write errors: read it back
  }

 private:
  std::string path_;
  void* ctx_ = nullptr;
  uint64_t last_ps_ = 0;
  std::vector<fstHandle> handles_;
};

}  // namespace

NetWaves::NetWaves(const std::string& dir, const Fabric& f, const std::vector<std::string>& ports,
                   const std::vector<std::string>& flows, uint64_t from_ps, uint64_t to_ps, bool vcd,
                   bool all_signals)
    : f_(f), from_ps_(from_ps), to_ps_(to_ps) {
  std::filesystem::create_directories(dir);
  vcd_path_ = dir + (vcd ? "/network.vcd" : "/network.fst");
  gtkw_path_ = dir + "/network.gtkw";
  const Topology& t = f.topology();
  const unsigned nvl = f.num_vls();
  // What can change: the VLs the flows' SLs map to, and the (switch, input, output) triples
  // their routes (and the CNPs and ACKs coming back) pass through. Other VoQs and VLs stay
  // at zero for the whole run and are not traced, unless all_signals.
  std::vector<bool> vl_used(nvl, all_signals);
  std::set<std::tuple<unsigned, unsigned, unsigned>> passes;
  auto walk = [&](unsigned src, unsigned dst) {
    std::string why;
    const std::vector<unsigned> path = t.route(src, dst, &why);
    for (size_t i = 1; i + 1 < path.size(); ++i) {
      const unsigned sw = path[i];
      unsigned in = 0, out = 0;
      for (unsigned q = 1; q <= t.nodes[sw].ports; ++q) {
        if (t.wire[sw][q].peer == static_cast<int>(path[i - 1]) && !in) in = q;
        if (t.wire[sw][q].peer == static_cast<int>(path[i + 1]) && q == t.lft[sw][t.nodes[dst].lid]) out = q;
      }
      if (in && out) passes.insert({sw, in, out});
    }
  };
  if (!all_signals) {
    for (const auto& fl : f.flows()) {
      vl_used[f.scenario().fabric.vl_of_sl(fl.spec.sl)] = true;
      std::set<std::string> dsts(fl.spec.uniform_dsts.begin(), fl.spec.uniform_dsts.end());
      dsts.insert(fl.spec.hot_dsts.begin(), fl.spec.hot_dsts.end());
      if (!fl.spec.dst.empty()) dsts.insert(fl.spec.dst);
      const int src = t.find(fl.spec.src);
      for (const auto& d : dsts) {
        const int dst = t.find(d);
        if (src < 0 || dst < 0) continue;
        walk(static_cast<unsigned>(src), static_cast<unsigned>(dst));
        walk(static_cast<unsigned>(dst), static_cast<unsigned>(src));  // CNPs, ACKs, ping-pong answers
      }
    }
  }
  auto can_feed = [&](unsigned sw, unsigned in, unsigned out) { return all_signals || passes.count({sw, in, out}) > 0; };
  for (const auto& p : ports) {
    const auto np = parse_node_port(p);
    const int node = np && np->port ? t.find(np->node) : -1;
    const unsigned port = np ? np->port : 0;
    if (node < 0 || !t.nodes[node].is_switch || port > t.nodes[node].ports) {
      throw ScenarioError("ports=" + p + ": expected SWITCH/PORT of this fabric (PORT 1.." +
                          (node >= 0 ? std::to_string(t.nodes[node].ports) : std::string("254")) + " in decimal)");
    }
    if (t.wire[node][port].peer < 0) throw ScenarioError("ports=" + p + ": the port is not linked");
    const std::string peer = t.nodes[t.wire[node][port].peer].name;
    const std::string scope = safe(fmt::format("{}_port{}_to_{}", t.nodes[node].name, port, peer));
    GroupSpec g{fmt::format("{}/{} -> {}", t.nodes[node].name, port, peer), {},
                {static_cast<unsigned>(node), port}};
    PortVars v;
    // (the vars in the dump's order; the save file shows the congestion state and marks
    // first, then the VoQ fills and credits as analog traces, then the transmitter)
    std::vector<WaveSignal> state, levels, rest;
    auto sig = [&](std::vector<WaveSignal>& to, unsigned var, const std::string& name, unsigned width, unsigned flags,
                   std::vector<std::pair<std::string, std::string>> names = {}, unsigned rows = 0) {
      to.push_back({scope + "." + name + (width > 1 ? fmt::format("[{}:0]", width - 1) : ""), flags, {},
                    std::move(names), rows});
      return var;
    };
    for (unsigned vl = 0; vl < nvl; ++vl) {
      v.credit_var.push_back(vl_used[vl] ? sig(levels, add_var(scope, fmt::format("credits_vl{}", vl), 16),
                                                fmt::format("credits_vl{}", vl), 16, kGtkwDec, {}, 2)
                                          : kNoVar);
    }
    v.cong = sig(state, add_var(scope, "cong_state", nvl), "cong_state", nvl, kGtkwBin, vl_mask_names(nvl));
    v.fecn = sig(state, add_var(scope, "fecn_mark", 1), "fecn_mark", 1, kGtkwHex);
    vars_[v.cong].role = Role::kCongestion;
    vars_[v.fecn].role = Role::kFecnMark;
    v.busy = sig(rest, add_var(scope, "tx_busy", 1), "tx_busy", 1, kGtkwHex);
    // Lossy: drops at this output's limit (output-buffered, shared) or else at its input buffer.
    if (f.scenario().fabric.lossy) v.drops = sig(rest, add_var(scope, "drops", 32), "drops", 32, kGtkwDec);
    std::vector<WaveSignal> fills;
    for (unsigned in = 1; in <= t.nodes[node].ports; ++in) {
      if (t.wire[node][in].peer < 0 || !can_feed(static_cast<unsigned>(node), in, port)) continue;
      for (unsigned vl = 0; vl < nvl; ++vl) {
        if (!vl_used[vl]) continue;
        const std::string name = safe(fmt::format("voq_fill_from_{}_vl{}", t.nodes[t.wire[node][in].peer].name, vl));
        v.fill_var[{in, vl}] = sig(fills, add_var(scope, name, 16), name, 16, kGtkwDec, {}, 2);
      }
    }
    // The trip level beside the fills: the fill at which a VL enters the congestion state
    // (and below which it leaves it, with hysteresis), constant over the run.
    const MarkingPoint::TripLevel trip = f.trip_level(static_cast<unsigned>(node), port);
    if (trip.enter_credits != 0 && !fills.empty()) {
      fills.push_back({"", 0, "trip level, compared with " + trip.measure + " (credits):"});
      v.trip_enter = sig(fills, add_var(scope, "trip_enter_level", 16), "trip_enter_level", 16, kGtkwDec, {}, 2);
      v.trip_values.push_back({v.trip_enter, trip.enter_credits});
      if (trip.exit_credits != trip.enter_credits) {
        v.trip_exit = sig(fills, add_var(scope, "trip_exit_level", 16), "trip_exit_level", 16, kGtkwDec, {}, 2);
        v.trip_values.push_back({v.trip_exit, trip.exit_credits});
      }
    }
    for (auto* part : {&state, &fills, &levels, &rest}) g.signals.insert(g.signals.end(), part->begin(), part->end());
    ports_[{static_cast<unsigned>(node), port}] = v;
    groups_.push_back(g);
  }
  const auto& all = f.flows();
  for (const auto& name : flows) {
    int index = -1;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].spec.name == name) index = static_cast<int>(i);
    }
    if (index < 0) throw ScenarioError("flows=" + name + ": no flow of that name in the scenario");
    const std::string scope = safe("flow_" + name);
    GroupSpec g{"flow " + name, {}};
    FlowVars v;
    v.ccti = add_var(scope, "ccti", 16);
    g.signals.push_back({scope + ".ccti[15:0]", kGtkwDec, {}, {}, 2});
    v.ird = add_var(scope, "ird_cycles", 32);
    g.signals.push_back({scope + ".ird_cycles[31:0]", kGtkwDec});
    v.sent = add_var(scope, "packets_sent", 32);
    g.signals.push_back({scope + ".packets_sent[31:0]", kGtkwDec});
    v.becn = add_var(scope, "becns", 32);
    g.signals.push_back({scope + ".becns[31:0]", kGtkwDec});
    if (f.scenario().cc.reaction != Reaction::kIbcc) {
      v.rate = add_var(scope, "dcqcn_rate_mbps", 32);
      g.signals.push_back({scope + ".dcqcn_rate_mbps[31:0]", kGtkwDec, {}, {}, 2});
    }
    flows_[index] = v;
    groups_.push_back(g);
  }
  const std::string title = "ibcc run: network waves of " + f.scenario().name;
  if (vcd) dump_ = std::make_unique<VcdWriter>(vcd_path_, title);
  else dump_ = std::make_unique<FstWriter>(vcd_path_, title);
  dump_->scope("fabric");
  for (const auto& [scope, ids] : scopes_) {
    dump_->scope(scope);
    for (unsigned i : ids) dump_->var(i, names_[i], vars_[i].width);
    dump_->upscope();
  }
  dump_->upscope();
  dump_->end_definitions();
  // Initial credits: what the fabric starts with.
  for (const auto& [key, v] : ports_) {
    for (unsigned vl = 0; vl < nvl; ++vl) {
      if (v.credit_var[vl] != kNoVar) change(v.credit_var[vl], f.node(key.first).out[key.second].vls[vl].credits, 0);
    }
    for (const auto& [var, value] : v.trip_values) change(var, value, 0);
  }
}

NetWaves::~NetWaves() = default;

unsigned NetWaves::add_var(const std::string& scope, const std::string& name, unsigned width) {
  const unsigned index = static_cast<unsigned>(vars_.size());
  vars_.push_back({width, 0, false, Role::kOther});
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
    dump_->time(from_ps_, true);
    for (unsigned i = 0; i < vars_.size(); ++i) {
      vars_[i].written = false;
      emit(i, vars_[i].value);
    }
  }
  if (started_ && t_ps > time_ps_ && (to_ps_ == 0 || t_ps <= to_ps_)) {
    time_ps_ = t_ps;
    dump_->time(time_ps_, false);
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
  dump_->value(var, v.width, value);
  // The first congestion episode and the first FECN mark in the window, for the save file's view.
  if (v.role == Role::kCongestion) {
    if (value != 0 && first_cong_ps_ == 0) first_cong_ps_ = std::max<uint64_t>(time_ps_, 1);
    if (value == 0 && first_cong_ps_ != 0 && cong_end_ps_ == 0) cong_end_ps_ = time_ps_;
  } else if (v.role == Role::kFecnMark && value != 0 && first_mark_ps_ == 0) {
    first_mark_ps_ = std::max<uint64_t>(time_ps_, 1);
  }
}

void NetWaves::change(unsigned var, uint64_t value, uint64_t t_ps) {
  advance(t_ps);
  last_time_ = t_ps;
  emit(var, value);
}

void NetWaves::credits(unsigned node, unsigned port, unsigned vl, uint32_t credits) {
  const auto it = ports_.find({node, port});
  if (it != ports_.end() && it->second.credit_var[vl] != kNoVar) change(it->second.credit_var[vl], credits, f_.ps(f_.now()));
}

void NetWaves::fill(unsigned node, unsigned out_port, unsigned in_port, unsigned vl, uint32_t credits) {
  const auto it = ports_.find({node, out_port});
  if (it == ports_.end()) return;
  const auto in = it->second.fill_var.find({in_port, vl});
  if (in != it->second.fill_var.end()) change(in->second, credits, f_.ps(f_.now()));
}

void NetWaves::congestion(unsigned node, unsigned port, uint32_t vl_mask) {
  const auto it = ports_.find({node, port});
  if (it != ports_.end()) change(it->second.cong, vl_mask, f_.ps(f_.now()));
}

void NetWaves::departure(unsigned node, unsigned port, bool marked, uint64_t end_cycle) {
  const uint64_t now = f_.ps(f_.now());
  if (marked && in_window(now)) first_marks_.try_emplace({node, port}, std::max<uint64_t>(now, 1));
  const auto it = ports_.find({node, port});
  if (it == ports_.end()) return;
  change(it->second.busy, 1, now);
  pending_.push({f_.ps(end_cycle), it->second.busy, 0});
  if (marked) {
    change(it->second.fecn, 1, now);
    pending_.push({now + f_.ps_per_cycle(), it->second.fecn, 0});
  }
}

void NetWaves::flow_ccti(int flow, uint32_t ccti) {
  if (ccti > 0 && in_window(f_.ps(f_.now()))) first_ccti_.try_emplace(flow, std::max<uint64_t>(f_.ps(f_.now()), 1));
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

void NetWaves::flow_rate(int flow, uint64_t mbps) {
  const auto it = flows_.find(flow);
  if (it != flows_.end() && it->second.rate != kNoVar) change(it->second.rate, mbps, f_.ps(f_.now()));
}

void NetWaves::drops(unsigned node, unsigned port, uint64_t count) {
  const auto it = ports_.find({node, port});
  if (it != ports_.end() && it->second.drops != kNoVar) change(it->second.drops, count, f_.ps(f_.now()));
}

void NetWaves::flow_becn(int flow, uint64_t becns) {
  const auto it = flows_.find(flow);
  if (it != flows_.end()) change(it->second.becn, becns, f_.ps(f_.now()));
}

void NetWaves::finish() {
  const uint64_t end = to_ps_ ? std::min(to_ps_, f_.ps(f_.now())) : f_.ps(f_.now());
  advance(end);
  dump_->close();
  // The port that marked first on top (where the first congestion episode's root is), the
  // others as traced.
  std::vector<WaveGroup> groups;
  const GroupSpec* first = nullptr;
  for (const auto& g : groups_) {
    const uint64_t t = g.port.second == 0 ? 0 : first_mark_ps(g.port.first, g.port.second);
    if (t != 0 && (!first || t < first_mark_ps(first->port.first, first->port.second))) first = &g;
  }
  if (first) groups.push_back({first->name, first->signals});
  for (const auto& g : groups_) {
    if (&g != first) groups.push_back({g.name, g.signals});
  }
  // Open on the first congestion episode of the window, the marker on its first FECN mark
  // (GTKWave would otherwise open on the first few nanoseconds, where nothing moves).
  WaveMarker view;
  if (first_cong_ps_ != 0) {
    const uint64_t episode_end = cong_end_ps_ > first_cong_ps_ ? cong_end_ps_ : end;
    const uint64_t span = std::clamp<uint64_t>(episode_end - first_cong_ps_, 2000000ull, 200000000ull);  // 2 us .. 200 us
    view.view_from_ps = first_cong_ps_ > span / 10 ? first_cong_ps_ - span / 10 : 0;
    view.span_ps = span + span / 5;
    view.time_ps = first_mark_ps_;
  } else {
    view.view_from_ps = from_ps_;
    view.span_ps = end > from_ps_ ? end - from_ps_ : 1;
  }
  write_gtkw(gtkw_path_, vcd_path_, groups, "fabric.", view, "ibcc");
}

}  // namespace ibcc::net
