// The host side of the board top's UART protocol (rtl/board/ibcc_board_top.sv, whose header
// lays out the words) and the blocks on a board as the co-simulation's RtlModel.
#include "tb/board_link.h"

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ibcc::tb {

namespace {

constexpr uint8_t kInfo = 'I', kWrite = 'W', kStep = 'S', kOutputs = 'O', kRefused = '?';
constexpr unsigned kInfoBytes = 16;
// The board top's protocol version (its identification's third byte, rtl/board/ibcc_board_top.sv).
constexpr unsigned kProtocol = 2;
constexpr unsigned kHeaderWords = 7;  // the bus words and the block's own 3..6
constexpr unsigned kReadTimeoutMs = 2000;

unsigned words_for(unsigned bits) { return (bits + 31) / 32; }
unsigned fecn_credit_words() { return words_for(kFecnVls * kFecnFillWidth); }

class SerialLink final : public BoardLink {
 public:
  SerialLink(const std::string& path, unsigned baud) : path_(path), baud_(baud) {
    fd_ = ::open(path.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) throw BoardError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    termios t{};
    if (tcgetattr(fd_, &t) != 0) fail("not a serial port");
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
    const speed_t speed = speed_of(baud);
    if (cfsetispeed(&t, speed) != 0 || cfsetospeed(&t, speed) != 0 || tcsetattr(fd_, TCSANOW, &t) != 0) {
      fail(fmt::format("cannot set {} baud", baud));
    }
    tcflush(fd_, TCIOFLUSH);
  }
  ~SerialLink() override { ::close(fd_); }

  void write(const std::vector<uint8_t>& bytes) override {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write failed");
      done += static_cast<size_t>(n);
    }
  }
  std::vector<uint8_t> read(size_t n) override {
    std::vector<uint8_t> got(n);
    size_t done = 0;
    while (done < n) {
      pollfd p{fd_, POLLIN, 0};
      const int r = ::poll(&p, 1, kReadTimeoutMs);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) {
        throw BoardError(fmt::format("{}: no answer within {} ms ({} of {} bytes): is the bitstream loaded, "
                                     "the baud rate {}?", path_, kReadTimeoutMs, done, n, baud_));
      }
      const ssize_t k = ::read(fd_, got.data() + done, n - done);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) fail("read failed");
      done += static_cast<size_t>(k);
    }
    return got;
  }
  std::string describe() const override { return fmt::format("{} at {} baud", path_, baud_); }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw BoardError(fmt::format("{}: {}: {}", path_, what, std::strerror(errno)));
  }
  static speed_t speed_of(unsigned baud) {
    switch (baud) {
      case 115200: return B115200;
      case 230400: return B230400;
      case 460800: return B460800;
      case 921600: return B921600;
      case 1000000: return B1000000;
      case 2000000: return B2000000;
      case 3000000: return B3000000;
      default: throw BoardError(fmt::format("baud {}: expected 115200, 230400, 460800, 921600, 1000000, "
                                            "2000000 or 3000000", baud));
    }
  }

  std::string path_;
  unsigned baud_;
  int fd_ = -1;
};

uint32_t bus_word(bool rst_n, const cc::AxiLiteIn& a) {
  return static_cast<uint32_t>(rst_n) | static_cast<uint32_t>(a.awvalid) << 1 | static_cast<uint32_t>(a.wvalid) << 2 |
         static_cast<uint32_t>(a.bready) << 3 | static_cast<uint32_t>(a.arvalid) << 4 |
         static_cast<uint32_t>(a.rready) << 5 | (a.wstrb & 0xfu) << 6 | (a.awaddr & 0xffffu) << 10;
}

void set_bus(BoardSession& s, BoardBlock b, bool rst_n, const cc::AxiLiteIn& a) {
  s.set_word(b, 0, bus_word(rst_n, a));
  s.set_word(b, 1, a.araddr & 0xffffu);
  s.set_word(b, 2, a.wdata);
}

void get_bus(const std::vector<uint32_t>& w, cc::AxiLiteOut* a) {
  a->awready = w[0] & 1u;
  a->wready = (w[0] >> 1) & 1u;
  a->bvalid = (w[0] >> 2) & 1u;
  a->bresp = (w[0] >> 3) & 3u;
  a->arready = (w[0] >> 5) & 1u;
  a->rvalid = (w[0] >> 6) & 1u;
  a->rresp = (w[0] >> 7) & 3u;
  a->rdata = w[1];
}

// Fields of `width` bits packed from bit 0 of word `first` on, as a SystemVerilog packed port.
void set_fields(BoardSession& s, unsigned first, unsigned width, const uint32_t* v, size_t n,
                std::vector<uint32_t>& scratch) {
  scratch.assign(words_for(static_cast<unsigned>(n) * width), 0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bit = i * width;
    const uint64_t field = static_cast<uint64_t>(v[i] & ((1u << width) - 1u)) << (bit % 32);
    scratch[bit / 32] |= static_cast<uint32_t>(field);
    if ((bit % 32) + width > 32) scratch[bit / 32 + 1] |= static_cast<uint32_t>(field >> 32);
  }
  for (size_t k = 0; k < scratch.size(); ++k) s.set_word(BoardBlock::kFecn, first + static_cast<unsigned>(k), scratch[k]);
}

// The RtlModel side both blocks share: reset, clock edges, no trace.
template <typename Interface, BoardBlock kBlock>
class BoardBlockModel : public Interface {
 public:
  explicit BoardBlockModel(std::shared_ptr<BoardSession> s) : s_(std::move(s)) {}
  void set_reset_n(bool rst_n) override { rst_n_ = rst_n; }
  void clock(bool level, uint64_t /*time_ps*/) override {
    if (level) s_->step(kBlock);
  }
  void open_trace(const std::string& /*fst_path*/, uint64_t /*time_ps*/) override {
    throw BoardError("waves are not recorded from a board (run without --board for the RTL's waves)");
  }
  void close_trace() override {}

 protected:
  std::shared_ptr<BoardSession> s_;
  bool rst_n_ = false;
};

class FecnOnBoard final : public BoardBlockModel<FecnRtl, BoardBlock::kFecn> {
 public:
  using BoardBlockModel::BoardBlockModel;
  void drive(const cc::FecnMarkerInputs& in) override {
    BoardSession& s = *s_;
    set_bus(s, BoardBlock::kFecn, rst_n_, in.axi);
    s.set_word(BoardBlock::kFecn, 3, (in.pkt_valid ? 1u : 0u) | (in.pkt_vl & 0xfu) << 1 | (in.pkt_sl & 0xfu) << 5 |
                                        (in.pkt_len & 0xffu) << 9);
    s.set_word(BoardBlock::kFecn, 4, (in.pkt_slid & 0xffffu) | (in.pkt_dlid & 0xffffu) << 16);
    set_fields(s, kHeaderWords, kFecnFillWidth, in.credits.data(), in.credits.size(), scratch_);
    set_fields(s, kHeaderWords + fecn_credit_words(), kFecnFillWidth, in.voq_fill.data(), in.voq_fill.size(), scratch_);
  }
  void outputs(cc::FecnMarkerOutputs* out) const override {
    const std::vector<uint32_t>& w = s_->outputs(BoardBlock::kFecn);
    get_bus(w, &out->axi);
    out->cong_state = w[2] & 0xffffu;
    out->fecn_valid = (w[2] >> 16) & 1u;
    out->fecn_mark = (w[2] >> 17) & 1u;
  }

 private:
  std::vector<uint32_t> scratch_;
};

class CctiOnBoard final : public BoardBlockModel<CctiRtl, BoardBlock::kCcti> {
 public:
  using BoardBlockModel::BoardBlockModel;
  void drive(const cc::CctiBlockInputs& in) override {
    BoardSession& s = *s_;
    set_bus(s, BoardBlock::kCcti, rst_n_, in.axi);
    s.set_word(BoardBlock::kCcti, 3, (in.becn_valid ? 1u : 0u) | (in.becn_sl & 0xfu) << 1 | (in.becn_st & 0xfu) << 5 |
                                        (in.query_sl & 0xfu) << 9);
    s.set_word(BoardBlock::kCcti, 4, (in.becn_qp & 0xffffu) | (in.query_qp & 0xffffu) << 16);
    s.set_word(BoardBlock::kCcti, 5, in.becn_rqpn & 0xffffffu);
    s.set_word(BoardBlock::kCcti, 6, (in.becn_rlid & 0xffffu) | (in.becn_llid & 0xffffu) << 16);
  }
  void outputs(cc::CctiBlockOutputs* out) const override {
    const std::vector<uint32_t>& w = s_->outputs(BoardBlock::kCcti);
    get_bus(w, &out->axi);
    out->ird = w[2];
    out->ccti = w[3] & 0xffffu;
    out->timer_expired = w[3] >> 16;
    out->trigger_event = w[4] & 1u;
  }
};

}  // namespace

std::unique_ptr<BoardLink> open_serial_link(const std::string& path, unsigned baud) {
  return std::make_unique<SerialLink>(path, baud);
}

BoardSession::BoardSession(std::unique_ptr<BoardLink> link) : link_(std::move(link)) {
  link_->write({kInfo});
  const std::vector<uint8_t> i = link_->read(kInfoBytes);
  if (i[0] != 0x1b || i[1] != 0xcc || i[2] != kProtocol) {
    throw BoardError(fmt::format("{}: not an ibcc board top (protocol {}): its identification reads {:02x} {:02x} {:02x}",
                                 describe(), kProtocol, i[0], i[1], i[2]));
  }
  auto u16 = [&](unsigned k) { return static_cast<unsigned>(i[k] | i[k + 1] << 8); };
  const unsigned fecn_in = kHeaderWords + fecn_credit_words() + words_for(kFecnInputs * kFecnVls * kFecnFillWidth);
  struct Want {
    const char* what;
    unsigned board, here;
  };
  const Want want[] = {{"FECN input words", i[3], fecn_in}, {"FECN output words", i[4], 3},
                       {"CCTI input words", i[5], kHeaderWords}, {"CCTI output words", i[6], 5},
                       {"NumInputs", i[7], kFecnInputs}, {"NumVls", i[8], kFecnVls},
                       {"FillWidth", i[9], kFecnFillWidth}, {"PortNum", i[10], kFecnPortNum},
                       {"log2 NumQps", i[11], kCctiQpBits}, {"CctEntries", u16(12), kCctiEntries},
                       {"TickCycles", u16(14), kTickCycles}};
  for (const Want& w : want) {
    if (w.board != w.here) {
      throw BoardError(fmt::format("{}: the board top was built with {} {}, this co-simulation expects {} (build "
                                   "the bitstream with the co-simulation's parameters: docs/fpga.md)",
                                   describe(), w.what, w.board, w.here));
    }
  }
  for (BoardBlock b : {BoardBlock::kFecn, BoardBlock::kCcti}) {
    Side& sd = side(b);
    sd.in.assign(b == BoardBlock::kFecn ? i[3] : i[5], 0);
    sd.out.assign(b == BoardBlock::kFecn ? i[4] : i[6], 0);
    // Whatever an earlier run left: every word written, zeros (reset held).
    for (unsigned k = 0; k < sd.in.size(); ++k) queue_write(b, k, 0);
    pending_.push_back(kOutputs);
    pending_.push_back(static_cast<uint8_t>(b));
    link_->write(pending_);
    pending_.clear();
    read_outputs(b);
  }
}

void BoardSession::set_word(BoardBlock b, unsigned idx, uint32_t value) {
  if (side(b).in[idx] != value) queue_write(b, idx, value);
}

void BoardSession::queue_write(BoardBlock b, unsigned idx, uint32_t value) {
  side(b).in[idx] = value;
  pending_.insert(pending_.end(), {kWrite, static_cast<uint8_t>(b), static_cast<uint8_t>(idx), static_cast<uint8_t>(idx >> 8),
                                   static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
                                   static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)});
}

void BoardSession::step(BoardBlock b) {
  pending_.push_back(kStep);
  pending_.push_back(static_cast<uint8_t>(b));
  link_->write(pending_);
  pending_.clear();
  read_outputs(b);
}

void BoardSession::read_outputs(BoardBlock b) {
  Side& sd = side(b);
  const uint8_t mask = link_->read(1)[0];
  if (mask == kRefused || (mask >> sd.out.size()) != 0) {
    throw BoardError(fmt::format("{}: the board refused a command or lost a byte (answer {:#04x})", describe(), mask));
  }
  unsigned n = 0;
  for (unsigned k = 0; k < sd.out.size(); ++k) n += (mask >> k) & 1u;
  const std::vector<uint8_t> w = link_->read(4u * n);
  size_t at = 0;
  for (unsigned k = 0; k < sd.out.size(); ++k) {
    if (!((mask >> k) & 1u)) continue;
    sd.out[k] = static_cast<uint32_t>(w[at] | w[at + 1] << 8 | w[at + 2] << 16 | static_cast<uint32_t>(w[at + 3]) << 24);
    at += 4;
  }
}

std::shared_ptr<BoardSession> open_board(const std::string& board, unsigned baud) {
  return std::make_shared<BoardSession>(board == "verilated" ? make_verilated_board_link() : open_serial_link(board, baud));
}

std::unique_ptr<FecnRtl> make_board_fecn_rtl(std::shared_ptr<BoardSession> session) {
  return std::make_unique<FecnOnBoard>(std::move(session));
}
std::unique_ptr<CctiRtl> make_board_ccti_rtl(std::shared_ptr<BoardSession> session) {
  return std::make_unique<CctiOnBoard>(std::move(session));
}

}  // namespace ibcc::tb
