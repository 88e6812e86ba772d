// Transparent huge pages for the heap (Linux, glibc).
//
// A large fabric's state (packets, VoQs, ports, CC blocks, the event pool) spans tens of MB
// to GBs and each event reaches a node no event touched for a while. With 4 KiB pages most
// such reaches miss the TLB as well as the cache, and the page walk is itself a miss; 2 MiB
// pages make the walks rare (docs/benchmarks.md measures it on the 648-host uniform load).
#pragma once

#include <cstddef>
#include <string>

namespace ibcc {

// What advise_heap_huge_pages() did.
struct HeapPages {
  bool advised = false;     // the heap's untouched reserve is marked MADV_HUGEPAGE
  size_t advised_bytes = 0; // how much, by all calls so far (address space: a page costs memory
                            // when first written)
  std::string why_not;      // if not advised: why (THP off, the kernel refused, ...)
};

// Asks the kernel for transparent huge pages for what the process allocates from here on.
// glibc's heap then grows in steps of at least `reserve` bytes (address space only), blocks
// up to 32 MiB come from it rather than from their own mappings, freed memory stays in it,
// and the part of it not yet touched is madvise(MADV_HUGEPAGE)d. Pages already touched keep
// their size. Call it early (before the model is built) and again after a large build: each
// call covers the heap's growth since the last. Changes nothing about what the program
// computes; with THP set to "never" it only reports why it could not.
HeapPages advise_heap_huge_pages(size_t reserve = size_t{1} << 30);

}  // namespace ibcc
