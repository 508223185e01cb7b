// Unsigned a · b by shift and add, one bit of b per cycle, for the load and
// store units' range checks: they run once per command, and a `*` there
// would cost DSP48s the array needs (yosys maps any product wider than 2 x 2
// bits with 9 or more result bits onto one).
//
//   start (one cycle) loads a and b. From the next cycle on, done is high
//   once product = a · b: after as many cycles as b has significant bits
//   (b = 0: at once). product holds until the next start.
// No reset: done means nothing before the first start.
`default_nettype none

module serial_mul #(
  parameter int A_W = 16,
  parameter int B_W = 16
) (
  input  wire logic                 clk,
  input  wire logic                 start,
  input  wire logic [A_W-1:0]       a,
  input  wire logic [B_W-1:0]       b,
  output logic                      done,
  output logic      [A_W+B_W-1:0]   product
);
  logic [A_W+B_W-1:0] addend;  // a · 2^(bits of b consumed)
  logic [B_W-1:0]     rest;    // the bits of b not yet consumed

  always_ff @(posedge clk) begin
    if (start) begin
      product <= '0;
      addend <= (A_W + B_W)'(a);
      rest <= b;
    end else if (rest != '0) begin
      if (rest[0]) product <= product + addend;
      addend <= addend << 1;
      rest <= rest >> 1;
    end
  end
  assign done = rest == '0;
endmodule

`default_nettype wire
