// The fills of one VL's VoQs reduced to their largest, their sum and the count of nonzero
// ones, as a pipelined binary tree: levels of two-input nodes, a register after every
// second level and after the last. What the FECN marker's threshold mappings compare, from
// as many inputs as a switch has ports, at the core clock. None of it depends on the
// configuration, so the C++ reference (sc_models/cc/fecn_marker.cpp) models the whole tree
// as a delay of Stages edges of the summary it computes.
`default_nettype none

module ibcc_fill_reduce #(
  parameter int unsigned NumInputs = 8,
  parameter int unsigned FillWidth = 12,
  parameter int unsigned CntWidth  = $clog2(NumInputs + 1),  // (derived: leave as is)
  parameter int unsigned SumWidth  = FillWidth + CntWidth     // (derived: leave as is)
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic [NumInputs*FillWidth-1:0] fill_i,   // [input * FillWidth +: FillWidth]
  output logic [FillWidth-1:0]           max_o,    // of the fills (Levels + 1) / 2 edges ago
  output logic [SumWidth-1:0]            sum_o,
  output logic [CntWidth-1:0]            count_o
);

  // Level l of the tree has ceil(NumInputs / 2^l) nodes; level 0 is the fills. One input
  // still takes one level (a node of one child), so that its register is the last level's.
  localparam int unsigned Levels = NumInputs > 1 ? $clog2(NumInputs) : 1;

  function automatic int unsigned level_nodes(input int unsigned l);
    int unsigned k;
    level_nodes = NumInputs;
    for (k = 0; k < l; k = k + 1) level_nodes = (level_nodes + 1) / 2;
  endfunction
  // Index of level l's first node in the flat node arrays.
  function automatic int unsigned level_offset(input int unsigned l);
    int unsigned k;
    level_offset = 0;
    for (k = 0; k < l; k = k + 1) level_offset = level_offset + level_nodes(k);
  endfunction
  localparam int unsigned Nodes = level_offset(Levels + 1);

  logic [FillWidth-1:0] node_max [Nodes] /*verilator split_var*/;
  logic [SumWidth-1:0]  node_sum [Nodes] /*verilator split_var*/;
  logic [CntWidth-1:0]  node_cnt [Nodes] /*verilator split_var*/;

  for (genvar i = 0; i < NumInputs; i++) begin : g_leaf
    logic [FillWidth-1:0] fill;
    assign fill        = fill_i[i * FillWidth +: FillWidth];
    assign node_max[i] = fill;
    assign node_sum[i] = SumWidth'(fill);
    assign node_cnt[i] = CntWidth'(fill != '0);
  end

  for (genvar l = 1; l <= Levels; l++) begin : g_level
    localparam int unsigned Level = l;
    localparam int unsigned Off = level_offset(Level);
    localparam int unsigned Prev = level_offset(Level - 1);
    localparam int unsigned PrevNodes = level_nodes(Level - 1);
    localparam bit Registered = (Level % 2 == 0) || (Level == Levels);
    for (genvar i = 0; i < level_nodes(Level); i++) begin : g_node
      localparam int unsigned Index = i;
      localparam int unsigned Left = Prev + 2 * Index;  // its children: Left and Left + 1
      logic [FillWidth-1:0] max_d;
      logic [SumWidth-1:0]  sum_d;
      logic [CntWidth-1:0]  cnt_d;
      if (Left + 1 < Prev + PrevNodes) begin : g_pair
        assign max_d = node_max[Left] > node_max[Left + 1] ? node_max[Left] : node_max[Left + 1];
        assign sum_d = node_sum[Left] + node_sum[Left + 1];
        assign cnt_d = node_cnt[Left] + node_cnt[Left + 1];
      end else begin : g_single
        assign max_d = node_max[Left];
        assign sum_d = node_sum[Left];
        assign cnt_d = node_cnt[Left];
      end
      if (Registered) begin : g_reg
        logic [FillWidth-1:0] max_q;
        logic [SumWidth-1:0]  sum_q;
        logic [CntWidth-1:0]  cnt_q;
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) begin
            max_q <= '0;
            sum_q <= '0;
            cnt_q <= '0;
          end else begin
            max_q <= max_d;
            sum_q <= sum_d;
            cnt_q <= cnt_d;
          end
        end
        assign node_max[Off + i] = max_q;
        assign node_sum[Off + i] = sum_q;
        assign node_cnt[Off + i] = cnt_q;
      end else begin : g_comb
        assign node_max[Off + i] = max_d;
        assign node_sum[Off + i] = sum_d;
        assign node_cnt[Off + i] = cnt_d;
      end
    end
  end

  assign max_o   = node_max[Nodes - 1];
  assign sum_o   = node_sum[Nodes - 1];
  assign count_o = node_cnt[Nodes - 1];

endmodule : ibcc_fill_reduce
