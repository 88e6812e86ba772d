// Congestion log ring: the Depth most recent events of Width bits, a saturating 16-bit event
// counter, and a clear. Shared by the switch CongestionLog (15 FECN marks) and the CA
// CongestionLog (13 Trigger_Threshold events). Model: sc_models/cc/event_log.h.
// The events are a RAM without reset (a block RAM): a push writes its slot at the edge, and
// a read (rd_re_i) takes the addressed event at the edge, as it was before that edge's push,
// and presents it in the next cycle.
`default_nettype none

module ibcc_event_log #(
  parameter int unsigned Depth = 15,  // events kept (at most 15: 4-bit pointers)
  parameter int unsigned Width = 68   // bits of one event
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,     // empty the log; an event of the same edge survives
  input  logic             push_i,      // log event_i
  input  logic [Width-1:0] event_i,
  input  logic             rd_re_i,     // read event rd_index_i at this edge
  input  logic [3:0]       rd_index_i,  // event to read, 0 = the most recent
  output logic             rd_valid_o,  // (the cycle after the read) rd_index_i < count_o
  output logic [Width-1:0] rd_event_o,  // that event (0 when not valid)
  output logic [3:0]       count_o,     // events held
  output logic [15:0]      counter_o,   // events since the last clear, saturating
  output logic             wrap_o       // a push at this edge overwrites the oldest event
);

  logic [Width-1:0] events_q [Depth];
  logic [Width-1:0] rd_event_q;
  logic             rd_valid_q;
  logic [3:0]       head_q, count_q, head_base, count_base;  // head = the next slot to write
  logic [15:0]      counter_q;
  logic [4:0]       slot_sum;
  logic [3:0]       slot;

  assign head_base  = clear_i ? 4'd0 : head_q;
  assign count_base = clear_i ? 4'd0 : count_q;
  assign wrap_o     = push_i && (count_base == 4'(Depth));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q     <= '0;
      count_q    <= '0;
      counter_q  <= '0;
      rd_valid_q <= 1'b0;
    end else begin
      head_q    <= head_base;
      count_q   <= count_base;
      counter_q <= clear_i ? 16'd0 : counter_q;
      if (rd_re_i) rd_valid_q <= rd_index_i < count_q;
      if (push_i) begin
        head_q  <= (head_base == 4'(Depth - 1)) ? 4'd0 : head_base + 4'd1;
        count_q <= wrap_o ? count_base : count_base + 4'd1;
        if (clear_i) counter_q <= 16'd1;
        else if (counter_q != 16'hffff) counter_q <= counter_q + 16'd1;
      end
    end
  end

  // Event e sits in slot (head - 1 - e) mod Depth.
  assign slot_sum = 5'(head_q) + 5'(Depth - 1) - 5'(rd_index_i);
  assign slot     = (slot_sum >= 5'(Depth)) ? 4'(slot_sum - 5'(Depth)) : 4'(slot_sum);

  // The event RAM: one write port, one synchronous read port.
  always_ff @(posedge clk_i) begin
    if (push_i) events_q[head_base] <= event_i;
    if (rd_re_i) rd_event_q <= events_q[slot];
  end

  assign rd_valid_o = rd_valid_q;
  assign rd_event_o = rd_valid_q ? rd_event_q : '0;
  assign count_o    = count_q;
  assign counter_o  = counter_q;

`ifndef SYNTHESIS
  Bounds_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      count_q <= 4'(Depth) && head_q < 4'(Depth))
    else $error("event log pointer out of range");
  Wrap_C: cover property (@(posedge clk_i) wrap_o);
  Saturated_C: cover property (@(posedge clk_i) push_i && counter_q == 16'hffff);
`endif

endmodule : ibcc_event_log
