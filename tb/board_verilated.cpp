// The board top (rtl/board/ibcc_board_top.sv) Verilated at the co-simulation's parameters,
// behind a BoardLink: the host's bytes go into its UART receive pin bit by bit, and its
// transmit pin is decoded the same way, at IBCC_BOARD_CLKS_PER_BIT board clocks per bit.
// The whole board is clocked: the command engine, the UART and the clock gates that step
// the blocks run as they do on the FPGA.
#include <verilated.h>

#include <deque>

#include <fmt/format.h>

#include "Vibcc_board_top.h"
#include "tb/board_link.h"

#ifndef IBCC_BOARD_CLKS_PER_BIT
#error "build through CMake: IBCC_BOARD_CLKS_PER_BIT is not defined"
#endif

namespace ibcc::tb {

namespace {

constexpr unsigned kClksPerBit = IBCC_BOARD_CLKS_PER_BIT;
constexpr uint64_t kTimeoutBytes = 64;  // a read that waits this many byte times has failed

class VerilatedBoardLink final : public BoardLink {
 public:
  VerilatedBoardLink() : top_(std::make_unique<Vibcc_board_top>("board")) {
    top_->uart_rx_i = 1;
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    for (int i = 0; i < 4; ++i) cycle();
    top_->rst_ni = 1;
    for (int i = 0; i < 4; ++i) cycle();
  }
  ~VerilatedBoardLink() override { top_->final(); }

  void write(const std::vector<uint8_t>& bytes) override { to_board_.insert(to_board_.end(), bytes.begin(), bytes.end()); }
  std::vector<uint8_t> read(size_t n) override {
    const uint64_t limit = cycles_ + (to_board_.size() + n + kTimeoutBytes) * 10 * kClksPerBit;
    while (from_board_.size() < n) {
      if (cycles_ > limit) {
        throw BoardError(fmt::format("{}: {} bytes expected, {} came", describe(), n, from_board_.size()));
      }
      cycle();
    }
    std::vector<uint8_t> got(from_board_.begin(), from_board_.begin() + static_cast<std::ptrdiff_t>(n));
    from_board_.erase(from_board_.begin(), from_board_.begin() + static_cast<std::ptrdiff_t>(n));
    return got;
  }
  std::string describe() const override {
    return fmt::format("the Verilated board top ({} clocks per UART bit)", kClksPerBit);
  }

 private:
  // One board clock: the host's transmitter sets the receive pin, the board's edge, the host's
  // receiver samples the transmit pin.
  void cycle() {
    drive_rx();
    top_->clk_i = 1;
    top_->eval();
    top_->clk_i = 0;
    top_->eval();
    sample_tx();
    ++cycles_;
  }
  void drive_rx() {
    if (tx_bit_ == 0 && tx_count_ == 0) {
      if (to_board_.empty()) {
        top_->uart_rx_i = 1;
        return;
      }
      tx_frame_ = 0x200u | static_cast<unsigned>(to_board_.front()) << 1;  // start 0, data, stop 1
      to_board_.pop_front();
    }
    top_->uart_rx_i = (tx_frame_ >> tx_bit_) & 1u;
    if (++tx_count_ == kClksPerBit) {
      tx_count_ = 0;
      if (++tx_bit_ == 10) tx_bit_ = 0;
    }
  }
  void sample_tx() {
    const unsigned line = top_->uart_tx_o;
    if (!rx_busy_) {
      if (line == 0) {  // a start bit: sample each bit at its middle
        rx_busy_ = true;
        rx_count_ = 0;
        rx_bit_ = 0;
        rx_byte_ = 0;
      }
      return;
    }
    ++rx_count_;
    if (rx_count_ != kClksPerBit / 2 + kClksPerBit * rx_bit_) return;
    if (rx_bit_ >= 1 && rx_bit_ <= 8) rx_byte_ |= line << (rx_bit_ - 1);
    if (rx_bit_ == 9) {
      if (line != 1) throw BoardError(fmt::format("{}: a byte without its stop bit", describe()));
      from_board_.push_back(static_cast<uint8_t>(rx_byte_));
      rx_busy_ = false;
    }
    ++rx_bit_;
  }

  std::unique_ptr<Vibcc_board_top> top_;
  std::deque<uint8_t> to_board_, from_board_;
  uint64_t cycles_ = 0;
  unsigned tx_frame_ = 0, tx_bit_ = 0, tx_count_ = 0;
  bool rx_busy_ = false;
  unsigned rx_count_ = 0, rx_bit_ = 0, rx_byte_ = 0;
};

}  // namespace

std::unique_ptr<BoardLink> make_verilated_board_link() { return std::make_unique<VerilatedBoardLink>(); }

}  // namespace ibcc::tb
