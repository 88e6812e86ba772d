// RankExchange under an MPI launcher: `mpirun -n N ibcc_rank_exchange_check N`. Every rank
// checks what it receives against what each sender must have sent (built from the sender's
// rank, the receiver's and the round), byte for byte; the ranks' verdicts are reduced, so
// every rank exits 1 when any check failed anywhere (and says which, on its own stderr).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "net/parallel/rank_exchange.h"

using ibcc::net::RankError;
using ibcc::net::RankExchange;
using ibcc::net::WireMessage;

namespace {

int failures = 0;
unsigned me = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %u: FAIL: %s\n", me, what.c_str());
  }
}

// How many messages rank `from` sends rank `to` in round `round` (none to itself; some
// rounds none at all, some thousands).
size_t count(unsigned from, unsigned to, unsigned round) {
  if (from == to) return 0;
  switch (round % 4) {
    case 0: return 0;
    case 1: return 1 + from;
    case 2: return (from + 2 * to + 1) * 1500;
    default: return from == 0 ? 7 : 0;
  }
}

// Message `i` of that round: every byte fixed by (from, to, round, i), the packet's fields
// included (a pattern over their bytes).
WireMessage message(unsigned from, unsigned to, unsigned round, size_t i) {
  WireMessage m;
  std::memset(static_cast<void*>(&m), 0, sizeof m);  // (padding too: the bytes are compared whole)
  const uint64_t seed = (uint64_t{from} << 48) ^ (uint64_t{to} << 40) ^ (uint64_t{round} << 32) ^ i;
  m.at = seed * 0x9E3779B97F4A7C15ULL;
  m.sent = seed;
  m.node = static_cast<uint32_t>(i * 7 + from);
  m.port = to;
  m.vl = round;
  m.credits = static_cast<uint32_t>(i);
  m.pfc = static_cast<uint32_t>(i % 3);
  m.data_length = static_cast<uint32_t>(2048 + i % 64);
  m.head = (i % 2) == 0;
  m.command = static_cast<uint8_t>(i % 2);
  unsigned char* p = reinterpret_cast<unsigned char*>(&m.packet);
  for (size_t b = 0; b < sizeof m.packet; ++b) p[b] = static_cast<unsigned char>(seed * 31 + b);
  return m;
}

}  // namespace

// (SystemC's main calls it: the wire message's packet fields come with TLM-2.0's headers.)
int sc_main(int argc, char** argv) {
  try {
    RankExchange::start(&argc, &argv);
    RankExchange x;
    me = x.rank();
    const unsigned n = x.ranks();
    const unsigned expected = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 0;
    // (A launcher whose processes each started alone would give ranks of one.)
    check(n == expected, "ranks " + std::to_string(n) + ", launched " + std::to_string(expected));
    check(!RankExchange::library().empty(), "the MPI library names itself");

    for (unsigned round = 0; round < 8; ++round) {
      std::vector<std::vector<WireMessage>> out(n);
      for (unsigned to = 0; to < n; ++to) {
        for (size_t i = 0; i < count(me, to, round); ++i) out[to].push_back(message(me, to, round, i));
      }
      const std::vector<WireMessage> got = x.exchange(out);
      size_t at = 0, want = 0;
      for (unsigned from = 0; from < n; ++from) want += count(from, me, round);
      check(got.size() == want, "round " + std::to_string(round) + ": " + std::to_string(got.size()) +
                                    " messages received, " + std::to_string(want) + " sent to this rank");
      for (unsigned from = 0; from < n && got.size() == want; ++from) {
        for (size_t i = 0; i < count(from, me, round); ++i, ++at) {
          const WireMessage m = message(from, me, round, i);
          if (std::memcmp(&m, &got[at], sizeof m) != 0) {
            check(false, "round " + std::to_string(round) + ": message " + std::to_string(i) + " from rank " +
                             std::to_string(from) + " not the bytes sent");
            break;
          }
        }
      }
    }
    check(x.min(100 + me) == 100, "min over ranks");
    check(x.sum(me + 1) == uint64_t{n} * (n + 1) / 2, "sum over ranks");
    check(x.any(me + 1 == n) && !x.any(false), "any over ranks");

    std::vector<size_t> offsets;
    const std::vector<uint8_t> all = x.gather(std::vector<uint8_t>(me + 1, static_cast<uint8_t>(me)), &offsets);
    if (me == 0) {
      bool ok = offsets.size() == n + 1 && all.size() == size_t{n} * (n + 1) / 2;
      for (unsigned r = 0; ok && r < n; ++r) {
        ok = offsets[r + 1] - offsets[r] == r + 1;
        for (size_t b = offsets[r]; ok && b < offsets[r + 1]; ++b) ok = all[b] == r;
      }
      check(ok, "gather at rank 0: each rank's bytes in rank order");
    } else {
      check(all.empty() && offsets.empty(), "gather: nothing at the other ranks");
    }
    const std::vector<uint8_t> b = x.broadcast(me == 0 ? std::vector<uint8_t>{1, 2, 3} : std::vector<uint8_t>{9});
    check(b == std::vector<uint8_t>({1, 2, 3}), "broadcast of rank 0's bytes");

    // Refused before any message moves (on every rank alike, so none waits for another).
    bool refused = false;
    try {
      x.exchange(std::vector<std::vector<WireMessage>>(n + 1));
    } catch (const RankError&) {
      refused = true;
    }
    check(refused, "outboxes for more ranks than there are: RankError");

    const bool any_failed = x.any(failures != 0);
    if (me == 0) std::printf("%u ranks (%s): %s\n", n, RankExchange::library().c_str(), any_failed ? "FAILED" : "all checks pass");
    RankExchange::finish();
    return any_failed ? 1 : 0;
  } catch (const RankError& e) {
    std::fprintf(stderr, "rank %u: %s\n", me, e.what());
    return 1;
  }
}
