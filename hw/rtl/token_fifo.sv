// A dependency-token FIFO between two units (VTA-style): tokens carry no
// data, so the FIFO is an up/down counter of capacity DEPTH. One unit pushes
// (when a command with push_* finishes), its neighbour pops (when a command
// with pop_* starts); both may happen in one cycle. The sequencers never push
// into a full FIFO or pop an empty one: a command whose push would overflow
// is held back before it starts (unit_sequencer), as the functional model
// does.
`default_nettype none

module token_fifo #(
  parameter int DEPTH = 16  // >= 1
) (
  input  wire logic                       clk,
  input  wire logic                       rst_n,  // synchronous; empties the FIFO
  input  wire logic                       push,
  input  wire logic                       pop,
  output logic                            nonempty,  // a token can be popped
  output logic                            room,      // a token can be pushed
  output logic      [$clog2(DEPTH+1)-1:0] count
);
  localparam int COUNT_W = $clog2(DEPTH + 1);

  assign nonempty = count != '0;
  assign room = count != COUNT_W'(DEPTH);

  always_ff @(posedge clk) begin
    if (!rst_n) count <= '0;
    else if (push && !pop) count <= count + 1'b1;
    else if (pop && !push) count <= count - 1'b1;
  end
endmodule

`default_nettype wire
