// Functional coverage bins.
#include "tb/coverage.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ibcc::tb {

uint64_t* Coverage::counter(const char* bin) {
  auto cached = by_address_.find(bin);
  if (cached != by_address_.end()) return cached->second;
  auto it = bins_.find(bin);
  if (it == bins_.end()) throw std::logic_error("coverage bin not declared: " + std::string(bin));
  by_address_.emplace(bin, &it->second.count);
  return &it->second.count;
}

std::vector<std::string> Coverage::missed() const {
  std::vector<std::string> out;
  for (const auto& name : order_) {
    if (bins_.at(name).count == 0) out.push_back(name);
  }
  return out;
}

void Coverage::report(std::ostream& os) const {
  size_t hit = 0;
  for (const auto& name : order_) hit += bins_.at(name).count != 0;
  os << fmt::format("functional coverage: {}/{} bins hit\n", hit, order_.size());
  for (const auto& name : order_) {
    const Bin& b = bins_.at(name);
    os << fmt::format("  {:<28} {:>12}  {}{}\n", name, b.count, b.what, b.count ? "" : "   <-- MISSED");
  }
}

std::string Coverage::json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& name : order_) j[name] = bins_.at(name).count;
  return j.dump(2);
}

}  // namespace ibcc::tb
