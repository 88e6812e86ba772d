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
  localparam int unsigned MaskWord   = 7 - PortNum / 32;         // MSB-first word of PortNum
  localparam int unsigned MaskBit    = PortNum % 32;

  localparam logic [1:0] MappingPerVoq      = 2'd0;
  localparam logic [1:0] MappingSum         = 2'd1;
  localparam logic [1:0] MappingSumDivPorts = 2'd2;

  localparam logic [11:0] AddrCongInfo     = fecn_marker_reg_pkg::CONGESTION_INFO_OFFSET;
  localparam logic [11:0] AddrControlMap   = fecn_marker_reg_pkg::SW_CONTROL_MAP_OFFSET;
  localparam logic [11:0] AddrVictimMask   = fecn_marker_reg_pkg::SW_VICTIM_MASK_OFFSET;
  localparam logic [11:0] AddrCreditMask   = fecn_marker_reg_pkg::SW_CREDIT_MASK_OFFSET;
  localparam logic [11:0] AddrSwThreshold  = fecn_marker_reg_pkg::SW_SETTING_THRESHOLD_OFFSET;
  localparam logic [11:0] AddrSwMarking    = fecn_marker_reg_pkg::SW_SETTING_MARKING_OFFSET;
  localparam logic [11:0] AddrPortSetting  = fecn_marker_reg_pkg::PORT_SETTING_OFFSET;
  localparam logic [11:0] AddrLogHeader    = fecn_marker_reg_pkg::LOG_HEADER_OFFSET;
  localparam logic [11:0] AddrLogTimestamp = fecn_marker_reg_pkg::LOG_TIMESTAMP_OFFSET;
  localparam logic [11:0] AddrLogPortmap   = fecn_marker_reg_pkg::LOG_PORTMAP_OFFSET;
  localparam logic [11:0] AddrLogLids      = fecn_marker_reg_pkg::LOG_EVENT_LIDS_OFFSET;
  localparam logic [11:0] AddrLogSl        = fecn_marker_reg_pkg::LOG_EVENT_SL_OFFSET;
  localparam logic [11:0] AddrLogTs        = fecn_marker_reg_pkg::LOG_EVENT_TIMESTAMP_OFFSET;
  localparam logic [11:0] AddrTimestamp    = fecn_marker_reg_pkg::TIMESTAMP_OFFSET;
  localparam logic [11:0] AddrImplCtrl     = fecn_marker_reg_pkg::IMPL_CTRL_OFFSET;
  localparam logic [11:0] AddrCapacity     = fecn_marker_reg_pkg::BUFFER_CAPACITY_OFFSET;
  localparam logic [11:0] AddrLfsrSeed     = fecn_marker_reg_pkg::LFSR_SEED_OFFSET;
  localparam logic [11:0] AddrLogCtrl      = fecn_marker_reg_pkg::LOG_CTRL_OFFSET;
  localparam logic [11:0] AddrCongState    = fecn_marker_reg_pkg::CONG_STATE_OFFSET;
  localparam logic [11:0] AddrPktsSent     = fecn_marker_reg_pkg::PKTS_SENT_OFFSET;
  localparam logic [11:0] AddrPktsMarked   = fecn_marker_reg_pkg::PKTS_MARKED_OFFSET;
  localparam logic [11:0] AddrCongEntries  = fecn_marker_reg_pkg::CONG_ENTRIES_OFFSET;
  localparam logic [11:0] AddrBlockInfo    = fecn_marker_reg_pkg::BLOCK_INFO_OFFSET;
  localparam int unsigned LogStride        = fecn_marker_reg_pkg::LOG_EVENT_LIDS_STRIDE;

  // Strobed merge of a write into the current register value.
  function automatic logic [31:0] merge(input logic [31:0] cur, input logic [31:0] wdata,
                                        input logic [3:0] wstrb);
    for (int b = 0; b < 4; b++) merge[8*b +: 8] = wstrb[b] ? wdata[8*b +: 8] : cur[8*b +: 8];
  endfunction

  // ---------------------------------------------------------------------------------------
  // Timebase and bus
  // ---------------------------------------------------------------------------------------
  logic        tick_unused;
  logic [31:0] timestamp;

  ibcc_timebase #(.TickCycles(TickCycles)) u_timebase (
    .clk_i(clk_i), .rst_ni(rst_ni), .tick_o(tick_unused), .timestamp_o(timestamp)
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
  // Configuration registers
  // ---------------------------------------------------------------------------------------
  logic [31:0]          control_map_q;
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
  // The fills and credits come from every input port across the switch: registered at the
  // unit's boundary, so the threshold logic works on the values of the previous edge.
  logic [NumInputs*NumVls*FillWidth-1:0] voq_fill_q;
  logic [NumVls*FillWidth-1:0]           credits_q;
  logic [NumVls-1:0] cong_q, cong_d;
  logic [4:0]        enter_level, exit_level;
  logic [4:0]        hyst_ext;

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

  always_comb begin
    for (int unsigned v = 0; v < NumVls; v++) begin
      logic [SumWidth-1:0]  sum;
      logic [CntWidth-1:0]  contributors;
      logic                 any_over;
      logic [4:0]           level;
      logic [TripWidth-1:0] trip;
      logic [MeasWidth-1:0] measure;
      logic                 crossed;
      logic                 root;
      level = cong_q[v] ? exit_level : enter_level;
      trip  = TripWidth'(level) * TripWidth'(capacity_q);
      sum = '0;
      contributors = '0;
      any_over = 1'b0;
      for (int unsigned p = 0; p < NumInputs; p++) begin
        logic [FillWidth-1:0] fill;
        fill = voq_fill_q[(p * NumVls + v) * FillWidth +: FillWidth];
        sum = sum + SumWidth'(fill);
        contributors = contributors + CntWidth'(fill != '0);
        any_over = any_over | (TripWidth'({fill, 4'b0}) >= trip);
      end
      case (mapping_q)
        MappingSum:         measure = MeasWidth'({sum, 4'b0});
        MappingSumDivPorts: measure = MeasWidth'({sum, 4'b0}) * MeasWidth'(contributors);
        default:            measure = '0;
      endcase
      if (mapping_q == MappingPerVoq) crossed = any_over;
      else if (mapping_q == MappingSumDivPorts) crossed = (contributors != '0) && (measure >= MeasWidth'(trip));
      else crossed = measure >= MeasWidth'(trip);
      root = credits_q[v * FillWidth +: FillWidth] != '0;
      cong_d[v] = (threshold != 4'd0) && crossed && (root || victim_mask_q);
    end
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
  // CSR write decode
  // ---------------------------------------------------------------------------------------
  logic        we_control_map, we_victim, we_sw_threshold, we_sw_marking, we_port;
  logic        we_impl, we_capacity, we_lfsr, we_log_ctrl, we_ignored;
  logic [31:0] wmerged;
  logic        log_clear;
  // The 8-word mask arrays are decoded by address arithmetic.
  logic [11:0] w_victim_off, w_credit_off;
  logic        w_victim_hit, w_credit_hit;
  logic [2:0]  w_mask_word;

  assign w_victim_off = reg_waddr - AddrVictimMask;
  assign w_credit_off = reg_waddr - AddrCreditMask;
  assign w_victim_hit = (reg_waddr >= AddrVictimMask) && (w_victim_off < 12'd32) && (w_victim_off[1:0] == 2'b00);
  assign w_credit_hit = (reg_waddr >= AddrCreditMask) && (w_credit_off < 12'd32) && (w_credit_off[1:0] == 2'b00);
  assign w_mask_word  = w_victim_off[4:2];

  always_comb begin
    logic [31:0] cur;
    we_control_map  = 1'b0;
    we_victim       = 1'b0;
    we_sw_threshold = 1'b0;
    we_sw_marking   = 1'b0;
    we_port         = 1'b0;
    we_impl         = 1'b0;
    we_capacity     = 1'b0;
    we_lfsr         = 1'b0;
    we_log_ctrl     = 1'b0;
    we_ignored      = 1'b0;
    cur             = '0;
    if (reg_waddr == AddrControlMap) begin
      we_control_map = 1'b1;
      cur = control_map_q;
    end else if (reg_waddr == AddrSwThreshold) begin
      we_sw_threshold = 1'b1;
      cur = {sw_threshold_q, 4'b0, sw_packet_size_q, 16'b0};
    end else if (reg_waddr == AddrSwMarking) begin
      we_sw_marking = 1'b1;
      cur = {16'b0, sw_marking_rate_q};
    end else if (reg_waddr == AddrPortSetting) begin
      we_port = 1'b1;
      cur = {port_valid_q, 3'b0, port_threshold_q, port_packet_size_q, port_marking_rate_q};
    end else if (reg_waddr == AddrImplCtrl) begin
      we_impl = 1'b1;
      cur = {20'b0, hysteresis_q, 3'b0, marking_mode_q, 2'b0, mapping_q};
    end else if (reg_waddr == AddrCapacity) begin
      we_capacity = 1'b1;
      cur = 32'(capacity_q);
    end else if (reg_waddr == AddrLfsrSeed) begin
      we_lfsr = 1'b1;
      cur = {16'b0, lfsr_q};
    end else if (reg_waddr == AddrLogCtrl) begin
      we_log_ctrl = 1'b1;
    end
    if (w_victim_hit) begin
      we_victim  = w_mask_word == 3'(MaskWord);
      we_ignored = w_mask_word != 3'(MaskWord);
      cur = (w_mask_word == 3'(MaskWord)) ? (32'(victim_mask_q) << MaskBit) : 32'b0;
    end
    if (w_credit_hit) we_ignored = 1'b1;
    wmerged = merge(cur, reg_wdata, reg_wstrb);
    reg_werror = 1'b1;
    if (we_control_map || we_victim || we_sw_threshold || we_sw_marking || we_port ||
        we_log_ctrl || we_ignored) begin
      reg_werror = 1'b0;
    end else if (we_impl) begin
      reg_werror = wmerged[1:0] == 2'd3;
    end else if (we_capacity) begin
      reg_werror = wmerged[FillWidth-1:0] == '0;
    end else if (we_lfsr) begin
      reg_werror = wmerged[15:0] == 16'd0;
    end
    log_clear = reg_we && we_log_ctrl && wmerged[0];
  end

  logic wr_ok;
  assign wr_ok = reg_we && !reg_werror;

  // ---------------------------------------------------------------------------------------
  // Congestion log (ring of 15, head = next slot), counters
  // ---------------------------------------------------------------------------------------
  // An event: {SLID, DLID, SL, TimeStamp}.
  localparam int unsigned EventWidth = 16 + 16 + 4 + 32;
  logic [EventWidth-1:0] log_rd_event;
  logic                  log_rd_valid, log_wrap;
  logic [3:0]            log_count;
  logic [15:0]           log_events;
  logic        port_map_q;
  logic [31:0] pkts_sent_q, pkts_marked_q, cong_entries_q;
  logic        fecn_valid_q, fecn_mark_q;
  logic [NumVls-1:0] entered;
  logic [31:0] entered_count;

  assign entered        = cong_d & ~cong_q;

  always_comb begin
    entered_count = '0;
    for (int unsigned v = 0; v < NumVls; v++) entered_count = entered_count + 32'(entered[v]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      control_map_q       <= fecn_marker_reg_pkg::SW_CONTROL_MAP_CONTROL_MAP_RESET;
      victim_mask_q       <= 1'b0;
      sw_threshold_q      <= fecn_marker_reg_pkg::SW_SETTING_THRESHOLD_THRESHOLD_RESET;
      sw_packet_size_q    <= fecn_marker_reg_pkg::SW_SETTING_THRESHOLD_PACKET_SIZE_RESET;
      sw_marking_rate_q   <= fecn_marker_reg_pkg::SW_SETTING_MARKING_MARKING_RATE_RESET;
      port_valid_q        <= fecn_marker_reg_pkg::PORT_SETTING_VALID_RESET;
      port_threshold_q    <= fecn_marker_reg_pkg::PORT_SETTING_THRESHOLD_RESET;
      port_packet_size_q  <= fecn_marker_reg_pkg::PORT_SETTING_PACKET_SIZE_RESET;
      port_marking_rate_q <= fecn_marker_reg_pkg::PORT_SETTING_CONG_PARM_RESET;
      mapping_q           <= fecn_marker_reg_pkg::IMPL_CTRL_THRESHOLD_MAPPING_RESET;
      marking_mode_q      <= fecn_marker_reg_pkg::IMPL_CTRL_MARKING_MODE_RESET;
      hysteresis_q        <= fecn_marker_reg_pkg::IMPL_CTRL_HYSTERESIS_RESET;
      capacity_q          <= FillWidth'(fecn_marker_reg_pkg::BUFFER_CAPACITY_CREDITS_RESET);
      lfsr_q              <= fecn_marker_reg_pkg::LFSR_SEED_SEED_RESET;
      voq_fill_q          <= '0;
      credits_q           <= '0;
      cong_q              <= '0;
      for (int unsigned v = 0; v < NumVls; v++) skip_q[v] <= '0;
      port_map_q     <= 1'b0;
      pkts_sent_q    <= '0;
      pkts_marked_q  <= '0;
      cong_entries_q <= '0;
      fecn_valid_q   <= 1'b0;
      fecn_mark_q    <= 1'b0;
    end else begin
      // Datapath (uses this edge's old configuration).
      voq_fill_q <= voq_fill_i;
      credits_q  <= credits_i;
      cong_q     <= cong_d;
      for (int unsigned v = 0; v < NumVls; v++) begin
        if (eligible && vl_onehot[v]) skip_q[v] <= (skip_q[v] == '0) ? skip_reload : skip_q[v] - 1'b1;
      end
      if (mark && marking_mode_q) lfsr_q <= {1'b0, lfsr_q[15:1]} ^ (lfsr_q[0] ? 16'hB400 : 16'h0);
      pkts_sent_q    <= pkts_sent_q + 32'(pkt_valid_i);
      pkts_marked_q  <= pkts_marked_q + 32'(mark);
      cong_entries_q <= cong_entries_q + entered_count;
      fecn_valid_q   <= pkt_valid_i;
      fecn_mark_q    <= mark;

      // PortMap; the log itself is u_log (a clear of this edge comes before its event).
      port_map_q <= (port_map_q && !log_clear) || (entered != '0);

      // Register writes (after the datapath: a seed write wins over an LFSR step).
      if (wr_ok && we_control_map) control_map_q <= wmerged;
      if (wr_ok && we_victim) victim_mask_q <= wmerged[MaskBit];
      if (wr_ok && we_sw_threshold) begin
        sw_threshold_q   <= wmerged[31:28];
        sw_packet_size_q <= wmerged[23:16];
      end
      if (wr_ok && we_sw_marking) sw_marking_rate_q <= wmerged[15:0];
      if (wr_ok && we_port) begin
        port_valid_q        <= wmerged[31];
        port_threshold_q    <= wmerged[27:24];
        port_packet_size_q  <= wmerged[23:16];
        port_marking_rate_q <= wmerged[15:0];
      end
      if (wr_ok && we_impl) begin
        mapping_q      <= wmerged[1:0];
        marking_mode_q <= wmerged[4];
        hysteresis_q   <= wmerged[11:8];
      end
      if (wr_ok && we_capacity) capacity_q <= wmerged[FillWidth-1:0];
      if (wr_ok && we_lfsr) lfsr_q <= wmerged[15:0];
    end
  end

  assign cong_state_o = cong_q;
  assign fecn_valid_o = fecn_valid_q;
  assign fecn_mark_o  = fecn_mark_q;

  // ---------------------------------------------------------------------------------------
  // CSR read decode
  // ---------------------------------------------------------------------------------------
  // Registers in arrays (masks, log events), decoded by address arithmetic.
  localparam logic [11:0] LogSpan = 12'(LogStride * LogDepth);

  logic [11:0] r_victim_off, r_credit_off, r_portmap_off, r_log_off;
  logic        r_victim, r_credit, r_portmap, r_log;
  logic [5:0]  r_log_word;   // word index within the event area
  logic [3:0]  r_event;      // event e, 0 = most recent
  logic [1:0]  r_event_word; // 0 LIDs, 1 SL, 2 timestamp
  logic        array_hit;
  logic [31:0] array_rdata;

  assign r_victim_off  = reg_raddr - AddrVictimMask;
  assign r_credit_off  = reg_raddr - AddrCreditMask;
  assign r_portmap_off = reg_raddr - AddrLogPortmap;
  assign r_log_off     = reg_raddr - AddrLogLids;
  assign r_victim      = (reg_raddr >= AddrVictimMask) && (r_victim_off < 12'd32);
  assign r_credit      = (reg_raddr >= AddrCreditMask) && (r_credit_off < 12'd32);
  assign r_portmap     = (reg_raddr >= AddrLogPortmap) && (r_portmap_off < 12'd32);
  assign r_log         = (reg_raddr >= AddrLogLids) && (r_log_off < LogSpan);
  assign r_log_word    = r_log_off[7:2];
  assign r_event       = 4'(r_log_word / 6'd3);
  assign r_event_word  = 2'(r_log_word % 6'd3);

  // The CongestionLog: its read port serves the event the CSR read addresses.
  ibcc_event_log #(.Depth(LogDepth), .Width(EventWidth)) u_log (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(log_clear), .push_i(mark),
    .event_i({pkt_slid_i, pkt_dlid_i, pkt_sl_i, timestamp}),
    .rd_index_i(r_event), .rd_valid_o(log_rd_valid), .rd_event_o(log_rd_event),
    .count_o(log_count), .counter_o(log_events), .wrap_o(log_wrap)
  );


  always_comb begin
    array_hit   = r_victim || r_credit || r_portmap || r_log;
    array_rdata = '0;
    if (r_victim && r_victim_off[4:2] == 3'(MaskWord)) array_rdata = 32'(victim_mask_q) << MaskBit;
    if (r_portmap && r_portmap_off[4:2] == 3'(MaskWord)) array_rdata = 32'(port_map_q) << MaskBit;
    if (r_log && log_rd_valid) begin
      case (r_event_word)
        2'd0:    array_rdata = log_rd_event[67:36];                // SLID, DLID
        2'd1:    array_rdata = {log_rd_event[35:32], 28'b0};       // SL
        default: array_rdata = log_rd_event[31:0];                 // TimeStamp
      endcase
    end
  end

  always_comb begin
    reg_rdata  = '0;
    reg_rerror = 1'b0;
    case (reg_raddr)
      AddrCongInfo:     reg_rdata = '0;
      AddrControlMap:   reg_rdata = control_map_q;
      AddrSwThreshold:  reg_rdata = {sw_threshold_q, 4'b0, sw_packet_size_q, 16'b0};
      AddrSwMarking:    reg_rdata = {16'b0, sw_marking_rate_q};
      AddrPortSetting:  reg_rdata = {port_valid_q, 3'b0, port_threshold_q, port_packet_size_q,
                                     port_marking_rate_q};
      AddrLogHeader:    reg_rdata = {8'd1, 8'd0, log_events};
      AddrLogTimestamp: reg_rdata = timestamp;
      AddrTimestamp:    reg_rdata = timestamp;
      AddrImplCtrl:     reg_rdata = {20'b0, hysteresis_q, 3'b0, marking_mode_q, 2'b0, mapping_q};
      AddrCapacity:     reg_rdata = 32'(capacity_q);
      AddrLfsrSeed:     reg_rdata = {16'b0, lfsr_q};
      AddrLogCtrl:      reg_rdata = '0;
      AddrCongState:    reg_rdata = 32'(cong_q);
      AddrPktsSent:     reg_rdata = pkts_sent_q;
      AddrPktsMarked:   reg_rdata = pkts_marked_q;
      AddrCongEntries:  reg_rdata = cong_entries_q;
      AddrBlockInfo:    reg_rdata = {8'(PortNum), 8'(FillWidth), 8'(NumVls), 8'(NumInputs)};
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
  assign unused_re = reg_re ^ tick_unused ^ (^gap_product[15:0]) ^ (^log_count);

`ifndef SYNTHESIS
  // The array decode above relies on this layout of the generated register map.
  initial begin
    if (AddrLogSl != AddrLogLids + 12'd4 || AddrLogTs != AddrLogLids + 12'd8 || LogStride != 12) begin
      $fatal(1, "LOG_EVENT_* layout changed");
    end
  end

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
