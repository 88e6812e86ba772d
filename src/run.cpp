#include "run.h"

#include "data_root.h"
#include "exit_codes.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/heap_pages.h"
#include "common/output_files.h"
#include "common/provenance.h"
#include "common/version.h"
#include "net/fabric/fabric.h"
#include "net/scenario/import_nvidia_cc.h"
#include "net/scenario/import_opensm.h"
#include "net/observe/metrics.h"
#include "net/observe/net_waves.h"
#include "net/rtl_loop/rtl_loop.h"
#include "net/fabric/switch.h"
#include "net/parallel/parallel_profile.h"
#include "net/parallel/partition.h"
#include "net/scenario/expected_load.h"
#include "net/scenario/units.h"
#include "progress.h"
#include "rtl_waves.h"
#include "tb/rtl_variant.h"

namespace ibcc::net {
namespace {

double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// Percentiles of one latency histogram, us.
nlohmann::json latency_json(const Fabric& f, const LatencyHistogram& h) {
  const double us = static_cast<double>(f.ps_per_cycle()) / 1e6;
  if (!h.count()) return {{"count", 0}};
  return {{"count", h.count()},
          {"mean", h.mean() * us},
          {"p50", static_cast<double>(h.quantile(0.5)) * us},
          {"p99", static_cast<double>(h.quantile(0.99)) * us},
          {"p999", static_cast<double>(h.quantile(0.999)) * us},
          {"max", static_cast<double>(h.max()) * us}};
}

// Phases: boundaries at every flow start and stop inside the run.
std::vector<Phase> phases(const Fabric& f, const std::vector<Flow>& flows, uint64_t end_ps) {
  std::set<uint64_t> cuts{0, end_ps};
  for (const auto& fl : flows) {
    if (fl.spec.start_ps < end_ps) cuts.insert(fl.spec.start_ps);
    if (fl.spec.stop_ps < end_ps) cuts.insert(fl.spec.stop_ps);
  }
  std::vector<uint64_t> c(cuts.begin(), cuts.end());
  std::vector<Phase> out;
  for (size_t i = 0; i + 1 < c.size(); ++i) {
    Phase ph;
    ph.start_us = static_cast<double>(c[i]) / 1e6;
    ph.end_us = static_cast<double>(c[i + 1]) / 1e6;
    const uint64_t from = (c[i] + c[i + 1]) / 2, to = c[i + 1];
    ph.gbps.assign(flows.size(), 0);
    uint64_t span_ps = 0;
    for (size_t k = 0; k < f.interval_end_cycle.size(); ++k) {
      const uint64_t t_end = f.ps(f.interval_end_cycle[k]);
      const uint64_t t_begin = k ? f.ps(f.interval_end_cycle[k - 1]) : 0;
      if (t_begin < from || t_end > to) continue;
      span_ps += t_end - t_begin;
      for (size_t j = 0; j < flows.size(); ++j) ph.gbps[j] += static_cast<double>(f.interval_bytes[k][j]);
    }
    if (span_ps == 0) continue;  // shorter than a log interval
    for (double& g : ph.gbps) g = g * 8.0 / (static_cast<double>(span_ps) * 1e-12) / 1e9;
    out.push_back(ph);
  }
  return out;
}

// The run's headline at its end: throughput in all and per group, Jain, the peak buffer and
// the p99 packet latency over the metrics window (every metric: metrics.json).
std::string headline(const std::map<std::string, double>& m, const std::string& window) {
  auto value = [&](const std::string& k, const char* spec) -> std::string {
    const auto it = m.find(k);
    if (it == m.end() || std::isnan(it->second)) return "n/a";
    return fmt::format(fmt::runtime(spec), it->second);
  };
  std::string groups;
  for (const auto& [k, v] : m) {
    if (k.rfind("group_total.", 0) != 0) continue;
    groups += fmt::format("{}{} {}", groups.empty() ? " (" : ", ", k.substr(12), value(k, "{:.2f}"));
  }
  if (!groups.empty()) groups += ")";
  return fmt::format("metrics over {}: throughput {} Gb/s{}, Jain {}, peak buffer {} credits, p99 latency {} us "
                     "(all in metrics.json)",
                     window, value("total", "{:.2f}"), groups, value("jain", "{:.3f}"),
                     value("peak_buffer_credits", "{:.0f}"), value("latency_p99_us", "{:.1f}"));
}

namespace fs = std::filesystem;

// The output directory of one run: created and locked before the run starts (a second
// writer is refused), an earlier run's results cleared (--force) or kept (refused), the
// per-interval tables streamed as intervals complete.
class RunDir {
 public:
  // Before anything is built or written: ScenarioError if --out cannot take this run's results.
  static void check(const RunOptions& opt) {
    std::error_code ec;
    if (fs::exists(opt.out_dir, ec) && !fs::is_directory(opt.out_dir, ec)) {
      throw ScenarioError("--out " + opt.out_dir + ": exists and is not a directory");
    }
    if (!opt.force) earlier_results(opt);
  }

  // After check(opt): creates and locks --out and removes an earlier run's results (--force).
  explicit RunDir(const RunOptions& opt) : dir_(opt.out_dir) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw OutputError("cannot create " + opt.out_dir + ": " + ec.message());
    const std::string lock = (dir_ / ".ibcc-run.lock").string();
    lock_ = std::make_unique<FileLock>(lock);
    if (!lock_->held()) {
      throw ScenarioError("--out " + opt.out_dir + ": another ibcc run is writing into it (lock " + lock + ")");
    }
    for (const auto& p : earlier_results(opt)) {
      fs::remove(p, ec);
      if (ec) throw OutputError("cannot remove " + p.string() + ": " + ec.message());
    }
    fs::remove(dir_ / ".ibcc-files", ec);  // what it listed is gone
    if (ec) throw OutputError("cannot remove " + (dir_ / ".ibcc-files").string() + ": " + ec.message());
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  // The files of an earlier run in --out (what a run writes, its plots, temporaries); without
  // --force, ScenarioError naming them.
  static std::vector<fs::path> earlier_results(const RunOptions& opt) {
    std::vector<fs::path> old;
    std::error_code ec;
    // Besides a run's own files, only what ibcc recorded writing here (`ibcc plot`'s PNGs, in
    // .ibcc-files): a user's my_plot.png in --out is not ibcc's to remove.
    std::set<std::string> written;
    {
      std::ifstream manifest(fs::path(opt.out_dir) / ".ibcc-files");
      for (std::string line; std::getline(manifest, line);) {
        if (!line.empty() && line.find('/') == std::string::npos) written.insert(line);
      }
    }
    for (const auto& e : fs::directory_iterator(opt.out_dir, ec)) {
      const std::string name = e.path().filename().string();
      const auto& files = run_output_files();
      if (std::find(files.begin(), files.end(), name) != files.end() || written.count(name) ||
          (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0)) {
        old.push_back(e.path());
      }
    }
    std::sort(old.begin(), old.end());
    if (!old.empty() && !opt.force) {
      std::string names;
      for (size_t i = 0; i < old.size() && i < 4; ++i) names += (i ? ", " : "") + old[i].filename().string();
      throw ScenarioError(fmt::format("--out {}: holds the results of an earlier run ({}{}); give --force to replace "
                                      "them, or another --out",
                                      opt.out_dir, names, old.size() > 4 ? ", ..." : ""));
    }
    return old;
  }

  // `ibcc_reaction`: the reaction point's state is each flow's CCTI (ccti.csv), else each
  // flow's DCQCN rates (rates.csv).
  void open_streams(bool ibcc_reaction) {
    flows_ = std::make_unique<StreamedFile>(path("flows.csv"));
    flows_->write("t_us,flow,gbps\n");
    if (ibcc_reaction) {
      cc_state_ = std::make_unique<StreamedFile>(path("ccti.csv"));
      cc_state_->write("t_us,flow,ccti\n");
    } else {
      cc_state_ = std::make_unique<StreamedFile>(path("rates.csv"));
      cc_state_->write("t_us,flow,qps,rate_gbps,min_gbps,max_gbps\n");
    }
    ports_ = std::make_unique<StreamedFile>(path("ports.csv"));
    ports_->write("t_us,port,vl,occupancy_credits,peak_credits,congested,congested_frac,fecn_marks,PortXmitData,"
                  "PortRcvData,PortXmitPkts,PortRcvPkts,PortXmitWait,PortVLXmitTimeCong\n");
    flush();
  }

  // The rows of the intervals completed since the last call, flushed.
  void stream(const Fabric& f) {
    const auto& flows = f.flows();
    fmt::memory_buffer rows;  // formatted in place
    auto text = [&rows] { return std::string_view(rows.data(), rows.size()); };
    auto out = std::back_inserter(rows);
    // The rows of one interval share its time, formatted once ("us,").
    auto time_of = [&f](uint64_t cycle) { return fmt::format(FMT_COMPILE("{:.3f},"), static_cast<double>(f.ps(cycle)) / 1e6); };
    // A share or a rate to 4 places; the common 0 and 1 without formatting a double.
    auto put4 = [&rows, out](double v) {
      if (v == 0.0 && !std::signbit(v)) rows.append(std::string_view("0.0000"));
      else if (v == 1.0) rows.append(std::string_view("1.0000"));
      else fmt::format_to(out, FMT_COMPILE("{:.4f}"), v);
    };
    for (size_t k = intervals_; k < f.interval_end_cycle.size(); ++k) {
      const uint64_t t_end = f.ps(f.interval_end_cycle[k]);
      const uint64_t t_begin = k ? f.ps(f.interval_end_cycle[k - 1]) : 0;
      const double secs = static_cast<double>(t_end - t_begin) * 1e-12;
      const std::string t = time_of(f.interval_end_cycle[k]);
      for (size_t j = 0; j < flows.size(); ++j) {
        const double gbps = secs > 0 ? static_cast<double>(f.interval_bytes[k][j]) * 8.0 / secs / 1e9 : 0.0;
        rows.append(t);
        rows.append(flows[j].spec.name);
        rows.push_back(',');
        put4(gbps);
        rows.push_back('\n');
      }
    }
    flows_->write(text());
    rows.clear();
    for (size_t k = intervals_; k < f.interval_ccti.size(); ++k) {
      const std::string t = time_of(f.interval_end_cycle[k]);
      for (size_t j = 0; j < flows.size(); ++j) {
        rows.append(t);
        fmt::format_to(out, FMT_COMPILE("{},{}\n"), flows[j].spec.name, f.interval_ccti[k][j]);
      }
    }
    for (size_t k = intervals_; k < f.interval_rates.size(); ++k) {
      const std::string t = time_of(f.interval_end_cycle[k]);
      for (size_t j = 0; j < flows.size(); ++j) {
        const Fabric::FlowRates& r = f.interval_rates[k][j];
        rows.append(t);
        fmt::format_to(out, FMT_COMPILE("{},{},{:.6f},{:.6f},{:.6f}\n"), flows[j].spec.name, r.qps,
                       static_cast<double>(r.mean_kbps) / 1e6, static_cast<double>(r.min_kbps) / 1e6,
                       static_cast<double>(r.max_kbps) / 1e6);
      }
    }
    cc_state_->write(text());
    rows.clear();
    uint64_t t_cycle = UINT64_MAX, begin = 0;
    std::string t;
    for (size_t i = samples_; i < f.port_samples.size(); ++i) {
      const auto& p = f.port_samples[i];
      if (p.t_cycle != t_cycle) {  // the samples of one tick share t_cycle
        t_cycle = p.t_cycle;
        t = time_of(t_cycle);
        // The interval this sample closes: from the previous log tick to this one.
        const size_t k = std::lower_bound(f.interval_end_cycle.begin(), f.interval_end_cycle.end(), p.t_cycle) -
                         f.interval_end_cycle.begin();
        begin = k > 0 ? f.interval_end_cycle[k - 1] : 0;
      }
      const double frac = p.t_cycle > begin ? static_cast<double>(p.congested_cycles) / static_cast<double>(p.t_cycle - begin) : 0.0;
      rows.append(t);
      fmt::format_to(out, FMT_COMPILE("{}/{},{},{},{},{},"), f.topology().nodes[p.node].name, p.port, p.vl, p.occupancy, p.peak,
                     p.congested ? 1 : 0);
      put4(std::min(1.0, frac));
      const PortCounters::Interval& c = p.counters;
      fmt::format_to(out, FMT_COMPILE(",{},{},{},{},{},"), p.fecn_marks, c.xmit_data, c.rcv_data, c.xmit_pkts,
                     c.rcv_pkts);
      if (p.vl == 0) fmt::format_to(out, FMT_COMPILE("{}"), p.xmit_wait);  // (the port's: on its VL 0 row)
      fmt::format_to(out, FMT_COMPILE(",{}\n"), p.congested_cycles);
    }
    ports_->write(text());
    intervals_ = f.interval_end_cycle.size();
    samples_ = f.port_samples.size();
    flush();
  }

  void close_streams() {
    if (flows_) flows_->close();
    if (cc_state_) cc_state_->close();
    if (ports_) ports_->close();
  }

 private:
  void flush() {
    flows_->flush();
    cc_state_->flush();
    ports_->flush();
  }
  fs::path dir_;
  std::unique_ptr<FileLock> lock_;
  std::unique_ptr<StreamedFile> flows_, cc_state_, ports_;
  size_t intervals_ = 0, samples_ = 0;
};

// What a run was made from, for summary.json.
struct Provenance {
  nlohmann::json inputs = nlohmann::json::array();
  nlohmann::json overrides = nlohmann::json::array();
};

unsigned plan_parts(const nlohmann::json& profile) { return profile["partitions"].get<unsigned>(); }

// --profile-partitions: the partition, its window and what the run's events say it could gain.
struct PartitionProfile {
  PartitionPlan plan;
  std::unique_ptr<ParallelProfile> profile;

  nlohmann::json json() {
    const ParallelProfile::Result r = profile->result();
    nlohmann::json groups = nlohmann::json::array();
    for (size_t g = 0; g < plan.groups.size(); ++g) {
      groups.push_back({{"switches", plan.groups[g].switches}, {"hcas", plan.groups[g].hcas},
                        {"expected_load_bps", plan.groups[g].load_bps}, {"events", r.per_group[g]}});
    }
    return {{"partitions", plan.parts}, {"window_cycles", plan.window_cycles}, {"window_link", plan.window_link},
            {"cut_links", plan.cut_links}, {"links", plan.links}, {"events", r.events}, {"critical_events", r.critical},
            {"serial_events", r.serial}, {"busy_windows", r.busy_windows}, {"speedup_bound", r.bound()},
            {"events_per_busy_window", r.events_per_busy_window()}, {"groups", groups}};
  }
};

// A parallel run (--threads, MPI processes): its partition, window and what each thread did.
nlohmann::json parallel_json(const Fabric& f, const RunOptions& opt) {
  const PartitionPlan& p = f.partition();
  const Fabric::ParallelStats& st = f.parallel_stats();
  nlohmann::json groups = nlohmann::json::array();
  uint64_t barrier = 0;
  for (size_t g = 0; g < p.groups.size(); ++g) {
    groups.push_back({{"switches", p.groups[g].switches}, {"hcas", p.groups[g].hcas},
                      {"expected_load_bps", p.groups[g].load_bps}, {"events", st.events[g]},
                      {"barrier_wait_s", static_cast<double>(st.barrier_ns[g]) / 1e9}});
    barrier += st.barrier_ns[g];
  }
  const double wall = static_cast<double>(f.wall_ns) * static_cast<double>(p.parts);
  return {{"threads", p.parts}, {"processes", opt.ranks ? opt.ranks->ranks() : 1}, {"threads_per_process", opt.threads},
          {"window_cycles", p.window_cycles}, {"window_link", p.window_link},
          {"window_link_ps", p.window_link_ps}, {"cut_links", p.cut_links}, {"links", p.links}, {"windows", st.windows},
          {"log_intervals_at_barriers", st.ticks}, {"serial_s", static_cast<double>(st.serial_ns) / 1e9},
          {"barrier_share", wall > 0 ? static_cast<double>(barrier) / wall : 0.0}, {"imbalance", p.imbalance},
          {"groups", groups}};
}

void write_outputs(const RunOptions& opt, const Scenario& s, Fabric& f, double build_s, const HeapPages& heap,
                   const std::string& result, const std::string& error, const MetricsWindow& window, RunDir& dir,
                   const Provenance& prov, PartitionProfile* partitions) {
  const auto& flows = f.flows();
  dir.stream(f);
  dir.close_streams();
  nlohmann::json j;
  j["scenario"] = s.name;
  j["file"] = s.file;
  j["version"] = version_string();
  j["command"] = opt.command;
  j["inputs"] = prov.inputs;
  j["overrides"] = prov.overrides;
  j["resolved"] = "resolved.yaml";
  j["cc"] = s.cc.enabled;
  j["seed"] = s.sim.seed;
  j["sim_time_us"] = static_cast<double>(s.sim.sim_time_ps) / 1e6;
  j["reached_us"] = static_cast<double>(f.ps(f.now())) / 1e6;
  j["result"] = result;
  if (!error.empty()) j["error"] = error;
  j["wall_s"] = static_cast<double>(f.wall_ns) / 1e9;
  j["build_wall_s"] = build_s;
  j["peak_rss_mb"] = peak_rss_mb();
  if (partitions) j["parallel_profile"] = partitions->json();
  if (f.partition().parts > 1) j["parallel"] = parallel_json(f, opt);
  j["peak_rss_kb_per_host"] = peak_rss_mb() * 1e3 / static_cast<double>(std::max<size_t>(1, s.hcas.size()));
  // (How the model's memory was paged: it changes the wall times above, nothing else.)
  j["huge_pages"] = heap.advised ? fmt::format("transparent, {} MiB of heap advised", heap.advised_bytes >> 20)
                                 : "not used: " + heap.why_not;
  j["events"] = f.events;
  j["packet_hops"] = f.hops;
  j["cnps"] = f.cnps;
  j["switches"] = f.topology().num_switches;
  j["hcas"] = f.topology().nodes.size() - f.topology().num_switches;
  const std::vector<PortReport> port_reports = f.port_reports();
  if (s.fabric.pfc) {
    uint64_t paused = 0;
    for (const PortReport& r : port_reports) {
      if (r.node >= f.topology().num_switches) paused += r.pauses_received;
    }
    j["pfc_pauses_received_by_hcas"] = paused;
  }
  j["packets"] = {{"injected", f.injected}, {"delivered", f.delivered}, {"in_flight", f.live_packets()}};
  if (s.fabric.lossy) j["packets"]["dropped"] = f.dropped;  // every drop counted: injected = delivered + dropped + in flight
  const bool gbn = s.fabric.transport != FabricParams::Transport::kNone;
  if (gbn) j["packets"]["discarded"] = f.discarded;  // Go-Back-N: taken out of order
  nlohmann::json jf = nlohmann::json::array();
  for (const auto& fl : flows) {
    const auto& st = fl.stats;
    jf.push_back({{"name", fl.spec.name},
                  {"group", fl.spec.group},
                  {"src", fl.spec.src},
                  {"dst", fl.spec.dst.empty() ? std::string("*") : fl.spec.dst},
                  {"start_us", static_cast<double>(fl.spec.start_ps) / 1e6},
                  {"stop_us", fl.spec.stop_ps == UINT64_MAX ? static_cast<double>(s.sim.sim_time_ps) / 1e6
                                                             : static_cast<double>(fl.spec.stop_ps) / 1e6},
                  {"injected_bytes", st.injected_bytes},
                  {"delivered_bytes", st.delivered_bytes},
                  {"delivered_packets", st.delivered_packets},
                  {"latency_us", latency_json(f, st.packet_latency)},
                  {"message_us", latency_json(f, st.message_latency)},
                  {"fecn_marked", st.fecn_marked},
                  {"becn_received", st.becn_received}});
    if (fl.spec.pingpong) {
      jf.back()["answer_bytes"] = st.answer_bytes;
      jf.back()["answer_packets"] = st.answer_packets;
    }
    if (s.fabric.lossy) jf.back()["dropped_packets"] = st.dropped_packets;
    if (st.probes_sent) {
      // RTT probes: sent, answered inside the statistics window, and their round trips.
      jf.back()["rtt_probes"] = {{"sent", st.probes_sent}, {"rtt_us", latency_json(f, st.probe_rtt)}};
    }
    if (gbn) {
      jf.back()["gbn"] = {{"retransmitted_packets", st.retransmitted_packets}, {"discarded_packets", st.discarded_packets},
                          {"timeouts", st.timeouts}, {"nacks", st.nacks},
                          {"packs", st.packs}};
      nlohmann::json chain = nlohmann::json::object();
      for (int a = 0; a < FlowStats::kNoEvent; ++a) {
        for (int b = 0; b < FlowStats::kNoEvent; ++b) {
          chain[{FlowStats::kGbnEventLetter[a], FlowStats::kGbnEventLetter[b]}] = st.chain[a][b];
        }
      }
      jf.back()["gbn"]["chain"] = chain;
    }
  }
  j["flows"] = jf;
  j["latency_window"] = describe(window, s.sim.sim_time_ps);
  j["notes"] = s.notes;
  {
    nlohmann::json jpp = nlohmann::json::array();
    for (const auto& fl : flows) {
      if (!fl.spec.pingpong) continue;
      const auto& h = fl.stats.pingpong_rtt;
      const double us = static_cast<double>(f.ps_per_cycle()) / 1e6;
      jpp.push_back({{"flow", fl.spec.name}, {"group", fl.spec.group}, {"round_trips", h.count()},
                     {"half_rtt_min_us", h.count() ? static_cast<double>(h.min()) * us / 2 : 0.0},
                     {"half_rtt_avg_us", h.mean() * us / 2},
                     {"half_rtt_max_us", static_cast<double>(h.max()) * us / 2}});
    }
    j["pingpong"] = jpp;
  }
  {
    // latency.csv: the histograms, for plots (upper bound of each non-empty bucket, in us).
    std::string csv = "flow,group,kind,upper_us,count\n";
    const double us = static_cast<double>(f.ps_per_cycle()) / 1e6;
    for (const auto& fl : flows) {
      const std::pair<const char*, const LatencyHistogram*> kinds[] = {
          {"packet", &fl.stats.packet_latency}, {"message", &fl.stats.message_latency}, {"pingpong_rtt", &fl.stats.pingpong_rtt},
          {"probe_rtt", &fl.stats.probe_rtt}};
      for (const auto& [kind, h] : kinds) {
        for (const auto& [upper, count] : h->buckets()) {
          csv += fmt::format("{},{},{},{:.4f},{}\n", fl.spec.name, fl.spec.group, kind, static_cast<double>(upper) * us, count);
        }
      }
    }
    write_file_atomic(dir.path("latency.csv"), csv);
  }
  nlohmann::json jports = nlohmann::json::array();
  for (const PortReport& r : port_reports) {
    if (r.node >= f.topology().num_switches) continue;
    const Node& node = f.node(r.node);
    const OutPort& op = node.out[r.port];
    if (op.peer < 0) continue;
    nlohmann::json jport = {{"port", fmt::format("{}/{}", node.basename(), r.port)},
                            {"to", f.topology().nodes[op.peer].name},
                            {"packets_sent", r.packets},
                            {"fecn_marked", r.marked},
                            {"utilization", static_cast<double>(r.bytes) / (op.rate_bytes_per_cycle * static_cast<double>(f.now() ? f.now() : 1))}};
    // The port's performance counters over the run, as perfquery reads them after a reset
    // at its start (data in octets / 4).
    jport["PortXmitData"] = r.xmit_bytes / 4;
    jport["PortRcvData"] = r.rcv_bytes / 4;
    jport["PortXmitPkts"] = r.xmit_pkts;
    jport["PortRcvPkts"] = r.rcv_pkts;
    jport["PortXmitWait"] = r.xmit_wait;
    // ECN: the egress queue's peak inside the latency window (the DCQCN studies' "max buffer").
    const auto& sw = static_cast<const Switch&>(node);
    if (const MarkingPoint* m = sw.marking(r.port); m && m->watches().egress_bytes) jport["egress_peak_bytes"] = r.egress_peak;
    // PFC: XOFF frames this output received, and those its input sent upstream.
    if (s.fabric.pfc) {
      jport["pfc_pauses_received"] = r.pauses_received;
      jport["pfc_pauses_sent"] = r.pauses_sent;
    }
    // Lossy: packets this port's input dropped.
    if (s.fabric.lossy) {
      jport["drops"] = r.input_drops;         // at this port's input buffer
      jport["egress_drops"] = r.egress_drops;  // at this output's limit (output or shared buffers)
    }
    jports.push_back(jport);
  }
  j["ports"] = jports;
  nlohmann::json jp = nlohmann::json::array();
  for (const auto& ph : phases(f, flows, s.sim.sim_time_ps)) {
    nlohmann::json g;
    for (size_t i = 0; i < flows.size(); ++i) g[flows[i].spec.name] = ph.gbps[i];
    jp.push_back({{"start_us", ph.start_us}, {"end_us", ph.end_us}, {"gbps", g}});
  }
  j["phases"] = jp;
  write_file_atomic(dir.path("summary.json"), j.dump(2) + "\n");

  // metrics.json last, and whole or not at all: a sweep takes it (with summary.json's
  // version and input hashes) as "point done".
  nlohmann::json jm;
  jm["result"] = result;
  jm["version"] = version_string();
  jm["window"] = describe(window, s.sim.sim_time_ps);
  const auto metrics = compute_metrics(f, window);
  jm["metrics"] = metrics;
  if (const auto t = metrics.find("total"); t != metrics.end() && std::isnan(t->second) && !flows.empty()) {
    jm["note"] = fmt::format("the window {} holds no whole log interval (sim.log_interval {}): the throughput "
                             "metrics are undefined; give a wider --window or a shorter sim.log_interval",
                             describe(window, s.sim.sim_time_ps), format_time_ps(s.sim.log_interval_ps));
    if (!opt.quiet) std::cerr << "ibcc run: note: " << jm["note"].get<std::string>() << "\n";
  }
  write_file_atomic(dir.path("metrics.json"), jm.dump(2) + "\n");

  if (opt.quiet || result != "ok") return;
  // The per-phase table (flows of explicit scenarios; patterns can have hundreds of flows).
  const auto ph = phases(f, flows, s.sim.sim_time_ps);
  if (flows.size() <= 12) {
    std::string head = fmt::format("{:>17}", "phase (s)");
    for (const auto& fl : flows) head += fmt::format(" {:>7}", fl.spec.name);
    std::cout << head << "   (Gb/s, second half of each phase)\n";
    for (const auto& p : ph) {
      std::string row = fmt::format("{:>8.3f}-{:<8.3f}", p.start_us / 1e6, p.end_us / 1e6);
      for (double g : p.gbps) row += fmt::format(" {:>7.2f}", g);
      std::cout << row << "\n";
    }
  }
  std::cout << headline(metrics, describe(window, s.sim.sim_time_ps)) << "\n";
  const double sim_ms = static_cast<double>(s.sim.sim_time_ps) / 1e9;
  std::cout << fmt::format("{}: cc {}, {:.3f} ms simulated in {:.2f} s wall ({:.3f} s per simulated ms), {} packet-hops "
                           "({:.2f} M/s), {} delivered, peak memory {:.0f} MB ({:.0f} kB per host)\n",
                           s.name, s.cc.enabled ? "on" : "off", sim_ms, f.wall_ns / 1e9, f.wall_ns / 1e9 / sim_ms, f.hops,
                           f.wall_ns ? f.hops / (f.wall_ns / 1e9) / 1e6 : 0.0, f.delivered, peak_rss_mb(),
                           peak_rss_mb() * 1e3 / static_cast<double>(std::max<size_t>(1, s.hcas.size())));
  if (partitions) {
    const nlohmann::json& pj = j["parallel_profile"];
    std::cout << fmt::format(
        "parallel profile: {} groups, window {} cycles, {} of {} links cut; {} events, the busiest group's per window "
        "summed {} (serial {}): at most {:.2f}x faster on {} threads; {:.1f} events per busy window\n",
        plan_parts(pj), pj["window_cycles"].get<uint64_t>(), pj["cut_links"].get<uint64_t>(), pj["links"].get<uint64_t>(),
        pj["events"].get<uint64_t>(), pj["critical_events"].get<uint64_t>(), pj["serial_events"].get<uint64_t>(),
        pj["speedup_bound"].get<double>(), plan_parts(pj), pj["events_per_busy_window"].get<double>());
  }
}


// Everything the options change in the scenario, in the order applied: the OpenSM file's
// CC settings, --set, then the dedicated options.
std::vector<Override> overrides_of(const RunOptions& opt, std::vector<std::string>* notes) {
  std::vector<Override> ov;
  if (!opt.opensm_conf.empty()) {
    const OpenSmImport imp = import_opensm_conf(opt.opensm_conf);
    ov = imp.overrides;
    if (notes) notes->insert(notes->end(), imp.notes.begin(), imp.notes.end());
  }
  ov.insert(ov.end(), opt.overrides.begin(), opt.overrides.end());
  if (opt.cc) ov.push_back({"cc.enabled", *opt.cc ? "true" : "false", "--cc"});
  if (opt.seed) ov.push_back({"sim.seed", std::to_string(*opt.seed), "--seed"});
  if (opt.sim_time) ov.push_back({"sim.time", *opt.sim_time, "--sim-time " + *opt.sim_time});
  if (!opt.rtl.empty()) {
    std::string list;
    for (const auto& r : opt.rtl) list += (list.empty() ? "" : ", ") + r;
    ov.push_back({"cc.rtl", "[" + list + "]", "--rtl " + list});
  }
  if (opt.log_interval) ov.push_back({"sim.log_interval", *opt.log_interval, "--log-interval " + *opt.log_interval});
  return ov;
}

}  // namespace

namespace {
// Bytes of memory available to this process now (/proc/meminfo MemAvailable), 0 if unknown.
uint64_t memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}
}  // namespace

std::optional<std::string> memory_error(const Scenario& s) {
  // Per flow: about 7 KB for the model's state (measured: clos648 uniform with 256 QPs per
  // source, 166 k flows, 1.16 GB resident), rounded up. Per log interval, kept for the metrics:
  // each flow's bytes and CCTI (or DCQCN rates), and each switch port's VL sample (ports.csv).
  constexpr double kBytesPerFlow = 8192;
  const bool rates = s.cc.reaction != Reaction::kIbcc;
  double switch_port_vls = 0;
  for (const auto& sw : s.switches) switch_port_vls += static_cast<double>(sw.ports) * s.fabric.vls;
  const double intervals = std::ceil(static_cast<double>(s.sim.sim_time_ps) / static_cast<double>(s.sim.log_interval_ps));
  const double per_interval = static_cast<double>(s.flows.size()) * (8 + 2 + (rates ? sizeof(Fabric::FlowRates) : 0)) +
                              8 + 3 * 40 + switch_port_vls * sizeof(PortSample);  // (+ 3 vectors' headers and heap blocks)
  const double need = static_cast<double>(s.flows.size()) * kBytesPerFlow + intervals * per_interval;
  const uint64_t have = memory_available();
  if (have == 0 || need <= 0.9 * static_cast<double>(have)) return std::nullopt;
  return fmt::format("the run would need about {:.1f} GB ({} flows x {} KB, and {:.0f} log intervals (sim.time / "
                     "sim.log_interval) x {:.0f} bytes of per-interval statistics), more than the {:.1f} GB this "
                     "machine has free; give a longer sim.log_interval, a shorter sim.time or fewer flows",
                     need / 1e9, s.flows.size(), kBytesPerFlow / 1024, intervals, per_interval, have / 1e9);
}

std::optional<std::string> window_error(const std::string& window, uint64_t sim_time_ps) {
  const auto range = parse_time_range_ps(window);
  if (!range) return "expected FROM..TO with times and units, e.g. 2.5s..5s";
  if (range->second > sim_time_ps) {
    return fmt::format("ends after the run ({}); expected FROM..TO inside 0..{}", format_time_ps(sim_time_ps),
                       format_time_ps(sim_time_ps));
  }
  return std::nullopt;
}

std::string describe_scenario(const RunOptions& opt, std::string* policy) {
  std::vector<std::string> import_notes;  // the OpenSM file's (fields read, not applied)
  const std::vector<Override> ov = overrides_of(opt, &import_notes);
  const std::string text = read_text_file(opt.scenario, "scenario file");
  ScenarioDocument doc(text, opt.scenario);
  Scenario s = doc.load(ov);
  // The checks `ibcc run` makes before it simulates, by building the same fabric (wiring,
  // LIDs, routes, flows, buffers, PFC thresholds); the RTL blocks are checked by name, not
  // Verilated.
  {
    Scenario without_rtl = s;
    without_rtl.cc.rtl.clear();
    without_rtl.cc.rtl_lines.clear();
    const Fabric fabric("fabric", without_rtl, nullptr);
    check_rtl_blocks(s, fabric.topology());
    s.notes.insert(s.notes.end(), fabric.notes().begin(), fabric.notes().end());
  }
  if (policy) {
    if (s.cc.marking != Marking::kNvidia || s.cc.reaction != Reaction::kDcqcn) {
      throw ScenarioError(opt.scenario + ": --nvidia-policy-out: the policy file configures cc.marking nvidia with "
                          "cc.reaction dcqcn; this scenario runs another regime");
    }
    *policy = nvidia_policy(s.cc);
  }
  std::string out = doc.resolved_yaml(ov, s);
  for (const auto& n : import_notes) out += "# note: " + n + "\n";
  for (const auto& n : s.notes) out += "# note: " + n + "\n";
  return out;
}

std::string describe_points(const RunOptions& opt, const std::string& points_json, const std::string& window) {
  const std::vector<Override> common = overrides_of(opt, nullptr);
  ScenarioDocument doc(read_text_file(opt.scenario, "scenario file"), opt.scenario);
  nlohmann::json points;
  try {
    points = nlohmann::json::parse(points_json);
    if (!points.is_array()) throw std::invalid_argument("not a list");
  } catch (const std::exception& e) {
    throw ScenarioError(std::string("--points: expected a JSON list of points, each a list of [KEY, VALUE, ORIGIN] (") +
                        e.what() + ")");
  }
  nlohmann::json shapes = nlohmann::json::array(), index = nlohmann::json::array();
  std::map<std::pair<std::vector<std::string>, std::set<std::string>>, size_t> seen;
  for (const auto& point : points) {
    std::vector<Override> ov = common;
    try {
      for (const auto& kv : point) ov.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>(),
                                                   kv.at(2).get<std::string>());
    } catch (const nlohmann::json::exception&) {
      throw ScenarioError("--points: a point's setting is not [KEY, VALUE, ORIGIN]: " + point.dump());
    }
    const Scenario sc = doc.load(ov);
    if (const std::string why = parallel_refusal(sc, opt.threads); !why.empty()) {
      std::string where;
      for (size_t k = common.size(); k < ov.size(); ++k) where += (where.empty() ? " (the point " : ", ") + ov[k].origin;
      throw ScenarioError(fmt::format("--threads {}: {}{}", opt.threads, why, where.empty() ? "" : where + ")"));
    }
    if (!window.empty()) {
      if (const auto why = window_error(window, sc.sim.sim_time_ps)) throw ScenarioError("--window " + window + ": " + *why);
    }
    std::vector<std::string> flows;
    for (const auto& f : sc.flows) flows.push_back(f.name);
    auto key = std::make_pair(std::move(flows), metric_names(sc));
    auto [it, fresh] = seen.emplace(key, shapes.size());
    if (fresh) shapes.push_back({{"flows", it->first.first}, {"metrics", it->first.second}});
    index.push_back(it->second);
  }
  return nlohmann::json{{"shapes", shapes}, {"points", index}}.dump() + "\n";
}

int run_scenario(const RunOptions& opt) {
  std::vector<Override> ov;
  try {
    std::vector<std::string> notes;
    ov = overrides_of(opt, &notes);
    if (!opt.quiet) {
      for (const auto& n : notes) std::cerr << "ibcc run: note: " << n << "\n";
    }
  } catch (const ScenarioError& e) {
    std::cerr << "ibcc run: error: " << e.what() << "\n";
    return cli::kBadInput;
  }
  std::unique_ptr<Scenario> s;
  std::unique_ptr<RtlLoop> rtl_loop;  // outlives the fabric: the engines live in its libraries
  std::unique_ptr<PartitionProfile> partitions;  // --profile-partitions (the fabric points to its counter)
  std::unique_ptr<Fabric> fabric;
  std::unique_ptr<RunDir> dir;
  Provenance prov;
  const auto t0 = std::chrono::steady_clock::now();
  // Over MPI processes, rank 0 writes the results; the set-up's outcome is agreed before the
  // run (a process that could not set up would leave the others waiting for it).
  const bool writes = !opt.ranks || opt.ranks->rank() == 0;
  const unsigned groups = opt.threads * (opt.ranks ? opt.ranks->ranks() : 1);
  int setup_rc = -1;
  try {
    const std::string text = read_text_file(opt.scenario, "scenario file");
    SetupLog setup("ibcc run", opt.quiet, text.size());
    setup.stage(fmt::format("parsing {} ({:.1f} MB)", opt.scenario, text.size() / 1e6));
    auto doc = std::make_unique<ScenarioDocument>(text, opt.scenario);
    setup.stage("reading the scenario");
    s = std::make_unique<Scenario>(doc->load(ov));
    if (const auto why = memory_error(*s)) throw ScenarioError(opt.scenario + ": " + *why);
    // Provenance first: what this run is made of is in --out before it starts.
    prov.inputs.push_back({{"role", "scenario"}, {"path", opt.scenario}, {"sha256", sha256_hex(text)}});
    if (!opt.opensm_conf.empty()) {
      prov.inputs.push_back({{"role", "opensm_conf"}, {"path", opt.opensm_conf}, {"sha256", sha256_file(opt.opensm_conf)}});
    }
    for (const auto& o : ov) {
      prov.overrides.push_back({{"key", o.key}, {"value", o.value}, {"from", o.origin.empty() ? "--set" : o.origin}});
    }
    setup.stage("resolving it (resolved.yaml)");
    const std::string resolved = doc->resolved_yaml(ov, *s);
    doc.reset();  // the parsed tree is large for a big scenario (about 5 KB per flow)
    if (writes) RunDir::check(opt);
    // The fabric is built (and its wiring and routes checked) before --out is touched, so bad
    // input leaves nothing behind.
    setup.stage(fmt::format("building the fabric: {} switches, {} HCAs, {} flows; routing and route checks",
                            s->switches.size(), s->hcas.size(), s->flows.size()));
    if (!s->cc.rtl.empty()) {
      RtlLoopConfig rc;
      // (installed: the copies under share/ibcc; in a build tree, the sources it was built from)
      rc.rtl_dir = installed() ? data_root() + "/rtl" : std::string(tb::rtl_source_dir());
      rc.engine_dir = data_root() + "/rtl_loop";
      rc.model_dir = data_root() + "/sc_models";
      const char* xdg = std::getenv("XDG_CACHE_HOME");
      const char* home = std::getenv("HOME");
      rc.cache_dir = xdg && *xdg ? std::string(xdg) + "/ibcc/rtl-loop"
                     : home && *home ? std::string(home) + "/.cache/ibcc/rtl-loop" : std::string("/tmp/ibcc-rtl-loop");
      rc.variant = tb::rtl_variant();
      rc.on_build = [&setup](const std::string& what, const std::string& where) {
        setup.say(fmt::format("Verilating and compiling {} (first use of these parameters: a minute or two; kept "
                              "in {} for later runs)...", what, where));
      };
      setup.stage(fmt::format("Verilating the RTL for {} block(s) in the loop ({}, cached in {})", s->cc.rtl.size(),
                              rc.rtl_dir, rc.cache_dir));
      rtl_loop = std::make_unique<RtlLoop>(rc);
    }
    if (groups > 1) {
      setup.stage(opt.ranks ? fmt::format("partitioning the fabric into {} groups ({} MPI processes x --threads {})", groups,
                                          opt.ranks->ranks(), opt.threads)
                            : fmt::format("partitioning the fabric into {} groups (--threads)", groups));
    }
    fabric = std::make_unique<Fabric>("fabric", *s, rtl_loop.get(), opt.threads, opt.ranks);
    if (groups > 1) {
      const PartitionPlan& p = fabric->partition();
      setup.say(fmt::format("parallel run: {} groups{}, window {} cycles ({}, {} ps), {} of {} links cut", p.parts,
                            opt.ranks ? fmt::format(" ({} processes x {} threads)", opt.ranks->ranks(), opt.threads) : "",
                            p.window_cycles, p.window_link, p.window_link_ps, p.cut_links, p.links));
    }
    s->notes.insert(s->notes.end(), fabric->notes().begin(), fabric->notes().end());
    if (opt.profile_partitions) {
      setup.stage(fmt::format("partitioning the fabric into {} groups (--profile-partitions)", opt.profile_partitions));
      partitions = std::make_unique<PartitionProfile>();
      partitions->plan = partition_fabric(fabric->topology(), *s, expected_loads(fabric->topology(), *s),
                                          opt.profile_partitions, fabric->ps_per_cycle());
      partitions->profile = std::make_unique<ParallelProfile>(partitions->plan.part_of, partitions->plan.parts,
                                                              partitions->plan.window_cycles);
      fabric->set_parallel_profile(partitions->profile.get());
    }
    if (writes) {
      setup.stage("fabric built; opening --out");
      dir = std::make_unique<RunDir>(opt);
      write_file_atomic(dir->path("resolved.yaml"), resolved);
      dir->open_streams(s->cc.reaction == Reaction::kIbcc);
    }
  } catch (const ScenarioError& e) {
    std::cerr << "ibcc run: error: " << e.what() << "\n";
    setup_rc = cli::kBadInput;
  } catch (const PartitionError& e) {
    std::cerr << "ibcc run: error: "
              << (groups > 1 ? (opt.ranks ? fmt::format("{} processes x --threads {}", opt.ranks->ranks(), opt.threads)
                                          : fmt::format("--threads {}", opt.threads))
                             : fmt::format("--profile-partitions {}", opt.profile_partitions))
              << ": " << e.what() << "\n";
    setup_rc = cli::kBadInput;
  } catch (const OutputError& e) {
    std::cerr << "ibcc run: error: " << e.what() << "\n";
    setup_rc = cli::kFailed;
  } catch (const ProvenanceError& e) {
    std::cerr << "ibcc run: error: " << e.what() << "\n";
    setup_rc = cli::kBadInput;
  } catch (const RtlLoopError& e) {
    std::cerr << "ibcc run: error: cc.rtl: " << e.what() << "\n";
    setup_rc = cli::kFailed;
  }
  if (opt.ranks && opt.ranks->any(setup_rc >= 0) && setup_rc < 0) setup_rc = cli::kFailed;  // (another's failed)
  if (setup_rc >= 0) return setup_rc;
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const HeapPages heap = advise_heap_huge_pages();  // the heap's growth during the build too
  if (!opt.quiet) {
    for (const auto& n : s->notes) std::cerr << "ibcc run: note: " << n << "\n";
  }
  // Metrics window: --window FROM..TO, else the second half of the run.
  MetricsWindow window{s->sim.sim_time_ps / 2, 0};
  if (opt.window) {
    if (const auto why = window_error(*opt.window, s->sim.sim_time_ps)) {
      std::cerr << "ibcc run: error: --window " << *opt.window << ": " << *why << "\n";
      return cli::kBadInput;
    }
    const auto range = parse_time_range_ps(*opt.window);
    window = {range->first, range->second};
  }
  fabric->set_stats_window(window.from_ps, window.to_ps);
  std::unique_ptr<NetWaves> waves;
  std::vector<RtlWaveFile> rtl_waves;  // the blocks of cc.rtl, with --waves
  uint64_t waves_from = 0, waves_to = 0;  // --waves-window (0, 0: the whole run)
  if (!opt.waves_dir.empty()) {
    // --trace ports=A,B,flows=C,D: a bare item continues the list before it. Without it:
    // every linked switch port and every flow of a small fabric.
    std::vector<std::string> ports, flows;
    std::vector<std::string>* into = nullptr;
    std::stringstream ss(opt.trace);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.rfind("ports=", 0) == 0) {
        into = &ports;
        item = item.substr(6);
      } else if (item.rfind("flows=", 0) == 0) {
        into = &flows;
        item = item.substr(6);
      }
      if (!into || item.empty()) {
        std::cerr << "ibcc run: error: --trace " << opt.trace << ": expected ports=SWITCH/PORT,...,flows=FLOW,...\n";
        return cli::kBadInput;
      }
      into->push_back(item);
    }
    const Topology& t = fabric->topology();
    if (opt.trace.empty()) {
      unsigned linked = 0;
      for (unsigned n = 0; n < t.num_switches; ++n) {
        for (unsigned p = 1; p <= t.nodes[n].ports; ++p) {
          if (t.wire[n][p].peer >= 0) {
            ++linked;
            ports.push_back(fmt::format("{}/{}", t.nodes[n].name, p));
          }
        }
      }
      for (const auto& fl : fabric->flows()) flows.push_back(fl.spec.name);
      if (linked > 32 || flows.size() > 32) {
        std::cerr << "ibcc run: error: --waves on a fabric this size needs --trace ports=...,flows=... "
                     "(ibcc topo lists the congestion-tree candidates)\n";
        return cli::kBadInput;
      }
    }
    uint64_t from = 0, to = 0;
    if (!opt.waves_window.empty()) {
      const auto range = parse_time_range_ps(opt.waves_window);
      if (!range) {
        std::cerr << "ibcc run: error: --waves-window " << opt.waves_window << ": expected FROM..TO with units, e.g. 2s..2.01s\n";
        return cli::kBadInput;
      }
      std::tie(from, to) = *range;
    }
    waves_from = from;
    waves_to = to;
    try {
      waves = std::make_unique<NetWaves>(opt.waves_dir, *fabric, ports, flows, from, to, opt.waves_vcd,
                                         opt.waves_all_signals);
    } catch (const ScenarioError& e) {  // a port or flow the selection names
      std::cerr << "ibcc run: error: --trace " << e.what() << "\n";
      return cli::kBadInput;
    }
    fabric->probe = waves.get();
    try {
      rtl_waves = open_rtl_waves(*fabric, opt.waves_dir, from, to);
    } catch (const std::runtime_error& e) {
      std::cerr << "ibcc run: error: --waves: " << e.what() << "\n";
      return cli::kFailed;
    }
  }
  {
    Fabric* fp = fabric.get();
    RunDir* dp = dir.get();
    const double total_ps = static_cast<double>(s->sim.sim_time_ps);
    const auto wall0 = std::chrono::steady_clock::now();
    // The tables grow as the run goes; a failed write ends the run (ModelError with the path).
    fabric->on_log_tick = [fp, dp, total_ps, wall0, &opt](uint64_t now_ps) {
      dp->stream(*fp);
      if (!opt.progress) return;
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      opt.progress(static_cast<double>(now_ps) / total_ps,
                   fmt::format("{} of {} simulated, {:.2f} M packet-hops/s", format_time_ps(now_ps),
                               format_time_ps(static_cast<uint64_t>(total_ps)), wall > 0 ? fp->hops / wall / 1e6 : 0.0));
    };
  }
  fabric->set_stop_flag(opt.stop_flag);
  fabric->set_run_ahead(true);  // its only SystemC process: no claimed links here
  try {
    fabric->run();
  } catch (const ModelError& e) {
    if (!writes) return cli::kFailed;  // (rank 0 says why and writes what was measured)
    std::cerr << "ibcc run: FAILED: " << e.what() << "\n";
    try {
      if (waves) waves->finish();  // the waves up to the failure are what one debugs it with
      close_rtl_waves(*fabric, rtl_waves, waves.get(), waves_from, waves_to);
    } catch (const OutputError& w) {
      std::cerr << "ibcc run: error: " << w.what() << "\n";
    }
    // What was measured up to the failure is still useful for debugging; a stall is a result
    // of the configuration (sweeps and tunes record it as such).
    const bool stalled = dynamic_cast<const StallError*>(&e) != nullptr;
    try {
      write_outputs(opt, *s, *fabric, build_s, heap, stalled ? "stalled" : "failed", e.what(), window, *dir, prov, partitions.get());
    } catch (const std::exception& w) {
      std::cerr << "ibcc run: error: " << w.what() << "\n";
    }
    return cli::kFailed;
  }
  if (waves) {
    try {
      waves->finish();
      close_rtl_waves(*fabric, rtl_waves, waves.get(), waves_from, waves_to);
    } catch (const OutputError& e) {
      std::cerr << "ibcc run: error: " << e.what() << "\n";
      return cli::kFailed;
    }
    if (!opt.quiet) {
      std::cout << "waves: " << waves->vcd_path() << ", open with: gtkwave " << waves->gtkw_path() << "\n";
      for (const auto& f : rtl_waves) {
        std::cout << "waves of the RTL at " << f.block << ": " << f.fst << ", open with: gtkwave " << f.gtkw << "\n";
      }
    }
  }
  const bool interrupted = fabric->interrupted();
  if (!writes) return interrupted ? kInterrupted : cli::kOk;
  try {
    write_outputs(opt, *s, *fabric, build_s, heap, interrupted ? "interrupted" : "ok", "", window, *dir, prov, partitions.get());
  } catch (const OutputError& e) {
    std::cerr << "ibcc run: error: " << e.what() << "\n";
    return cli::kFailed;
  }
  if (interrupted) {
    std::cerr << fmt::format("ibcc run: interrupted at {:.6g} s of {:.6g} s simulated; partial results in {}\n",
                             static_cast<double>(fabric->ps(fabric->now())) * 1e-12,
                             static_cast<double>(s->sim.sim_time_ps) * 1e-12, opt.out_dir);
    return kInterrupted;
  }
  return cli::kOk;
}

const std::vector<std::string>& run_output_files() {
  static const std::vector<std::string> files = {"flows.csv", "ccti.csv",  "rates.csv", "ports.csv",   "latency.csv",
                                                 "summary.json", "metrics.json", "resolved.yaml"};
  return files;
}

}  // namespace ibcc::net
