// The DCQCN notification point (dcqcn_np.h).
#include "cc/dcqcn_np.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ibcc::cc {

void DcqcnNpParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("dcqcn_np: " + what); };
  if (variant == DcqcnVariant::kPlus && active_window_cycles == 0) fail("DCQCN+ needs an active window above 0");
}

DcqcnNp::DcqcnNp(const DcqcnNpParams& params) : params_(params) { params_.validate(); }

void DcqcnNp::expire(uint64_t cycle) {
  while (!expiries_.empty() && expiries_.top().first <= cycle) {
    const auto [until, flow] = expiries_.top();
    expiries_.pop();
    if (active_until_[flow] == until) --active_;  // its last request: the flow leaves N
  }
}

unsigned DcqcnNp::active_flows(uint64_t cycle) {
  expire(cycle);
  return active_;
}

uint64_t DcqcnNp::interval(uint64_t cycle) {
  if (params_.variant != DcqcnVariant::kPlus) return params_.min_interval_cycles;
  const uint64_t n = std::max<uint64_t>(1, active_flows(cycle));
  return std::max(params_.min_interval_cycles, n * params_.gen_cycles);
}

void DcqcnNp::marked(unsigned flow, uint64_t cycle) {
  if (flow >= last_cnp_.size()) {
    last_cnp_.resize(flow + 1, kNever);
    active_until_.resize(flow + 1, 0);
    waiting_.resize(flow + 1, false);
  }
  ++counters_.requests;
  if (params_.variant == DcqcnVariant::kPlus) {
    expire(cycle);
    if (active_until_[flow] <= cycle) ++active_;  // joins N
    active_until_[flow] = cycle + params_.active_window_cycles;
    expiries_.emplace(active_until_[flow], flow);
  }
  if (waiting_[flow]) {
    ++counters_.already_waiting;
    return;
  }
  if (last_cnp_[flow] != kNever && cycle - last_cnp_[flow] < interval(cycle)) {
    ++counters_.too_soon;
    return;
  }
  waiting_[flow] = true;
  queue_.push_back(flow);
  counters_.max_waiting = std::max<uint64_t>(counters_.max_waiting, queue_.size());
}

uint64_t DcqcnNp::next_due() const { return queue_.empty() ? kNever : generator_free_; }

bool DcqcnNp::pop(uint64_t cycle, Cnp* cnp) {
  if (queue_.empty() || cycle < generator_free_) return false;
  const unsigned flow = queue_.front();
  queue_.pop_front();
  waiting_[flow] = false;
  generator_free_ = cycle + params_.gen_cycles;
  last_cnp_[flow] = cycle;
  ++counters_.sent;
  cnp->flow = flow;
  cnp->interval_cycles = interval(cycle);
  return true;
}

}  // namespace ibcc::cc
