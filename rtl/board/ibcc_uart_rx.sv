// UART receiver, 8 data bits, no parity, one stop bit (8N1), LSB first.
// The line is synchronised by two flops; a start bit is confirmed at its middle, each data
// bit sampled at its middle, and a byte is delivered at the middle of its stop bit when that
// reads 1 (a 0 there is a framing error: the byte is dropped and counted).
`default_nettype none

module ibcc_uart_rx #(
  parameter int unsigned ClksPerBit = 100  // clock cycles per bit (100 MHz / 1 Mbaud)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       rx_i,
  output logic       valid_o,      // one cycle: data_o holds a received byte
  output logic [7:0] data_o,
  output logic       frame_err_o   // one cycle: a byte whose stop bit read 0
);

  localparam int unsigned CountWidth = $clog2(ClksPerBit + 1);
  localparam logic [CountWidth-1:0] HalfBit = CountWidth'(ClksPerBit / 2);
  localparam logic [CountWidth-1:0] FullBit = CountWidth'(ClksPerBit - 1);

  typedef enum logic [1:0] {Idle, Start, Data, Stop} state_e;
  state_e state_q, state_d;

  logic [1:0]            sync_q;
  logic [CountWidth-1:0] count_q, count_d;
  logic [2:0]            bit_q, bit_d;
  logic [7:0]            shift_q, shift_d;
  logic                  valid_d, frame_err_d;
  logic                  rx;

  assign rx = sync_q[1];

  always_comb begin
    state_d     = state_q;
    count_d     = count_q;
    bit_d       = bit_q;
    shift_d     = shift_q;
    valid_d     = 1'b0;
    frame_err_d = 1'b0;
    case (state_q)
      Idle: if (!rx) begin
        state_d = Start;
        count_d = '0;
      end
      Start: begin
        count_d = count_q + 1'b1;
        if (count_q == HalfBit) begin  // the middle of the start bit
          count_d = '0;
          bit_d   = '0;
          state_d = rx ? Idle : Data;  // a glitch, not a start bit
        end
      end
      Data: begin
        count_d = count_q + 1'b1;
        if (count_q == FullBit) begin
          count_d = '0;
          shift_d = {rx, shift_q[7:1]};
          bit_d   = bit_q + 1'b1;
          if (bit_q == 3'd7) state_d = Stop;
        end
      end
      Stop: begin
        count_d = count_q + 1'b1;
        if (count_q == FullBit) begin
          valid_d     = rx;
          frame_err_d = !rx;
          state_d     = Idle;
        end
      end
      default: state_d = Idle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= Idle;
      sync_q      <= 2'b11;
      count_q     <= '0;
      bit_q       <= '0;
      shift_q     <= '0;
      valid_o     <= 1'b0;
      frame_err_o <= 1'b0;
    end else begin
      state_q     <= state_d;
      sync_q      <= {sync_q[0], rx_i};
      count_q     <= count_d;
      bit_q       <= bit_d;
      shift_q     <= shift_d;
      valid_o     <= valid_d;
      frame_err_o <= frame_err_d;
    end
  end

  assign data_o = shift_q;

endmodule : ibcc_uart_rx
