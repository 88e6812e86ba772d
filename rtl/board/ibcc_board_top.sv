// Board top: both CC blocks behind a UART, so that a host runs the co-simulation's tests
// against the hardware (`ibcc cosim --board DEVICE`; Verilated with a UART model,
// `ibcc cosim --board verilated`).
//
// Each block's inputs (its datapath and its AXI4-Lite slave port, and its reset) are held in
// shadow words the host writes; each block runs on a gated copy of the board clock that the
// host advances one edge at a time, and after each edge the board answers with the output
// words that changed. The host's co-simulation harness therefore drives and compares the
// block exactly as it does the Verilated block, cycle by cycle.
//
// Protocol (host -> board; multi-byte fields little-endian; blk 0 = FECN marker, 1 = CCTI):
//   'I'                      -> 16 info bytes (magic 1B CC, version, word counts, parameters)
//   'W' blk idx[2] data[4]   -> (nothing) input word idx of block blk := data
//   'S' blk                  -> one clock edge of block blk, then mask, changed words
//   'O' blk                  -> mask of every output word, then every word
// A reply's mask has bit k set for each output word k that follows (4 bytes each, in
// order of k); 'S' sends the words that differ from what this block last sent. Anything
// else is answered with '?' (0x3F) and the command is dropped.
//
// Input words (bit 0 first): 0: rst_n, awvalid, wvalid, bready, arvalid, rready, wstrb[4],
// awaddr[16]; 1: araddr[16]; 2: wdata; then per block (each takes the low bits of an
// address its register map has: 12 for the FECN marker, 13 for the CCTI block):
//   FECN 3: pkt_valid, pkt_vl[4], pkt_sl[4], pkt_len[8]; 4: pkt_slid[16], pkt_dlid[16];
//        5, 6: 0; 7..: credits (NumVls fields of FillWidth bits, packed), then from the next
//        word the VoQ fills (NumInputs * NumVls fields, as the block's voq_fill_i).
//   CCTI 3: becn_valid, becn_sl[4], becn_st[4], query_sl[4]; 4: becn_qp[16], query_qp[16];
//        5: becn_rqpn[24]; 6: becn_rlid[16], becn_llid[16].
// Output words: 0: awready, wready, bvalid, bresp[2], arready, rvalid, rresp[2]; 1: rdata;
//   FECN 2: cong_state[16], fecn_valid, fecn_mark.
//   CCTI 2: ird; 3: ccti[16], timer_expired[16]; 4: trigger_event.
// (tb/board_link.cpp packs and unpacks the same words.)
`default_nettype none

module ibcc_board_top #(
  parameter int unsigned ClksPerBit   = 100,   // 100 MHz / 1 Mbaud
  parameter int unsigned NumInputs    = 36,
  parameter int unsigned NumVls       = 8,
  parameter int unsigned FillWidth    = 12,
  parameter int unsigned PortNum      = 5,
  parameter int unsigned NumQps       = 64,
  parameter int unsigned CctEntries   = 128,
  parameter int unsigned TickCycles   = 98,    // 1.024 us at 100 MHz (rounded)
  parameter bit          LedActiveLow = 1'b1
) (
  input  logic       clk_i,
  input  logic       rst_ni,     // the board's reset button (active low)
  input  logic       uart_rx_i,
  output logic       uart_tx_o,
  output logic [7:0] led_o
);

  localparam int unsigned QpWidth      = $clog2(NumQps);
  localparam int unsigned CreditWords  = (NumVls * FillWidth + 31) / 32;
  localparam int unsigned FillWords    = (NumInputs * NumVls * FillWidth + 31) / 32;
  localparam int unsigned FecnInWords  = 7 + CreditWords + FillWords;
  localparam int unsigned CctiInWords  = 7;
  localparam int unsigned FecnOutWords = 3;
  localparam int unsigned CctiOutWords = 5;
  localparam int unsigned MaxOutWords  = 5;

  // ---------------------------------------------------------------------------------------
  // Reset and UART
  // ---------------------------------------------------------------------------------------
  logic [1:0] rst_sync_q;
  logic       rst_n;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rst_sync_q <= 2'b00;
    else         rst_sync_q <= {rst_sync_q[0], 1'b1};
  end
  assign rst_n = rst_sync_q[1];

  logic       rx_valid, rx_frame_err, tx_valid, tx_ready;
  logic [7:0] rx_data, tx_data;
  ibcc_uart_rx #(.ClksPerBit(ClksPerBit)) u_rx (
    .clk_i, .rst_ni(rst_n), .rx_i(uart_rx_i), .valid_o(rx_valid), .data_o(rx_data),
    .frame_err_o(rx_frame_err));
  ibcc_uart_tx #(.ClksPerBit(ClksPerBit)) u_tx (
    .clk_i, .rst_ni(rst_n), .valid_i(tx_valid), .data_i(tx_data), .ready_o(tx_ready),
    .tx_o(uart_tx_o));

  // ---------------------------------------------------------------------------------------
  // Shadow input words and the blocks
  // ---------------------------------------------------------------------------------------
  // The words' reserved bits are not read (the layout leaves room for the ports' growth).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [FecnInWords*32-1:0] fecn_in;
  logic [CctiInWords*32-1:0] ccti_in;
  /* verilator lint_on UNUSEDSIGNAL */

  logic fecn_step_q, ccti_step_q, fecn_clk, ccti_clk;
  ibcc_clock_gate u_fecn_gate (.clk_i, .en_i(fecn_step_q), .clk_o(fecn_clk));
  ibcc_clock_gate u_ccti_gate (.clk_i, .en_i(ccti_step_q), .clk_o(ccti_clk));

  logic [31:0] fecn_out [FecnOutWords];
  logic [31:0] ccti_out [CctiOutWords];

  logic [NumVls-1:0] cong_state;
  logic              fecn_valid, fecn_mark;
  logic              f_awready, f_wready, f_bvalid, f_arready, f_rvalid;
  logic [1:0]        f_bresp, f_rresp;
  logic [31:0]       f_rdata;
  fecn_marker #(
    .NumInputs(NumInputs), .NumVls(NumVls), .FillWidth(FillWidth), .PortNum(PortNum),
    .TickCycles(TickCycles)
  ) u_fecn (
    .clk_i(fecn_clk), .rst_ni(rst_n && fecn_in[0]),
    .voq_fill_i(fecn_in[32*(7+CreditWords) +: NumInputs*NumVls*FillWidth]),
    .credits_i(fecn_in[32*7 +: NumVls*FillWidth]),
    .pkt_valid_i(fecn_in[96]), .pkt_vl_i(fecn_in[97 +: 4]), .pkt_sl_i(fecn_in[101 +: 4]),
    .pkt_len_i(fecn_in[105 +: 8]), .pkt_slid_i(fecn_in[128 +: 16]), .pkt_dlid_i(fecn_in[144 +: 16]),
    .cong_state_o(cong_state), .fecn_valid_o(fecn_valid), .fecn_mark_o(fecn_mark),
    .s_axil_awvalid_i(fecn_in[1]), .s_axil_awready_o(f_awready), .s_axil_awaddr_i(fecn_in[10 +: fecn_marker_reg_pkg::FECN_MARKER_ADDR_WIDTH]),
    .s_axil_wvalid_i(fecn_in[2]), .s_axil_wready_o(f_wready), .s_axil_wdata_i(fecn_in[64 +: 32]),
    .s_axil_wstrb_i(fecn_in[6 +: 4]), .s_axil_bvalid_o(f_bvalid), .s_axil_bready_i(fecn_in[3]),
    .s_axil_bresp_o(f_bresp), .s_axil_arvalid_i(fecn_in[4]), .s_axil_arready_o(f_arready),
    .s_axil_araddr_i(fecn_in[32 +: fecn_marker_reg_pkg::FECN_MARKER_ADDR_WIDTH]), .s_axil_rvalid_o(f_rvalid), .s_axil_rready_i(fecn_in[5]),
    .s_axil_rdata_o(f_rdata), .s_axil_rresp_o(f_rresp));
  assign fecn_out[0] = {23'd0, f_rresp, f_rvalid, f_arready, f_bresp, f_bvalid, f_wready, f_awready};
  assign fecn_out[1] = f_rdata;
  assign fecn_out[2] = {14'd0, fecn_mark, fecn_valid, 16'(cong_state)};

  logic [31:0] ird;
  logic [15:0] ccti, timer_expired;
  logic        trigger_event;
  logic        c_awready, c_wready, c_bvalid, c_arready, c_rvalid;
  logic [1:0]  c_bresp, c_rresp;
  logic [31:0] c_rdata;
  ccti_block #(.NumQps(NumQps), .CctEntries(CctEntries), .TickCycles(TickCycles)) u_ccti (
    .clk_i(ccti_clk), .rst_ni(rst_n && ccti_in[0]),
    .becn_valid_i(ccti_in[96]), .becn_qp_i(ccti_in[128 +: QpWidth]), .becn_sl_i(ccti_in[97 +: 4]),
    .becn_rqpn_i(ccti_in[160 +: 24]), .becn_rlid_i(ccti_in[192 +: 16]), .becn_llid_i(ccti_in[208 +: 16]),
    .becn_st_i(ccti_in[101 +: 4]), .query_qp_i(ccti_in[144 +: QpWidth]), .query_sl_i(ccti_in[105 +: 4]),
    .ird_o(ird), .ccti_o(ccti), .timer_expired_o(timer_expired), .trigger_event_o(trigger_event),
    .s_axil_awvalid_i(ccti_in[1]), .s_axil_awready_o(c_awready), .s_axil_awaddr_i(ccti_in[10 +: ccti_block_reg_pkg::CCTI_BLOCK_ADDR_WIDTH]),
    .s_axil_wvalid_i(ccti_in[2]), .s_axil_wready_o(c_wready), .s_axil_wdata_i(ccti_in[64 +: 32]),
    .s_axil_wstrb_i(ccti_in[6 +: 4]), .s_axil_bvalid_o(c_bvalid), .s_axil_bready_i(ccti_in[3]),
    .s_axil_bresp_o(c_bresp), .s_axil_arvalid_i(ccti_in[4]), .s_axil_arready_o(c_arready),
    .s_axil_araddr_i(ccti_in[32 +: ccti_block_reg_pkg::CCTI_BLOCK_ADDR_WIDTH]), .s_axil_rvalid_o(c_rvalid), .s_axil_rready_i(ccti_in[5]),
    .s_axil_rdata_o(c_rdata), .s_axil_rresp_o(c_rresp));
  assign ccti_out[0] = {23'd0, c_rresp, c_rvalid, c_arready, c_bresp, c_bvalid, c_wready, c_awready};
  assign ccti_out[1] = c_rdata;
  assign ccti_out[2] = ird;
  assign ccti_out[3] = {timer_expired, ccti};
  assign ccti_out[4] = {31'd0, trigger_event};

  // ---------------------------------------------------------------------------------------
  // Command engine
  // ---------------------------------------------------------------------------------------
  localparam int unsigned InfoBytes = 16;
  logic [7:0] info [InfoBytes];
  assign info[0]  = 8'h1B;
  assign info[1]  = 8'hCC;
  assign info[2]  = 8'd2;  // protocol version (2: 16-bit address fields)
  assign info[3]  = 8'(FecnInWords);
  assign info[4]  = 8'(FecnOutWords);
  assign info[5]  = 8'(CctiInWords);
  assign info[6]  = 8'(CctiOutWords);
  assign info[7]  = 8'(NumInputs);
  assign info[8]  = 8'(NumVls);
  assign info[9]  = 8'(FillWidth);
  assign info[10] = 8'(PortNum);
  assign info[11] = 8'(QpWidth);
  assign info[12] = 8'(CctEntries);
  assign info[13] = 8'(CctEntries >> 8);
  assign info[14] = 8'(TickCycles);
  assign info[15] = 8'(TickCycles >> 8);

  typedef enum logic [3:0] {
    Command, Args, Step, Settle, SendMask, SendWord, SendInfo, SendError
  } state_e;
  state_e     state_q;
  logic [7:0] cmd_q;
  logic [2:0] args_left_q;          // argument bytes still to come
  logic [55:0] args_q;              // bytes: blk, idx lo, idx hi, data 0..3
  logic [2:0] arg_n_q;
  logic       blk_q;
  logic [MaxOutWords-1:0] mask_q;  // the words of the reply being sent
  logic        full_q;              // the reply sends every word ('O')
  logic [2:0]  word_q;              // output word being sent
  logic [1:0]  byte_q;              // its byte
  logic [3:0]  info_q;
  logic [FecnOutWords*32-1:0] fecn_last_q;  // the output words as last sent
  logic [CctiOutWords*32-1:0] ccti_last_q;
  logic        frame_err_seen_q, cmd_err_seen_q;

  function automatic logic [2:0] arg_count(input logic [7:0] cmd);
    case (cmd)
      8'h57:         arg_count = 3'd7;  // 'W'
      8'h53, 8'h4F:  arg_count = 3'd1;  // 'S', 'O'
      default:       arg_count = 3'd0;
    endcase
  endfunction

  // The output word k of the block being answered, and whether it differs from the last sent.
  logic [31:0] out_word;
  logic [MaxOutWords-1:0] changed;
  always_comb begin
    out_word = '0;
    changed = '0;
    for (int unsigned k = 0; k < FecnOutWords; k++) begin
      if (!blk_q) changed[k] = fecn_out[k] != fecn_last_q[32*k +: 32];
    end
    for (int unsigned k = 0; k < CctiOutWords; k++) begin
      if (blk_q) changed[k] = ccti_out[k] != ccti_last_q[32*k +: 32];
    end
    if (!blk_q) begin
      for (int unsigned k = 0; k < FecnOutWords; k++) if (word_q == 3'(k)) out_word = fecn_out[k];
    end else begin
      for (int unsigned k = 0; k < CctiOutWords; k++) if (word_q == 3'(k)) out_word = ccti_out[k];
    end
  end

  logic [MaxOutWords-1:0] all_words;
  localparam logic [MaxOutWords-1:0] FecnAllWords = {{(MaxOutWords - FecnOutWords){1'b0}}, {FecnOutWords{1'b1}}};
  localparam logic [MaxOutWords-1:0] CctiAllWords = {CctiOutWords{1'b1}};  // (CctiOutWords == MaxOutWords)
  assign all_words = blk_q ? CctiAllWords : FecnAllWords;

  logic [15:0] widx;
  logic [31:0] wdata;
  assign widx  = args_q[23:8];
  assign wdata = args_q[55:24];

  // The lowest set bit of a mask above `after` (or from 0), 8 if none.
  function automatic logic [3:0] next_word(input logic [MaxOutWords-1:0] m, input logic [3:0] from);
    logic found;
    found     = 1'b0;
    next_word = 4'd8;
    for (int unsigned k = 0; k < MaxOutWords; k++) begin
      if (!found && m[k] && 4'(k) >= from) begin
        next_word = 4'(k);
        found     = 1'b1;
      end
    end
  endfunction
  logic [MaxOutWords-1:0] send_mask;
  logic [3:0]             first_word, after_word;
  assign send_mask  = full_q ? all_words : changed;
  assign first_word = next_word(send_mask, 4'd0);
  assign after_word = next_word(mask_q, 4'(word_q) + 4'd1);

  always_ff @(posedge clk_i or negedge rst_n) begin
    if (!rst_n) begin
      state_q          <= Command;
      cmd_q            <= '0;
      args_left_q      <= '0;
      arg_n_q          <= '0;
      blk_q            <= 1'b0;
      mask_q           <= '0;
      full_q           <= 1'b0;
      word_q           <= '0;
      byte_q           <= '0;
      info_q           <= '0;
      fecn_step_q      <= 1'b0;
      ccti_step_q      <= 1'b0;
      tx_valid         <= 1'b0;
      tx_data          <= '0;
      frame_err_seen_q <= 1'b0;
      cmd_err_seen_q   <= 1'b0;
      args_q           <= '0;
      fecn_in          <= '0;
      ccti_in          <= '0;
      fecn_last_q      <= '0;
      ccti_last_q      <= '0;
    end else begin
      fecn_step_q <= 1'b0;
      ccti_step_q <= 1'b0;
      if (rx_frame_err) frame_err_seen_q <= 1'b1;
      if (tx_valid && tx_ready) tx_valid <= 1'b0;
      case (state_q)
        Command: if (rx_valid) begin
          cmd_q   <= rx_data;
          arg_n_q <= '0;
          if (rx_data == 8'h49) begin            // 'I'
            info_q  <= '0;
            state_q <= SendInfo;
          end else if (arg_count(rx_data) != 3'd0) begin
            args_left_q <= arg_count(rx_data);
            state_q     <= Args;
          end else begin
            cmd_err_seen_q <= 1'b1;
            state_q        <= SendError;
          end
        end
        Args: if (rx_valid) begin
          args_q[{arg_n_q, 3'b000} +: 8] <= rx_data;
          arg_n_q         <= arg_n_q + 3'd1;
          if (arg_n_q == 3'd0) blk_q <= rx_data[0];
          if (args_left_q == 3'd1) begin
            state_q <= Step;  // dispatched there, with every argument in place
          end
          args_left_q <= args_left_q - 3'd1;
        end
        Step: begin
          if (args_q[7:0] > 8'd1) begin
            cmd_err_seen_q <= 1'b1;
            state_q        <= SendError;
          end else if (cmd_q == 8'h57) begin     // 'W'
            for (int unsigned k = 0; k < FecnInWords; k++) begin
              if (!blk_q && widx == 16'(k)) fecn_in[32*k +: 32] <= wdata;
            end
            for (int unsigned k = 0; k < CctiInWords; k++) begin
              if (blk_q && widx == 16'(k)) ccti_in[32*k +: 32] <= wdata;
            end
            if ((!blk_q && widx < 16'(FecnInWords)) || (blk_q && widx < 16'(CctiInWords))) begin
              state_q <= Command;
            end else begin
              cmd_err_seen_q <= 1'b1;
              state_q        <= SendError;
            end
          end else if (cmd_q == 8'h53) begin     // 'S': the gate passes the next edge
            fecn_step_q <= !blk_q;
            ccti_step_q <= blk_q;
            full_q      <= 1'b0;
            state_q     <= Settle;
          end else begin                         // 'O'
            full_q  <= 1'b1;
            state_q <= SendMask;
          end
        end
        Settle: state_q <= SendMask;              // the block's edge is this one
        SendMask: if (!tx_valid) begin
          // After a step the outputs have settled for a cycle: send those that changed.
          mask_q   <= send_mask;
          tx_data  <= 8'(send_mask);
          tx_valid <= 1'b1;
          word_q   <= first_word[2:0];
          byte_q   <= '0;
          state_q  <= first_word[3] ? Command : SendWord;
        end
        SendWord: if (!tx_valid) begin
          tx_data  <= out_word[{byte_q, 3'b000} +: 8];
          tx_valid <= 1'b1;
          byte_q   <= byte_q + 2'd1;
          if (byte_q == 2'd3) begin
            for (int unsigned k = 0; k < FecnOutWords; k++) begin
              if (!blk_q && word_q == 3'(k)) fecn_last_q[32*k +: 32] <= out_word;
            end
            for (int unsigned k = 0; k < CctiOutWords; k++) begin
              if (blk_q && word_q == 3'(k)) ccti_last_q[32*k +: 32] <= out_word;
            end
            if (after_word[3]) state_q <= Command;
            else               word_q  <= after_word[2:0];
          end
        end
        SendInfo: if (!tx_valid) begin
          tx_data  <= info[info_q];
          tx_valid <= 1'b1;
          info_q   <= info_q + 4'd1;
          if (info_q == 4'(InfoBytes - 1)) state_q <= Command;
        end
        SendError: if (!tx_valid) begin
          tx_data  <= 8'h3F;
          tx_valid <= 1'b1;
          state_q  <= Command;
        end
        default: state_q <= Command;
      endcase
    end
  end

  // ---------------------------------------------------------------------------------------
  // LEDs: alive, FECN congestion, FECN mark seen, CCTI trigger seen, UART framing error,
  // bad command
  // ---------------------------------------------------------------------------------------
  logic [26:0] alive_q;
  logic        mark_seen_q, trigger_seen_q;
  always_ff @(posedge clk_i or negedge rst_n) begin
    if (!rst_n) begin
      alive_q        <= '0;
      mark_seen_q    <= 1'b0;
      trigger_seen_q <= 1'b0;
    end else begin
      alive_q <= alive_q + 27'd1;
      if (fecn_valid && fecn_mark) mark_seen_q <= 1'b1;
      if (trigger_event)           trigger_seen_q <= 1'b1;
    end
  end
  logic [7:0] led;
  assign led   = {2'b00, cmd_err_seen_q, frame_err_seen_q, trigger_seen_q, mark_seen_q, |cong_state,
                  alive_q[26]};
  assign led_o = LedActiveLow ? ~led : led;

endmodule : ibcc_board_top
