// AXI4-Lite slave with one outstanding write and one outstanding read, in front of a CSR
// file. Model: sc_models/cc/axil_slave.cpp.
//
// The address and data phases of a write are captured independently (either order, or
// together); the register write happens on the edge after both are held and its response
// follows (the address is also presented at its acceptance, reg_aw_o, for a decode that
// registers it then). A read is registered: the register file reads at the edge after the address is
// captured (reg_re_o) and presents the word in the next cycle (a block RAM's read), and the
// response follows at the edge after that. All outputs are registers or functions of
// registers, so the C++ model can match them cycle by cycle.
// AxPROT is not a port: the CSRs have no protection levels.
`default_nettype none

module ibcc_axil_slave #(
  parameter int unsigned AddrWidth = 12
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // AXI4-Lite slave
  input  logic                 awvalid_i,
  output logic                 awready_o,
  input  logic [AddrWidth-1:0] awaddr_i,
  input  logic                 wvalid_i,
  output logic                 wready_o,
  input  logic [31:0]          wdata_i,
  input  logic [3:0]           wstrb_i,
  output logic                 bvalid_o,
  input  logic                 bready_i,
  output logic [1:0]           bresp_o,
  input  logic                 arvalid_i,
  output logic                 arready_o,
  input  logic [AddrWidth-1:0] araddr_i,
  output logic                 rvalid_o,
  input  logic                 rready_i,
  output logic [31:0]          rdata_o,
  output logic [1:0]           rresp_o,
  // Register file: one write per edge, answered combinationally (reg_werror_i); one read
  // per edge, answered in the next cycle (reg_rdata_i, reg_rerror_i).
  output logic                 reg_we_o,
  output logic [AddrWidth-1:0] reg_waddr_o,
  output logic [31:0]          reg_wdata_o,
  output logic [3:0]           reg_wstrb_o,
  input  logic                 reg_werror_i,
  output logic                 reg_aw_o,       // a write address accepted at this edge (its write follows)
  output logic [AddrWidth-1:0] reg_aw_addr_o,  // it, for a decode registered at acceptance
  output logic                 reg_ar_o,       // a read address accepted at this edge (reg_re_o next)
  output logic [AddrWidth-1:0] reg_ar_addr_o,  // it, for a decode registered at acceptance
  output logic                 reg_re_o,
  output logic [AddrWidth-1:0] reg_raddr_o,
  input  logic [31:0]          reg_rdata_i,
  input  logic                 reg_rerror_i
);

  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlvErr = 2'b10;

  logic                 aw_held_q, w_held_q, ar_held_q;
  logic [AddrWidth-1:0] awaddr_q, araddr_q;
  logic [31:0]          wdata_q;
  logic [3:0]           wstrb_q;
  logic                 bvalid_q, rvalid_q;
  logic                 rpend_q;  // the register file read at the last edge; its word is due
  logic [1:0]           bresp_q, rresp_q;
  logic [31:0]          rdata_q;

  assign awready_o = !aw_held_q && !bvalid_q;
  assign wready_o  = !w_held_q && !bvalid_q;
  assign arready_o = !ar_held_q && !rpend_q && !rvalid_q;
  assign bvalid_o  = bvalid_q;
  assign bresp_o   = bresp_q;
  assign rvalid_o  = rvalid_q;
  assign rdata_o   = rdata_q;
  assign rresp_o   = rresp_q;

  assign reg_we_o    = aw_held_q && w_held_q;
  assign reg_waddr_o = awaddr_q;
  assign reg_wdata_o = wdata_q;
  assign reg_wstrb_o = wstrb_q;
  assign reg_aw_o      = awvalid_i && awready_o;
  assign reg_aw_addr_o = awaddr_i;
  assign reg_ar_o      = arvalid_i && arready_o;
  assign reg_ar_addr_o = araddr_i;
  assign reg_re_o    = ar_held_q;
  assign reg_raddr_o = araddr_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_held_q <= 1'b0;
      w_held_q  <= 1'b0;
      ar_held_q <= 1'b0;
      awaddr_q  <= '0;
      araddr_q  <= '0;
      wdata_q   <= '0;
      wstrb_q   <= '0;
      bvalid_q  <= 1'b0;
      bresp_q   <= RespOkay;
      rvalid_q  <= 1'b0;
      rresp_q   <= RespOkay;
      rdata_q   <= '0;
      rpend_q   <= 1'b0;
    end else begin
      // Write response: this edge's register write, or the master taking the response.
      if (reg_we_o) begin
        bvalid_q  <= 1'b1;
        bresp_q   <= reg_werror_i ? RespSlvErr : RespOkay;
        aw_held_q <= 1'b0;
        w_held_q  <= 1'b0;
      end else if (bvalid_q && bready_i) begin
        bvalid_q <= 1'b0;
        bresp_q  <= RespOkay;
      end
      if (awvalid_i && awready_o) begin
        aw_held_q <= 1'b1;
        awaddr_q  <= awaddr_i;
      end
      if (wvalid_i && wready_o) begin
        w_held_q <= 1'b1;
        wdata_q  <= wdata_i;
        wstrb_q  <= wstrb_i;
      end
      // Read: the register file reads the held address, answers in the next cycle, and the
      // response is presented; or an accepted response retires.
      if (reg_re_o) begin
        rpend_q   <= 1'b1;
        ar_held_q <= 1'b0;
      end else if (rpend_q) begin
        rpend_q   <= 1'b0;
        rvalid_q  <= 1'b1;
        rdata_q   <= reg_rerror_i ? 32'd0 : reg_rdata_i;
        rresp_q   <= reg_rerror_i ? RespSlvErr : RespOkay;
      end else if (rvalid_q && rready_i) begin
        rvalid_q <= 1'b0;
        rdata_q  <= '0;
        rresp_q  <= RespOkay;
      end
      if (arvalid_i && arready_o) begin
        ar_held_q <= 1'b1;
        araddr_q  <= araddr_i;
      end
    end
  end

`ifndef SYNTHESIS
  // A response is held until the master takes it (AXI: VALID must not drop before READY).
  BValidHeld_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      bvalid_o && !bready_i |=> bvalid_o)
    else $error("bvalid dropped without bready");
  RValidHeld_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      rvalid_o && !rready_i |=> rvalid_o && $stable(rdata_o))
    else $error("rvalid or rdata changed without rready");
  SlvErrWrite_C: cover property (@(posedge clk_i) bvalid_o && bresp_o == RespSlvErr);
  SlvErrRead_C: cover property (@(posedge clk_i) rvalid_o && rresp_o == RespSlvErr);
`endif
`ifdef FORMAL
  // Invariants of this implementation, for the induction step of the AXI4-Lite proof
  // (verif/rtl/formal_axil.py): a request is held only while its channel has no response
  // pending. Not visible at the ports while a response waits, so stated here.
  always @* begin
    held_aw_no_b: assert (!(bvalid_q && aw_held_q));
    held_w_no_b: assert (!(bvalid_q && w_held_q));
    held_ar_no_r: assert (!(rvalid_q && ar_held_q));
    held_ar_no_pend: assert (!(rpend_q && ar_held_q));
    pend_no_r: assert (!(rpend_q && rvalid_q));
  end
`endif

endmodule : ibcc_axil_slave
