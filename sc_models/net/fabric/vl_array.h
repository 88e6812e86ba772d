// Per-VL state of a port, inside the port: at most 15 data VLs (fabric.vls), so a port's
// VLs lie next to its other fields instead of behind a pointer on the heap (one cache miss
// less each time a hop reads or writes them).
#pragma once

#include "common/fixed_vec.h"

namespace ibcc::net {

inline constexpr unsigned kMaxVls = 15;  // (the FECN marker's NumVls limit, cc::FecnMarker::kMaxVls)

template <typename T>
using VlArray = FixedVec<T, kMaxVls>;

}  // namespace ibcc::net
