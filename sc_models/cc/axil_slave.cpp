// Cycle-exact model of the AXI4-Lite slave in front of each CC block.
#include "cc/axil_slave.h"

namespace ibcc::cc {

AxiLiteOut AxiLiteSlave::outputs() const {
  AxiLiteOut out;
  out.awready = !aw_held_ && !bvalid_;
  out.wready = !w_held_ && !bvalid_;
  out.bvalid = bvalid_;
  out.bresp = bresp_;
  out.arready = !ar_held_ && !rpend_ && !rvalid_;
  out.rvalid = rvalid_;
  out.rdata = rdata_;
  out.rresp = rresp_;
  return out;
}

void AxiLiteSlave::clock(const AxiLiteIn& in, bool write_error, uint32_t read_data,
                         bool read_error) {
  const AxiLiteOut now = outputs();

  // Write response: the register write of this edge, then the master's acceptance.
  if (aw_held_ && w_held_) {
    bvalid_ = true;
    bresp_ = write_error ? kAxiRespSlvErr : kAxiRespOkay;
    aw_held_ = false;
    w_held_ = false;
  } else if (bvalid_ && in.bready) {
    bvalid_ = false;
    bresp_ = 0;
  }
  if (in.awvalid && now.awready) {
    aw_held_ = true;
    awaddr_ = in.awaddr & addr_mask_;
  }
  if (in.wvalid && now.wready) {
    w_held_ = true;
    wdata_ = in.wdata;
    wstrb_ = in.wstrb & 0xfu;
  }

  // Read: the register file reads the held address (its answer is held for a cycle, as
  // the RTL's registered read data), the response is presented; or one retires.
  if (ar_held_) {
    rpend_ = true;
    pend_data_ = read_error ? 0u : read_data;
    pend_error_ = read_error;
    ar_held_ = false;
  } else if (rpend_) {
    rpend_ = false;
    rvalid_ = true;
    rdata_ = pend_data_;
    rresp_ = pend_error_ ? kAxiRespSlvErr : kAxiRespOkay;
  } else if (rvalid_ && in.rready) {
    rvalid_ = false;
    rdata_ = 0;
    rresp_ = 0;
  }
  if (in.arvalid && now.arready) {
    ar_held_ = true;
    araddr_ = in.araddr & addr_mask_;
  }
}

}  // namespace ibcc::cc
