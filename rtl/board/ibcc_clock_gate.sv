// A glitch-free clock enable: the gated clock has the edges of clk_i at which en_i (sampled
// while clk_i is low) is high. On an ECP5 it is the DCCA primitive on the global clock
// network; elsewhere (simulation) a latch and an AND, the integrated clock gate's logic.
`default_nettype none

module ibcc_clock_gate (
  input  logic clk_i,
  input  logic en_i,
  output logic clk_o
);

`ifdef SYNTHESIS
  DCCA u_dcca (.CLKI(clk_i), .CE(en_i), .CLKO(clk_o));
`else
  logic en_l;
  always_latch begin
    if (!clk_i) en_l = en_i;
  end
  assign clk_o = clk_i & en_l;
`endif

endmodule : ibcc_clock_gate
