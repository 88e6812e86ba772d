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
  // CSRs: the decode generated from rtl/regs/ccti_block.yaml
  // ---------------------------------------------------------------------------------------
  localparam int unsigned FlowIndexWidth = 8;  // FLOW_CCTI reserves 256 words
  // An event: {local QPN, remote QPN, SL, service type, local LID, remote LID, TimeStamp}.
  localparam int unsigned EventWidth = QpWidth + 24 + 4 + 4 + 16 + 16 + 32;
  logic                      log_clear;
  logic [3:0]                ev_idx;
  logic [EventWidth-1:0]     ev_event;
  logic                      ev_valid;
  logic [15:0]               log_events;
  logic [15:0]               log_map_q;
  logic [31:0]               becn_count_q, expiries_q;
  logic [FlowIndexWidth-1:0] flow_idx;

  ccti_block_reg_top #(.CctEntries(CctEntries), .NumQps(NumQps)) u_regs (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .reg_we_i(reg_we), .reg_waddr_i(reg_waddr), .reg_wdata_i(reg_wdata), .reg_wstrb_i(reg_wstrb),
    .reg_werror_o(reg_werror), .reg_re_i(reg_re), .reg_raddr_i(reg_raddr), .reg_rdata_o(reg_rdata),
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
    .flow_ccti_sl_i(flow_sl_q[QpWidth'(flow_idx)]),
    .flow_ccti_ccti_i(16'(ccti_q[QpWidth'(flow_idx)])),
    .log_event_index_o(ev_idx),
    .log_event_valid_i(ev_valid),
    .flow_index_o(flow_idx),
    .flow_valid_i(1'b1)
  );

  // ---------------------------------------------------------------------------------------
  // State update
  // ---------------------------------------------------------------------------------------
  logic [31:0]        expired_count;
  logic [15:0]        timer_expired_q;
  logic               trigger_q_out;


  always_comb begin
    expired_count = '0;
    for (int unsigned s = 0; s < NumSls; s++) expired_count = expired_count + 32'(expired[s]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned s = 0; s < NumSls; s++) timer_count_q[s] <= '0;
      for (int unsigned f = 0; f < NumQps; f++) begin
        ccti_q[f]    <= '0;
        flow_sl_q[f] <= '0;
      end
      timer_running_q <= '0;
      becn_count_q    <= '0;
      expiries_q      <= '0;
      log_map_q       <= '0;
      entry_odd_q     <= 1'b0;
      query_enabled_q <= 1'b0;
      query_ccti_q    <= '0;
      timer_expired_q <= '0;
      trigger_q_out   <= 1'b0;
    end else begin
      // Registered IRD lookup of the state before this edge (the CCT entry pair: above).
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
    end
  end

  assign timer_expired_o = timer_expired_q;
  assign trigger_event_o = trigger_q_out;

  // The CA CongestionLog: its read port serves the event the CSR read addresses.
  logic       log_wrap;
  logic [3:0] log_count;

  ibcc_event_log #(.Depth(LogDepth), .Width(EventWidth)) u_log (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(log_clear), .push_i(trigger),
    .event_i({becn_qp_i, becn_rqpn_i, becn_sl_i, becn_st_i, becn_llid_i, becn_rlid_i, timestamp}),
    .rd_index_i(ev_idx), .rd_valid_o(ev_valid), .rd_event_o(ev_event),
    .count_o(log_count), .counter_o(log_events), .wrap_o(log_wrap)
  );

  logic unused_re;
  // FLOW_CCTI's window reserves 256 flows; the block has NumQps.
  assign unused_re = log_wrap ^ (^log_count) ^ (^(flow_idx >> QpWidth));

`ifndef SYNTHESIS
  // A BECN never raises a CCTI beyond the clamped CCTI_Limit.
  CctiBounded_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      becn |-> becn_next <= limit)
    else $error("CCTI raised beyond CCTI_Limit");
  TimerExpiry_C: cover property (@(posedge clk_i) expired != '0);
  CctiAtLimit_C: cover property (@(posedge clk_i) becn && becn_next == limit);
  TriggerEvent_C: cover property (@(posedge clk_i) trigger);
`endif

endmodule : ccti_block
