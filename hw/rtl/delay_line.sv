// A WIDTH-bit value delayed by DEPTH clock cycles (DEPTH 0 is a wire). No
// reset, so synthesis may map it to shift-register LUTs (SRL16E/SRLC32E).
`default_nettype none

module delay_line #(
  parameter int WIDTH = 8,
  parameter int DEPTH = 1
) (
  input  wire logic             clk,
  input  wire logic [WIDTH-1:0] in,
  output logic      [WIDTH-1:0] out
);
  if (DEPTH == 0) begin : g_wire
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_clk = clk;
    /* verilator lint_on UNUSEDSIGNAL */
    assign out = in;
  end else if (DEPTH == 1) begin : g_one
    always_ff @(posedge clk) out <= in;
  end else begin : g_chain
    logic [DEPTH*WIDTH-1:0] stages;  // stage k (k = 0 newest) at bits k*WIDTH
    always_ff @(posedge clk) stages <= {stages[(DEPTH-1)*WIDTH-1:0], in};
    assign out = stages[(DEPTH-1)*WIDTH +: WIDTH];
  end
endmodule

`default_nettype wire
