// Functional coverage: named bins declared up front (verif/testplan.md lists them), counted
// during co-simulation, reported at the end; a bin left at zero fails a regression.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibcc::tb {

class Coverage {
 public:
  void declare(const std::string& bin, const std::string& what) {
    bins_.emplace(bin, Bin{what, 0});
    order_.push_back(bin);
  }
  // Counting an undeclared bin is a testbench bug: it throws. Bins are named by string
  // literals; their addresses key a cache, so a hit costs one hash of a pointer.
  void hit(const char* bin, bool cond = true) {
    if (cond) ++*counter(bin);
  }

  std::vector<std::string> missed() const;
  size_t size() const { return order_.size(); }
  void report(std::ostream& os) const;
  std::string json() const;

 private:
  uint64_t* counter(const char* bin);

  struct Bin {
    std::string what;
    uint64_t count;
  };
  std::map<std::string, Bin, std::less<>> bins_;
  std::vector<std::string> order_;
  std::unordered_map<const char*, uint64_t*> by_address_;
};

}  // namespace ibcc::tb
