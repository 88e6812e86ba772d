// Switch-port CC unit (one per output port): threshold logic, root/victim congestion state
// per VL, FECN marking, counters, the switch CongestionLog and its AXI4-Lite CSRs.
// Reference model: sc_models/cc/fecn_marker.cpp (the co-simulation compares every output
// every cycle). Register map: rtl/regs/fecn_marker.yaml.
`default_nettype none

module fecn_marker #(
  parameter int unsigned NumInputs  = 8,    // input ports whose VoQs feed this output
  parameter int unsigned NumVls     = 4,    // data VLs, 2..15
  parameter int unsigned FillWidth  = 12,   // bits of a VoQ fill / credit count (64 B units)
  parameter int unsigned PortNum    = 0,    // this port's bit in Victim_Mask and PortMap
  parameter int unsigned TickCycles = 256   // core cycles per 1.024 us
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,
  // Fill of the VoQs headed for this output: [(input * NumVls + vl) * FillWidth +: FillWidth]
  input  logic [NumInputs*NumVls*FillWidth-1:0] voq_fill_i,
  // Credits available toward the downstream port: [vl * FillWidth +: FillWidth]
  input  logic [NumVls*FillWidth-1:0]           credits_i,
  // The packet departing this cycle
  input  logic                                  pkt_valid_i,
  input  logic [3:0]                            pkt_vl_i,
  input  logic [3:0]                            pkt_sl_i,
  input  logic [15:0]                           pkt_slid_i,
  input  logic [15:0]                           pkt_dlid_i,
  input  logic [7:0]                            pkt_len_i,    // 64-byte credits
  // Congestion state and the FECN decision for the packet of the previous edge
  output logic [NumVls-1:0]                     cong_state_o,
  output logic                                  fecn_valid_o,
  output logic                                  fecn_mark_o,
  // AXI4-Lite CSR port
  input  logic                                  s_axil_awvalid_i,
  output logic                                  s_axil_awready_o,
  input  logic [11:0]                           s_axil_awaddr_i,
  input  logic                                  s_axil_wvalid_i,
  output logic                                  s_axil_wready_o,
  input  logic [31:0]                           s_axil_wdata_i,
  input  logic [3:0]                            s_axil_wstrb_i,
  output logic                                  s_axil_bvalid_o,
  input  logic                                  s_axil_bready_i,
  output logic [1:0]                            s_axil_bresp_o,
  input  logic                                  s_axil_arvalid_i,
  output logic                                  s_axil_arready_o,
  input  logic [11:0]                           s_axil_araddr_i,
  output logic                                  s_axil_rvalid_o,
  input  logic                                  s_axil_rready_i,
  output logic [31:0]                           s_axil_rdata_o,
  output logic [1:0]                            s_axil_rresp_o
);

  // ---------------------------------------------------------------------------------------
  // Parameters and register offsets
  // ---------------------------------------------------------------------------------------
  localparam int unsigned LogDepth   = 15;
  localparam int unsigned SkipWidth  = 17;  // a random gap reaches 2 * 0xffff
  localparam int unsigned CntWidth   = $clog2(NumInputs + 1);
  localparam int unsigned SumWidth   = FillWidth + CntWidth;
  localparam int unsigned MeasWidth  = SumWidth + 4 + CntWidth;  // sum * 16 * contributors
  localparam int unsigned TripWidth  = FillWidth + 5;            // level16 * capacity

  localparam logic [1:0] MappingPerVoq      = 2'd0;
  localparam logic [1:0] MappingSum         = 2'd1;
  localparam logic [1:0] MappingSumDivPorts = 2'd2;

  // ---------------------------------------------------------------------------------------
  // Timebase and bus
  // ---------------------------------------------------------------------------------------
  logic        tick_unused;
  logic [31:0] timestamp;

  ibcc_timebase #(.TickCycles(TickCycles)) u_timebase (
    .clk_i(clk_i), .rst_ni(rst_ni), .tick_o(tick_unused), .timestamp_o(timestamp)
  );

  logic        reg_we, reg_re, reg_werror, reg_rerror;
  logic [11:0] reg_waddr, reg_raddr, reg_ar_addr, reg_aw_addr;
  logic        reg_ar, reg_aw;
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
    .reg_aw_o(reg_aw), .reg_aw_addr_o(reg_aw_addr),
    .reg_ar_o(reg_ar), .reg_ar_addr_o(reg_ar_addr),
    .reg_re_o(reg_re), .reg_raddr_o(reg_raddr), .reg_rdata_i(reg_rdata),
    .reg_rerror_i(reg_rerror)
  );

  // ---------------------------------------------------------------------------------------
  // Configuration registers
  // ---------------------------------------------------------------------------------------
  // Stored in the generated decode (fecn_marker_reg_top); the names are the registers'.
  logic [31:0]          control_map_q;  // read back only: no hardware reads it
  logic                 victim_mask_q;
  logic [3:0]           sw_threshold_q, port_threshold_q;
  logic [7:0]           sw_packet_size_q, port_packet_size_q;
  logic [15:0]          sw_marking_rate_q, port_marking_rate_q;
  logic                 port_valid_q;
  logic [1:0]           mapping_q;
  logic                 marking_mode_q;   // 0 counter, 1 random
  logic [3:0]           hysteresis_q;
  logic [FillWidth-1:0] capacity_q;
  logic [15:0]          lfsr_q;

  logic [3:0]  threshold;
  logic [7:0]  packet_size;
  logic [15:0] marking_rate;
  assign threshold    = port_valid_q ? port_threshold_q : sw_threshold_q;
  assign packet_size  = port_valid_q ? port_packet_size_q : sw_packet_size_q;
  assign marking_rate = port_valid_q ? port_marking_rate_q : sw_marking_rate_q;

  // ---------------------------------------------------------------------------------------
  // Congestion state: trip level in sixteenths of the capacity ("linear16", with hysteresis)
  // ---------------------------------------------------------------------------------------
  // A pipeline, so that a switch port's 36 or 64 inputs close timing at the core clock:
  //   edge 1      the fills and credits from every input port across the switch, registered
  //               at the unit's boundary (voq_fill_q, credits_q);
  //   edges 2..   per VL, the fills reduced to their largest, sum and nonzero count
  //               (ibcc_fill_reduce: ReduceStages = max(1, ceil(clog2(NumInputs) / 2)) edges);
  //   next edge   the measures registered (meas_*_q: largest, sum, count, sum x count);
  //   next edge   the congestion state (cong_q) from the measures, the trip levels and the
  //               credits. The trip levels and the mapping are registered from the CSRs
  //               over two edges (level_*_q, then trip_*_q, cfg_*_q), so a CSR write
  //               reaches the state two edges later.
  // ReduceStages + 3 edges take a change of a fill to the state; of a credit count, two.
  // The C++ reference models this as a delay of ReduceStages + 1 edges of the fills' summary.
  localparam int unsigned ProdWidth    = SumWidth + CntWidth;

  logic [NumInputs*NumVls*FillWidth-1:0] voq_fill_q;
  logic [NumVls*FillWidth-1:0]           credits_q;
  logic [NumVls-1:0] cong_q, cong_d;
  logic [4:0]        enter_level, exit_level;
  logic [4:0]        hyst_ext;
  logic [4:0]           level_enter_q, level_exit_q;  // edge 1 after the CSRs
  logic [FillWidth-1:0] level_capacity_q;
  logic                 level_on_q, level_victim_q;
  logic [1:0]           level_mapping_q;
  logic [TripWidth-1:0] trip_enter_q, trip_exit_q;    // edge 2: what the state logic reads
  logic                 cfg_on_q, cfg_victim_q;
  logic [1:0]           cfg_mapping_q;

  // The registered buses split per input and VL (g_fill_in[p].g_vl[v].fill) and per VL
  // (g_credits[v].credits), for reading waveforms only: nothing uses them, synthesis drops them.
  /* verilator lint_off UNUSEDSIGNAL */
  for (genvar gp = 0; gp < NumInputs; gp++) begin : g_fill_in
    for (genvar gv = 0; gv < NumVls; gv++) begin : g_vl
      logic [FillWidth-1:0] fill;
      assign fill = voq_fill_q[(gp * NumVls + gv) * FillWidth +: FillWidth];
    end
  end
  for (genvar gv = 0; gv < NumVls; gv++) begin : g_credits
    logic [FillWidth-1:0] credits;
    assign credits = credits_q[gv * FillWidth +: FillWidth];
  end
  /* verilator lint_on UNUSEDSIGNAL */

  assign hyst_ext    = {1'b0, hysteresis_q};
  assign enter_level = 5'd16 - {1'b0, threshold};
  assign exit_level  = (enter_level > hyst_ext + 5'd1) ? enter_level - hyst_ext : 5'd1;

  // Two edges from the CSRs to the state logic: the levels (sixteenths) and the settings are
  // registered first, then the levels times the capacity, so that neither the level
  // arithmetic nor the multiplier sits in a path of one cycle with the other.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      level_enter_q    <= '0;
      level_exit_q     <= '0;
      level_capacity_q <= '0;
      level_on_q       <= 1'b0;
      level_victim_q   <= 1'b0;
      level_mapping_q  <= MappingPerVoq;
      trip_enter_q     <= '0;
      trip_exit_q      <= '0;
      cfg_on_q         <= 1'b0;
      cfg_victim_q     <= 1'b0;
      cfg_mapping_q    <= MappingPerVoq;
    end else begin
      level_enter_q    <= enter_level;
      level_exit_q     <= exit_level;
      level_capacity_q <= capacity_q;
      level_on_q       <= threshold != 4'd0;
      level_victim_q   <= victim_mask_q;
      level_mapping_q  <= mapping_q;
      trip_enter_q     <= TripWidth'(level_enter_q) * TripWidth'(level_capacity_q);
      trip_exit_q      <= TripWidth'(level_exit_q) * TripWidth'(level_capacity_q);
      cfg_on_q         <= level_on_q;
      cfg_victim_q     <= level_victim_q;
      cfg_mapping_q    <= level_mapping_q;
    end
  end

  for (genvar gv = 0; gv < NumVls; gv++) begin : g_vl_state
    logic [NumInputs*FillWidth-1:0] fills;
    logic [FillWidth-1:0] red_max, meas_max_q;
    logic [SumWidth-1:0]  red_sum, meas_sum_q;
    logic [CntWidth-1:0]  red_cnt;
    logic                 meas_any_q;
    logic [ProdWidth-1:0] meas_prod_q;
    logic [MeasWidth-1:0] measure;
    logic                 over_enter, over_exit, crossed, root;

    for (genvar gp = 0; gp < NumInputs; gp++) begin : g_gather
      assign fills[gp * FillWidth +: FillWidth] = voq_fill_q[(gp * NumVls + gv) * FillWidth +: FillWidth];
    end

    ibcc_fill_reduce #(.NumInputs(NumInputs), .FillWidth(FillWidth)) u_reduce (
      .clk_i(clk_i), .rst_ni(rst_ni), .fill_i(fills), .max_o(red_max), .sum_o(red_sum), .count_o(red_cnt)
    );

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        meas_max_q  <= '0;
        meas_sum_q  <= '0;
        meas_any_q  <= 1'b0;
        meas_prod_q <= '0;
      end else begin
        meas_max_q  <= red_max;
        meas_sum_q  <= red_sum;
        meas_any_q  <= red_cnt != '0;
        meas_prod_q <= ProdWidth'(red_sum) * ProdWidth'(red_cnt);
      end
    end

    always_comb begin
      case (cfg_mapping_q)
        MappingSum:         measure = MeasWidth'({meas_sum_q, 4'b0});
        MappingSumDivPorts: measure = {meas_prod_q, 4'b0};
        default:            measure = MeasWidth'({meas_max_q, 4'b0});
      endcase
    end
    // With no contributor, sum_div_ports never crosses (not even a trip level of 0).
    assign over_enter = measure >= MeasWidth'(trip_enter_q) && (meas_any_q || cfg_mapping_q != MappingSumDivPorts);
    assign over_exit  = measure >= MeasWidth'(trip_exit_q) && (meas_any_q || cfg_mapping_q != MappingSumDivPorts);
    assign crossed    = cong_q[gv] ? over_exit : over_enter;
    assign root       = credits_q[gv * FillWidth +: FillWidth] != '0;
    assign cong_d[gv] = cfg_on_q && crossed && (root || cfg_victim_q);
  end

  // ---------------------------------------------------------------------------------------
  // FECN marking: eligible = congested VL and len >= Packet_Size; Marking_Rate skips
  // ---------------------------------------------------------------------------------------
  logic [SkipWidth-1:0] skip_q [NumVls];
  logic                 pkt_vl_ok, eligible, mark;
  logic [SkipWidth-1:0] skip_reload;
  logic [32:0]          gap_product;
  logic [NumVls-1:0]    vl_onehot;

  assign pkt_vl_ok   = pkt_vl_i < 4'(NumVls);
  assign vl_onehot   = pkt_vl_ok ? NumVls'(1) << pkt_vl_i : '0;
  assign eligible    = pkt_valid_i && ((cong_q & vl_onehot) != '0) && (pkt_len_i >= packet_size);
  assign gap_product = 33'(lfsr_q) * 33'({marking_rate, 1'b1});
  assign skip_reload = marking_mode_q ? gap_product[32:16] : SkipWidth'(marking_rate);

  always_comb begin
    mark = 1'b0;
    for (int unsigned v = 0; v < NumVls; v++) begin
      if (eligible && vl_onehot[v] && skip_q[v] == '0) mark = 1'b1;
    end
  end

  // ---------------------------------------------------------------------------------------
  // CSRs: the decode generated from rtl/regs/fecn_marker.yaml
  // ---------------------------------------------------------------------------------------
  // A congestion-log event: {SLID, DLID, SL, TimeStamp}.
  localparam int unsigned EventWidth = 16 + 16 + 4 + 32;
  logic        log_clear;
  logic        lfsr_step;
  logic [15:0] lfsr_next;
  logic [3:0]  log_rd_index;
  logic        log_rd_re;
  logic [EventWidth-1:0] log_rd_event;
  logic                  log_rd_valid;
  logic [15:0]           log_events;
  logic        port_map_q;
  logic [31:0] pkts_sent_q, pkts_marked_q, cong_entries_q;
  logic [31:0] cong_entries;  // CongestionEntries as read (below)
  logic [31:0] pkts_marked;   // the packets marked, as read: pkts_marked_q (those before the
                              // last edge) and fecn_mark_q (its), so no adder follows the mark

  assign lfsr_step = mark && marking_mode_q;
  assign lfsr_next = {1'b0, lfsr_q[15:1]} ^ (lfsr_q[0] ? 16'hB400 : 16'h0);

  fecn_marker_reg_top #(
    .PortNum(PortNum), .FillWidth(FillWidth), .NumVls(NumVls), .NumInputs(NumInputs)
  ) u_regs (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .reg_we_i(reg_we), .reg_wdata_i(reg_wdata), .reg_wstrb_i(reg_wstrb),
    .reg_werror_o(reg_werror), .reg_ar_i(reg_ar), .reg_ar_addr_i(reg_ar_addr),
    .reg_aw_i(reg_aw), .reg_aw_addr_i(reg_aw_addr),
    .reg_re_i(reg_re), .reg_raddr_i(reg_raddr), .reg_rdata_o(reg_rdata),
    .reg_rerror_o(reg_rerror),
    .sw_control_map_control_map_o(control_map_q),
    .sw_victim_mask_mask_o(victim_mask_q),
    .sw_setting_threshold_threshold_o(sw_threshold_q),
    .sw_setting_threshold_packet_size_o(sw_packet_size_q),
    .sw_setting_marking_marking_rate_o(sw_marking_rate_q),
    .port_setting_valid_o(port_valid_q),
    .port_setting_threshold_o(port_threshold_q),
    .port_setting_packet_size_o(port_packet_size_q),
    .port_setting_cong_parm_o(port_marking_rate_q),
    .log_header_log_events_counter_i(log_events),
    .log_timestamp_current_time_stamp_i(timestamp),
    .log_portmap_map_i(port_map_q),
    .log_event_lids_slid_i(log_rd_event[67:52]),
    .log_event_lids_dlid_i(log_rd_event[51:36]),
    .log_event_sl_sl_i(log_rd_event[35:32]),
    .log_event_timestamp_timestamp_i(log_rd_event[31:0]),
    .timestamp_timestamp_i(timestamp),
    .impl_ctrl_threshold_mapping_o(mapping_q),
    .impl_ctrl_marking_mode_o(marking_mode_q),
    .impl_ctrl_hysteresis_o(hysteresis_q),
    .buffer_capacity_credits_o(capacity_q),
    .lfsr_seed_seed_o(lfsr_q),
    .lfsr_seed_seed_de_i(lfsr_step),
    .lfsr_seed_seed_d_i(lfsr_next),
    .log_ctrl_clear_o(log_clear),
    .cong_state_vl_mask_i(16'(cong_q)),
    .pkts_sent_count_i(pkts_sent_q),
    .pkts_marked_count_i(pkts_marked),
    .cong_entries_count_i(cong_entries),
    .log_event_index_o(log_rd_index),
    .log_event_re_o(log_rd_re),
    .log_event_valid_i(log_rd_valid)
  );

  // ---------------------------------------------------------------------------------------
  // Congestion log (ring of 15, head = next slot), counters
  // ---------------------------------------------------------------------------------------
  logic                  log_wrap;
  logic [3:0]            log_count;
  logic        fecn_valid_q, fecn_mark_q;
  logic [NumVls-1:0] entered;
  logic [$clog2(NumVls+1)-1:0] entered_count, entered_count_q;

  // CongestionEntries: the VLs that entered the state at the last edge are counted at that
  // edge (entered_count_q, registered with the state) and added at this one; the count
  // read is that sum plus them, so it is exact at every edge while neither the state's
  // comparison nor the count of its entries feeds the adder the CSR read sees.
  assign entered        = cong_d & ~cong_q;
  assign cong_entries   = cong_entries_q + 32'(entered_count_q);

  always_comb begin
    entered_count = '0;
    for (int unsigned v = 0; v < NumVls; v++) entered_count = entered_count + $bits(entered_count)'(entered[v]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      voq_fill_q          <= '0;
      credits_q           <= '0;
      cong_q              <= '0;
      for (int unsigned v = 0; v < NumVls; v++) skip_q[v] <= '0;
      port_map_q     <= 1'b0;
      pkts_sent_q    <= '0;
      pkts_marked_q  <= '0;
      cong_entries_q <= '0;
      entered_count_q <= '0;
      fecn_valid_q   <= 1'b0;
      fecn_mark_q    <= 1'b0;
    end else begin
      // Datapath (uses this edge's old configuration).
      voq_fill_q <= voq_fill_i;
      credits_q  <= credits_i;
      cong_q     <= cong_d;
      entered_count_q <= entered_count;
      for (int unsigned v = 0; v < NumVls; v++) begin
        if (eligible && vl_onehot[v]) skip_q[v] <= (skip_q[v] == '0) ? skip_reload : skip_q[v] - 1'b1;
      end
      pkts_sent_q    <= pkts_sent_q + 32'(pkt_valid_i);
      pkts_marked_q  <= pkts_marked;
      cong_entries_q <= cong_entries;
      fecn_valid_q   <= pkt_valid_i;
      fecn_mark_q    <= mark;

      // PortMap; the log itself is u_log (a clear of this edge comes before its event).
      port_map_q <= (port_map_q && !log_clear) || (entered != '0);
    end
  end

  assign cong_state_o = cong_q;
  assign fecn_valid_o = fecn_valid_q;
  assign fecn_mark_o  = fecn_mark_q;
  assign pkts_marked  = pkts_marked_q + 32'(fecn_mark_q);

  // The CongestionLog: its read port serves the event the CSR read addresses.
  ibcc_event_log #(.Depth(LogDepth), .Width(EventWidth)) u_log (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(log_clear), .push_i(mark),
    .event_i({pkt_slid_i, pkt_dlid_i, pkt_sl_i, timestamp}),
    .rd_re_i(log_rd_re), .rd_index_i(log_rd_index), .rd_valid_o(log_rd_valid), .rd_event_o(log_rd_event),
    .count_o(log_count), .counter_o(log_events), .wrap_o(log_wrap)
  );

  // Control_Map is stored for the SMA's readback only.
  logic unused_re;
  assign unused_re = (^reg_waddr) ^ tick_unused ^ (^gap_product[15:0]) ^ (^log_count) ^ (^control_map_q);

`ifndef SYNTHESIS
  // A mark is only ever given to a packet of a VL in the congestion state.
  MarkOnlyCongested_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      mark |-> ((cong_q & vl_onehot) != '0))
    else $error("FECN mark outside the congestion state");
  FecnMark_C: cover property (@(posedge clk_i) fecn_mark_o);
  CongEnter_C: cover property (@(posedge clk_i) entered != '0);
  VictimMaskEnter_C: cover property (@(posedge clk_i) victim_mask_q && (entered != '0));
  LogWrap_C: cover property (@(posedge clk_i) log_wrap);
`endif

endmodule : fecn_marker
