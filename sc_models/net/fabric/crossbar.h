// A switch's crossbar: each input port's read side, shared by the outputs sending from it
// (each takes its own link's rate) up to the input's capacity (fabric.switch.crossbar_speedup
// times the input's link rate), and, per output, the inputs whose read side one of its heads
// waits for (bitmaps: an output looks again when such an input falls free). Ports 1..N.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ibcc::net {

class Crossbar {
 public:
  explicit Crossbar(unsigned ports)
      : in_(ports + 1), words_((ports + 64) / 64), waiting_(words_, 0), inputs_((ports + 1) * words_, 0) {}

  void set_capacity(unsigned input, double bytes_per_cycle) { in_[input].capacity = bytes_per_cycle; }
  // May an output sending at `rate` bytes/cycle read from `input` now? (An idle input always
  // serves one.)
  bool fits(unsigned input, double rate) const {
    const In& i = in_[input];
    return !(i.active > 0 && i.active + rate > i.capacity + 1e-9);
  }
  // An output starts (stops) reading from `input` at `rate`.
  void connect(unsigned input, double rate) { in_[input].active += rate; }
  void disconnect(unsigned input, double rate) {
    In& i = in_[input];
    i.active -= rate;
    if (i.active < 1e-9) i.active = 0;
  }
  double active(unsigned input) const { return in_[input].active; }

  // A head for output `o` waits for input `ip`'s read side.
  void note_wait(unsigned o, unsigned ip) {
    waiting_[o / 64] |= uint64_t{1} << (o % 64);
    inputs_[o * words_ + ip / 64] |= uint64_t{1} << (ip % 64);
  }
  // Output `o` arbitrates afresh: its waits are forgotten.
  void clear_waits(unsigned o) {
    uint64_t& w = waiting_[o / 64];
    if (!(w & (uint64_t{1} << (o % 64)))) return;
    w &= ~(uint64_t{1} << (o % 64));
    std::fill_n(&inputs_[o * words_], words_, 0);
  }
  bool waits_for(unsigned o, unsigned ip) const { return (inputs_[o * words_ + ip / 64] >> (ip % 64)) & 1u; }
  // Calls f(o) for each output with a head waiting for some input, in port order.
  template <typename F>
  void for_each_waiting(F&& f) const {
    for (size_t w = 0; w < words_; ++w) {
      for (uint64_t bits = waiting_[w]; bits; bits &= bits - 1) f(static_cast<unsigned>(w * 64 + __builtin_ctzll(bits)));
    }
  }

 private:
  struct In {
    double capacity = 0;  // bytes/cycle
    double active = 0;    // the rates of the outputs reading from it now
  };
  std::vector<In> in_;  // [input]
  size_t words_;
  std::vector<uint64_t> waiting_;  // bit o: a head for output o waits for some input's read side
  std::vector<uint64_t> inputs_;   // [o][word] bit ip: ... for input ip's
};

}  // namespace ibcc::net
