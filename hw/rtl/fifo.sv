// Synchronous first-in first-out queue with valid/ready handshakes on both
// sides (a transfer happens in a cycle where valid and ready are both high).
//   in_ready  = the queue is not full (does not look at out_ready, so a full
//               queue takes no new entry in the cycle it gives one out)
//   out_valid = the queue is not empty; out_data is the oldest entry
//               (first-word fall-through: it is valid in the cycle it shows)
//   count     = entries held, 0 .. DEPTH
// An entry written in cycle T can leave from cycle T + 1. Storage is an
// array read asynchronously (LUT RAM or flip-flops), meant for the small
// command, token and response queues; large buffers use sram_sdp.
`default_nettype none

module fifo #(
  parameter int WIDTH = 32,
  parameter int DEPTH = 16  // >= 2
) (
  input  wire logic                       clk,
  input  wire logic                       rst_n,  // synchronous; empties the queue
  input  wire logic                       in_valid,
  output logic                            in_ready,
  input  wire logic [WIDTH-1:0]           in_data,
  output logic                            out_valid,
  input  wire logic                       out_ready,
  output logic      [WIDTH-1:0]           out_data,
  output logic      [$clog2(DEPTH+1)-1:0] count
);
  localparam int PTR_W = $clog2(DEPTH);
  localparam int COUNT_W = $clog2(DEPTH + 1);

  logic [WIDTH-1:0] mem [DEPTH];
  logic [PTR_W-1:0] wr_ptr, rd_ptr;
  logic push, pop;

  assign in_ready = count != COUNT_W'(DEPTH);
  assign out_valid = count != 0;
  assign out_data = mem[rd_ptr];
  assign push = in_valid && in_ready;
  assign pop = out_valid && out_ready;

  function automatic logic [PTR_W-1:0] next(input logic [PTR_W-1:0] ptr);
    next = ptr == PTR_W'(DEPTH - 1) ? '0 : ptr + 1'b1;
  endfunction

  always_ff @(posedge clk) begin
    if (push) mem[wr_ptr] <= in_data;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wr_ptr <= '0;
      rd_ptr <= '0;
      count <= '0;
    end else begin
      if (push) wr_ptr <= next(wr_ptr);
      if (pop) rd_ptr <= next(rd_ptr);
      if (push && !pop) count <= count + 1'b1;
      else if (pop && !push) count <= count - 1'b1;
    end
  end
endmodule

`default_nettype wire
