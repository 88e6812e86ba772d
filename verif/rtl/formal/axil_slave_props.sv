// AXI4-Lite slave properties, written from the AMBA AXI4-Lite specification (ARM IHI 0022,
// sections A3.1 "clock and reset", A3.2 "handshake process", A3.3 "relationships between
// the channels", B1 "AXI4-Lite"), checked on rtl/ibcc_axil_slave.sv by verif/rtl/formal_axil.py
// (yosys write_smt2 + yosys-smtbmc, bounded and by induction).
//
// The slave's inputs are free; the master obeys the specification (the assume statements);
// the register file answers anything (reg_rdata_i, reg_werror_i, reg_rerror_i free; a
// read's answer is what it presents in the cycle after reg_re_o).
// Ghost state counts what the master handed over and what the slave answered, and the
// assertions are stated over the slave's ports only:
//   reset      - BVALID and RVALID low while ARESETn is low (A3.1.2);
//   stability  - a VALID, once high, stays high with its payload stable until READY (A3.2.1);
//   ordering   - a write response only after both its address and its data were taken
//                (A3.3.1), a read response only after its address; one response per request,
//                in request order, carrying that request's register-file verdict; the
//                register write uses the taken address, data and strobes, exactly once;
//   stalls     - a write response follows its register write within one cycle, a read
//                response its register read within two (the register file answers a read
//                in the cycle after it, as a block RAM does), and an idle channel is ready
//                (no unbounded stall by the slave; the master may stall as it likes).
// This slave takes one write and one read at a time (the one-outstanding assertions).
`default_nettype none

module axil_slave_props #(
  parameter int unsigned AddrWidth = 12
) (
  input wire                 clk_i,
  input wire                 rst_ni,
  input wire                 awvalid_i,
  input wire [AddrWidth-1:0] awaddr_i,
  input wire                 wvalid_i,
  input wire [31:0]          wdata_i,
  input wire [3:0]           wstrb_i,
  input wire                 bready_i,
  input wire                 arvalid_i,
  input wire [AddrWidth-1:0] araddr_i,
  input wire                 rready_i,
  input wire                 reg_werror_i,
  input wire [31:0]          reg_rdata_i,
  input wire                 reg_rerror_i
);
  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlvErr = 2'b10;

  logic                 awready, wready, bvalid, arready, rvalid;
  logic [1:0]           bresp, rresp;
  logic [31:0]          rdata;
  logic                 reg_we, reg_re;
  logic [AddrWidth-1:0] reg_waddr, reg_raddr;
  logic [31:0]          reg_wdata;
  logic [3:0]           reg_wstrb;

  ibcc_axil_slave #(.AddrWidth(AddrWidth)) dut (
    .clk_i, .rst_ni,
    .awvalid_i, .awready_o(awready), .awaddr_i,
    .wvalid_i, .wready_o(wready), .wdata_i, .wstrb_i,
    .bvalid_o(bvalid), .bready_i, .bresp_o(bresp),
    .arvalid_i, .arready_o(arready), .araddr_i,
    .rvalid_o(rvalid), .rready_i, .rdata_o(rdata), .rresp_o(rresp),
    .reg_we_o(reg_we), .reg_waddr_o(reg_waddr), .reg_wdata_o(reg_wdata), .reg_wstrb_o(reg_wstrb),
    .reg_werror_i, .reg_re_o(reg_re), .reg_raddr_o(reg_raddr), .reg_rdata_i, .reg_rerror_i
  );

  // Handshakes on each channel this cycle.
  wire aw_hs = awvalid_i && awready;
  wire w_hs  = wvalid_i && wready;
  wire b_hs  = bvalid && bready_i;
  wire ar_hs = arvalid_i && arready;
  wire r_hs  = rvalid && rready_i;

  logic past_valid = 1'b0;
  always @(posedge clk_i) past_valid <= 1'b1;

  // ---- The master (assumptions) ----------------------------------------------------------
  // A3.1.2: reset is asserted in the first cycle; while it is, the master drives its VALIDs
  // low (it may raise them from the first edge after reset is released).
  always @* begin
    if (!past_valid) assume (!rst_ni);
    if (!rst_ni) assume (!awvalid_i && !wvalid_i && !arvalid_i);
  end
  // A3.2.1: once VALID is high it stays high, its payload stable, until the handshake.
  always @(posedge clk_i) begin
    if (past_valid && rst_ni && $past(rst_ni)) begin
      if ($past(awvalid_i && !awready)) assume (awvalid_i && awaddr_i == $past(awaddr_i));
      if ($past(wvalid_i && !wready)) assume (wvalid_i && wdata_i == $past(wdata_i) && wstrb_i == $past(wstrb_i));
      if ($past(arvalid_i && !arready)) assume (arvalid_i && araddr_i == $past(araddr_i));
    end
  end

  // ---- Ghost state: requests taken and not yet answered --------------------------------
  logic [1:0]           aw_out = '0, w_out = '0, ar_out = '0;  // taken, no response taken yet
  logic                 written = 1'b0, read_done = 1'b0;      // register access done for it
  logic                 read_taken = 1'b0;                     // register read issued for it
  logic [AddrWidth-1:0] g_awaddr, g_araddr;
  logic [31:0]          g_wdata, g_rdata;
  logic [3:0]           g_wstrb;
  logic [1:0]           g_bresp, g_rresp;
  logic [1:0]           b_wait = '0, r_wait = '0;              // cycles a due response is late

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      aw_out <= '0; w_out <= '0; ar_out <= '0;
      written <= 1'b0; read_done <= 1'b0; read_taken <= 1'b0;
      b_wait <= '0; r_wait <= '0;
    end else begin
      aw_out <= aw_out + 2'(aw_hs) - 2'(b_hs);
      w_out  <= w_out + 2'(w_hs) - 2'(b_hs);
      ar_out <= ar_out + 2'(ar_hs) - 2'(r_hs);
      if (aw_hs) g_awaddr <= awaddr_i;
      if (w_hs) begin g_wdata <= wdata_i; g_wstrb <= wstrb_i; end
      if (ar_hs) g_araddr <= araddr_i;
      if (reg_we) begin written <= 1'b1; g_bresp <= reg_werror_i ? RespSlvErr : RespOkay; end
      else if (b_hs) written <= 1'b0;
      if (reg_re) read_taken <= 1'b1;
      else if (read_taken && !read_done) begin
        read_done <= 1'b1;  // the register file's answer, in the cycle after the read
        g_rresp <= reg_rerror_i ? RespSlvErr : RespOkay;
        g_rdata <= reg_rerror_i ? 32'd0 : reg_rdata_i;
      end else if (r_hs) begin
        read_taken <= 1'b0;
        read_done  <= 1'b0;
      end
      b_wait <= (aw_out != 0 && w_out != 0 && !bvalid && b_wait != 2'd3) ? b_wait + 1'b1 : '0;
      r_wait <= (ar_out != 0 && !rvalid && r_wait != 2'd3) ? r_wait + 1'b1 : '0;
    end
  end

  // ---- The slave (assertions) -----------------------------------------------------------
  always @* begin
    // Reset (A3.1.2): no response while ARESETn is low.
    if (!rst_ni) begin
      reset_bvalid_low: assert (!bvalid);
      reset_rvalid_low: assert (!rvalid);
    end
    if (rst_ni && past_valid) begin
      // Ordering (A3.3.1): a write response needs both the address and the data, and the
      // register write before it; a read response needs its address and the register read.
      b_after_aw_and_w: assert (!bvalid || (aw_out == 2'd1 && w_out == 2'd1 && written));
      r_after_ar: assert (!rvalid || (ar_out == 2'd1 && read_done));
      // One outstanding write and one outstanding read.
      one_aw: assert (aw_out <= 2'd1 && (aw_out == 2'd0 || !awready));
      one_w: assert (w_out <= 2'd1 && (w_out == 2'd0 || !wready));
      one_ar: assert (ar_out <= 2'd1 && (ar_out == 2'd0 || !arready));
      // The register file sees the taken request, once.
      write_once: assert (!reg_we || (aw_out == 2'd1 && w_out == 2'd1 && !written));
      write_addr: assert (aw_out == 2'd0 || written || reg_waddr == g_awaddr);
      write_data: assert (w_out == 2'd0 || written || (reg_wdata == g_wdata && reg_wstrb == g_wstrb));
      read_once: assert (!reg_re || (ar_out == 2'd1 && !read_taken));
      read_addr: assert (ar_out == 2'd0 || read_taken || reg_raddr == g_araddr);
      // The response carries its request's verdict (and the data read): OKAY or SLVERR only.
      bresp_verdict: assert (!bvalid || bresp == g_bresp);
      rresp_verdict: assert (!rvalid || (rresp == g_rresp && rdata == g_rdata));
      // Bounded stalls: a due write response comes within one cycle, a read response within
      // two, presented from the edge of the register access (the read's answer) on; an
      // idle channel is ready.
      b_with_write: assert (bvalid == written);
      r_with_read: assert (rvalid == read_done);
      b_in_time: assert (b_wait <= 2'd1);
      r_in_time: assert (r_wait <= 2'd2);
      aw_ready_idle: assert (aw_out != 2'd0 || awready);
      w_ready_idle: assert (w_out != 2'd0 || wready);
      ar_ready_idle: assert (ar_out != 2'd0 || arready);
    end
  end
  // Stability (A3.2.1): VALID held, payload stable, until READY.
  always @(posedge clk_i) begin
    if (past_valid && rst_ni && $past(rst_ni)) begin
      if ($past(bvalid && !bready_i)) b_held: assert (bvalid && bresp == $past(bresp));
      if ($past(rvalid && !rready_i)) r_held: assert (rvalid && rdata == $past(rdata) && rresp == $past(rresp));
    end
  end

  // ---- Covers: the proof is not vacuous (verif/rtl/formal_axil.py requires each reached) --------
  logic [1:0] writes_done = '0;
  always @(posedge clk_i) if (rst_ni && b_hs && writes_done != 2'd3) writes_done <= writes_done + 1'b1;
  always @* begin
    if (rst_ni && past_valid) begin
      cover_aw_before_w: cover (aw_out == 2'd1 && w_out == 2'd0);
      cover_w_before_aw: cover (w_out == 2'd1 && aw_out == 2'd0);
      cover_write_slverr: cover (b_hs && bresp == RespSlvErr);
      cover_read_data: cover (r_hs && rresp == RespOkay && rdata == 32'hcafe_f00d);
      cover_read_slverr: cover (r_hs && rresp == RespSlvErr);
      cover_two_writes: cover (writes_done == 2'd2);
      cover_write_and_read: cover (bvalid && rvalid);
    end
  end
  always @(posedge clk_i)
    if (past_valid && rst_ni && $past(rst_ni)) cover_b_stalled: cover (b_hs && $past(bvalid && !bready_i));
endmodule : axil_slave_props
