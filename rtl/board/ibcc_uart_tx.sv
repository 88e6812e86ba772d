// UART transmitter, 8N1, LSB first. A byte offered while ready_o is high is sent; the line
// idles high.
`default_nettype none

module ibcc_uart_tx #(
  parameter int unsigned ClksPerBit = 100
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       valid_i,
  input  logic [7:0] data_i,
  output logic       ready_o,
  output logic       tx_o
);

  localparam int unsigned CountWidth = $clog2(ClksPerBit + 1);
  localparam logic [CountWidth-1:0] FullBit = CountWidth'(ClksPerBit - 1);

  logic [CountWidth-1:0] count_q;
  logic [3:0]            bits_left_q;  // bits of the frame still to send after this one
  logic [8:0]            frame_q;      // {stop, data}; bit 0 is on the line after the start bit
  logic                  busy_q;

  assign ready_o = !busy_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q     <= '0;
      bits_left_q <= '0;
      frame_q     <= '1;
      busy_q      <= 1'b0;
      tx_o        <= 1'b1;
    end else if (!busy_q) begin
      if (valid_i) begin
        busy_q      <= 1'b1;
        tx_o        <= 1'b0;  // start bit
        frame_q     <= {1'b1, data_i};
        bits_left_q <= 4'd9;
        count_q     <= '0;
      end
    end else if (count_q != FullBit) begin
      count_q <= count_q + 1'b1;
    end else begin
      count_q <= '0;
      if (bits_left_q == 4'd0) begin
        busy_q <= 1'b0;       // the stop bit has lasted a whole bit
      end else begin
        tx_o        <= frame_q[0];
        frame_q     <= {1'b1, frame_q[8:1]};
        bits_left_q <= bits_left_q - 4'd1;
      end
    end
  end

endmodule : ibcc_uart_tx
