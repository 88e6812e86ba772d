// HCA CCTI block: per-flow CCTI, per-SL CCTI_Timer, the CCT and the injection rate delay
// (IRD) lookup, the CA CongestionLog and its AXI4-Lite CSRs.
// Reference model: sc_models/cc/ccti_block.cpp (the co-simulation compares every output
// every cycle). Register map: rtl/regs/ccti_block.yaml.
`default_nettype none

module ccti_block #(
  parameter int unsigned NumQps     = 64,   // CCTI entries for QP-based control (power of 2)
  parameter int unsigned CctEntries = 128,  // CCT depth (power of 2, >= 64)
  parameter int unsigned TickCycles = 256,  // core cycles per 1.024 us
  localparam int unsigned QpWidth   = $clog2(NumQps)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // BECN arriving for flow (qp, sl), with what the CongestionLog records of it
  input  logic               becn_valid_i,
  input  logic [QpWidth-1:0] becn_qp_i,
  input  logic [3:0]         becn_sl_i,
  input  logic [23:0]        becn_rqpn_i,
  input  logic [15:0]        becn_rlid_i,   // the BECN packet's SLID
  input  logic [15:0]        becn_llid_i,   // its DLID: the local LID it was sent to
  input  logic [3:0]         becn_st_i,
  // IRD lookup for the send arbiter: the query sampled at an edge is answered after it,
  // from the state before it (the CCT is read as a block RAM is, at the edge)
  input  logic [QpWidth-1:0] query_qp_i,
  input  logic [3:0]         query_sl_i,
  output logic [31:0]        ird_o,            // core cycles
  output logic [15:0]        ccti_o,
  output logic [15:0]        timer_expired_o,  // SL timers that expired at the last edge
  output logic               trigger_event_o,  // a Trigger_Threshold event at the last edge
  // AXI4-Lite CSR port
  input  logic               s_axil_awvalid_i,
  output logic               s_axil_awready_o,
  input  logic [ccti_block_reg_pkg::CCTI_BLOCK_ADDR_WIDTH-1:0] s_axil_awaddr_i,
  input  logic               s_axil_wvalid_i,
  output logic               s_axil_wready_o,
  input  logic [31:0]        s_axil_wdata_i,
  input  logic [3:0]         s_axil_wstrb_i,
  output logic               s_axil_bvalid_o,
  input  logic               s_axil_bready_i,
  output logic [1:0]         s_axil_bresp_o,
  input  logic               s_axil_arvalid_i,
  output logic               s_axil_arready_o,
  input  logic [ccti_block_reg_pkg::CCTI_BLOCK_ADDR_WIDTH-1:0] s_axil_araddr_i,
  output logic               s_axil_rvalid_o,
  input  logic               s_axil_rready_i,
  output logic [31:0]        s_axil_rdata_o,
  output logic [1:0]         s_axil_rresp_o
);

  // ---------------------------------------------------------------------------------------
  // Parameters and register offsets
  // ---------------------------------------------------------------------------------------
  localparam int unsigned NumSls     = 16;
  localparam int unsigned LogDepth   = 13;
  localparam int unsigned CctiWidth  = $clog2(CctEntries);
  localparam int unsigned CctPairs   = CctEntries / 2;
  localparam logic [CctiWidth-1:0] LastEntry = CctiWidth'(CctEntries - 1);

  // ---------------------------------------------------------------------------------------
  // Timebase and bus
  // ---------------------------------------------------------------------------------------
  logic        tick;
  logic [31:0] timestamp;

  ibcc_timebase #(.TickCycles(TickCycles)) u_timebase (
    .clk_i(clk_i), .rst_ni(rst_ni), .tick_o(tick), .timestamp_o(timestamp)
  );

  logic        reg_we, reg_re, reg_werror, reg_rerror;
  localparam int unsigned AddrWidth = ccti_block_reg_pkg::CCTI_BLOCK_ADDR_WIDTH;
  logic [AddrWidth-1:0] reg_waddr, reg_raddr, reg_ar_addr, reg_aw_addr;
  logic        reg_ar, reg_aw;
  logic [31:0] reg_wdata, reg_rdata;
  logic [3:0]  reg_wstrb;

  ibcc_axil_slave #(.AddrWidth(AddrWidth)) u_axil (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .awvalid_i(s_axil_awvalid_i), .awready_o(s_axil_awready_o), .awaddr_i(s_axil_awaddr_i),
    .wvalid_i(s_axil_wvalid_i), .wready_o(s_axil_wready_o), .wdata_i(s_axil_wdata_i),
    .wstrb_i(s_axil_wstrb_i), .bvalid_o(s_axil_bvalid_o), .bready_i(s_axil_bready_i),
    .bresp_o(s_axil_bresp_o), .arvalid_i(s_axil_arvalid_i), .arready_o(s_axil_arready_o),
    .araddr_i(s_axil_araddr_i), .rvalid_o(s_axil_rvalid_o), .rready_i(s_axil_rready_i),
    .rdata_o(s_axil_rdata_o), .rresp_o(s_axil_rresp_o),
    .reg_we_o(reg_we), .reg_waddr_o(reg_waddr), .reg_wdata_o(reg_wdata),
    .reg_wstrb_o(reg_wstrb), .reg_werror_i(reg_werror),
    .reg_aw_o(reg_aw), .reg_aw_addr_o(reg_aw_addr),
    .reg_ar_o(reg_ar), .reg_ar_addr_o(reg_ar_addr),
    .reg_re_o(reg_re), .reg_raddr_o(reg_raddr), .reg_rdata_i(reg_rdata),
    .reg_rerror_i(reg_rerror)
  );

  // ---------------------------------------------------------------------------------------
  // Configuration registers and the CCT
  // ---------------------------------------------------------------------------------------
  // Stored in the generated decode (ccti_block_reg_top); the names are the registers'.
  logic                           sl_based_q;
  logic [15:0]                    control_map_q;
  logic [15:0]                    timer_reload_q [NumSls];
  logic [7:0]                     increase_q     [NumSls];
  logic [7:0]                     trigger_q      [NumSls];
  logic [7:0]                     min_q          [NumSls];
  logic [15:0]                    cct_limit_q;
  logic [31:0]                    cct_q          [CctPairs];  // entry 2k in 31:16, 2k+1 in 15:0
  logic                           ird_formula_q;              // 0 omnipath, 1 shift_left
  logic [15:0]                    mtu_cycles_q;
  // The decode's arrays come flat (element i in [i*W +: W]).
  logic [NumSls*16-1:0]           timer_reload_flat;
  logic [NumSls*8-1:0]            increase_flat, trigger_flat, min_flat;

  for (genvar gs = 0; gs < NumSls; gs++) begin : g_sl_regs
    assign timer_reload_q[gs] = timer_reload_flat[gs*16 +: 16];
    assign increase_q[gs]     = increase_flat[gs*8 +: 8];
    assign trigger_q[gs]      = trigger_flat[gs*8 +: 8];
    assign min_q[gs]          = min_flat[gs*8 +: 8];
  end
  // The CCT is this block's memory, a RAM without reset (a block RAM; software writes the
  // table before it enables CC on an SL): the decode addresses it, the block writes the
  // strobed bytes (at the edge, after this edge's lookup read the table). Its read ports are
  // synchronous: the IRD lookup's (entry_pair_q) and the CSR read's.
  localparam int unsigned CctPairIdx = $clog2(CctPairs);
  logic        cct_we, cct_re;
  logic [CctPairIdx-1:0] cct_waddr, cct_raddr;
  logic [31:0] cct_wdata, cct_rdata_q;
  logic [3:0]  cct_wstrb;

  logic [CctiWidth-1:0] limit;                      // CCTI_Limit clamped to the table

  assign limit = (cct_limit_q > 16'(LastEntry)) ? LastEntry : cct_limit_q[CctiWidth-1:0];

  // ---------------------------------------------------------------------------------------
  // Flows in block RAM, decaying lazily
  // ---------------------------------------------------------------------------------------
  // A flow's word holds its CCTI at its last BECN (base), that BECN's SL and a stamp: the
  // count of that SL's timer expiries then. Per SL the block counts expiries (expiries_sl_q)
  // and keeps the largest height (height_q) of its flows, a height being a flow's base minus
  // the expiries since its stamp. A flow's CCTI is base while base <= CCTI_Min, else
  // max(CCTI_Min, base - expiries since the stamp): an expiry costs one counter, not a sweep
  // of the flows, and the timer re-arms while height > CCTI_Min. A flow decays with the
  // timer of the SL of its last BECN (with SL-based control, flow s with SL s's).
  // Three read ports, each a copy of the RAM (block RAMs have one read port): the BECN's,
  // the query's, and the CSR window's, which a scrubber uses when the CSRs do not. The
  // scrubber walks the flows and clamps a stamp older than 128 expiries to 128 (no CCTI
  // changes: any CCTI has decayed to CCTI_Min by then), so the 10-bit stamps never wrap.
  // (The register map's layout constants: rtl_loop/ccti_block_loop.cpp reads the words with them.)
  localparam int unsigned StampWidth = ccti_block_reg_pkg::FLOW_STAMP_WIDTH;
  localparam int unsigned SlWidth    = ccti_block_reg_pkg::FLOW_SL_WIDTH;
  localparam int unsigned WordWidth  = CctiWidth + SlWidth + StampWidth;  // {base, sl, stamp}
  localparam logic [StampWidth-1:0] StampClamp = StampWidth'(128);

  logic [WordWidth-1:0]  flow_ram [NumQps];
  // Which flows were written since reset (a flow never written reads as CCTI 0, SL 0). Up
  // to 64 QPs, a flip-flop per flow (group_valid_q with groups of one). Beyond, in groups of
  // 32 flows: a group's bits are one word of a small RAM (read at the edges the flow RAM is
  // read, three copies again), valid once a BECN has written one of its flows since reset
  // (group_valid_q, the only flip-flops: the RAM is not reset); a BECN writes its group's
  // word with its flow's bit added to the bits before (none while the group is not valid).
  // 1,024 flip-flops, each behind a 1,024-way read multiplexer per port, cost more than the
  // rest of the block; the RAM words cost more than 64 flip-flops (an iCE40 HX8K's margin).
  localparam bit          WrittenInRam = NumQps > ccti_block_reg_pkg::WRITTEN_FLOP_QPS;
  localparam int unsigned GroupBits    = WrittenInRam ? ccti_block_reg_pkg::WRITTEN_GROUP_BITS : 0;
  localparam int unsigned GroupSize    = 1 << GroupBits;
  localparam int unsigned Groups       = NumQps / GroupSize;
  localparam int unsigned GroupWidth   = $clog2(Groups);
  /* verilator lint_off UNDRIVEN */  // (up to 64 QPs the RAM is not built: g_written_ff)
  logic [GroupSize-1:0]  written_ram [Groups];
  /* verilator lint_on UNDRIVEN */
  logic [Groups-1:0]     group_valid_q;
  /* verilator lint_off UNUSEDSIGNAL */  // (the low bits pick the flow within its group)
  function automatic logic [GroupWidth-1:0] group_of(input logic [QpWidth-1:0] flow);
    group_of = flow[QpWidth-1:GroupBits];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // Whether `flow` was written, from its group's valid flip-flop and its group's word.
  function automatic logic written_of(input logic valid, input logic [GroupSize-1:0] map,
                                      input logic [QpWidth-1:0] flow);
    logic member;
    member = 1'b0;
    for (int unsigned k = 0; k < GroupSize; k++) begin
      if (32'(flow) % GroupSize == k) member = map[k];
    end
    written_of = valid && (!WrittenInRam || member);
  endfunction
  // A group's word with `flow`'s bit set.
  function automatic logic [GroupSize-1:0] with_member(input logic [GroupSize-1:0] map,
                                                       input logic [QpWidth-1:0] flow);
    with_member = map;
    for (int unsigned k = 0; k < GroupSize; k++) begin
      if (32'(flow) % GroupSize == k) with_member[k] = 1'b1;
    end
  endfunction
  logic [StampWidth-1:0] expiries_sl_q [NumSls];
  logic [CctiWidth-1:0]  height_q [NumSls];
  logic [NumSls-1:0]     timer_running_q, expired;
  logic [15:0]           timer_count_q [NumSls];

  localparam int unsigned SlLsb   = StampWidth;
  localparam int unsigned BaseLsb = StampWidth + SlWidth;
  // The CCTI of base after d expiries of its SL, floored at CCTI_Min.
  function automatic logic [CctiWidth-1:0] decayed(input logic [CctiWidth-1:0] base,
                                                   input logic [StampWidth-1:0] d,
                                                   input logic [7:0] min);
    logic [7:0] room;  // expiries from base down to the floor
    room = 8'(base) - min;
    if (8'(base) <= min)                decayed = base;
    else if (d >= StampWidth'(room))    decayed = min[CctiWidth-1:0];
    else                                decayed = base - d[CctiWidth-1:0];
  endfunction

  always_comb begin
    for (int unsigned s = 0; s < NumSls; s++) begin
      expired[s] = tick && timer_running_q[s] && (timer_count_q[s] == 16'd1);
    end
  end

  // The write of the last edge (a BECN's or the scrubber's), forwarded to the reads of that
  // edge, which saw the RAM before it.
  logic                 fwd_valid_q;
  logic [QpWidth-1:0]   fwd_flow_q;
  logic [WordWidth-1:0] fwd_word_q;
  logic                 fwd_map_valid_q;  // a BECN's write of its group's written bits
  logic [GroupWidth-1:0] fwd_group_q;
  function automatic logic [WordWidth-1:0] current(input logic [QpWidth-1:0] flow,
                                                   input logic [WordWidth-1:0] read,
                                                   input logic written, input logic fwd,
                                                   input logic [QpWidth-1:0] fwd_flow,
                                                   input logic [WordWidth-1:0] fwd_word);
    if (fwd && fwd_flow == flow) current = fwd_word;
    else if (written)            current = read;
    else                         current = '0;
  endfunction

  // ---------------------------------------------------------------------------------------
  // BECN: registered at the edge it arrives (the flow's word read), applied at the next:
  // the flow's CCTI after that edge's expiry, then the increase.
  // ---------------------------------------------------------------------------------------
  logic                 becn_in_q, becn_written, becn_gvalid_q;
  logic [GroupSize-1:0] becn_map_q;
  logic [QpWidth-1:0]   becn_flow_q, becn_qp_q;
  logic [QpWidth-1:0]   becn_flow;
  logic [3:0]           becn_sl_q, becn_st_q;
  logic [23:0]          becn_rqpn_q;
  logic [15:0]          becn_rlid_q, becn_llid_q;
  logic [WordWidth-1:0] becn_read_q, becn_word, becn_new_word;
  logic                 becn, trigger;
  logic [3:0]           becn_old_sl;
  logic [StampWidth-1:0] becn_d;
  logic [CctiWidth-1:0] becn_c1, becn_next;
  logic [7:0]           becn_floor;
  logic [8:0]           becn_raised;

  assign becn_flow   = sl_based_q ? QpWidth'(becn_sl_i) : becn_qp_i;
  assign becn        = becn_in_q && control_map_q[becn_sl_q];
  assign becn_written = written_of(becn_gvalid_q, becn_map_q, becn_flow_q);
  assign becn_word   = current(becn_flow_q, becn_read_q, becn_written, fwd_valid_q, fwd_flow_q,
                               fwd_word_q);
  assign becn_old_sl = becn_word[SlLsb +: SlWidth];
  assign becn_d      = expiries_sl_q[becn_old_sl] - becn_word[StampWidth-1:0] +
                       StampWidth'(expired[becn_old_sl]);
  assign becn_c1     = decayed(becn_word[BaseLsb +: CctiWidth], becn_d, min_q[becn_old_sl]);
  // CCTI_Min is the floor from the start: a flow below it (never raised, or decayed below
  // a CCTI_Min raised since) rises from the floor.
  assign becn_floor  = (8'(becn_c1) > min_q[becn_sl_q]) ? 8'(becn_c1) : min_q[becn_sl_q];
  assign becn_raised = 9'(becn_floor) + 9'(increase_q[becn_sl_q]);
  assign becn_next   = (becn_raised > 9'(limit)) ? limit : becn_raised[CctiWidth-1:0];
  assign trigger     = becn && (trigger_q[becn_sl_q] != 8'd0) &&
                       (becn_floor < trigger_q[becn_sl_q]) && (8'(becn_next) >= trigger_q[becn_sl_q]);
  assign becn_new_word = {becn_next, becn_sl_q,
                          expiries_sl_q[becn_sl_q] + StampWidth'(expired[becn_sl_q])};

  // ---------------------------------------------------------------------------------------
  // IRD lookup: the query's word read at the edge it is sampled; at the next edge, index =
  // min(max(CCTI, CCTI_Min), limit) and a registered CCT read
  // ---------------------------------------------------------------------------------------
  logic [QpWidth-1:0]   query_flow, query_flow_q;
  logic [3:0]           query_sl_q;
  logic                 query_written, query_gvalid_q;
  logic [GroupSize-1:0] query_map_q;
  logic [WordWidth-1:0] query_read_q, query_word;
  logic [CctiWidth-1:0] query_ccti, query_index;
  logic [7:0]           query_floor;
  logic [31:0]          entry_pair_q;
  logic                 entry_odd_q, query_enabled_q;
  logic [CctiWidth-1:0] query_ccti_q;

  assign query_flow  = sl_based_q ? QpWidth'(query_sl_i) : query_qp_i;
  assign query_written = written_of(query_gvalid_q, query_map_q, query_flow_q);
  assign query_word  = current(query_flow_q, query_read_q, query_written, fwd_valid_q, fwd_flow_q,
                               fwd_word_q);
  assign query_ccti  = decayed(query_word[BaseLsb +: CctiWidth],
                               expiries_sl_q[query_word[SlLsb +: SlWidth]] - query_word[StampWidth-1:0],
                               min_q[query_word[SlLsb +: SlWidth]]);
  assign query_floor = (8'(query_ccti) > min_q[query_sl_q]) ? 8'(query_ccti) : min_q[query_sl_q];
  assign query_index = (query_floor > 8'(limit)) ? limit : query_floor[CctiWidth-1:0];

  // The CCT RAM: one write port, two synchronous read ports.
  always_ff @(posedge clk_i) begin
    if (cct_we) begin
      for (int unsigned b = 0; b < 4; b++) begin
        if (cct_wstrb[b]) cct_q[cct_waddr][8*b +: 8] <= cct_wdata[8*b +: 8];
      end
    end
    if (cct_re) cct_rdata_q <= cct_q[cct_raddr];                 // the CSR read port
    entry_pair_q <= cct_q[query_index[CctiWidth-1:1]];            // the IRD lookup's
  end

  // IRD of one CCT entry pair: the entry the index's low bit selects, by the IRD formula
  // (shift_left: multiplier << shift; omnipath: (MTU cycles >> shift) * multiplier).
  function automatic logic [31:0] ird_of(input logic [31:0] pair, input logic odd,
                                         input logic enabled, input logic shift_left,
                                         input logic [15:0] mtu_cycles);
    logic [15:0] entry;
    entry = odd ? pair[15:0] : pair[31:16];
    if (!enabled)        ird_of = 32'd0;
    else if (shift_left) ird_of = 32'(entry[13:0]) << entry[15:14];
    else                 ird_of = (32'(mtu_cycles) >> entry[15:14]) * 32'(entry[13:0]);
  endfunction

  assign ird_o       = ird_of(entry_pair_q, entry_odd_q, query_enabled_q, ird_formula_q,
                              mtu_cycles_q);
  assign ccti_o      = 16'(query_ccti_q);

  // ---------------------------------------------------------------------------------------
  // The CSR window's read port and the scrubber
  // ---------------------------------------------------------------------------------------
  logic                 flow_re;          // the CSRs read flow flow_idx at this edge
  logic                 scrub_q;          // the port's last read was the scrubber's
  logic [QpWidth-1:0]   port_flow, port_flow_q, scrub_flow_q;
  logic                 port_written, port_gvalid_q;
  logic [GroupSize-1:0] port_map_q;
  logic [WordWidth-1:0] port_read_q, port_word, scrub_new_word;
  logic [StampWidth-1:0] scrub_d;
  logic                 scrub_stale, scrub_we;
  localparam int unsigned FlowIndexWidth = $clog2(ccti_block_reg_pkg::FLOW_CCTI_COUNT);  // the words FLOW_CCTI reserves
  logic [FlowIndexWidth-1:0] flow_idx;

  assign port_flow = flow_re ? QpWidth'(flow_idx) : scrub_flow_q;
  assign port_written = written_of(port_gvalid_q, port_map_q, port_flow_q);
  assign port_word = current(port_flow_q, port_read_q, port_written, fwd_valid_q, fwd_flow_q,
                             fwd_word_q);
  assign scrub_d   = expiries_sl_q[port_word[SlLsb +: SlWidth]] - port_word[StampWidth-1:0];
  assign scrub_stale    = scrub_q && port_written && (scrub_d > StampClamp);
  assign scrub_we       = scrub_stale && !becn;  // a BECN's write comes first
  assign scrub_new_word = {port_word[WordWidth-1:StampWidth],
                           expiries_sl_q[port_word[SlLsb +: SlWidth]] - StampClamp};

  // The flow RAM: one write port, three synchronous read ports (the CSR window's answers
  // from the word before the edge of the read, decayed by the counts of the cycle after).
  always_ff @(posedge clk_i) begin
    if (becn)          flow_ram[becn_flow_q]  <= becn_new_word;
    else if (scrub_we) flow_ram[port_flow_q]  <= scrub_new_word;
    becn_read_q  <= flow_ram[becn_flow];
    query_read_q <= flow_ram[query_flow];
    port_read_q  <= flow_ram[port_flow];
  end
  // The written bits: the same ports (a flow's bit changes only by a BECN's write of that
  // flow, which the flow word's forwarding covers, so the query's and the window's reads
  // need no forwarding of their own).
  if (WrittenInRam) begin : g_written_ram
    // The BECN's group's bits as they are now (the last edge's write forwarded), its own added.
    logic [GroupSize-1:0] becn_map, becn_new_map, fwd_map_q;
    assign becn_map     = (fwd_map_valid_q && fwd_group_q == group_of(becn_flow_q)) ? fwd_map_q :
                          becn_gvalid_q ? becn_map_q : '0;
    assign becn_new_map = with_member(becn_map, becn_flow_q);
    always_ff @(posedge clk_i) begin
      if (becn) written_ram[group_of(becn_flow_q)] <= becn_new_map;
      becn_map_q  <= written_ram[group_of(becn_flow)];
      query_map_q <= written_ram[group_of(query_flow)];
      port_map_q  <= written_ram[group_of(port_flow)];
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        fwd_map_valid_q <= 1'b0;
        fwd_group_q     <= '0;
        fwd_map_q       <= '0;
      end else begin
        fwd_map_valid_q <= becn;
        fwd_group_q     <= group_of(becn_flow_q);
        fwd_map_q       <= becn_new_map;
      end
    end
  end else begin : g_written_ff  // (a group is one flow: its valid flip-flop is all)
    assign becn_map_q      = '1;
    assign query_map_q     = '1;
    assign port_map_q      = '1;
    assign fwd_map_valid_q = 1'b0;
    assign fwd_group_q     = '0;
  end

  // ---------------------------------------------------------------------------------------
  // CSRs: the decode generated from rtl/regs/ccti_block.yaml
  // ---------------------------------------------------------------------------------------
  // An event: {local QPN, remote QPN, SL, service type, local LID, remote LID, TimeStamp}.
  localparam int unsigned EventWidth = QpWidth + 24 + 4 + 4 + 16 + 16 + 32;
  logic                      log_clear;
  logic [3:0]                ev_idx;
  logic                      ev_re;
  logic [EventWidth-1:0]     ev_event;
  logic                      ev_valid;
  logic [15:0]               log_events;
  logic [15:0]               log_map_q;
  logic [31:0]               becn_count_q, expiries_q;
  logic [3:0]                port_sl;
  logic [CctiWidth-1:0]      port_ccti;

  // The CSR window's answer: the word read at the edge of the read, decayed now.
  assign port_sl   = port_word[SlLsb +: SlWidth];
  assign port_ccti = decayed(port_word[BaseLsb +: CctiWidth], scrub_d, min_q[port_sl]);

  ccti_block_reg_top #(.CctEntries(CctEntries), .NumQps(NumQps)) u_regs (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .reg_we_i(reg_we), .reg_wdata_i(reg_wdata), .reg_wstrb_i(reg_wstrb),
    .reg_werror_o(reg_werror), .reg_ar_i(reg_ar), .reg_ar_addr_i(reg_ar_addr),
    .reg_aw_i(reg_aw), .reg_aw_addr_i(reg_aw_addr),
    .reg_re_i(reg_re), .reg_raddr_i(reg_raddr), .reg_rdata_o(reg_rdata),
    .reg_rerror_o(reg_rerror),
    .ca_setting_port_control_o(sl_based_q),
    .ca_setting_control_map_o(control_map_q),
    .ca_sl_timer_ccti_timer_o(timer_reload_flat),
    .ca_sl_timer_ccti_increase_o(increase_flat),
    .ca_sl_timer_trigger_threshold_o(trigger_flat),
    .ca_sl_min_ccti_min_o(min_flat),
    .cct_limit_ccti_limit_o(cct_limit_q),
    .cct_entry_pair_we_o(cct_we),
    .cct_entry_pair_waddr_o(cct_waddr),
    .cct_entry_pair_wdata_o(cct_wdata),
    .cct_entry_pair_wstrb_o(cct_wstrb),
    .cct_entry_pair_re_o(cct_re),
    .cct_entry_pair_raddr_o(cct_raddr),
    .cct_entry_pair_rdata_i(cct_rdata_q),
    .log_header_threshold_event_counter_i(log_events),
    .log_event_map_event_map_i(log_map_q),
    .log_timestamp_current_time_stamp_i(timestamp),
    .log_event_lqpn_local_qpn_i(24'(ev_event[EventWidth-1 -: QpWidth])),
    .log_event_lqpn_sl_i(ev_event[71:68]),
    .log_event_lqpn_service_type_i(ev_event[67:64]),
    .log_event_rqpn_remote_qpn_i(ev_event[95:72]),
    .log_event_lids_local_lid_i(ev_event[63:48]),
    .log_event_lids_rlid_i(ev_event[47:32]),
    .log_event_timestamp_timestamp_i(ev_event[31:0]),
    .timestamp_timestamp_i(timestamp),
    .impl_ctrl_ird_formula_o(ird_formula_q),
    .mtu_tx_cycles_cycles_o(mtu_cycles_q),
    .log_ctrl_clear_o(log_clear),
    .becn_count_count_i(becn_count_q),
    .timer_expiries_count_i(expiries_q),
    .timer_running_sl_mask_i(timer_running_q),
    .flow_ccti_sl_i(port_sl),
    .flow_ccti_ccti_i(16'(port_ccti)),
    .log_event_index_o(ev_idx),
    .log_event_re_o(ev_re),
    .log_event_valid_i(ev_valid),
    .flow_index_o(flow_idx),
    .flow_re_o(flow_re),
    .flow_valid_i(1'b1)
  );

  // ---------------------------------------------------------------------------------------
  // State update
  // ---------------------------------------------------------------------------------------
  logic [31:0]          expired_count;
  logic [15:0]          timer_expired_q;
  logic                 trigger_q_out;
  logic [CctiWidth-1:0] height_after [NumSls];
  logic [NumSls-1:0]    above_min;

  always_comb begin
    expired_count = '0;
    for (int unsigned s = 0; s < NumSls; s++) expired_count = expired_count + 32'(expired[s]);
  end

  // Heights after this edge: an expiry lowers its SL's by one, a BECN's flow is as high as
  // its new CCTI; an expiring timer re-arms while its SL's height stays above CCTI_Min.
  // (The BECN's SL's height is compared with the new CCTI once, not per SL.)
  logic [CctiWidth-1:0] becn_height;
  logic                 becn_raises;
  assign becn_height = (expired[becn_sl_q] && height_q[becn_sl_q] != '0) ? height_q[becn_sl_q] - 1'b1 :
                                                                            height_q[becn_sl_q];
  assign becn_raises = becn && (becn_next > becn_height);
  always_comb begin
    for (int unsigned s = 0; s < NumSls; s++) begin
      if (becn_raises && becn_sl_q == 4'(s)) height_after[s] = becn_next;
      else if (expired[s] && height_q[s] != '0) height_after[s] = height_q[s] - 1'b1;
      else height_after[s] = height_q[s];
      above_min[s] = 8'(height_after[s]) > min_q[s];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned s = 0; s < NumSls; s++) begin
        timer_count_q[s] <= '0;
        expiries_sl_q[s] <= '0;
        height_q[s]      <= '0;
      end
      group_valid_q   <= '0;
      becn_gvalid_q   <= 1'b0;
      timer_running_q <= '0;
      becn_count_q    <= '0;
      expiries_q      <= '0;
      log_map_q       <= '0;
      entry_odd_q     <= 1'b0;
      query_enabled_q <= 1'b0;
      query_ccti_q    <= '0;
      timer_expired_q <= '0;
      trigger_q_out   <= 1'b0;
      becn_in_q       <= 1'b0;
      becn_flow_q     <= '0;
      becn_qp_q       <= '0;
      becn_sl_q       <= '0;
      becn_st_q       <= '0;
      becn_rqpn_q     <= '0;
      becn_rlid_q     <= '0;
      becn_llid_q     <= '0;
      query_flow_q    <= '0;
      query_sl_q      <= '0;
      query_gvalid_q  <= 1'b0;
      port_flow_q     <= '0;
      port_gvalid_q   <= 1'b0;
      scrub_q         <= 1'b0;
      scrub_flow_q    <= '0;
      fwd_valid_q     <= 1'b0;
      fwd_flow_q      <= '0;
      fwd_word_q      <= '0;
    end else begin
      // The reads of this edge (the words themselves: the flow RAM above).
      becn_in_q       <= becn_valid_i;
      becn_flow_q     <= becn_flow;
      becn_gvalid_q   <= group_valid_q[group_of(becn_flow)];
      becn_qp_q       <= becn_qp_i;
      becn_sl_q       <= becn_sl_i;
      becn_st_q       <= becn_st_i;
      becn_rqpn_q     <= becn_rqpn_i;
      becn_rlid_q     <= becn_rlid_i;
      becn_llid_q     <= becn_llid_i;
      query_flow_q    <= query_flow;
      query_sl_q      <= query_sl_i;
      query_gvalid_q  <= group_valid_q[group_of(query_flow)];
      port_flow_q     <= port_flow;
      port_gvalid_q   <= group_valid_q[group_of(port_flow)];
      scrub_q         <= !flow_re;
      // The scrubber moves on once its flow is fresh or rewritten.
      if (scrub_q && (!scrub_stale || scrub_we)) scrub_flow_q <= port_flow_q + 1'b1;

      // The write of this edge, for the reads of this edge to see at the next.
      fwd_valid_q <= becn || scrub_we;
      fwd_flow_q  <= becn ? becn_flow_q : port_flow_q;
      fwd_word_q  <= becn ? becn_new_word : scrub_new_word;
      if (becn) group_valid_q[group_of(becn_flow_q)] <= 1'b1;

      // Registered IRD lookup of the state before this edge (the CCT entry pair: above).
      entry_odd_q     <= query_index[0];
      query_enabled_q <= control_map_q[query_sl_q];
      query_ccti_q    <= query_ccti;

      for (int unsigned s = 0; s < NumSls; s++) begin
        expiries_sl_q[s] <= expiries_sl_q[s] + StampWidth'(expired[s]);
        height_q[s]      <= height_after[s];
        if (expired[s]) begin
          timer_running_q[s] <= above_min[s];
          timer_count_q[s]   <= above_min[s] ? timer_reload_q[s] : 16'd0;
        end else if (becn && becn_sl_q == 4'(s) && !timer_running_q[s]) begin
          // A BECN arms an idle timer; a running timer is never restarted by a BECN.
          timer_running_q[s] <= 1'b1;
          timer_count_q[s]   <= timer_reload_q[s];
        end else if (tick && timer_running_q[s] && timer_count_q[s][15:1] != '0) begin  // > 1
          timer_count_q[s]   <= timer_count_q[s] - 16'd1;
        end
      end
      expiries_q      <= expiries_q + expired_count;
      becn_count_q    <= becn_count_q + 32'(becn);
      timer_expired_q <= expired;
      trigger_q_out   <= trigger;

      // ThresholdCongestionEventMap; the log itself is u_log (a clear of this edge comes
      // before its event).
      log_map_q <= (log_clear ? 16'd0 : log_map_q) | (trigger ? 16'd1 << becn_sl_q : 16'd0);
    end
  end

  assign timer_expired_o = timer_expired_q;
  assign trigger_event_o = trigger_q_out;

  // The CA CongestionLog: its read port serves the event the CSR read addresses.
  logic       log_wrap;
  logic [3:0] log_count;

  ibcc_event_log #(.Depth(LogDepth), .Width(EventWidth)) u_log (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(log_clear), .push_i(trigger),
    .event_i({becn_qp_q, becn_rqpn_q, becn_sl_q, becn_st_q, becn_llid_q, becn_rlid_q, timestamp}),
    .rd_re_i(ev_re), .rd_index_i(ev_idx), .rd_valid_o(ev_valid), .rd_event_o(ev_event),
    .count_o(log_count), .counter_o(log_events), .wrap_o(log_wrap)
  );

  logic unused_re;
  // FLOW_CCTI's window reserves 1,024 flows; the block has NumQps.
  assign unused_re = (^reg_waddr) ^ log_wrap ^ (^log_count) ^ (^(flow_idx >> QpWidth));

`ifndef SYNTHESIS
  // A BECN never raises a CCTI beyond the clamped CCTI_Limit.
  CctiBounded_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      becn |-> becn_next <= limit)
    else $error("CCTI raised beyond CCTI_Limit");
  TimerExpiry_C: cover property (@(posedge clk_i) expired != '0);
  CctiAtLimit_C: cover property (@(posedge clk_i) becn && becn_next == limit);
  TriggerEvent_C: cover property (@(posedge clk_i) trigger);
  // A view of the first flows' CCTIs for waveforms (the RAM holds the words; this is what
  // the CSR window would read for each; the network model computes any flow's from the
  // words, rtl_loop/ccti_block_loop.cpp). Only 16: the view is evaluated at every edge.
  localparam int unsigned ViewFlows = (NumQps < 16) ? NumQps : 16;
  // Whether flow f was written since reset (the group's bits, once the group is valid).
  function automatic logic written_now(input logic [QpWidth-1:0] f);
    written_now = written_of(group_valid_q[group_of(f)], written_ram[group_of(f)], f);
  endfunction
  /* verilator lint_off UNUSEDSIGNAL */  // read by waveforms only
  logic [CctiWidth-1:0] flow_ccti [ViewFlows];
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    for (int unsigned f = 0; f < ViewFlows; f++) begin
      logic [WordWidth-1:0] w;
      w = flow_ram[f];
      flow_ccti[f] = written_now(QpWidth'(f)) ?
          decayed(w[BaseLsb +: CctiWidth], expiries_sl_q[w[SlLsb +: SlWidth]] - w[StampWidth-1:0],
                  min_q[w[SlLsb +: SlWidth]]) : '0;
    end
  end
  // The check that the scrubber keeps every stamp within 512 expiries of its SL's count (it
  // needs a free write slot for a stale flow before its SL expires 384 more times; an
  // expiry takes at least a tick of 2 cycles), so the 10-bit stamps never wrap: one flow
  // per edge, round robin (an age grows by at most one per two edges, so a flow is seen
  // long before it could wrap).
  logic [QpWidth-1:0]    check_flow_q;
  /* verilator lint_off UNUSEDSIGNAL */  // the base is not needed for the age
  logic [WordWidth-1:0]  check_word;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [StampWidth-1:0] check_age;
  logic                  stamps_fresh;
  logic [3:0]            check_sl;
  assign check_word   = flow_ram[check_flow_q];
  assign check_sl     = check_word[SlLsb +: SlWidth];
  assign check_age    = expiries_sl_q[check_sl] - check_word[StampWidth-1:0];
  assign stamps_fresh = !written_now(check_flow_q) || !check_age[StampWidth-1];  // < 512
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) check_flow_q <= '0;
    else         check_flow_q <= check_flow_q + 1'b1;
  end
  StampFresh_A: assert property (@(posedge clk_i) disable iff (!rst_ni) stamps_fresh)
    else $error("flow %0d: its stamp is about to wrap", check_flow_q);
  ScrubClamp_C: cover property (@(posedge clk_i) scrub_we);
  // A group's first write since reset, over the bits it held before (of flows written before
  // a reset, if any): those bits must read as unwritten.
  GroupFirstWrite_C: cover property (@(posedge clk_i) becn && !becn_gvalid_q &&
      !(fwd_map_valid_q && fwd_group_q == group_of(becn_flow_q)) && becn_map_q != '0);
  BecnForwarded_C: cover property (@(posedge clk_i) becn && fwd_valid_q && fwd_flow_q == becn_flow_q);
`endif

endmodule : ccti_block
