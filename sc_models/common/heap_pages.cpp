// Transparent huge pages for the heap: see heap_pages.h.
#include "common/heap_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace ibcc {

namespace {

constexpr uintptr_t kHuge = uintptr_t{2} << 20;

// The THP mode in /sys ("always", "madvise" or "never"), or "" if the kernel has none.
std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "";
  const size_t a = line.find('['), b = line.find(']');
  return a != std::string::npos && b != std::string::npos && b > a ? line.substr(a + 1, b - a - 1) : "";
}

uintptr_t advised_end = 0;    // the heap below this is advised (or was touched before)
size_t advised_total = 0;     // bytes advised by all calls

}  // namespace

HeapPages advise_heap_huge_pages(size_t reserve) {
  HeapPages r;
  const std::string mode = thp_mode();
  if (mode.empty() || mode == "never") {
    r.why_not = mode.empty() ? "the kernel has no transparent huge pages" : "transparent huge pages are off (never)";
    return r;
  }
  if (reserve > static_cast<size_t>(INT_MAX)) reserve = static_cast<size_t>(INT_MAX);
  // Grow the heap in large steps, keep what is freed, and serve blocks up to glibc's largest
  // mmap threshold from it (else each would be its own mapping, outside the advised range).
  if (!mallopt(M_TOP_PAD, static_cast<int>(reserve)) || !mallopt(M_TRIM_THRESHOLD, INT_MAX) ||
      !mallopt(M_MMAP_THRESHOLD, 32 << 20)) {
    r.why_not = "malloc refused the heap settings";
    return r;
  }
  // A block larger than the free top of the heap makes it grow by the block and the reserve.
  void* probe = std::malloc(size_t{4} << 20);
  if (!probe) {
    r.why_not = "no memory for the heap's reserve";
    return r;
  }
  const uintptr_t from = reinterpret_cast<uintptr_t>(probe);
  std::free(probe);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(page - 1);
  if (from >= end) {  // not below the program break: malloc is not glibc's (a sanitizer's?)
    r.why_not = "malloc does not allocate from the program's heap (another allocator)";
    return r;
  }
  uintptr_t start = (std::max(from, advised_end) + kHuge - 1) & ~(kHuge - 1);
  if (end <= start) {  // nothing new since the last call
    r.advised = advised_total > 0;
    r.advised_bytes = advised_total;
    if (!r.advised) r.why_not = "the heap has no untouched reserve to advise";
    return r;
  }
  if (madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE) != 0) {
    r.why_not = std::string("madvise(MADV_HUGEPAGE) failed: ") + std::strerror(errno);
    return r;
  }
  advised_end = end;
  advised_total += end - start;
  r.advised = true;
  r.advised_bytes = advised_total;
  return r;
}

}  // namespace ibcc
