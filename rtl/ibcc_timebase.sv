// 1.024 us timebase: a prescaler of the core clock and the 32-bit IB TimeStamp counter.
`default_nettype none

module ibcc_timebase #(
  parameter int unsigned TickCycles = 256  // core cycles per 1.024 us
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        tick_o,       // the coming edge is a 1.024 us tick
  output logic [31:0] timestamp_o   // TimeStamp, 1.024 us units
);

  localparam int unsigned PrescaleWidth = $clog2(TickCycles);
  localparam logic [PrescaleWidth-1:0] PrescaleLast = PrescaleWidth'(TickCycles - 1);

  logic [PrescaleWidth-1:0] prescale_q;
  logic [31:0]              timestamp_q;

  assign tick_o      = (prescale_q == PrescaleLast);
  assign timestamp_o = timestamp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prescale_q  <= '0;
      timestamp_q <= '0;
    end else if (tick_o) begin
      prescale_q  <= '0;
      timestamp_q <= timestamp_q + 32'd1;
    end else begin
      prescale_q  <= prescale_q + PrescaleWidth'(1'b1);
    end
  end

endmodule : ibcc_timebase
