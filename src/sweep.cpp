#include "sweep.h"

#include "cli.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/output_files.h"
#include "common/provenance.h"
#include "common/version.h"
#include "net/observe/metrics.h"
#include "net/scenario/scenario_yaml.h"
#include "progress.h"
#include "run.h"
#include "slurm.h"

extern char** environ;

namespace ibcc {
namespace {

namespace fs = std::filesystem;

struct Grid {
  std::string key;
  std::vector<std::string> values;
};

// Points one sweep may hold (each a directory and a process): more is a mistake in a grid.
constexpr double kMaxPoints = 100000;

class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep)) out.push_back(part);
  return out;
}

// KEY=V1,V2,... or KEY=FROM:TO:STEP (numbers; FROM and TO included).
Grid parse_grid(const std::string& g) {
  const auto eq = g.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == g.size()) {
    throw SweepError("--grid " + g + ": expected KEY=V1,V2,... or KEY=FROM:TO:STEP");
  }
  Grid grid{g.substr(0, eq), {}};
  const std::string spec = g.substr(eq + 1);
  const auto parts = split(spec, ':');
  if (parts.size() == 3 && spec.find(',') == std::string::npos) {
    double a = 0, b = 0, step = 0;
    try {
      size_t u1 = 0, u2 = 0, u3 = 0;
      a = std::stod(parts[0], &u1);
      b = std::stod(parts[1], &u2);
      step = std::stod(parts[2], &u3);
      if (u1 != parts[0].size() || u2 != parts[1].size() || u3 != parts[2].size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw SweepError("--grid " + g + ": FROM:TO:STEP must be numbers");
    }
    if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(step)) {
      throw SweepError("--grid " + g + ": FROM:TO:STEP must be finite numbers");
    }
    if (step <= 0 || b < a || (b - a) / step > 10000) {
      throw SweepError("--grid " + g + ": expected FROM <= TO and 0 < STEP, at most 10000 values");
    }
    const size_t count = static_cast<size_t>(std::floor((b - a) / step + 1e-9)) + 1;
    const bool integral = std::floor(a) == a && std::floor(step) == step;
    if (integral && std::max(std::fabs(a), std::fabs(b)) > 9007199254740992.0) {
      throw SweepError("--grid " + g + ": integers beyond 2^53 cannot be stepped exactly; list the values instead");
    }
    for (size_t i = 0; i < count; ++i) {
      const double v = a + static_cast<double>(i) * step;
      grid.values.push_back(integral ? fmt::format("{}", static_cast<long long>(std::llround(v))) : fmt::format("{:g}", v));
      if (grid.values.size() > 1 && grid.values.back() == grid.values[grid.values.size() - 2]) {
        throw SweepError("--grid " + g + ": STEP is too small to change " + grid.values.back() + "; list the values instead");
      }
    }
  } else {
    grid.values = split(spec, ',');
    if (grid.values.empty() || std::any_of(grid.values.begin(), grid.values.end(), [](const std::string& v) { return v.empty(); })) {
      throw SweepError("--grid " + g + ": an empty value");
    }
  }
  return grid;
}

struct Point {
  std::vector<std::pair<std::string, std::string>> settings;
  fs::path dir;
  std::vector<std::string> required;  // metrics a finished run of this point has (total, throughput.<flow>)
  int status = -1;  // exit code once run
};

std::string point_name(size_t index, const Point& p) {
  std::string name = fmt::format("{:04d}", index);
  for (const auto& [k, v] : p.settings) {
    name += "_" + k.substr(k.rfind('.') + 1) + "=" + v;
  }
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '=' && c != '.' && c != '-') c = '-';
  }
  return name;
}

// Whether a point's results can be kept: a finished run (metrics.json complete, result ok)
// made by this build from the scenario as it is now. Otherwise `why` says what is wrong
// (empty when the point never ran).
// The sha256 of the scenario file a point's run read (its summary.json), "" if unknown.
std::string run_scenario_sha(const fs::path& dir) {
  try {
    const auto sum = nlohmann::json::parse(std::ifstream(dir / "summary.json"));
    for (const auto& in : sum.value("inputs", nlohmann::json::array())) {
      if (in.value("role", "") == "scenario") return in.value("sha256", "");
    }
  } catch (const std::exception&) {
  }
  return "";
}

bool point_done(const Point& p, const std::string& scenario_sha, std::string* why) {
  why->clear();
  if (!fs::exists(p.dir / "metrics.json") && !fs::exists(p.dir / "summary.json")) return false;
  try {
    const auto m = nlohmann::json::parse(std::ifstream(p.dir / "metrics.json"));
    const auto sum = nlohmann::json::parse(std::ifstream(p.dir / "summary.json"));
    // (a stall is the configuration's result: the same point would stall again)
    const std::string result = sum.value("result", "");
    if (m.value("result", "") != result || (result != "ok" && result != "stalled")) {
      *why = "its run did not finish (result " + sum.value("result", std::string("?")) + ")";
      return false;
    }
    for (const auto& name : p.required) {
      if (!m.contains("metrics") || !m["metrics"].contains(name)) {
        *why = "its metrics.json lacks " + name;
        return false;
      }
    }
    if (sum.value("version", "") != version_string()) {
      *why = "it was made by " + sum.value("version", std::string("an older ibcc")) + ", this is " + version_string();
      return false;
    }
    if (run_scenario_sha(p.dir) != scenario_sha) {
      *why = "the scenario file changed since it ran";
      return false;
    }
    return true;
  } catch (const std::exception&) {
    *why = "its metrics.json or summary.json is missing or unreadable";
    return false;
  }
}

// SIGINT/SIGTERM of the sweep: its runs are ended with it (they write what they have).
std::atomic<bool> g_sweep_stop{false};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// sweep.csv from the points' metrics.json; the exit code (1 if a point failed).
int gather(const SweepOptions& opt, const std::vector<Grid>& grids, const std::vector<Point>& points, const fs::path& out,
           const std::string& scenario_sha) {
  // One version of the scenario in one sweep.csv: a file edited while the sweep ran leaves
  // points of two versions, which are not gathered (a rerun redoes the others' points).
  std::vector<std::string> stale;
  for (const auto& p : points) {
    const std::string sha = fs::exists(p.dir / "summary.json") ? run_scenario_sha(p.dir) : scenario_sha;
    if (sha != scenario_sha) stale.push_back(p.dir.filename().string());
  }
  std::string now;
  try {
    now = sha256_file(opt.scenario);
  } catch (const std::exception&) {
  }
  if (!stale.empty() || now != scenario_sha) {
    std::cerr << "ibcc sweep: error: " << opt.scenario << " changed while the sweep ran"
              << (stale.empty() ? "" : fmt::format(" ({} points ran another version, first {})", stale.size(), stale[0]))
              << "; sweep.csv is not written; run the same command again to rerun the points of the old version\n";
    return cli::kBadInput;
  }
  std::vector<std::map<std::string, double>> results(points.size());
  std::vector<bool> stalled(points.size(), false);  // a result: the point's flows stalled
  std::set<std::string> available;
  for (size_t i = 0; i < points.size(); ++i) {
    std::ifstream in(points[i].dir / "metrics.json");
    if (!in) continue;
    try {
      const auto j = nlohmann::json::parse(in);
      stalled[i] = points[i].status == 1 && j.value("result", "") == "stalled";
      // An undefined metric (null: Jain without an active contributor) is NaN here and an
      // empty cell of sweep.csv.
      for (const auto& [k, v] : j.at("metrics").items()) results[i][k] = v.is_number() ? v.get<double>() : std::nan("");
      for (const auto& [k, v] : results[i]) available.insert(k);
    } catch (const std::exception&) {
    }
  }
  size_t failed = 0, stalls = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    failed += points[i].status != 0 && !stalled[i] ? 1 : 0;
    stalls += stalled[i] ? 1 : 0;
  }
  std::vector<std::string> columns = opt.metrics;
  if (columns.empty()) {
    for (const auto& k : available) {
      if (k.rfind("throughput.", 0) != 0 || available.size() < 40) columns.push_back(k);
    }
  }
  std::ostringstream csv;
  for (const auto& g : grids) csv << csv_field(g.key) << ",";
  csv << "status";
  for (const auto& c : columns) csv << "," << csv_field(c);
  csv << "\n";
  for (size_t i = 0; i < points.size(); ++i) {
    for (const auto& [k, v] : points[i].settings) csv << csv_field(v) << ",";
    const int st = points[i].status;
    // (a stalled point's metrics are those measured up to the stall)
    csv << (st == 0 ? "ok" : stalled[i] ? "stalled" : csv_field(fmt::format("failed (exit {}, see {})", st, (points[i].dir / "log.txt").string())));
    for (const auto& c : columns) {
      const auto it = results[i].find(c);
      csv << ",";
      if ((st == 0 || stalled[i]) && it != results[i].end() && !std::isnan(it->second)) csv << fmt::format("{:.6g}", it->second);
    }
    csv << "\n";
  }
  try {
    write_file_atomic((out / "sweep.csv").string(), csv.str());
  } catch (const OutputError& e) {
    std::cerr << "ibcc sweep: error: " << e.what() << "\n";
    return cli::kFailed;
  }
  if (!opt.quiet) {
    std::cerr << fmt::format("ibcc sweep: {} of {} points ok{}; {}\n", points.size() - failed - stalls, points.size(),
                             stalls ? fmt::format(", {} stalled (a result: status `stalled`)", stalls) : "",
                             (out / "sweep.csv").string());
  }
  return failed ? 1 : 0;
}

// The `ibcc run` arguments of a point. --force: a point rerun (stale or failed) replaces its
// earlier results.
std::vector<std::string> run_args(const SweepOptions& opt, const Point& p) {
  std::vector<std::string> args = {"run", opt.scenario, "--out", p.dir.string(), "--quiet", "--force"};
  for (const auto& s : opt.sets) args.insert(args.end(), {"--set", s});
  for (const auto& [k, v] : p.settings) args.insert(args.end(), {"--set", k + "=" + v});
  if (!opt.window.empty()) args.insert(args.end(), {"--window", opt.window});
  if (!opt.sim_time.empty()) args.insert(args.end(), {"--sim-time", opt.sim_time});
  if (!opt.cc.empty()) args.insert(args.end(), {"--cc", opt.cc});
  return args;
}

// The points of `todo` as one Slurm job array: each task runs one point's `ibcc run` and
// leaves its exit code in slurm/tasks/NNNN.exit. A job of an earlier invocation still in the
// queue is waited for first (its points are then not submitted again). Sets each point's
// status; false when interrupted (the job is cancelled).
bool run_points_slurm(const SweepOptions& opt, const std::string& self_exe, const fs::path& out,
                      std::vector<Point>& points, const std::vector<size_t>& todo, size_t resumed,
                      const std::string& scenario_sha) {
  const fs::path dir = fs::absolute(out / "slurm");
  fs::create_directories(dir / "tasks");
  const fs::path job_file = dir / "job";
  ProgressBar bar(opt.quiet);
  auto count_done = [&] {
    size_t n = 0;
    std::string why;
    for (const auto& p : points) n += point_done(p, scenario_sha, &why) ? 1 : 0;
    return n;
  };
  auto wait_for = [&](const std::string& id) {
    while (slurm::in_queue(id)) {
      for (int i = 0; i < 20 && !g_sweep_stop.load(); ++i) usleep(100000);
      if (g_sweep_stop.load()) {
        slurm::cancel(id);
        return false;
      }
      const size_t done = count_done();
      bar.update(static_cast<double>(done) / static_cast<double>(points.size()),
                 fmt::format("{}/{} points, Slurm job {}", done, points.size(), id));
    }
    return true;
  };
  std::vector<size_t> submit = todo;
  if (fs::exists(job_file)) {
    std::ifstream in(job_file);
    std::string old;
    in >> old;
    if (!old.empty() && slurm::in_queue(old)) {
      if (!opt.quiet) std::cerr << "ibcc sweep: Slurm job " << old << " of this sweep is still queued: waiting for it\n";
      if (!wait_for(old)) return false;
      submit.clear();
      std::string why;
      for (size_t i : todo) {
        if (!point_done(points[i], scenario_sha, &why)) submit.push_back(i);
      }
    }
  }
  if (!submit.empty()) {
    std::ostringstream list;
    for (size_t k = 0; k < submit.size(); ++k) {
      const Point& p = points[submit[k]];
      fs::create_directories(p.dir);
      const fs::path task = dir / "tasks" / (p.dir.filename().string() + ".sh");
      const fs::path exit_file = dir / "tasks" / (p.dir.filename().string() + ".exit");
      fs::remove(exit_file);
      std::string cmd = slurm::shell_quote(self_exe);
      for (const auto& a : run_args(opt, p)) cmd += " " + slurm::shell_quote(a);
      write_file_atomic(task.string(), "#!/usr/bin/env bash\n# ibcc sweep: point " + p.dir.filename().string() + "\ncd " +
                                           slurm::shell_quote(fs::current_path().string()) + "\nunset IBCC_PARENT\n" +
                                           cmd + " > " + slurm::shell_quote((p.dir / "log.txt").string()) +
                                           " 2>&1\necho $? > " + slurm::shell_quote(exit_file.string()) + "\n");
      list << task.string() << "\n";
    }
    const fs::path task_list = dir / "tasks.txt";
    write_file_atomic(task_list.string(), list.str());
    const fs::path script = dir / "array.sh";
    write_file_atomic(script.string(), slurm::array_script(task_list.string()));
    slurm::ArrayJob job{script.string(), submit.size(), opt.array_max, opt.partition, "ibcc-sweep", dir.string()};
    const std::string id = slurm::submit(job);
    write_file_atomic(job_file.string(), id + "\n");
    if (!opt.quiet) {
      std::cerr << fmt::format("ibcc sweep: Slurm job {}: {} points ({} done before); Slurm's logs in {}\n", id,
                               submit.size(), resumed, dir.string());
    }
    if (!wait_for(id)) return false;
  }
  bar.finish();
  for (size_t i : todo) {
    std::string why;
    Point& p = points[i];
    if (point_done(p, scenario_sha, &why)) {
      p.status = 0;
      continue;
    }
    std::ifstream in(dir / "tasks" / (p.dir.filename().string() + ".exit"));
    int rc = -1;
    if (!(in >> rc) || rc == 0) rc = 1;  // no exit code: the task was cancelled or never ran
    p.status = rc;
  }
  return true;
}

extern "C" void on_sweep_signal(int) { g_sweep_stop.store(true); }

pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const fs::path& log) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
  return pid;
}


}  // namespace

int run_sweep(const SweepOptions& opt, const std::string& self_exe) {
  struct sigaction sa {};
  sa.sa_handler = on_sweep_signal;  // no SA_RESTART: waitpid returns EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  setenv("IBCC_PARENT", std::to_string(getpid()).c_str(), 1);
  std::vector<Grid> grids;
  std::vector<Point> points;
  try {
    if (opt.grids.empty()) throw SweepError("at least one --grid KEY=VALUES is needed");
    std::set<std::string> keys;
    for (const auto& g : opt.grids) {
      grids.push_back(parse_grid(g));
      if (!keys.insert(grids.back().key).second) throw SweepError("--grid " + grids.back().key + " is given twice");
    }
    // The cross product, the first grid varying slowest; its size known before it is built.
    double total = 1;
    for (const auto& g : grids) total *= static_cast<double>(g.values.size());
    if (total > kMaxPoints) {
      throw SweepError(fmt::format("the grids make {:.0f} points; a sweep runs at most {} (split it into several)", total,
                                   kMaxPoints));
    }
    points.push_back({});
    for (const auto& g : grids) {
      std::vector<Point> next;
      for (const auto& p : points) {
        for (const auto& v : g.values) {
          Point q = p;
          q.settings.emplace_back(g.key, v);
          next.push_back(q);
        }
      }
      points = std::move(next);
    }
    // Every point must be a valid scenario before anything runs.
    for (auto& p : points) {
      std::vector<net::Override> ov;
      for (const auto& kv : opt.sets) ov.push_back(net::parse_override(kv));
      for (const auto& [k, v] : p.settings) ov.emplace_back(k, v, "--grid " + k + "=" + v);
      if (!opt.sim_time.empty()) ov.emplace_back("sim.time", opt.sim_time, "--sim-time " + opt.sim_time);
      const net::Scenario sc = net::load_scenario(opt.scenario, ov);
      if (!opt.window.empty()) {
        if (const auto why = net::window_error(opt.window, sc.sim.sim_time_ps)) throw SweepError("--window " + opt.window + ": " + *why);
      }
      p.required = {"total"};
      for (const auto& f : sc.flows) p.required.push_back("throughput." + f.name);
      // The metric names these runs will have (net/observe/metrics.h), checked before anything runs.
      const std::set<std::string> names = net::metric_names(sc);
      for (const auto& m : opt.metrics) {
        if (names.count(m)) continue;
        std::string list;
        for (const auto& n : names) {
          if (n.rfind("throughput.", 0) != 0) list += (list.empty() ? "" : ", ") + n;
        }
        throw SweepError("--metric " + m + ": not a metric of this scenario (available: " + list +
                         ", and throughput.<flow> for each of its " + std::to_string(sc.flows.size()) + " flows)");
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "ibcc sweep: error: " << e.what() << "\n";
    return cli::kBadInput;
  }

  // The sweep's identity: a resumed sweep must be the same one.
  nlohmann::json id;
  id["scenario"] = fs::absolute(opt.scenario).string();
  id["grids"] = opt.grids;
  id["sets"] = opt.sets;
  id["window"] = opt.window;
  id["sim_time"] = opt.sim_time;
  id["cc"] = opt.cc;
  const fs::path out(opt.out_dir);
  std::string scenario_sha;
  std::unique_ptr<FileLock> lock;
  try {
    scenario_sha = sha256_file(opt.scenario);
    std::error_code ec;
    if (fs::exists(out, ec) && !fs::is_directory(out, ec)) throw SweepError("--out " + opt.out_dir + ": exists and is not a directory");
    fs::create_directories(out / "points", ec);
    if (ec) throw OutputError("cannot create " + (out / "points").string() + ": " + ec.message());
    // One sweep at a time in --out (the lock goes with the process, even on kill -9).
    const std::string lock_path = (out / ".ibcc-sweep.lock").string();
    lock = std::make_unique<FileLock>(lock_path);
    if (!lock->held()) {
      throw SweepError("--out " + opt.out_dir + ": another ibcc sweep is running into it (lock " + lock_path + ")");
    }
  } catch (const SweepError& e) {
    std::cerr << "ibcc sweep: error: " << e.what() << "\n";
    return cli::kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "ibcc sweep: error: " << e.what() << "\n";
    return cli::kFailed;
  }
  const fs::path id_file = out / "sweep.json";
  if (fs::exists(id_file)) {
    nlohmann::json old;
    try {
      old = nlohmann::json::parse(std::ifstream(id_file));
    } catch (const std::exception&) {
    }
    if (old != id) {
      std::cerr << "ibcc sweep: error: " << opt.out_dir
                << " holds a different sweep (sweep.json); give another --out or remove it\n";
      return cli::kBadInput;
    }
  } else {
    try {
      write_file_atomic(id_file.string(), id.dump(2) + "\n");
    } catch (const OutputError& e) {
      std::cerr << "ibcc sweep: error: " << e.what() << "\n";
      return cli::kFailed;
    }
  }

  std::vector<size_t> todo;
  for (size_t i = 0; i < points.size(); ++i) {
    points[i].dir = out / "points" / point_name(i, points[i]);
    std::string why;
    if (point_done(points[i], scenario_sha, &why)) {
      // (its run's exit code: 1 for a stalled point, as when it ran)
      std::ifstream m(points[i].dir / "metrics.json");
      points[i].status = nlohmann::json::parse(m).value("result", "") == "stalled" ? 1 : 0;
      continue;
    }
    todo.push_back(i);
    if (!why.empty()) {
      if (!opt.quiet) std::cerr << "ibcc sweep: rerunning " << points[i].dir.filename().string() << ": " << why << "\n";
    }
  }
  const size_t resumed = points.size() - todo.size();
  if (opt.backend == "slurm") {
    bool finished_all = true;
    try {
      finished_all = run_points_slurm(opt, self_exe, out, points, todo, resumed, scenario_sha);
    } catch (const slurm::SlurmError& e) {
      std::cerr << "ibcc sweep: error: " << e.what() << "\n";
      return cli::kFailed;
    } catch (const OutputError& e) {
      std::cerr << "ibcc sweep: error: " << e.what() << "\n";
      return cli::kFailed;
    }
    if (!finished_all) {
      std::cerr << "ibcc sweep: interrupted; the Slurm job is cancelled; run the same command to resume\n";
      return cli::kStopped;
    }
    return gather(opt, grids, points, out, scenario_sha);
  }
  const unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (!opt.quiet) {
    std::cerr << fmt::format("ibcc sweep: {} points ({} done before), {} at a time, results in {}\n", points.size(),
                             resumed, jobs, opt.out_dir);
  }

  ProgressBar bar(opt.quiet);
  std::map<pid_t, size_t> running;
  size_t next = 0, finished = resumed, failed = 0;
  auto show = [&] {
    bar.update(static_cast<double>(finished) / static_cast<double>(points.size()),
               fmt::format("{}/{} points, {} running, {} failed", finished, points.size(), running.size(), failed));
  };
  show();
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < jobs) {
      Point& p = points[todo[next]];
      fs::create_directories(p.dir);
      running[spawn(self_exe, run_args(opt, p), p.dir / "log.txt")] = todo[next];
      ++next;
      show();
    }
    if (g_sweep_stop.load()) break;
    int wstatus = 0;
    const pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    Point& p = points[it->second];
    p.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    running.erase(it);
    ++finished;
    if (p.status != 0) ++failed;
    show();
  }
  if (g_sweep_stop.load()) {
    // End the runs in progress: each writes its partial results (result "interrupted").
    for (const auto& [pid, i] : running) ::kill(pid, SIGTERM);
    for (const auto& [pid, i] : running) {
      int wstatus = 0;
      while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
    }
    bar.finish();
    std::cerr << fmt::format("ibcc sweep: interrupted with {} of {} points done; run the same command to resume\n",
                             finished, points.size());
    return cli::kStopped;
  }
  bar.finish();

  return gather(opt, grids, points, out, scenario_sha);
}

}  // namespace ibcc

namespace ibcc::cli {

Command add_sweep(CLI::App& app, const Invocation& inv) {
  auto sweep = std::make_shared<ibcc::SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a scenario over the cross product of parameter values, in parallel processes, into one sweep.csv "
               "(resumes an interrupted sweep in the same --out)");
  cmd->add_option("scenario", sweep->scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", sweep->out_dir, "Output directory: sweep.csv, sweep.json, points/<point>/")->required();
  cmd->add_option("--grid", sweep->grids,
                  "Swept key: KEY=V1,V2,... or KEY=FROM:TO:STEP (numbers, both ends included); repeatable, "
                  "the first varies slowest")
      ->required();
  cmd->add_option("--metric", sweep->metrics,
                  "Column of sweep.csv (repeatable; default: every scalar metric; see docs/configuration.md, "
                  "Metrics)");
  cmd->add_option("--jobs", sweep->jobs, "Parallel runs (default: one per core)")->check(CLI::Range(1u, 256u));
  cmd->add_option("--set", sweep->sets, "KEY=VALUE for every point (as ibcc run --set)");
  cmd->add_option("--window", sweep->window, "Metrics window FROM..TO with units (default: second half)");
  cmd->add_option("--sim-time", sweep->sim_time, "Simulated time of every point, with a unit");
  cmd->add_option("--cc", sweep->cc, "Congestion control on or off for every point")->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--backend", sweep->backend,
                  "Where the points run: local (processes here, --jobs at a time) or slurm (one Slurm job array "
                  "submitted with sbatch, followed with squeue; interrupted, the job is cancelled)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--partition", sweep->partition, "Slurm partition (default: the cluster's default)");
  cmd->add_option("--array-max", sweep->array_max, "Slurm: at most this many points at once (default: no limit)")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_flag("--quiet", sweep->quiet, "No progress bar or summary");
  const char* argv0 = inv.argc > 0 ? inv.argv[0] : "ibcc";
  return {cmd,
          [sweep, argv0] {
            if (sweep->backend != "slurm" && (!sweep->partition.empty() || sweep->array_max)) {
              std::cerr << "ibcc sweep: error: --partition and --array-max need --backend slurm\n";
              return cli::kBadInput;
            }
            if (sweep->backend == "slurm" && sweep->jobs) {
              std::cerr << "ibcc sweep: error: --jobs is for the local backend; with --backend slurm use --array-max\n";
              return cli::kBadInput;
            }
            if (g_stop) return cli::kStopped;  // a signal during start-up: nothing was run
            return ibcc::run_sweep(*sweep, self_exe(argv0));
          },
          true};
}

}  // namespace ibcc::cli
