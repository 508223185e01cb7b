// One requantization lane: exactly
//   requant::Requantize(acc + bias, OutputStage{{multiplier, shift}, zero_point, {qmin, qmax}})
// of kernels/common/requantize.h (gemmlowp's fixed-point scheme; that header
// is the definition, hw/tests/tb_requant.cc checks this lane against it).
//
// Fully pipelined, one result per cycle, no stall: inputs presented with
// in_valid in cycle T give out_valid, q and v in cycle T + LATENCY, LATENCY = 7.
//   stage 1      v = acc + bias (int32, wrapping)
//   stages 2..6  r = MultiplyByQuantizedMultiplier(v, {multiplier, shift})
//                (mul_quantized.sv: the saturating left shift, the one
//                32 x 32 signed multiply over two stages, the rounding
//                doubling high multiply, the rounding right shift)
//   stage 7      y = r + zero_point, clamped: qmin if y < qmin, else qmax if y > qmax
// q is y's low byte (int8 or uint8, as the range says); v is stage 1's sum,
// delayed to match, for the raw int32 output mode. shift is in [-31, 31].
// yosys 0.23 (synth_xilinx -family xc7) maps the multiply onto 4 DSP48E1;
// one lane is 4 DSP48E1, 625 LUT + 64 SRL16E, 190 FF.
`default_nettype none

module requant (
  input  wire logic               clk,
  input  wire logic               rst_n,  // synchronous; clears the valid pipeline
  input  wire logic               in_valid,
  input  wire logic signed [31:0] acc,
  input  wire logic signed [31:0] bias,
  input  wire logic signed [31:0] multiplier,
  input  wire logic signed [5:0]  shift,
  input  wire logic signed [8:0]  zero_point,
  input  wire logic signed [8:0]  qmin,
  input  wire logic signed [8:0]  qmax,
  output logic                    out_valid,
  output logic [7:0]              q,
  output logic signed [31:0]      v
);
  localparam int LATENCY = 7;

  logic [LATENCY:1] valid;
  always_ff @(posedge clk) begin
    if (!rst_n) valid <= '0;
    else valid <= {valid[LATENCY-1:1], in_valid};
  end
  assign out_valid = valid[LATENCY];

  // Stage 1; the per-lane clamp and v travel beside mul_quantized.
  logic signed [31:0] v1, mult1, r6, v6;
  logic signed [5:0] shift1;
  logic signed [8:0] zp1, qmin1, qmax1, zp6, qmin6, qmax6;
  always_ff @(posedge clk) begin
    v1 <= acc + bias;
    mult1 <= multiplier;
    shift1 <= shift;
    zp1 <= zero_point;
    qmin1 <= qmin;
    qmax1 <= qmax;
  end

  mul_quantized #(.ACC_W(32)) u_mul (
    .clk(clk), .in_valid(1'b1), .acc(v1), .multiplier(mult1), .shift(shift1), .result(r6));
  delay_line #(.WIDTH(32 + 3 * 9), .DEPTH(5)) u_lane (
    .clk(clk), .in({v1, zp1, qmin1, qmax1}), .out({v6, zp6, qmin6, qmax6}));

  // Stage 7: zero point and clamp.
  logic signed [32:0] y;
  logic [7:0] clamped;
  logic signed [31:0] v7;
  assign y = 33'(r6) + 33'(zp6);
  assign clamped = y < 33'(qmin6) ? qmin6[7:0] : y > 33'(qmax6) ? qmax6[7:0] : y[7:0];
  always_ff @(posedge clk) begin
    q <= clamped;
    v7 <= v6;
  end
  assign v = v7;
endmodule

`default_nettype wire
