// SystemC signal bundles and slave ports of an AXI4-Lite CSR interface, typed as Verilator
// --sc types them (1 bit: bool, up to 32 bits: uint32_t) so RTL and model bind alike.
#pragma once

#include <string>
#include <systemc>

#include "cc/axil_slave.h"

namespace ibcc::sc {

// Signals the bus master drives.
struct AxilMasterSignals {
  sc_core::sc_signal<bool> awvalid{"awvalid"};
  sc_core::sc_signal<uint32_t> awaddr{"awaddr"};
  sc_core::sc_signal<bool> wvalid{"wvalid"};
  sc_core::sc_signal<uint32_t> wdata{"wdata"};
  sc_core::sc_signal<uint32_t> wstrb{"wstrb"};
  sc_core::sc_signal<bool> bready{"bready"};
  sc_core::sc_signal<bool> arvalid{"arvalid"};
  sc_core::sc_signal<uint32_t> araddr{"araddr"};
  sc_core::sc_signal<bool> rready{"rready"};

  // Only changed values are written: the bus is idle most cycles and a signal write is a
  // virtual call into the kernel.
  void drive(const cc::AxiLiteIn& in) {
    if (driven_ && same(in, last_)) return;
    driven_ = true;
    last_ = in;
    awvalid.write(in.awvalid);
    awaddr.write(in.awaddr);
    wvalid.write(in.wvalid);
    wdata.write(in.wdata);
    wstrb.write(in.wstrb);
    bready.write(in.bready);
    arvalid.write(in.arvalid);
    araddr.write(in.araddr);
    rready.write(in.rready);
  }

 private:
  static bool same(const cc::AxiLiteIn& a, const cc::AxiLiteIn& b) {
    return a.awvalid == b.awvalid && a.awaddr == b.awaddr && a.wvalid == b.wvalid && a.wdata == b.wdata &&
           a.wstrb == b.wstrb && a.bready == b.bready && a.arvalid == b.arvalid && a.araddr == b.araddr &&
           a.rready == b.rready;
  }
  bool driven_ = false;
  cc::AxiLiteIn last_;
};

// Signals a slave drives (one bundle per implementation: the RTL's and the model's).
struct AxilSlaveSignals {
  explicit AxilSlaveSignals(const char* prefix)
      : awready((std::string(prefix) + "_awready").c_str()),
        wready((std::string(prefix) + "_wready").c_str()),
        bvalid((std::string(prefix) + "_bvalid").c_str()),
        bresp((std::string(prefix) + "_bresp").c_str()),
        arready((std::string(prefix) + "_arready").c_str()),
        rvalid((std::string(prefix) + "_rvalid").c_str()),
        rdata((std::string(prefix) + "_rdata").c_str()),
        rresp((std::string(prefix) + "_rresp").c_str()) {}

  sc_core::sc_signal<bool> awready;
  sc_core::sc_signal<bool> wready;
  sc_core::sc_signal<bool> bvalid;
  sc_core::sc_signal<uint32_t> bresp;
  sc_core::sc_signal<bool> arready;
  sc_core::sc_signal<bool> rvalid;
  sc_core::sc_signal<uint32_t> rdata;
  sc_core::sc_signal<uint32_t> rresp;

  cc::AxiLiteOut sample() const {
    cc::AxiLiteOut out;
    out.awready = awready.read();
    out.wready = wready.read();
    out.bvalid = bvalid.read();
    out.bresp = bresp.read();
    out.arready = arready.read();
    out.rvalid = rvalid.read();
    out.rdata = rdata.read();
    out.rresp = rresp.read();
    return out;
  }
};

// The slave side as ports of a SystemC model.
struct AxilSlavePorts {
  sc_core::sc_in<bool> awvalid{"s_axil_awvalid_i"};
  sc_core::sc_out<bool> awready{"s_axil_awready_o"};
  sc_core::sc_in<uint32_t> awaddr{"s_axil_awaddr_i"};
  sc_core::sc_in<bool> wvalid{"s_axil_wvalid_i"};
  sc_core::sc_out<bool> wready{"s_axil_wready_o"};
  sc_core::sc_in<uint32_t> wdata{"s_axil_wdata_i"};
  sc_core::sc_in<uint32_t> wstrb{"s_axil_wstrb_i"};
  sc_core::sc_out<bool> bvalid{"s_axil_bvalid_o"};
  sc_core::sc_in<bool> bready{"s_axil_bready_i"};
  sc_core::sc_out<uint32_t> bresp{"s_axil_bresp_o"};
  sc_core::sc_in<bool> arvalid{"s_axil_arvalid_i"};
  sc_core::sc_out<bool> arready{"s_axil_arready_o"};
  sc_core::sc_in<uint32_t> araddr{"s_axil_araddr_i"};
  sc_core::sc_out<bool> rvalid{"s_axil_rvalid_o"};
  sc_core::sc_in<bool> rready{"s_axil_rready_i"};
  sc_core::sc_out<uint32_t> rdata{"s_axil_rdata_o"};
  sc_core::sc_out<uint32_t> rresp{"s_axil_rresp_o"};

  void bind(AxilMasterSignals& m, AxilSlaveSignals& s) {
    awvalid(m.awvalid);
    awaddr(m.awaddr);
    wvalid(m.wvalid);
    wdata(m.wdata);
    wstrb(m.wstrb);
    bready(m.bready);
    arvalid(m.arvalid);
    araddr(m.araddr);
    rready(m.rready);
    awready(s.awready);
    wready(s.wready);
    bvalid(s.bvalid);
    bresp(s.bresp);
    arready(s.arready);
    rvalid(s.rvalid);
    rdata(s.rdata);
    rresp(s.rresp);
  }

  cc::AxiLiteIn sample() const {
    cc::AxiLiteIn in;
    in.awvalid = awvalid.read();
    in.awaddr = awaddr.read();
    in.wvalid = wvalid.read();
    in.wdata = wdata.read();
    in.wstrb = wstrb.read();
    in.bready = bready.read();
    in.arvalid = arvalid.read();
    in.araddr = araddr.read();
    in.rready = rready.read();
    return in;
  }

  // Only changed values are written (the bus is idle most cycles).
  void drive(const cc::AxiLiteOut& out) {
    if (driven_ && same(out, last_)) return;
    driven_ = true;
    last_ = out;
    awready.write(out.awready);
    wready.write(out.wready);
    bvalid.write(out.bvalid);
    bresp.write(out.bresp);
    arready.write(out.arready);
    rvalid.write(out.rvalid);
    rdata.write(out.rdata);
    rresp.write(out.rresp);
  }

 private:
  static bool same(const cc::AxiLiteOut& a, const cc::AxiLiteOut& b) {
    return a.awready == b.awready && a.wready == b.wready && a.bvalid == b.bvalid && a.bresp == b.bresp &&
           a.arready == b.arready && a.rvalid == b.rvalid && a.rdata == b.rdata && a.rresp == b.rresp;
  }
  bool driven_ = false;
  cc::AxiLiteOut last_;
};

// sc_trace of a bound port's value at `width` bits, the width of the RTL port it stands
// for (the SystemC port itself is 32 or 64 bits wide). Call after elaboration: the port must
// be bound.
template <class Port>
void trace_port_bits(sc_core::sc_trace_file* tf, Port& port, const std::string& name, int width) {
  sc_core::sc_trace(tf, port->read(), name, width);
}

// Trace the slave ports under the model's name prefix, at the RTL's widths; call after
// elaboration.
inline void trace_axil_ports(sc_core::sc_trace_file* tf, AxilSlavePorts& a, const std::string& p) {
  constexpr int kAddrBits = 12;
  sc_core::sc_trace(tf, a.awvalid, p + "s_axil_awvalid_i");
  sc_core::sc_trace(tf, a.awready, p + "s_axil_awready_o");
  trace_port_bits(tf, a.awaddr, p + "s_axil_awaddr_i", kAddrBits);
  sc_core::sc_trace(tf, a.wvalid, p + "s_axil_wvalid_i");
  sc_core::sc_trace(tf, a.wready, p + "s_axil_wready_o");
  sc_core::sc_trace(tf, a.wdata, p + "s_axil_wdata_i");
  trace_port_bits(tf, a.wstrb, p + "s_axil_wstrb_i", 4);
  sc_core::sc_trace(tf, a.bvalid, p + "s_axil_bvalid_o");
  sc_core::sc_trace(tf, a.bready, p + "s_axil_bready_i");
  trace_port_bits(tf, a.bresp, p + "s_axil_bresp_o", 2);
  sc_core::sc_trace(tf, a.arvalid, p + "s_axil_arvalid_i");
  sc_core::sc_trace(tf, a.arready, p + "s_axil_arready_o");
  trace_port_bits(tf, a.araddr, p + "s_axil_araddr_i", kAddrBits);
  sc_core::sc_trace(tf, a.rvalid, p + "s_axil_rvalid_o");
  sc_core::sc_trace(tf, a.rready, p + "s_axil_rready_i");
  sc_core::sc_trace(tf, a.rdata, p + "s_axil_rdata_o");
  trace_port_bits(tf, a.rresp, p + "s_axil_rresp_o", 2);
}

}  // namespace ibcc::sc
