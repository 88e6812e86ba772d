#include "net/rtl_loop/rtl_loop.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace ibcc::net {
namespace fs = std::filesystem;
namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw RtlLoopError(fmt::format("cannot read {}", p.string()));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The first line a command prints, or "" if it cannot run.
std::string first_line(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  char buf[256] = {};
  const bool got = fgets(buf, sizeof buf, p) != nullptr;
  pclose(p);
  std::string s = got ? buf : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command with its output in `log`; throws with the log's end if it fails.
void run(const std::string& cmd, const fs::path& log, const std::string& what) {
  const int rc = std::system((cmd + " > " + quote(log.string()) + " 2>&1").c_str());
  if (rc != 0) {
    std::string text;
    try {
      text = slurp(log);
    } catch (const RtlLoopError&) {
    }
    if (text.size() > 3000) text = "...\n" + text.substr(text.size() - 3000);
    throw RtlLoopError(fmt::format("{} failed (exit {}); its output ({}):\n{}", what, rc, log.string(), text));
  }
}

const char* const kCommonRtl[] = {"ibcc_timebase.sv", "ibcc_axil_slave.sv", "ibcc_event_log.sv", "ibcc_fill_reduce.sv"};


}  // namespace

std::string include_closure(const fs::path& first, const std::vector<fs::path>& dirs) {
  std::vector<fs::path> todo = {first};
  std::vector<std::string> seen;
  std::string text;
  while (!todo.empty()) {
    const fs::path p = todo.back();
    todo.pop_back();
    const std::string canon = fs::weakly_canonical(p).string();
    if (std::find(seen.begin(), seen.end(), canon) != seen.end()) continue;
    seen.push_back(canon);
    const std::string body = slurp(p);
    text += canon + "\n" + body;
    std::istringstream lines(body);
    std::string line;
    while (std::getline(lines, line)) {
      const auto at = line.find("#include \"");
      if (at == std::string::npos || line.find_first_not_of(" \t") != at) continue;
      const auto begin = at + 10, end = line.find('"', begin);
      if (end == std::string::npos) continue;
      const std::string name = line.substr(begin, end - begin);
      for (const fs::path& d : dirs) {
        if (fs::exists(d / name)) {
          todo.push_back(d / name);
          break;
        }
      }
    }
  }
  return text;
}

// How each block is Verilated (part of the cache key): every signal traced, arrays included,
// as the co-simulation's build does.
constexpr const char* kVerilatorFlags =
    "--cc --trace-fst --trace-max-array 1024 --trace-max-width 1024 -O3 --x-assign fast --x-initial fast "
    "-Wno-fatal -Wno-lint -Wno-style";

RtlLoop::RtlLoop(RtlLoopConfig config) : config_(std::move(config)) {}

RtlLoop::~RtlLoop() {
  for (auto& [path, handle] : libraries_) {
    if (handle) dlclose(handle);
  }
}

void* RtlLoop::load(const std::string& top, const std::string& params_key,
                    const std::string& defines, const std::string& generics, const std::string& description) {
  const fs::path rtl(config_.rtl_dir);
  std::vector<fs::path> sources = {rtl / (top + "_reg_pkg.sv"), rtl / (top + "_reg_top.sv")};
  for (const char* f : kCommonRtl) sources.push_back(rtl / f);
  sources.push_back(rtl / (top + ".sv"));
  const fs::path engine = fs::path(config_.engine_dir) / (top + "_loop.cpp");
  const fs::path iface = fs::path(config_.model_dir) / "net" / "fabric" / "rtl_engine.h";
  const fs::path driver = fs::path(config_.engine_dir) / "loop_driver.h";

  const std::string verilator = first_line("verilator --version");
  if (verilator.empty()) throw RtlLoopError("--rtl needs verilator (Debian package verilator; scripts/bootstrap.sh installs it)");
  const std::string compiler = first_line("c++ --version");
  std::string key_text = params_key + "\n" + kVerilatorFlags + "\n" + verilator + "\n" + compiler + "\n" + config_.variant + "\n";
  for (const auto& s : sources) key_text += slurp(s);
  // The engine and what it includes from the model and from beside it (rtl_engine.h, the
  // cores' headers, loop_driver.h), transitively.
  key_text += include_closure(engine, {fs::path(config_.engine_dir), fs::path(config_.model_dir)});
  key_text += slurp(iface) + slurp(driver);
  const std::string key = fmt::format("{}-{:016x}", top, std::hash<std::string>{}(key_text));
  const fs::path dir = fs::path(config_.cache_dir) / key;
  const fs::path so = dir / ("lib" + top + "_loop.so");

  if (!fs::exists(so)) {
    if (config_.on_build) config_.on_build(description, dir.string());
    std::error_code ec;
    fs::create_directories(config_.cache_dir, ec);
    if (ec) throw RtlLoopError(fmt::format("cannot create {}: {}", config_.cache_dir, ec.message()));
    // Built in a private directory and renamed into place: an interrupted build leaves no
    // half-made entry, and two runs building the same entry do not mix their files.
    const fs::path tmp = fs::path(config_.cache_dir) / fmt::format("{}.tmp{}", key, getpid());
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp / "obj");
    const std::string root = first_line("verilator --getenv VERILATOR_ROOT");
    std::string files;
    for (const auto& s : sources) files += " " + quote(s.string());
    const std::string cflags = "-fPIC -O2 -fvisibility=hidden";
    run(fmt::format("verilator {5} --prefix V{0} --top-module {0} {1} --Mdir {2} -CFLAGS {3}{4}",
                    top, generics, quote((tmp / "obj").string()), quote(cflags), files, kVerilatorFlags),
        tmp / "verilator.log", "verilator (" + description + ")");
    // The model's archive and Verilator's runtime objects (VK_GLOBAL_OBJS: verilated.o,
    // verilated_fst_c.o, ...), named through a makefile beside the generated one.
    {
      std::ofstream mk(tmp / "obj" / "ibcc_loop.mk");
      mk << "include V" << top << ".mk\nibcc_loop: V" << top << "__ALL.a $(VK_GLOBAL_OBJS)\n";
      if (!mk) throw RtlLoopError(fmt::format("cannot write {}", (tmp / "obj" / "ibcc_loop.mk").string()));
    }
    run(fmt::format("make -s -C {} -f ibcc_loop.mk -j{} ibcc_loop", quote((tmp / "obj").string()), config_.jobs),
        tmp / "make.log", "compiling the Verilated " + description);
    run(fmt::format("c++ -std=c++17 -shared {} -Wl,-Bsymbolic {} -I{} -I{}/include -I{}/include/vltstd -I{} {} "
                    "-o {} {}/V{}__ALL.a {}/verilated*.o -lz -lpthread",
                    cflags, defines, quote((tmp / "obj").string()), quote(root), quote(root),
                    quote(config_.model_dir) + " -I" + quote(config_.engine_dir),
                    quote(engine.string()), quote((tmp / so.filename()).string()), quote((tmp / "obj").string()), top,
                    quote((tmp / "obj").string())),
        tmp / "link.log", "linking the " + description + " engine");
    fs::remove_all(tmp / "obj", ec);
    // A directory without the object is left from a failed attempt; one with it was put in
    // place by another run building the same entry meanwhile (a rename onto a non-empty
    // directory fails): that one is used, as loaded processes may hold it.
    if (fs::exists(dir) && !fs::exists(so)) fs::remove_all(dir, ec);
    fs::rename(tmp, dir, ec);
    if (ec) {
      std::error_code ignored;
      fs::remove_all(tmp, ignored);
      if (!fs::exists(so)) {
        throw RtlLoopError(fmt::format("cannot move {} to {}: {}", tmp.string(), dir.string(), ec.message()));
      }
    }
  }
  built_[description] = so.string();
  auto it = libraries_.find(so.string());
  if (it != libraries_.end()) return it->second;
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw RtlLoopError(fmt::format("cannot load {}: {}", so.string(), dlerror()));
  libraries_[so.string()] = handle;
  return handle;
}

std::unique_ptr<RtlMarkerEngine> RtlLoop::marker(const cc::FecnMarkerParams& p) {
  const std::string generics = fmt::format("-GNumInputs={} -GNumVls={} -GFillWidth={} -GPortNum={} -GTickCycles={}",
                                           p.num_inputs, p.num_vls, p.fill_width, p.port_num, p.tick_cycles);
  const std::string defines =
      fmt::format("-DIBCC_LOOP_INPUTS={} -DIBCC_LOOP_VLS={} -DIBCC_LOOP_FILL_WIDTH={} -DIBCC_LOOP_TICK_CYCLES={}",
                  p.num_inputs, p.num_vls, p.fill_width, p.tick_cycles);
  const std::string description = fmt::format("fecn_marker {} inputs, {} VLs, port {}", p.num_inputs, p.num_vls, p.port_num);
  void* handle = load("fecn_marker", generics + " " + defines, defines, generics, description);
  using Factory = RtlMarkerEngine* (*)();
  auto make = reinterpret_cast<Factory>(dlsym(handle, "ibcc_rtl_marker_new"));
  if (!make) throw RtlLoopError("the FECN marker engine has no ibcc_rtl_marker_new");
  return std::unique_ptr<RtlMarkerEngine>(make());
}

std::unique_ptr<RtlCctiEngine> RtlLoop::ccti(const cc::CctiBlockParams& p) {
  const std::string generics =
      fmt::format("-GNumQps={} -GCctEntries={} -GTickCycles={}", p.num_qps, p.cct_entries, p.tick_cycles);
  const std::string defines = fmt::format("-DIBCC_LOOP_QPS={}u -DIBCC_LOOP_TICK_CYCLES={}", p.num_qps, p.tick_cycles);
  const std::string description = fmt::format("ccti_block {} QPs, {} CCT entries", p.num_qps, p.cct_entries);
  void* handle = load("ccti_block", generics + " " + defines, defines, generics, description);
  using Factory = RtlCctiEngine* (*)();
  auto make = reinterpret_cast<Factory>(dlsym(handle, "ibcc_rtl_ccti_new"));
  if (!make) throw RtlLoopError("the CCTI block engine has no ibcc_rtl_ccti_new");
  return std::unique_ptr<RtlCctiEngine>(make());
}

}  // namespace ibcc::net
