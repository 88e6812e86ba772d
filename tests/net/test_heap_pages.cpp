// advise_heap_huge_pages (common/heap_pages.h): after it, what the process allocates lies in
// a mapping the kernel may back with transparent huge pages, as /proc/self/smaps tells.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/heap_pages.h"

namespace {

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  const size_t a = line.find('['), b = line.find(']');
  return a != std::string::npos && b != std::string::npos ? line.substr(a + 1, b - a - 1) : "";
}

// The "THPeligible" value of the mapping that holds `p` (-1: not found).
int thp_eligible(const void* p) {
  std::ifstream f("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(f, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::atoi(line.c_str() + 12);
  }
  return -1;
}

TEST(HeapPages, WhatIsAllocatedAfterwardsMayUseHugePages) {
  const std::string mode = thp_mode();
  const size_t freed = mallinfo2().fordblks;  // free memory a block may reuse (not advised)
  const ibcc::HeapPages r = ibcc::advise_heap_huge_pages(size_t{256} << 20);
#if defined(__SANITIZE_ADDRESS__)
  const bool own_allocator = true;  // ASan's malloc (verif/cli/sanitize.sh) has no heap to advise
#else
  const bool own_allocator = false;
#endif
  if (mode.empty() || mode == "never" || own_allocator) {
    EXPECT_FALSE(r.advised);
    EXPECT_FALSE(r.why_not.empty()) << "a refusal says why";
    return;  // (nothing more to check where the kernel gives no huge pages)
  }
  ASSERT_TRUE(r.advised) << r.why_not;
  EXPECT_GE(r.advised_bytes, size_t{32} << 20);
  // Blocks of the sizes the model allocates (packets, a VoQ array, the event pool) come
  // from the advised heap, not from mappings of their own, once the memory freed before the
  // call (which a block may reuse) is used up: that much and 16 MiB more of each size.
  for (size_t bytes : {size_t{256}, size_t{128} << 10, size_t{8} << 20}) {
    std::vector<char*> blocks;
    for (size_t total = 0; total < freed + (size_t{16} << 20); total += bytes) {
      blocks.push_back(static_cast<char*>(std::malloc(bytes)));
      ASSERT_NE(blocks.back(), nullptr);
      std::memset(blocks.back(), 1, bytes);
    }
    EXPECT_EQ(thp_eligible(blocks.back() + bytes / 2), 1) << bytes << "-byte block";
    for (char* p : blocks) std::free(p);
  }
  // A second call covers what the heap grew by since; it still reports the first.
  const ibcc::HeapPages again = ibcc::advise_heap_huge_pages(size_t{256} << 20);
  EXPECT_TRUE(again.advised) << again.why_not;
  EXPECT_GE(again.advised_bytes, r.advised_bytes);
}

}  // namespace
