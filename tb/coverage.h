// Functional coverage: named bins declared up front (verif/testplan.md lists them), counted
// during co-simulation, reported at the end; a bin left at zero fails a regression.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ibcc::tb {

class Coverage {
 public:
  void declare(const std::string& bin, const std::string& what) {
    bins_.emplace(bin, Bin{what, 0});
    order_.push_back(bin);
  }
  // Counting an undeclared bin is a testbench bug: it throws. Cheap when cond is false.
  void hit(std::string_view bin, bool cond = true) {
    if (cond) count(bin);
  }

  std::vector<std::string> missed() const;
  void report(std::ostream& os) const;
  std::string json() const;

 private:
  void count(std::string_view bin);

  struct Bin {
    std::string what;
    uint64_t count;
  };
  std::map<std::string, Bin, std::less<>> bins_;
  std::vector<std::string> order_;
};

}  // namespace ibcc::tb
