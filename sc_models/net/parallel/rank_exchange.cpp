// RankExchange over MPI (rank_exchange.h).
#include "net/parallel/rank_exchange.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace ibcc::net {

namespace {

void ok(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw RankError(fmt::format("MPI {} failed: {}", what, std::string(text, static_cast<size_t>(len))));
}

int as_count(size_t bytes, const char* what) {
  if (bytes > static_cast<size_t>(INT_MAX)) {
    throw RankError(fmt::format("MPI {}: {} bytes at once, more than one call carries ({})", what, bytes, INT_MAX));
  }
  return static_cast<int>(bytes);
}

}  // namespace

void RankExchange::start(int* argc, char*** argv) {
  if (started()) return;
  int provided = 0;
  ok(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "init");
  if (provided < MPI_THREAD_SERIALIZED) {
    throw RankError("the MPI library cannot be called from more than one thread (MPI_THREAD_SERIALIZED not provided)");
  }
  // Errors come back as codes (RankError), not as an abort of every process.
  ok(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "set error handler");
}

void RankExchange::finish() {
  int done = 0;
  MPI_Finalized(&done);
  if (started() && !done) MPI_Finalize();
}

bool RankExchange::launched() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* v = std::getenv(name);
    if (v && std::strtoul(v, nullptr, 10) > 1) return true;
  }
  // (srun --mpi=pmix gives its tasks a PMIx rank and no size variable.)
  return std::getenv("PMIX_RANK") != nullptr;
}

bool RankExchange::started() {
  int flag = 0;
  MPI_Initialized(&flag);
  return flag != 0;
}

std::string RankExchange::library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<size_t>(len));
  // The first line names it (Open MPI's goes on with its build).
  if (const size_t eol = s.find_first_of(",\n"); eol != std::string::npos) s.resize(eol);
  return s;
}

RankExchange::RankExchange() {
  if (!started()) throw RankError("MPI is not started (RankExchange::start)");
  int r = 0, n = 0;
  ok(MPI_Comm_rank(MPI_COMM_WORLD, &r), "rank");
  ok(MPI_Comm_size(MPI_COMM_WORLD, &n), "size");
  rank_ = static_cast<unsigned>(r);
  ranks_ = static_cast<unsigned>(n);
  send_counts_.assign(ranks_, 0);
  recv_counts_.assign(ranks_, 0);
  send_offsets_.assign(ranks_, 0);
  recv_offsets_.assign(ranks_, 0);
}

std::vector<WireMessage> RankExchange::exchange(const std::vector<std::vector<WireMessage>>& out) {
  if (out.size() != ranks_) throw RankError(fmt::format("exchange: {} outboxes for {} ranks", out.size(), ranks_));
  if (!out[rank_].empty()) throw RankError(fmt::format("exchange: rank {} sends {} messages to itself", rank_, out[rank_].size()));
  size_t total = 0;
  for (unsigned r = 0; r < ranks_; ++r) {
    send_offsets_[r] = as_count(total, "exchange");
    send_counts_[r] = as_count(out[r].size() * sizeof(WireMessage), "exchange");
    total += out[r].size() * sizeof(WireMessage);
  }
  send_bytes_.resize(total);
  for (unsigned r = 0; r < ranks_; ++r) {
    if (!out[r].empty()) std::memcpy(send_bytes_.data() + send_offsets_[r], out[r].data(), out[r].size() * sizeof(WireMessage));
  }
  ok(MPI_Alltoall(send_counts_.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT, MPI_COMM_WORLD), "all-to-all of counts");
  size_t in = 0;
  for (unsigned r = 0; r < ranks_; ++r) {
    recv_offsets_[r] = as_count(in, "exchange");
    in += static_cast<size_t>(recv_counts_[r]);
  }
  if (in % sizeof(WireMessage)) throw RankError(fmt::format("exchange: {} bytes received, not whole messages", in));
  std::vector<WireMessage> got(in / sizeof(WireMessage));
  ok(MPI_Alltoallv(send_bytes_.data(), send_counts_.data(), send_offsets_.data(), MPI_BYTE, got.data(),
                   recv_counts_.data(), recv_offsets_.data(), MPI_BYTE, MPI_COMM_WORLD),
     "all-to-all of messages");
  return got;
}

uint64_t RankExchange::min(uint64_t mine) {
  uint64_t all = 0;
  ok(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD), "all-reduce (min)");
  return all;
}

uint64_t RankExchange::sum(uint64_t mine) {
  uint64_t all = 0;
  ok(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "all-reduce (sum)");
  return all;
}

bool RankExchange::any(bool mine) {
  int v = mine ? 1 : 0, all = 0;
  ok(MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "all-reduce (or)");
  return all != 0;
}

std::vector<uint8_t> RankExchange::gather(const std::vector<uint8_t>& mine, std::vector<size_t>* offsets) {
  int count = as_count(mine.size(), "gather");
  ok(MPI_Gather(&count, 1, MPI_INT, recv_counts_.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "gather of sizes");
  std::vector<uint8_t> all;
  if (rank_ == 0) {
    size_t total = 0;
    for (unsigned r = 0; r < ranks_; ++r) {
      recv_offsets_[r] = as_count(total, "gather");
      total += static_cast<size_t>(recv_counts_[r]);
    }
    all.resize(total);
    if (offsets) {
      offsets->assign(recv_offsets_.begin(), recv_offsets_.end());
      offsets->push_back(total);
    }
  } else if (offsets) {
    offsets->clear();
  }
  ok(MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), recv_counts_.data(), recv_offsets_.data(), MPI_BYTE, 0,
                 MPI_COMM_WORLD),
     "gather");
  return all;
}

std::vector<uint8_t> RankExchange::broadcast(std::vector<uint8_t> bytes) {
  uint64_t size = bytes.size();
  ok(MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "broadcast of the size");
  bytes.resize(size);
  ok(MPI_Bcast(bytes.data(), as_count(size, "broadcast"), MPI_BYTE, 0, MPI_COMM_WORLD), "broadcast");
  return bytes;
}

void RankExchange::barrier() { ok(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }

}  // namespace ibcc::net
