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
  // IRD lookup for the send arbiter: answered after the edge
  input  logic [QpWidth-1:0] query_qp_i,
  input  logic [3:0]         query_sl_i,
  output logic [31:0]        ird_o,            // core cycles
  output logic [15:0]        ccti_o,
  // The same lookup of the state after the last edge for the query inputs now (ird_o and
  // ccti_o register it at the next edge): what a transmit scheduler asks in the cycle it
  // schedules, and what the network model reads with the block in its loop.
  output logic [31:0]        ird_next_o,
  output logic [15:0]        ccti_next_o,
  output logic [15:0]        timer_expired_o,  // SL timers that expired at the last edge
  output logic               trigger_event_o,  // a Trigger_Threshold event at the last edge
  // AXI4-Lite CSR port
  input  logic               s_axil_awvalid_i,
  output logic               s_axil_awready_o,
  input  logic [11:0]        s_axil_awaddr_i,
  input  logic               s_axil_wvalid_i,
  output logic               s_axil_wready_o,
  input  logic [31:0]        s_axil_wdata_i,
  input  logic [3:0]         s_axil_wstrb_i,
  output logic               s_axil_bvalid_o,
  input  logic               s_axil_bready_i,
  output logic [1:0]         s_axil_bresp_o,
  input  logic               s_axil_arvalid_i,
  output logic               s_axil_arready_o,
  input  logic [11:0]        s_axil_araddr_i,
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
  localparam int unsigned PairWidth  = $clog2(CctPairs);
  localparam logic [CctiWidth-1:0] LastEntry = CctiWidth'(CctEntries - 1);

  localparam logic [11:0] AddrCongInfo   = ccti_block_reg_pkg::CONGESTION_INFO_OFFSET;
  localparam logic [11:0] AddrCaSetting  = ccti_block_reg_pkg::CA_SETTING_OFFSET;
  localparam logic [11:0] AddrSlTimer    = ccti_block_reg_pkg::CA_SL_TIMER_OFFSET;
  localparam logic [11:0] AddrSlMin      = ccti_block_reg_pkg::CA_SL_MIN_OFFSET;
  localparam int unsigned SlStride       = ccti_block_reg_pkg::CA_SL_TIMER_STRIDE;
  localparam logic [11:0] AddrCctLimit   = ccti_block_reg_pkg::CCT_LIMIT_OFFSET;
  localparam logic [11:0] AddrCctPair    = ccti_block_reg_pkg::CCT_ENTRY_PAIR_OFFSET;
  localparam logic [11:0] AddrLogHeader  = ccti_block_reg_pkg::LOG_HEADER_OFFSET;
  localparam logic [11:0] AddrLogMap     = ccti_block_reg_pkg::LOG_EVENT_MAP_OFFSET;
  localparam logic [11:0] AddrLogTs      = ccti_block_reg_pkg::LOG_TIMESTAMP_OFFSET;
  localparam logic [11:0] AddrEvLqpn     = ccti_block_reg_pkg::LOG_EVENT_LQPN_OFFSET;
  localparam logic [11:0] AddrEvRqpn     = ccti_block_reg_pkg::LOG_EVENT_RQPN_OFFSET;
  localparam logic [11:0] AddrEvLids     = ccti_block_reg_pkg::LOG_EVENT_LIDS_OFFSET;
  localparam logic [11:0] AddrEvTs       = ccti_block_reg_pkg::LOG_EVENT_TIMESTAMP_OFFSET;
  localparam int unsigned EvStride       = ccti_block_reg_pkg::LOG_EVENT_LQPN_STRIDE;
  localparam logic [11:0] AddrTimestamp  = ccti_block_reg_pkg::TIMESTAMP_OFFSET;
  localparam logic [11:0] AddrImplCtrl   = ccti_block_reg_pkg::IMPL_CTRL_OFFSET;
  localparam logic [11:0] AddrMtuCycles  = ccti_block_reg_pkg::MTU_TX_CYCLES_OFFSET;
  localparam logic [11:0] AddrLogCtrl    = ccti_block_reg_pkg::LOG_CTRL_OFFSET;
  localparam logic [11:0] AddrBecnCount  = ccti_block_reg_pkg::BECN_COUNT_OFFSET;
  localparam logic [11:0] AddrExpiries   = ccti_block_reg_pkg::TIMER_EXPIRIES_OFFSET;
  localparam logic [11:0] AddrRunning    = ccti_block_reg_pkg::TIMER_RUNNING_OFFSET;
  localparam logic [11:0] AddrBlockInfo  = ccti_block_reg_pkg::BLOCK_INFO_OFFSET;
  localparam logic [11:0] AddrFlowCcti   = ccti_block_reg_pkg::FLOW_CCTI_OFFSET;

  function automatic logic [31:0] merge(input logic [31:0] cur, input logic [31:0] wdata,
                                        input logic [3:0] wstrb);
    for (int b = 0; b < 4; b++) merge[8*b +: 8] = wstrb[b] ? wdata[8*b +: 8] : cur[8*b +: 8];
  endfunction

  // ---------------------------------------------------------------------------------------
  // Timebase and bus
  // ---------------------------------------------------------------------------------------
  logic        tick;
  logic [31:0] timestamp;

  ibcc_timebase #(.TickCycles(TickCycles)) u_timebase (
    .clk_i(clk_i), .rst_ni(rst_ni), .tick_o(tick), .timestamp_o(timestamp)
  );

  logic        reg_we, reg_re, reg_werror, reg_rerror;
  logic [11:0] reg_waddr, reg_raddr;
  logic [31:0] reg_wdata, reg_rdata;
  logic [3:0]  reg_wstrb;

  ibcc_axil_slave #(.AddrWidth(12)) u_axil (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .awvalid_i(s_axil_awvalid_i), .awready_o(s_axil_awready_o), .awaddr_i(s_axil_awaddr_i),
    .wvalid_i(s_axil_wvalid_i), .wready_o(s_axil_wready_o), .wdata_i(s_axil_wdata_i),
    .wstrb_i(s_axil_wstrb_i), .bvalid_o(s_axil_bvalid_o), .bready_i(s_axil_bready_i),
    .bresp_o(s_axil_bresp_o), .arvalid_i(s_axil_arvalid_i), .arready_o(s_axil_arready_o),
    .araddr_i(s_axil_araddr_i), .rvalid_o(s_axil_rvalid_o), .rready_i(s_axil_rready_i),
    .rdata_o(s_axil_rdata_o), .rresp_o(s_axil_rresp_o),
    .reg_we_o(reg_we), .reg_waddr_o(reg_waddr), .reg_wdata_o(reg_wdata),
    .reg_wstrb_o(reg_wstrb), .reg_werror_i(reg_werror),
    .reg_re_o(reg_re), .reg_raddr_o(reg_raddr), .reg_rdata_i(reg_rdata),
    .reg_rerror_i(reg_rerror)
  );

  // ---------------------------------------------------------------------------------------
  // Configuration registers and the CCT
  // ---------------------------------------------------------------------------------------
  logic                 sl_based_q;
  logic [15:0]          control_map_q;
  logic [15:0]          timer_reload_q [NumSls];
  logic [7:0]           increase_q     [NumSls];
  logic [7:0]           trigger_q      [NumSls];
  logic [7:0]           min_q          [NumSls];
  logic [15:0]          cct_limit_q;
  logic [31:0]          cct_q          [CctPairs];  // entry 2k in 31:16, 2k+1 in 15:0
  logic                 ird_formula_q;              // 0 omnipath, 1 shift_left
  logic [15:0]          mtu_cycles_q;
  logic [CctiWidth-1:0] limit;                      // CCTI_Limit clamped to the table

  assign limit = (cct_limit_q > 16'(LastEntry)) ? LastEntry : cct_limit_q[CctiWidth-1:0];

  // ---------------------------------------------------------------------------------------
  // Per-flow CCTI: an expiry's decrement first, then a BECN's increase
  // ---------------------------------------------------------------------------------------
  logic [CctiWidth-1:0] ccti_q [NumQps];
  logic [3:0]           flow_sl_q [NumQps];
  logic [NumSls-1:0]    timer_running_q, expired;
  logic [15:0]          timer_count_q [NumSls];
  logic                 becn;
  logic [QpWidth-1:0]   becn_flow;
  logic                 trigger;
  logic [3:0]           becn_gov_sl;  // the SL whose timer governs the BECN's flow
  logic [CctiWidth-1:0] becn_ccti, becn_c1, becn_next;
  logic [8:0]           becn_raised;

  assign becn      = becn_valid_i && control_map_q[becn_sl_i];
  assign becn_flow = sl_based_q ? QpWidth'(becn_sl_i) : becn_qp_i;

  always_comb begin
    for (int unsigned s = 0; s < NumSls; s++) begin
      expired[s] = tick && timer_running_q[s] && (timer_count_q[s] == 16'd1);
    end
  end

  // The flow a BECN addresses: its CCTI after this edge's expiry, then the increase.
  // (SL-based: the flow is the SL itself, always governed by its own timer.)
  assign becn_gov_sl = sl_based_q ? becn_sl_i : flow_sl_q[becn_flow];
  assign becn_ccti   = ccti_q[becn_flow];
  assign becn_c1     = (expired[becn_gov_sl] && (8'(becn_ccti) > min_q[becn_gov_sl])) ?
                       becn_ccti - 1'b1 : becn_ccti;
  assign becn_raised = 9'(becn_c1) + 9'(increase_q[becn_sl_i]);
  assign becn_next   = (becn_raised > 9'(limit)) ? limit : becn_raised[CctiWidth-1:0];
  assign trigger     = becn && (trigger_q[becn_sl_i] != 8'd0) &&
                       (8'(becn_c1) < trigger_q[becn_sl_i]) && (8'(becn_next) >= trigger_q[becn_sl_i]);

  // ---------------------------------------------------------------------------------------
  // IRD lookup: index = min(max(CCTI, CCTI_Min), limit); a registered CCT read
  // ---------------------------------------------------------------------------------------
  logic [QpWidth-1:0]   query_flow;
  logic [CctiWidth-1:0] query_ccti, query_index;
  logic [7:0]           query_floor;
  logic [31:0]          entry_pair_q;
  logic                 entry_odd_q, query_enabled_q;
  logic [CctiWidth-1:0] query_ccti_q;

  assign query_flow  = sl_based_q ? QpWidth'(query_sl_i) : query_qp_i;
  assign query_ccti  = ccti_q[query_flow];
  assign query_floor = (8'(query_ccti) > min_q[query_sl_i]) ? 8'(query_ccti) : min_q[query_sl_i];
  assign query_index = (query_floor > 8'(limit)) ? limit : query_floor[CctiWidth-1:0];

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
  assign ird_next_o  = ird_of(cct_q[query_index[CctiWidth-1:1]], query_index[0],
                              control_map_q[query_sl_i], ird_formula_q, mtu_cycles_q);
  assign ccti_next_o = 16'(query_ccti);

  // ---------------------------------------------------------------------------------------
  // CSR write decode
  // ---------------------------------------------------------------------------------------
  // Arrays are decoded by address arithmetic: offset from the array base, then index.
  localparam logic [11:0] SlSpan   = 12'(SlStride * NumSls);
  localparam logic [11:0] PairSpan = 12'(4 * CctPairs);
  localparam logic [11:0] FlowSpan = 12'(4 * NumQps);
  localparam logic [11:0] EvSpan   = 12'(EvStride * LogDepth);

  logic                 we_setting, we_limit, we_impl, we_mtu, we_log_ctrl, we_sl, we_pair;
  logic [11:0]          w_sl_off, w_pair_off;
  logic [3:0]           w_sl;
  logic                 w_sl_is_min;
  logic [PairWidth-1:0] w_pair;
  logic [31:0]          wcur, wmerged;
  logic                 log_clear;

  assign w_sl_off    = reg_waddr - AddrSlTimer;
  assign w_pair_off  = reg_waddr - AddrCctPair;
  assign we_setting  = reg_waddr == AddrCaSetting;
  assign we_limit    = reg_waddr == AddrCctLimit;
  assign we_impl     = reg_waddr == AddrImplCtrl;
  assign we_mtu      = reg_waddr == AddrMtuCycles;
  assign we_log_ctrl = reg_waddr == AddrLogCtrl;
  assign we_sl       = (reg_waddr >= AddrSlTimer) && (w_sl_off < SlSpan) && (w_sl_off[1:0] == 2'b00);
  assign w_sl        = w_sl_off[6:3];
  assign w_sl_is_min = w_sl_off[2];
  assign we_pair     = (reg_waddr >= AddrCctPair) && (w_pair_off < PairSpan) && (w_pair_off[1:0] == 2'b00);
  assign w_pair      = w_pair_off[PairWidth+1:2];

  always_comb begin
    wcur = '0;
    if (we_setting) wcur = {15'b0, sl_based_q, control_map_q};
    if (we_limit)   wcur = {cct_limit_q, 16'b0};
    if (we_impl)    wcur = {31'b0, ird_formula_q};
    if (we_mtu)     wcur = {16'b0, mtu_cycles_q};
    if (we_sl)      wcur = w_sl_is_min ? {min_q[w_sl], 24'b0}
                                       : {timer_reload_q[w_sl], increase_q[w_sl], trigger_q[w_sl]};
  end

  assign wmerged    = merge(wcur, reg_wdata, reg_wstrb);
  assign reg_werror = !(we_setting || we_limit || we_impl || we_mtu || we_log_ctrl || we_sl || we_pair);
  assign log_clear  = reg_we && we_log_ctrl && wmerged[0];

  logic wr_ok;
  assign wr_ok = reg_we && !reg_werror;

  // ---------------------------------------------------------------------------------------
  // State update
  // ---------------------------------------------------------------------------------------
  logic [15:0]        log_map_q;
  logic [31:0]        becn_count_q, expiries_q, expired_count;
  logic [15:0]        timer_expired_q;
  logic               trigger_q_out;


  always_comb begin
    expired_count = '0;
    for (int unsigned s = 0; s < NumSls; s++) expired_count = expired_count + 32'(expired[s]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sl_based_q    <= ccti_block_reg_pkg::CA_SETTING_PORT_CONTROL_RESET[0];
      control_map_q <= ccti_block_reg_pkg::CA_SETTING_CONTROL_MAP_RESET;
      for (int unsigned s = 0; s < NumSls; s++) begin
        timer_reload_q[s]  <= ccti_block_reg_pkg::CA_SL_TIMER_CCTI_TIMER_RESET;
        increase_q[s]      <= ccti_block_reg_pkg::CA_SL_TIMER_CCTI_INCREASE_RESET;
        trigger_q[s]       <= ccti_block_reg_pkg::CA_SL_TIMER_TRIGGER_THRESHOLD_RESET;
        min_q[s]           <= ccti_block_reg_pkg::CA_SL_MIN_CCTI_MIN_RESET;
        timer_count_q[s]   <= '0;
      end
      cct_limit_q   <= ccti_block_reg_pkg::CCT_LIMIT_CCTI_LIMIT_RESET;
      for (int unsigned k = 0; k < CctPairs; k++) cct_q[k] <= '0;
      ird_formula_q <= ccti_block_reg_pkg::IMPL_CTRL_IRD_FORMULA_RESET[0];
      mtu_cycles_q  <= ccti_block_reg_pkg::MTU_TX_CYCLES_CYCLES_RESET;
      for (int unsigned f = 0; f < NumQps; f++) begin
        ccti_q[f]    <= '0;
        flow_sl_q[f] <= '0;
      end
      timer_running_q <= '0;
      becn_count_q    <= '0;
      expiries_q      <= '0;
      log_map_q       <= '0;
      entry_pair_q    <= '0;
      entry_odd_q     <= 1'b0;
      query_enabled_q <= 1'b0;
      query_ccti_q    <= '0;
      timer_expired_q <= '0;
      trigger_q_out   <= 1'b0;
    end else begin
      // Registered IRD lookup of the state before this edge.
      entry_pair_q    <= cct_q[query_index[CctiWidth-1:1]];
      entry_odd_q     <= query_index[0];
      query_enabled_q <= control_map_q[query_sl_i];
      query_ccti_q    <= query_ccti;

      // Expiry (rare, so the per-flow work is evaluated only then): every governed flow
      // above its SL's CCTI_Min drops by one, and an expiring timer re-arms while a flow of
      // its SL stays above the minimum after this edge.
      if (expired != '0) begin
        logic [NumSls-1:0] above_min;
        above_min = '0;
        for (int unsigned f = 0; f < NumQps; f++) begin
          logic                 governed;
          logic [3:0]           sl, sl_after;
          logic [CctiWidth-1:0] after;
          governed = sl_based_q ? (f < NumSls) : 1'b1;
          sl       = sl_based_q ? 4'(f) : flow_sl_q[f];
          after    = (governed && expired[sl] && (8'(ccti_q[f]) > min_q[sl])) ? ccti_q[f] - 1'b1 : ccti_q[f];
          sl_after = sl;
          if (becn && becn_flow == QpWidth'(f)) begin
            after = becn_next;
            if (!sl_based_q) sl_after = becn_sl_i;
          end
          ccti_q[f] <= after;
          if (governed && (8'(after) > min_q[sl_after])) above_min[sl_after] = 1'b1;
        end
        for (int unsigned s = 0; s < NumSls; s++) begin
          if (expired[s]) begin
            timer_running_q[s] <= above_min[s];
            timer_count_q[s]   <= above_min[s] ? timer_reload_q[s] : 16'd0;
          end
        end
      end
      if (becn) begin
        ccti_q[becn_flow] <= becn_next;
        if (!sl_based_q) flow_sl_q[becn_flow] <= becn_sl_i;
      end
      // A BECN arms an idle timer; a running timer is never restarted by a BECN.
      for (int unsigned s = 0; s < NumSls; s++) begin
        if (!expired[s]) begin
          if (becn && becn_sl_i == 4'(s) && !timer_running_q[s]) begin
            timer_running_q[s] <= 1'b1;
            timer_count_q[s]   <= timer_reload_q[s];
          end else if (tick && timer_running_q[s] && timer_count_q[s] > 16'd1) begin
            timer_count_q[s]   <= timer_count_q[s] - 16'd1;
          end
        end
      end
      expiries_q      <= expiries_q + expired_count;
      becn_count_q    <= becn_count_q + 32'(becn);
      timer_expired_q <= expired;
      trigger_q_out   <= trigger;

      // ThresholdCongestionEventMap; the log itself is u_log (a clear of this edge comes
      // before its event).
      log_map_q <= (log_clear ? 16'd0 : log_map_q) | (trigger ? 16'd1 << becn_sl_i : 16'd0);

      // Register writes (after the datapath, which used the old configuration).
      if (wr_ok && we_setting) begin
        sl_based_q    <= wmerged[16];
        control_map_q <= wmerged[15:0];
      end
      if (wr_ok && we_sl && !w_sl_is_min) begin
        timer_reload_q[w_sl] <= wmerged[31:16];
        increase_q[w_sl]     <= wmerged[15:8];
        trigger_q[w_sl]      <= wmerged[7:0];
      end
      if (wr_ok && we_sl && w_sl_is_min) min_q[w_sl] <= wmerged[31:24];
      if (wr_ok && we_limit) cct_limit_q <= wmerged[31:16];
      if (wr_ok && we_pair) begin
        for (int b = 0; b < 4; b++) begin
          if (reg_wstrb[b]) cct_q[w_pair][8*b +: 8] <= reg_wdata[8*b +: 8];
        end
      end
      if (wr_ok && we_impl) ird_formula_q <= wmerged[0];
      if (wr_ok && we_mtu) mtu_cycles_q <= wmerged[15:0];
    end
  end

  assign timer_expired_o = timer_expired_q;
  assign trigger_event_o = trigger_q_out;

  // ---------------------------------------------------------------------------------------
  // CSR read decode
  // ---------------------------------------------------------------------------------------
  logic [11:0]        r_sl_off, r_pair_off, r_flow_off, r_ev_off;
  logic               r_sl, r_pair, r_flow, r_ev;
  logic [3:0]         ev_idx;
  // An event: {local QPN, remote QPN, SL, service type, local LID, remote LID, TimeStamp}.
  localparam int unsigned EventWidth = QpWidth + 24 + 4 + 4 + 16 + 16 + 32;
  logic [EventWidth-1:0] ev_event;
  logic                  ev_valid, log_wrap;
  logic [3:0]            log_count;
  logic [15:0]           log_events;
  logic [QpWidth-1:0] r_flow_idx;
  logic               array_hit;
  logic [31:0]        array_rdata;

  assign r_sl_off   = reg_raddr - AddrSlTimer;
  assign r_pair_off = reg_raddr - AddrCctPair;
  assign r_flow_off = reg_raddr - AddrFlowCcti;
  assign r_ev_off   = reg_raddr - AddrEvLqpn;
  assign r_sl       = (reg_raddr >= AddrSlTimer) && (r_sl_off < SlSpan);
  assign r_pair     = (reg_raddr >= AddrCctPair) && (r_pair_off < PairSpan);
  assign r_flow     = (reg_raddr >= AddrFlowCcti) && (r_flow_off < FlowSpan);
  assign r_ev       = (reg_raddr >= AddrEvLqpn) && (r_ev_off < EvSpan);
  assign r_flow_idx = r_flow_off[QpWidth+1:2];
  assign ev_idx      = r_ev_off[7:4];  // event e, 0 = the most recent

  // The CA CongestionLog: its read port serves the event the CSR read addresses.
  ibcc_event_log #(.Depth(LogDepth), .Width(EventWidth)) u_log (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(log_clear), .push_i(trigger),
    .event_i({becn_qp_i, becn_rqpn_i, becn_sl_i, becn_st_i, becn_llid_i, becn_rlid_i, timestamp}),
    .rd_index_i(ev_idx), .rd_valid_o(ev_valid), .rd_event_o(ev_event),
    .count_o(log_count), .counter_o(log_events), .wrap_o(log_wrap)
  );

  always_comb begin
    array_hit   = r_sl || r_pair || r_flow || r_ev;
    array_rdata = '0;
    if (r_sl) begin
      array_rdata = r_sl_off[2] ? {min_q[r_sl_off[6:3]], 24'b0}
                                : {timer_reload_q[r_sl_off[6:3]], increase_q[r_sl_off[6:3]],
                                   trigger_q[r_sl_off[6:3]]};
    end
    if (r_pair) array_rdata = cct_q[r_pair_off[PairWidth+1:2]];
    if (r_flow) array_rdata = {12'b0, flow_sl_q[r_flow_idx], 16'(ccti_q[r_flow_idx])};
    if (r_ev && ev_valid) begin
      case (r_ev_off[3:2])
        2'd0:    array_rdata = {24'(ev_event[EventWidth-1 -: QpWidth]), ev_event[71:64]};  // local QPN, SL, ST
        2'd1:    array_rdata = {ev_event[95:72], 8'b0};                                     // remote QPN
        2'd2:    array_rdata = ev_event[63:32];                                             // local LID, remote LID
        default: array_rdata = ev_event[31:0];                                  // TimeStamp
      endcase
    end
  end

  always_comb begin
    reg_rdata  = '0;
    reg_rerror = 1'b0;
    case (reg_raddr)
      AddrCongInfo:  reg_rdata = {16'b0, 8'(CctEntries / 64), 8'b0};
      AddrCaSetting: reg_rdata = {15'b0, sl_based_q, control_map_q};
      AddrCctLimit:  reg_rdata = {cct_limit_q, 16'b0};
      AddrLogHeader: reg_rdata = {8'd2, 8'd0, log_events};
      AddrLogMap:    reg_rdata = {log_map_q, 16'b0};
      AddrLogTs:     reg_rdata = timestamp;
      AddrTimestamp: reg_rdata = timestamp;
      AddrImplCtrl:  reg_rdata = {31'b0, ird_formula_q};
      AddrMtuCycles: reg_rdata = {16'b0, mtu_cycles_q};
      AddrLogCtrl:   reg_rdata = '0;
      AddrBecnCount: reg_rdata = becn_count_q;
      AddrExpiries:  reg_rdata = expiries_q;
      AddrRunning:   reg_rdata = {16'b0, timer_running_q};
      AddrBlockInfo: reg_rdata = {16'(CctEntries), 16'(NumQps)};
      default: begin
        reg_rdata  = array_rdata;
        reg_rerror = !array_hit;
      end
    endcase
    if (reg_raddr[1:0] != 2'b00) begin
      reg_rdata  = '0;
      reg_rerror = 1'b1;
    end
  end

  // reg_re only qualifies the response inside the slave; the decode is combinational.
  logic unused_re;
  assign unused_re = reg_re ^ log_wrap ^ (^log_count);

`ifndef SYNTHESIS
  // The array decode above relies on this layout of the generated register map.
  initial begin
    if (AddrSlMin != AddrSlTimer + 12'd4 || SlStride != 8) $fatal(1, "CA_SL_* layout changed");
    if (AddrEvRqpn != AddrEvLqpn + 12'd4 || AddrEvLids != AddrEvLqpn + 12'd8 ||
        AddrEvTs != AddrEvLqpn + 12'd12 || EvStride != 16) begin
      $fatal(1, "LOG_EVENT_* layout changed");
    end
  end

  // A BECN never raises a CCTI beyond the clamped CCTI_Limit.
  CctiBounded_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      becn |-> becn_next <= limit)
    else $error("CCTI raised beyond CCTI_Limit");
  TimerExpiry_C: cover property (@(posedge clk_i) expired != '0);
  CctiAtLimit_C: cover property (@(posedge clk_i) becn && becn_next == limit);
  TriggerEvent_C: cover property (@(posedge clk_i) trigger);
`endif

endmodule : ccti_block
