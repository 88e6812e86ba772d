// RTL in the loop: Verilates a CC block for the parameters one instance in the network needs,
// compiles it with its engine (rtl_loop/<block>_loop.cpp) into a shared object, and loads
// it. Each parameter set is built once and kept in a cache directory keyed by a hash of the
// RTL sources, the engine source, the parameters and the tools, so a second run starts at
// once. Errors (no verilator, a failed build, a missing symbol) are RtlLoopError.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cc/ccti_block.h"
#include "cc/fecn_marker.h"
#include "net/fabric/rtl_engine.h"

namespace ibcc::net {

class RtlLoopError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RtlLoopConfig {
  std::string rtl_dir;     // the RTL sources (rtl/*.sv; a mutant binary's own copy)
  std::string engine_dir;  // rtl_loop/ of the source tree
  std::string model_dir;   // sc_models/ of the source tree (the engines include net/rtl_engine.h)
  std::string cache_dir;   // where the built objects are kept
  std::string variant;     // "rtl" or the mutant's name, part of the cache key
  unsigned jobs = 2;
  // Told before a block is Verilated and compiled (not when its library is in the cache):
  // what is built, and where it will be kept. A minute or two; the caller says so.
  std::function<void(const std::string& what, const std::string& where)> on_build;
};

// The text of `first` and of every file it includes with #include "..." found in one of
// `dirs`, transitively, each once: what a library compiled from it was compiled against.
// Part of an engine's cache key: the engine shares structs such as FecnMarkerInputs with the
// model, and a change to their layout must make a new entry, not load a stale library that
// reads them wrong. Throws RtlLoopError if a file cannot be read.
std::string include_closure(const std::filesystem::path& first, const std::vector<std::filesystem::path>& dirs);

class RtlLoop {
 public:
  explicit RtlLoop(RtlLoopConfig config);
  ~RtlLoop();
  RtlLoop(const RtlLoop&) = delete;
  RtlLoop& operator=(const RtlLoop&) = delete;

  // A fresh, reset FECN marker for these parameters (built on first use).
  std::unique_ptr<RtlMarkerEngine> marker(const cc::FecnMarkerParams& params);
  // A fresh, reset CCTI block for these parameters (built on first use).
  std::unique_ptr<RtlCctiEngine> ccti(const cc::CctiBlockParams& params);
  // What was built or reused, for the run's provenance and the user.
  const std::map<std::string, std::string>& built() const { return built_; }
  const RtlLoopConfig& config() const { return config_; }

 private:
  RtlLoopConfig config_;
  std::map<std::string, void*> libraries_;  // shared object path -> dlopen handle
  std::map<std::string, std::string> built_;  // description -> shared object path
  void* load(const std::string& top, const std::string& params_key,
             const std::string& defines, const std::string& generics, const std::string& description);
};

}  // namespace ibcc::net
