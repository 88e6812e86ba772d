// The ranks of a parallel run spread over processes (MPI): what a shard of one process sends
// to the shards of another at a barrier, and the few numbers every rank must agree on there
// (the earliest event of all, whether any rank failed or was asked to stop, the packets
// still in flight). The messages go as the bytes they are (WireMessage is trivially
// copyable): a count to every rank, then the messages, in one all-to-all each; a rank
// receives every other rank's messages for it in rank order, each rank's in the order it
// posted them, so what a shard is handed does not depend on the network's timing.
//
// One per process, made after MPI is started (RankExchange::start, with the process's
// threads calling MPI from one thread at a time: MPI_THREAD_SERIALIZED) and before any MPI
// call; MPI is finished when the process ends (RankExchange::finish). Failures of MPI
// itself are RankError. Only this file's .cpp includes mpi.h.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/parallel/wire_message.h"

namespace ibcc::net {

struct RankError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RankExchange {
 public:
  // Starts MPI for this process (once; later calls do nothing). Under an MPI launcher
  // (mpirun, srun) the ranks are its processes; alone, one rank.
  static void start(int* argc, char*** argv);
  static void finish();
  // Whether MPI has been started in this process.
  static bool started();
  // Whether an MPI launcher (mpirun, srun) started this process as one of several: its
  // environment says so (Open MPI's or PMI's size above 1, a PMIx rank).
  static bool launched();

  RankExchange();  // RankError unless started
  unsigned rank() const { return rank_; }
  unsigned ranks() const { return ranks_; }
  // The Open MPI (or other) library that carries the messages: its name and version.
  static std::string library();

  // Every rank at once: `out[r]` the messages for rank r (out.size() == ranks(); this rank's
  // own entry must be empty). Returns the messages the other ranks sent this one: rank 0's
  // first, each rank's in its order.
  std::vector<WireMessage> exchange(const std::vector<std::vector<WireMessage>>& out);
  // Every rank at once: the least, the sum, and whether any rank said true.
  uint64_t min(uint64_t mine);
  uint64_t sum(uint64_t mine);
  bool any(bool mine);
  // Every rank at once: each rank's bytes, gathered at rank 0 in rank order (empty at the
  // others), with where each rank's begin (offsets, ranks() + 1 of them, at rank 0).
  std::vector<uint8_t> gather(const std::vector<uint8_t>& mine, std::vector<size_t>* offsets);
  // Every rank at once: rank 0's bytes, at every rank.
  std::vector<uint8_t> broadcast(std::vector<uint8_t> bytes);
  void barrier();

 private:
  unsigned rank_ = 0, ranks_ = 1;
  std::vector<int> send_counts_, recv_counts_, send_offsets_, recv_offsets_;
  std::vector<uint8_t> send_bytes_;
};

}  // namespace ibcc::net
