// Cycle-exact model of the AXI4-Lite slave in front of each CC block (rtl/ibcc_axil_slave.sv).
#pragma once

#include <cstdint>

namespace ibcc::cc {

// Signals driven by the bus master, sampled at the rising edge.
struct AxiLiteIn {
  // (The handshakes first, side by side: an idle bus is told from them alone, quiet().)
  bool awvalid = false;
  bool wvalid = false;
  bool arvalid = false;
  bool bready = false;
  bool rready = false;
  uint32_t awaddr = 0;
  uint32_t wdata = 0;
  uint32_t wstrb = 0;
  uint32_t araddr = 0;
};

// Signals driven by the slave; all are registers or functions of registers only.
struct AxiLiteOut {
  bool awready = false;
  bool wready = false;
  bool bvalid = false;
  uint32_t bresp = 0;
  bool arready = false;
  bool rvalid = false;
  uint32_t rdata = 0;
  uint32_t rresp = 0;
};

inline constexpr uint32_t kAxiRespOkay = 0;
inline constexpr uint32_t kAxiRespSlvErr = 2;

// The register file's view of one clock edge: at most one write and one read.
struct RegWrite {
  bool valid = false;
  uint32_t addr = 0;
  uint32_t data = 0;
  uint32_t strb = 0;
};

struct RegRead {
  bool valid = false;
  uint32_t addr = 0;
};

// One outstanding write and one outstanding read. The address and data phases of a write
// are captured independently (either order, or together); the register write happens on
// the edge after both are held, and the response follows. A read is registered: the
// register file reads at the edge after its address is captured (read_request()), its word
// is held for one cycle (a block RAM's read), and the response is presented at the edge
// after that. Ready signals drop while a request is held, read or its response waits for
// the master.
class AxiLiteSlave {
 public:
  explicit AxiLiteSlave(unsigned addr_width) : addr_mask_((1u << addr_width) - 1u) {}

  void reset() {
    const uint32_t mask = addr_mask_;
    *this = AxiLiteSlave(0);
    addr_mask_ = mask;
  }

  // What the register file must do at the coming edge (decided by held state alone).
  RegWrite write_request() const { return {aw_held_ && w_held_, awaddr_, wdata_, wstrb_}; }
  RegRead read_request() const { return {ar_held_, araddr_}; }

  // The rising edge. The register file has answered this edge's requests.
  void clock(const AxiLiteIn& in, bool write_error, uint32_t read_data, bool read_error);

  AxiLiteOut outputs() const;

  bool idle() const { return !aw_held_ && !w_held_ && !ar_held_ && !rpend_ && !bvalid_ && !rvalid_; }
  // No request on the bus and none held or answered: an edge changes nothing here.
  bool quiet(const AxiLiteIn& in) const { return quiet(in, idle()); }
  // The same from a copy of idle() its owner keeps beside its hot state.
  static bool quiet(const AxiLiteIn& in, bool slave_idle) { return !in.awvalid && !in.wvalid && !in.arvalid && slave_idle; }

 private:
  uint32_t addr_mask_;
  bool aw_held_ = false;
  uint32_t awaddr_ = 0;
  bool w_held_ = false;
  uint32_t wdata_ = 0;
  uint32_t wstrb_ = 0;
  bool bvalid_ = false;
  uint32_t bresp_ = 0;
  bool ar_held_ = false;
  uint32_t araddr_ = 0;
  bool rpend_ = false;  // the register file read at the last edge; its word is due
  uint32_t pend_data_ = 0;
  bool pend_error_ = false;
  bool rvalid_ = false;
  uint32_t rdata_ = 0;
  uint32_t rresp_ = 0;
};

}  // namespace ibcc::cc
