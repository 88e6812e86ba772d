#include "net/fabric/vl_arbiter.h"

namespace ibcc::net {

int VlArbiter::walk(const std::vector<std::pair<unsigned, unsigned>>& table, unsigned t, unsigned num_vls,
                    uint32_t ready, bool commit) {
  const size_t size = table.size();
  if (size == 0) return -1;
  auto ok = [&](size_t i) { return table[i].second > 0 && table[i].first < num_vls && ((ready >> table[i].first) & 1u); };
  const size_t cur = entry_[t] % size;
  if (ok(cur) && left_[t] > 0) return static_cast<int>(table[cur].first);
  for (size_t k = 1; k <= size; ++k) {
    const size_t i = (cur + k) % size;
    if (!ok(i)) continue;
    if (commit) {
      entry_[t] = static_cast<unsigned>(i);
      left_[t] = static_cast<int64_t>(table[i].second) * 64;
    }
    return static_cast<int>(table[i].first);
  }
  return -1;
}

int VlArbiter::pick(const VlArbTables& t, unsigned num_vls, uint32_t ready) {
  const bool low_ready = walk(t.low, 1, num_vls, ready, false) >= 0;
  const bool high_allowed =
      !low_ready || t.high_limit == 255 || high_count_ == 0 || high_count_ < uint64_t{t.high_limit} * 4096u;
  if (high_allowed) {
    const int vl = walk(t.high, 0, num_vls, ready, true);
    if (vl >= 0) {
      from_high_ = true;
      return vl;
    }
  }
  from_high_ = false;
  return walk(t.low, 1, num_vls, ready, true);
}

void VlArbiter::sent(uint32_t bytes) {
  const unsigned t = from_high_ ? 0 : 1;
  left_[t] -= bytes;
  if (from_high_) high_count_ += bytes;
  else high_count_ = 0;
}

}  // namespace ibcc::net
