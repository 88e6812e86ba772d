// What this machine's memory answers: the time of a load that misses, by working-set size,
// and how many misses overlap (docs/benchmarks.md, "Memory of this VM"). The network model
// under uniform load is bound by such loads, so this says what a cache line less per event
// is worth, and whether asking for lines early (prefetching) could hide them.
//
// Each chain walks a random cyclic permutation of 64-byte lines in transparent huge pages
// (so that the TLB is out of the way, as for ibcc, sc_models/common/heap_pages.h); with N
// chains walked in turn, N independent misses may be in flight at once.
//
//   ibcc_memory_probe [steps]     (default 4000000 loads per measurement)
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace {

struct alignas(64) Line {
  Line* next;
};

// Nanoseconds per load with `chains` chains over `bytes` of lines, `steps` loads in all.
double probe(size_t bytes, unsigned chains, uint64_t steps) {
  const size_t n = bytes / sizeof(Line);
  constexpr size_t kHuge = size_t{2} << 20;
  void* mem = std::aligned_alloc(kHuge, (n * sizeof(Line) + kHuge - 1) / kHuge * kHuge);
  if (!mem) {
    std::fprintf(stderr, "ibcc_memory_probe: cannot allocate %zu bytes\n", bytes);
    std::exit(1);
  }
  madvise(mem, n * sizeof(Line), MADV_HUGEPAGE);  // (a hint: 4 KiB pages if refused)
  Line* lines = static_cast<Line*>(mem);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
  for (size_t i = 0; i < n; ++i) lines[order[i]].next = &lines[order[(i + 1) % n]];
  std::vector<Line*> at(chains);
  for (unsigned c = 0; c < chains; ++c) at[c] = &lines[order[c * n / chains]];
  const uint64_t rounds = steps / chains;
  for (uint64_t r = 0; r < std::min<uint64_t>(rounds, n); ++r) {  // warm the pages and caches
    for (unsigned c = 0; c < chains; ++c) at[c] = at[c]->next;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t r = 0; r < rounds; ++r) {
    for (unsigned c = 0; c < chains; ++c) at[c] = at[c]->next;
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  uintptr_t sink = 0;
  for (Line* p : at) sink ^= reinterpret_cast<uintptr_t>(p);
  if (sink == 1) std::puts("");  // (keeps the walk)
  std::free(mem);
  return ns / static_cast<double>(rounds * chains);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t steps = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000000;
  if (steps == 0) {
    std::fprintf(stderr, "usage: ibcc_memory_probe [loads per measurement, > 0]\n");
    return 2;
  }
  std::printf("memory probe: ns per dependent load (one chain), random 64-byte lines in huge pages\n");
  std::printf("%10s %12s\n", "working set", "ns per load");
  for (size_t mb : {1, 2, 4, 8, 16, 64, 256}) {
    std::printf("%8zu MB %12.1f\n", mb, probe(mb << 20, 1, steps));
  }
  std::printf("\n64 MB, independent chains walked in turn: ns per load (misses in flight overlap)\n");
  std::printf("%10s %12s %14s\n", "chains", "ns per load", "x one chain");
  const double one = probe(size_t{64} << 20, 1, steps);
  for (unsigned c : {1u, 2u, 4u, 8u, 16u, 32u}) {
    const double t = c == 1 ? one : probe(size_t{64} << 20, c, steps);
    std::printf("%10u %12.1f %14.1f\n", c, t, one / t);
  }
  return 0;
}
