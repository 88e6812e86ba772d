// AXI4-Lite master bus functional model.
#include "tb/axil_master.h"

namespace ibcc::tb {

void AxiLiteMaster::drive(const cc::AxiLiteOut& slave, cc::AxiLiteIn* next) {
  events_ = {};
  // Handshakes that happened at the last edge: valid driven and ready seen during it.
  const cc::AxiLiteIn& d = driven_;
  const cc::AxiLiteOut& b = before_;
  ++edge_;
  if (w_active_) {
    if (d.awvalid && b.awready) {
      aw_done_ = true;
      aw_edge_ = edge_;
    }
    if (d.wvalid && b.wready) {
      w_done_ = true;
      w_edge_ = edge_;
    }
    if (d.bready && b.bvalid) {
      results_.push_back({w_op_, b.bresp, 0});
      events_.write_slverr = b.bresp == cc::kAxiRespSlvErr;
      events_.aw_before_w = aw_edge_ < w_edge_;
      events_.w_before_aw = w_edge_ < aw_edge_;
      events_.aw_with_w = w_edge_ == aw_edge_;
      w_active_ = false;
    } else if (b.bvalid && !d.bready) {
      events_.b_stalled = true;
    }
  }
  if (r_active_) {
    if (d.arvalid && b.arready) ar_done_ = true;
    if (d.rready && b.rvalid) {
      results_.push_back({r_op_, b.rresp, b.rdata});
      events_.read_slverr = b.rresp == cc::kAxiRespSlvErr;
      r_active_ = false;
    } else if (b.rvalid && !d.rready) {
      events_.r_stalled = true;
    }
  }

  // Start the next transactions.
  if (!w_active_ && !writes_.empty()) {
    w_op_ = writes_.front();
    writes_.pop_front();
    w_active_ = true;
    aw_done_ = w_done_ = false;
    events_.partial_strobe = w_op_.strb != 0xf;
  }
  if (!r_active_ && !reads_.empty()) {
    r_op_ = reads_.front();
    reads_.pop_front();
    r_active_ = true;
    ar_done_ = false;
  }
  events_.read_write_overlap = w_active_ && r_active_;

  // Drive: valids held until their handshake (a delayed valid never drops once raised).
  cc::AxiLiteIn n;
  if (w_active_) {
    n.awvalid = !aw_done_ && (d.awvalid || !roll());
    n.awaddr = w_op_.addr;
    n.wvalid = !w_done_ && (d.wvalid || !roll());
    n.wdata = w_op_.data;
    n.wstrb = w_op_.strb;
    n.bready = !roll();
  }
  if (r_active_) {
    n.arvalid = !ar_done_ && (d.arvalid || !roll());
    n.araddr = r_op_.addr;
    n.rready = !roll();
  }
  // Between transactions the address and data lines keep their last values.
  if (!n.awvalid) n.awaddr = d.awaddr;
  if (!n.wvalid) {
    n.wdata = d.wdata;
    n.wstrb = d.wstrb;
  }
  if (!n.arvalid) n.araddr = d.araddr;
  *next = n;
  driven_ = n;
  before_ = slave;
}

}  // namespace ibcc::tb
