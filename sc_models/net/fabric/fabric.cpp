// The fabric: building the nodes from the topology, the event calendar that drives them, and
// the statistics of each log interval. Invariants and the deadlock report: fabric_checks.cpp.
#include "net/fabric/fabric.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "net/fabric/hca.h"
#include "net/fabric/marking_point.h"
#include "net/parallel/cut_link.h"
#include "net/fabric/reaction_point.h"
#include "net/rtl_loop/rtl_loop.h"
#include "net/fabric/switch.h"

namespace ibcc::net {

Fabric::Fabric(sc_core::sc_module_name name, const Scenario& s, RtlLoop* rtl, unsigned threads, RankExchange* ranks)
    : sc_module(name), NodeContext(s, build_topology(s)), rtl_(rtl), rtl_ports_(s.cc.rtl) {
  ranks_ = ranks;
  if (ranked() && rtl_) throw PartitionError("a run over processes cannot hold RTL blocks in the loop yet: run them in one process");
  if (!rtl_ports_.empty() && !rtl_) {
    throw ScenarioError(fmt::format("{}: cc.rtl names blocks for the RTL, but this fabric was built without an RTL "
                                    "loop (net::RtlLoop)", s.file));
  }
  end_cycle_ = s.sim.sim_time_ps / ps_per_cycle_;
  log_cycles_ = std::max<uint64_t>(1, cycles(s.sim.log_interval_ps));
  uint64_t dl = s.sim.deadlock_timeout_ps;
  // Default: 1 ms (+ a sink hiccup), or 4 packet times on the slowest path if longer.
  if (dl == 0) dl = std::max<uint64_t>(1000000000ull + s.fabric.sink_hiccup.duration_ps, 4 * slowest_packet_ps(s));
  deadlock_cycles_ = cycles(dl);
  stall_cycles_ = cycles(s.sim.stall_timeout_ps ? s.sim.stall_timeout_ps : 10 * dl);
  make_shards(threads);
  build();
  for (size_t k = 1; k < calendars_.size(); ++k) calendars_[k]->keep_shares();
  SC_METHOD(pump);
}

Fabric::~Fabric() {
  // The nodes first: they point into the shards' calendars and pools.
  while (!nodes_.empty()) nodes_.pop_back();
}

void Fabric::build() {
  const uint64_t tick_cycles = std::max<uint64_t>(2, cycles(1024000));  // 1.024 us
  for (unsigned n = 0; n < topo_.nodes.size(); ++n) {
    const auto& tn = topo_.nodes[n];
    if (tn.is_switch) {
      add_node(std::make_unique<Switch>(tn.name.c_str(), shard_of(n), n, tn.ports, SwitchConfig::from(*this)));
    } else {
      add_node(std::make_unique<Hca>(tn.name.c_str(), shard_of(n), n, s_.sim.seed, HcaConfig::from(*this)));
    }
  }
  wire_ports();
  // Credits must hold an MTU packet, or nothing could ever move.
  const uint32_t mtu_credits = credits_of(wire_bytes(s_.fabric.mtu));
  if (s_.fabric.switch_buffer_per_vl / 64 < mtu_credits || s_.fabric.hca_buffer_per_vl / 64 < mtu_credits) {
    throw ScenarioError(fmt::format("{}: fabric.*.buffer_per_vl must hold at least one MTU packet ({} bytes)", s_.file,
                                    mtu_credits * 64));
  }
  // CC units on every switch output and in every HCA.
  for (const auto& o : s_.cc.ports) {
    const int sw = topo_.find(o.switch_name);
    if (sw < 0 || !topo_.nodes[sw].is_switch) throw ScenarioError(fmt::format("{}:{}: cc.ports[].port: no switch named '{}'", s_.file, o.line, o.switch_name));
    if (o.port > topo_.nodes[sw].ports) throw ScenarioError(fmt::format("{}:{}: cc.ports[].port: {} has ports 1..{}", s_.file, o.line, o.switch_name, topo_.nodes[sw].ports));
  }
  // RTL in the loop: the switch ports and HCAs named, each checked to exist and to have a
  // CC block (after the HCAs are built).
  rtl_used_.assign(rtl_ports_.size(), false);
  // Every name is checked before any block is Verilated (which takes seconds each).
  check_rtl_blocks(s_, topo_);
  auto rtl_here = [&](unsigned node, unsigned port) {
    const std::string name = fmt::format("{}/{}", topo_.nodes[node].name, port);
    return rtl_named(name);
  };
  if (s_.egress_drop_tail()) {
    for (unsigned n = 0; n < topo_.num_switches; ++n) {
      Switch& sw = static_cast<Switch&>(*nodes_[n]);
      const uint64_t out_limit = s_.fabric.switch_output_buffer ? s_.fabric.switch_output_buffer : s_.fabric.switch_buffer_per_vl;
      const uint64_t pool = s_.fabric.switch_shared_buffer ? s_.fabric.switch_shared_buffer
                                                           : s_.fabric.switch_buffer_per_vl * sw.ports();
      sw.set_egress_limits(out_limit, s_.fabric.buffering == FabricParams::Buffering::kShared ? pool : 0);
    }
  }
  // A remark for the notes, once.
  auto note = [this](const std::string& text) {
    if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
  };
  for (unsigned n = 0; n < topo_.num_switches; ++n) {
    Switch& sw = static_cast<Switch&>(*nodes_[n]);
    const unsigned marker_inputs = std::max(1u, sw.number_marker_inputs());
    for (unsigned p = 1; p <= sw.ports(); ++p) {
      if (sw.out[p].peer < 0 || !s_.cc.enabled) continue;
      MarkingSetup setup{*this, n, p, marker_inputs, sw.in[p].capacity, static_cast<uint32_t>(tick_cycles),
                         port_seed(n, p), nullptr, note};
      if (rtl_ && rtl_here(n, p)) {
        setup.rtl = [&](const cc::FecnMarkerParams& mp) {
          std::unique_ptr<RtlMarkerEngine> engine = rtl_->marker(mp);
          rtl_blocks_.push_back({fmt::format("{}/{}", topo_.nodes[n].name, p), true, engine.get(), mp.num_inputs,
                                 mp.num_vls, mp.fill_width, 0});
          return engine;
        };
      }
      sw.attach_marking(p, make_marking(policy_name(kMarkings, s_.cc.marking), setup));
    }
  }
  // Flows. Destination lists shared by the flows of a pattern become one shared list of LIDs
  // (names resolved once per list: UniformDestinations).
  std::map<const void*, std::shared_ptr<const std::vector<Lid>>> shared_lids;
  UniformDestinations uniform(topo_);
  struct ReachCheck {
    bool done = false;
    std::vector<size_t> unreached;  // places in the list not reached from the first switch
  };
  std::map<std::pair<const void*, int>, ReachCheck> reach_checks;
  std::map<const void*, std::vector<int64_t>> place_of_lid;  // a LID's place in a shared list, or -1
  for (const auto& fs : s_.flows) {
    Flow f;
    f.spec = fs;
    f.sl = static_cast<uint8_t>(fs.sl);
    const int src = topo_.find(fs.src);
    auto bad = [&](const std::string& what) { throw ScenarioError(fmt::format("{}:{}: traffic flow {}: {}", s_.file, fs.line, fs.name, what)); };
    if (src < 0 || topo_.nodes[src].is_switch) bad("src '" + fs.src + "' is not an HCA");
    f.src = static_cast<unsigned>(src);
    std::string why;
    auto check_route = [&](unsigned dst) {
      if (topo_.route(f.src, dst, &why).empty()) bad("no route: " + why);
    };
    if (!fs.dst.empty()) {
      const int dst = topo_.find(fs.dst);
      if (dst < 0 || topo_.nodes[dst].is_switch) bad("dst '" + fs.dst + "' is not an HCA");
      if (dst == src) bad("src and dst are the same HCA");
      f.dst = dst;
      Flow::Lane lane;
      lane.dlid = topo_.nodes[dst].lid;
      lane.qp = fs.qp;
      f.lanes.push_back(lane);
      check_route(static_cast<unsigned>(dst));
    } else {
      if (!fs.uniform_dsts.empty()) {
        const SharedSeq<int> ids = uniform.of(fs);
        auto& lids = shared_lids[ids.all().get()];
        if (!lids) {
          std::vector<Lid> all;
          all.reserve(ids.all()->size());
          for (size_t k = 0; k < ids.all()->size(); ++k) {
            const int dst = (*ids.all())[k];
            if (dst < 0 || topo_.nodes[dst].is_switch) bad("unknown destination " + (*fs.uniform_dsts.all())[k]);
            all.push_back(topo_.nodes[dst].lid);
          }
          lids = std::make_shared<const std::vector<Lid>>(std::move(all));
        }
        f.uniform_lids = fs.uniform_dsts.same_view(lids);
        // Whether a destination is reached depends only on the first switch: the list's
        // unreached places are found once per (list, first switch), then looked up in the view.
        const int first = topo_.wire[f.src][1].peer;
        auto& check = reach_checks[{lids.get(), first}];
        if (!check.done) {
          for (size_t k = 0; k < lids->size(); ++k) {
            if (!topo_.reaches(f.src, static_cast<unsigned>(topo_.lid_node[(*lids)[k]]))) check.unreached.push_back(k);
          }
          check.done = true;
        }
        for (size_t k : check.unreached) {
          if (f.uniform_lids.covers(k)) check_route(static_cast<unsigned>(topo_.lid_node[(*lids)[k]]));  // names what is wrong
        }
        auto& place = place_of_lid[lids.get()];
        if (place.empty()) {
          place.assign(topo_.lid_node.size(), -1);
          for (size_t k = 0; k < lids->size(); ++k) place[(*lids)[k]] = static_cast<int64_t>(k);
        }
        const Lid own = topo_.nodes[f.src].lid;
        if (own < place.size() && place[own] >= 0 && f.uniform_lids.covers(static_cast<size_t>(place[own]))) {
          bad("src and dst are the same HCA");
        }
      }
      for (const auto& d : fs.hot_dsts) {
        const int dst = topo_.find(d);
        if (dst < 0) bad("unknown hotspot " + d);
        f.hot_lids.push_back(topo_.nodes[dst].lid);
      }
      if (f.uniform_lids.empty() && f.hot_lids.empty()) bad("no destinations");
      if (f.uniform_lids.empty()) f.spec.hot_share = 1.0;
      f.lanes.resize(fs.outstanding);
    }
    if (!fs.dst.empty()) {
      f.lanes.resize(fs.pingpong ? 1 : fs.outstanding, f.lanes.front());
      if (fs.qp_policy == QpPolicy::kPerSl) {
        for (auto& lane : f.lanes) lane.qp = fs.sl;
      }
    }
    f.start_cycle = cycles(fs.start_ps);
    f.stop_cycle = fs.stop_ps == UINT64_MAX ? UINT64_MAX : cycles(fs.stop_ps);
    if (fs.rate_bps > 0) f.rate_cycles_per_byte = 8.0 * 1e12 / fs.rate_bps / static_cast<double>(ps_per_cycle_);
    f.next_message_cycle = static_cast<double>(f.start_cycle);
    flows_.push_back(std::move(f));
  }
  for (unsigned n = topo_.num_switches; n < topo_.nodes.size(); ++n) {
    Hca& h = static_cast<Hca&>(*nodes_[n]);
    const OutPort& op = h.out[1];
    const double link_cpb = op.cycles_per_byte;
    if (s_.fabric.transport != FabricParams::Transport::kNone) {
      h.set_transport(std::make_unique<GbnTransport>(s_.fabric.gbn_window,
                                                     std::max<uint64_t>(1, cycles(s_.fabric.gbn_timeout_ps)),
                                                     s_.fabric.transport == FabricParams::Transport::kGbn));
    }
    if (!s_.cc.enabled) continue;
    ReactionSetup setup{*this, n, link_cpb, h.host_cycles_per_byte(), static_cast<uint32_t>(tick_cycles), nullptr};
    if (rtl_ && rtl_named(topo_.nodes[n].name)) {
      setup.rtl = [&](const cc::CctiBlockParams& cp) {
        std::unique_ptr<RtlCctiEngine> engine = rtl_->ccti(cp);
        rtl_blocks_.push_back({topo_.nodes[n].name, false, engine.get(), 0, 0, 0, cp.num_qps});
        return engine;
      };
    }
    h.set_reaction(make_reaction(policy_name(kReactions, s_.cc.reaction), setup));
  }
  // Credits that come back while a port sends wait for it (OutPort::defer_credits) where
  // their event could change nothing else: not with DCQCN at an HCA (a credit event lets its
  // reaction point issue due CNPs), not on a link without credits, not with the fault.
  if (!s_.faults.ignore_credits) {
    for (unsigned n = 0; n < nodes_.size(); ++n) {
      Node& node = *nodes_[n];
      if (n >= topo_.num_switches && static_cast<Hca&>(node).reaction().needs_credit_events()) continue;
      for (unsigned p = 1; p < node.out.size(); ++p) {
        OutPort& o = node.out[p];
        o.defer_credits = o.peer >= 0 && !o.uncredited;
      }
    }
  }
  for (size_t i = 0; i < rtl_ports_.size(); ++i) {
    if (!rtl_used_[i]) throw std::logic_error("cc.rtl: '" + rtl_ports_[i] + "' passed the check but got no block");
  }
  for (unsigned i = 0; i < flows_.size(); ++i) {
    Hca& h = static_cast<Hca&>(*nodes_[flows_[i].src]);
    h.flows().push_back(i);
  }
  if (s_.cc.enabled && s_.cc.reaction == Reaction::kIbcc && !s_.cc.ca.sl_based) note_shared_ccti_entries();
  if (s_.faults.leak_credit_return || s_.faults.lose_packet) {
    // The HCA with the first flow's destination misbehaves once.
    for (const auto& f : flows_) {
      if (f.dst < 0) continue;
      Hca& h = static_cast<Hca&>(*nodes_[f.dst]);
      h.arm_faults(s_.faults.leak_credit_return, s_.faults.lose_packet);
      break;
    }
  }
}

void Fabric::start_of_simulation() {
  from_kernel_ = true;
  if (calendars_.size() > 1) {
    install_cut_links();
    if (!run_ahead_) {
      failure_ = "a parallel run needs the fabric to run ahead of the SystemC kernel (set_run_ahead): no other SystemC "
                 "process may share its time";
    } else if (probe) {
      failure_ = "a parallel run cannot record waveforms yet: run with one thread";
    } else if (profile_) {
      failure_ = "a parallel run does not profile partitions: run --profile-partitions with one thread";
    }
  }
  for (unsigned n = 0; n < nodes_.size() && failure_.empty(); ++n) {
    const Node& node = *nodes_[n];
    for (unsigned p = 1; p < node.out.size() && p < node.in.size(); ++p) {
      const OutPort& o = node.out[p];
      if (o.peer < 0 || (o.fw && node.in[p].bw)) continue;
      failure_ = fmt::format("the link {}/{} - {}/{} was claimed (claim_link) but its sockets at {}/{} are not bound",
                             node.basename(), p, nodes_[static_cast<unsigned>(o.peer)]->basename(), o.peer_port,
                             node.basename(), p);
      break;
    }
    for (unsigned p = 1; run_ahead_ && p < node.out.size() && failure_.empty(); ++p) {
      const OutPort& o = node.out[p];
      if (!o.user_bound) continue;
      failure_ = fmt::format("the link {}/{} - {}/{} was claimed (claim_link), so the fabric cannot run ahead of the "
                             "SystemC kernel (set_run_ahead)", node.basename(), p,
                             nodes_[static_cast<unsigned>(o.peer)]->basename(), o.peer_port);
    }
  }
}

void Fabric::pump() {
  from_kernel_ = false;
  if (calendars_.size() > 1 && failure_.empty()) {
    try {
      run_parallel();
    } catch (const std::exception& ex) {
      failure_ = ex.what();
      failure_is_stall_ = dynamic_cast<const StallError*>(&ex) != nullptr;
    }
    sc_core::sc_stop();
    return;
  }
  pump_events();
  from_kernel_ = true;  // until it runs again, a socket call comes from a user's process
}

void Fabric::pump_events() {
  if (!failure_.empty()) {  // found before the first event (start_of_simulation)
    sc_core::sc_stop();
    return;
  }
  try {
    now_ = sc_core::sc_time_stamp().value() / ps_per_cycle_;
    for (;;) {
      if (!queue_.empty() && queue_.next_cycle() == now_) {
        const auto handle = [this](const Event& e) {
          if (e.kind == EventKind::kLogTick) log_tick();
          else nodes_[e.node]->handle(e);
        };
        if (profile_) {
          run_cycle<true>(now_, [this, &handle](const Event& e) {
            if (e.kind == EventKind::kLogTick) profile_->count_serial(now_);
            else profile_->count(now_, e.node);
            handle(e);
          });
        } else {
          run_cycle<true>(now_, handle);
        }
      }
      if (stop_flag_ && stop_flag_->load(std::memory_order_relaxed)) {
        interrupted_ = true;
        sc_core::sc_stop();
        return;
      }
      if (queue_.empty()) {
        next_trigger(wake_);  // (a user's module may still hold a packet)
        return;
      }
      const uint64_t next = queue_.next_cycle();
      if (next > end_cycle_) {
        sc_core::sc_stop();
        return;
      }
      if (!run_ahead_) {
        next_trigger(sc_core::sc_time::from_value((next - now_) * ps_per_cycle_), wake_);
        return;
      }
      now_ = next;  // (set_run_ahead: the next busy cycle without the kernel)
    }
  } catch (const std::exception& ex) {
    failure_ = ex.what();
    failure_is_stall_ = dynamic_cast<const StallError*>(&ex) != nullptr;
    sc_core::sc_stop();
  }
}

MarkingPoint::TripLevel Fabric::trip_level(unsigned n, unsigned port) const {
  if (n >= topo_.num_switches) return {};
  const MarkingPoint* m = static_cast<const Switch&>(node(n)).marking(port);
  return m && m->watches().voq_fill ? m->trip_level() : MarkingPoint::TripLevel{};
}

void Fabric::run() {
  for (unsigned n = topo_.num_switches; n < nodes_.size(); ++n) {
    Hca& h = static_cast<Hca&>(*nodes_[n]);
    uint64_t first = UINT64_MAX;
    for (unsigned fi : h.flows()) first = std::min(first, flows_[fi].start_cycle);
    if (first != UINT64_MAX) h.wake(first);
  }
  if (calendars_.size() <= 1) {  // (a parallel run closes its log intervals at barriers)
    for (uint64_t t = log_cycles_; t <= end_cycle_; t += log_cycles_) schedule(t, EventKind::kLogTick, 0);
    if (end_cycle_ % log_cycles_) schedule(end_cycle_, EventKind::kLogTick, 0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time::from_value(end_cycle_ * ps_per_cycle_ + 1));
  wall_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  if (failure_is_stall_) throw StallError(failure_);
  if (!failure_.empty()) throw ModelError(failure_);
  if (!ranked()) check_invariants();  // (over processes: at the end of run_parallel, with every process's rows)
}

void Fabric::note_shared_ccti_entries() {
  // QP level: QP q uses CCTI entry q mod num_qps, so two QPs of one HCA whose numbers differ by
  // a multiple of it share one CCTI (and one IRD pacing). Said, naming the first HCA found
  // (each HCA costs at most num_qps + 1 distinct QPs before a shared entry shows).
  const uint32_t n = s_.cc.ca.num_qps;
  std::vector<int64_t> owner(n);
  for (unsigned node = topo_.num_switches; node < topo_.nodes.size(); ++node) {
    std::fill(owner.begin(), owner.end(), -1);
    std::vector<uint32_t> qps;
    bool shared = false;
    auto use = [&](uint32_t q) {
      qps.push_back(q);
      int64_t& o = owner[q % n];
      if (o >= 0 && o != q) shared = true;
      o = q;
    };
    for (unsigned fi : static_cast<const Hca&>(*nodes_[node]).flows()) {
      const Flow& f = flows_[fi];
      switch (f.spec.qp_policy) {
        case QpPolicy::kPerFlow: use(f.spec.qp); break;
        case QpPolicy::kPerSl: use(f.spec.sl); break;
        case QpPolicy::kPerDestination:
          if (f.dst >= 0) use(f.spec.qp + topo_.nodes[f.dst].lid);
          for (size_t k = 0; k < f.uniform_lids.size() && !shared; ++k) use(f.spec.qp + f.uniform_lids[k]);
          for (size_t k = 0; k < f.hot_lids.size() && !shared; ++k) use(f.spec.qp + f.hot_lids[k]);
          break;
      }
      if (!shared) continue;
      // All of this HCA's QPs, for the note.
      for (unsigned fj : static_cast<const Hca&>(*nodes_[node]).flows()) {
        const Flow& g = flows_[fj];
        if (g.spec.qp_policy != QpPolicy::kPerDestination) continue;
        for (Lid lid : g.uniform_lids) qps.push_back(g.spec.qp + lid);
        for (Lid lid : g.hot_lids) qps.push_back(g.spec.qp + lid);
      }
      std::sort(qps.begin(), qps.end());
      qps.erase(std::unique(qps.begin(), qps.end()), qps.end());
      std::vector<bool> entry(n);
      size_t entries = 0;
      for (uint32_t q : qps) {
        entries += entry[q % n] ? 0 : 1;
        entry[q % n] = true;
      }
      notes_.push_back(fmt::format("cc.ca.num_qps {}: the flows of {} (the first HCA found) use {} QPs, which share {} "
                                   "CCTI entries (QP q uses entry q mod {}): QPs that share an entry share one CCTI "
                                   "and one IRD pacing",
                                   n, topo_.nodes[node].name, qps.size(), entries, n));
      return;
    }
  }
}

void Fabric::log_tick() {
  TickSample& all = tick_samples_[0];
  sample_nodes(kAllShards, now_, all);
  close_interval(&all, 1);
}

void Fabric::sample_nodes(unsigned shard, uint64_t t, TickSample& out) {
  const auto mine = [&](unsigned node) { return shard == kAllShards || plan_.part_of[node] == shard; };
  // (Up to the edge before this cycle's: its events may still change this one.)
  const uint64_t edge = t ? t - 1 : 0;
  out.ports.clear();
  if (s_.cc.reaction == Reaction::kIbcc) {
    out.ccti.assign(flows_.size(), 0);
    for (size_t i = 0; i < flows_.size(); ++i) {
      if (!mine(flows_[i].src)) continue;
      Hca& h = static_cast<Hca&>(*nodes_[flows_[i].src]);
      // The flow's highest CCTI over its messages in progress (one QP each).
      for (const auto& lane : flows_[i].lanes) {
        const std::optional<uint32_t> c = h.reaction().ccti(edge, lane.qp, flows_[i].spec.sl);
        if (!c) break;
        out.ccti[i] = std::max(out.ccti[i], static_cast<uint16_t>(*c));
      }
    }
  } else {
    out.rates.assign(flows_.size(), FlowRates{});
    for (size_t i = 0; i < flows_.size(); ++i) {
      if (!mine(flows_[i].src)) continue;
      Hca& h = static_cast<Hca&>(*nodes_[flows_[i].src]);
      FlowRates& r = out.rates[i];
      uint64_t sum = 0;
      for (const auto& lane : flows_[i].lanes) {
        // The RP is advanced to t as its next packet or CNP would advance it (lazily: an
        // observation changes nothing a later event would not, DcqcnLazy tests).
        const std::optional<uint64_t> rate = h.reaction().rate_kbps(t, lane.qp);
        if (!rate) break;
        const uint64_t kbps = *rate;
        r.min_kbps = r.qps ? std::min(r.min_kbps, kbps) : kbps;
        r.max_kbps = std::max(r.max_kbps, kbps);
        sum += kbps;
        ++r.qps;
      }
      r.mean_kbps = r.qps ? sum / r.qps : 0;
    }
  }
  for (unsigned n = 0; n < topo_.num_switches; ++n) {
    if (!mine(n)) continue;
    Switch& sw = static_cast<Switch&>(*nodes_[n]);
    for (unsigned p = 1; p <= sw.ports(); ++p) {
      if (sw.out[p].peer < 0) continue;
      MarkingPoint* m = sw.marking(p);
      for (unsigned v = 0; v < s_.fabric.vls; ++v) {
        InputUnit& ip = sw.in[p];
        const MarkingPoint::Sample st = m ? m->take_sample(edge, v, sw.egress_bytes(p, v)) : MarkingPoint::Sample{};
        PortCounters& pc = sw.counters(p);
        out.ports.push_back({t, n, p, v, ip.vl[v].used, ip.vl[v].peak, st.congested, st.congested_edges, st.marks,
                             pc.take_interval(v), v == 0 ? pc.take_wait_interval(t) : 0});
        ip.vl[v].peak = ip.vl[v].used;
      }
    }
  }
}

void Fabric::close_interval(TickSample* parts, size_t count) {
  std::vector<uint64_t> row(flows_.size());
  for (size_t i = 0; i < flows_.size(); ++i) {
    row[i] = flows_[i].stats.interval_bytes;
    flows_[i].stats.interval_bytes = 0;
  }
  interval_bytes.push_back(std::move(row));
  // Each flow's sample from the part that holds its source; the ports' in node order (each
  // part's are, and a node's rows lie in one part).
  const auto owner = [&](size_t flow) -> TickSample& {
    return count == 1 ? parts[0] : parts[plan_.part_of[flows_[flow].src]];
  };
  if (s_.cc.reaction == Reaction::kIbcc) {
    std::vector<uint16_t> ccti(flows_.size());
    for (size_t i = 0; i < flows_.size(); ++i) ccti[i] = owner(i).ccti[i];
    interval_ccti.push_back(std::move(ccti));
  } else {
    std::vector<FlowRates> rates(flows_.size());
    for (size_t i = 0; i < flows_.size(); ++i) rates[i] = owner(i).rates[i];
    interval_rates.push_back(std::move(rates));
  }
  interval_end_cycle.push_back(now_);
  const size_t first = port_samples.size();
  for (size_t k = 0; k < count; ++k) {
    port_samples.insert(port_samples.end(), parts[k].ports.begin(), parts[k].ports.end());
  }
  if (count > 1) {
    std::stable_sort(port_samples.begin() + static_cast<std::ptrdiff_t>(first), port_samples.end(),
                     [](const PortSample& a, const PortSample& b) { return a.node < b.node; });
  }
  check_invariants();
  if (live_packets() > 0 && now_ - last_progress_ > deadlock_cycles_) {
    throw ModelError(deadlock_report());
  }
  // A partial deadlock: some flows stuck while others keep the fabric busy. Found from the
  // buffers (one blocked for the deadlock timeout and part of a wait-for cycle) or from
  // the flows (one with packets in flight that delivered nothing for the stall timeout).
  blocked_buffer_check();
  if (now_ - last_stall_check_ >= stall_cycles_ / 4) {
    last_stall_check_ = now_;
    const std::vector<unsigned> stuck = stalled_flows(stall_cycles_);
    if (!stuck.empty()) throw StallError(stall_report(stuck));
  }
  if (on_log_tick) on_log_tick(ps(now_));
}

}  // namespace ibcc::net
