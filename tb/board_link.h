// The co-simulation against a board: the board top (rtl/board/ibcc_board_top.sv) holds both
// blocks behind a UART; the host writes a block's input words, advances its clock one edge
// and reads back the output words that changed. The harness drives and compares a block on
// the board exactly as it does the Verilated block (RtlModel), so `ibcc cosim --board` runs
// the co-simulation's tests, cycle by cycle, against the hardware.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tb/rtl_models.h"

namespace ibcc::tb {

// Protocol or link failure (timeout, a '?' answer, a board built for other parameters).
class BoardError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A byte stream to a board top.
class BoardLink {
 public:
  virtual ~BoardLink() = default;
  virtual void write(const std::vector<uint8_t>& bytes) = 0;
  // Exactly n bytes; BoardError when they do not come in time.
  virtual std::vector<uint8_t> read(size_t n) = 0;
  virtual std::string describe() const = 0;
};

// A serial port (e.g. /dev/ttyUSB1, the FTDI's second channel on the ECP5-5G Versa), 8N1.
std::unique_ptr<BoardLink> open_serial_link(const std::string& path, unsigned baud);
// The board top Verilated at the co-simulation's parameters, its UART driven and decoded bit by
// bit at `clks_per_bit` (the ibcc_board_rtl library; tb/board_verilated.cpp).
std::unique_ptr<BoardLink> make_verilated_board_link();

// The words of the protocol, as rtl/board/ibcc_board_top.sv lays them out.
enum class BoardBlock : uint8_t { kFecn = 0, kCcti = 1 };

class BoardSession {
 public:
  // Opens the link and checks the board's parameters against the co-simulation's.
  explicit BoardSession(std::unique_ptr<BoardLink> link);

  // Input word `idx` of a block, sent with the next step when it changed.
  void set_word(BoardBlock b, unsigned idx, uint32_t value);
  // One clock edge of the block; its output words afterwards.
  void step(BoardBlock b);
  const std::vector<uint32_t>& outputs(BoardBlock b) const { return side(b).out; }
  std::string describe() const { return link_->describe(); }

 private:
  struct Side {
    std::vector<uint32_t> in, out;
  };
  Side& side(BoardBlock b) { return b == BoardBlock::kFecn ? fecn_ : ccti_; }
  const Side& side(BoardBlock b) const { return b == BoardBlock::kFecn ? fecn_ : ccti_; }
  void read_outputs(BoardBlock b);
  void queue_write(BoardBlock b, unsigned idx, uint32_t value);  // sent with the next step

  std::unique_ptr<BoardLink> link_;
  Side fecn_, ccti_;
  std::vector<uint8_t> pending_;  // commands not yet written
};

// `--board`: "verilated", or a serial device. Throws BoardError.
std::shared_ptr<BoardSession> open_board(const std::string& board, unsigned baud);
std::unique_ptr<FecnRtl> make_board_fecn_rtl(std::shared_ptr<BoardSession> session);
std::unique_ptr<CctiRtl> make_board_ccti_rtl(std::shared_ptr<BoardSession> session);

}  // namespace ibcc::tb
