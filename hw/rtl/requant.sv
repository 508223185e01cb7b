// One requantization lane: exactly
//   requant::Requantize(acc + bias, OutputStage{{multiplier, shift}, zero_point, {qmin, qmax}})
// of kernels/common/requantize.h (gemmlowp's fixed-point scheme; that header
// is the definition, hw/tests/tb_requant.cc checks this lane against it).
//
// Fully pipelined, one result per cycle, no stall: inputs presented with
// in_valid in cycle T give out_valid, q and v in cycle T + LATENCY, LATENCY = 7.
//   stage 1  v = acc + bias (int32, wrapping)
//   stage 2  x = v * 2^max(shift, 0), saturated to int32
//   stage 3  p = x * multiplier (64 bits; the one 32 x 32 signed multiply,
//   stage 4       registered twice for the DSP's M and P registers)
//   stage 5  h = SaturatingRoundingDoublingHighMul(x, multiplier)
//              = floor((p + 2^30) / 2^31) = p[63:31] + p[30] (33 bits),
//              INT32_MAX when that is 2^31 (only x = multiplier = INT32_MIN)
//   stage 6  r = RoundingDivideByPOT(h, e), e = max(-shift, 0):
//              floor((h + 2^(e-1) - [h < 0]) / 2^e) for e > 0, halves away from zero
//   stage 7  y = r + zero_point, clamped: qmin if y < qmin, else qmax if y > qmax
// q is y's low byte (int8 or uint8, as the range says); v is stage 1's sum,
// delayed to match, for the raw int32 output mode. shift is in [-31, 31].
// yosys 0.23 (synth_xilinx -family xc7) maps the multiply onto 4 DSP48E1;
// one lane is 4 DSP48E1, 615 LUT + 64 SRL16E, 190 FF.
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

  // Per-lane parameters travel with the value. Stage n's registers end in _n.
  logic signed [31:0] v1, mult1, mult2;
  logic signed [5:0] shift1;
  logic [4:0] right2, right3, right4, right5;
  logic signed [8:0] zp1, zp2, zp3, zp4, zp5, zp6;
  logic signed [8:0] qmin1, qmin2, qmin3, qmin4, qmin5, qmin6;
  logic signed [8:0] qmax1, qmax2, qmax3, qmax4, qmax5, qmax6;
  logic signed [31:0] v2, v3, v4, v5, v6, v7;
  logic signed [31:0] x2;
  logic signed [33:0] p3, p4;  // product bits 63 .. 30, all the rounding reads
  logic signed [31:0] h5, r6;

  // Stage 2: the left shift, saturating. It overflows when a bit shifted out
  // or the new sign bit differs from the old sign bit: bits 30 .. 31 - left.
  logic [4:0] left;
  logic [30:0] shifted_out;  // bits 30 .. 31 - left set
  logic signed [31:0] x;
  assign left = shift1 > 0 ? shift1[4:0] : 5'd0;
  assign shifted_out = ~(31'h7fff_ffff >> left);
  always_comb begin
    if (((v1[30:0] ^ {31{v1[31]}}) & shifted_out) == 0) x = v1 <<< left;
    else x = v1[31] ? 32'sh8000_0000 : 32'sh7fff_ffff;
  end

  // Stage 3: the multiply.
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [63:0] product;
  /* verilator lint_on UNUSEDSIGNAL */
  assign product = x2 * mult2;

  // Stage 5: the doubling high multiply, rounded.
  logic signed [32:0] high;
  assign high = $signed(p4[33:1]) + 33'(p4[0]);

  // Stage 6: the rounding right shift, in 33 bits (h + 2^30 may pass INT32_MAX).
  logic signed [32:0] round_bias;
  logic signed [31:0] rounded;
  assign round_bias = right5 == 0 ? 33'sd0 : (33'sd1 <<< (right5 - 5'd1)) - (h5 < 0 ? 33'sd1 : 33'sd0);
  assign rounded = 32'((33'(h5) + round_bias) >>> right5);

  // Stage 7: zero point and clamp.
  logic signed [32:0] y;
  logic [7:0] clamped;
  assign y = 33'(r6) + 33'(zp6);
  assign clamped = y < 33'(qmin6) ? qmin6[7:0] : y > 33'(qmax6) ? qmax6[7:0] : y[7:0];

  always_ff @(posedge clk) begin
    v1 <= acc + bias;
    mult1 <= multiplier;
    shift1 <= shift;
    zp1 <= zero_point;
    qmin1 <= qmin;
    qmax1 <= qmax;

    x2 <= x;
    mult2 <= mult1;
    right2 <= shift1 < 0 ? 5'(-shift1) : 5'd0;
    {v2, zp2, qmin2, qmax2} <= {v1, zp1, qmin1, qmax1};

    p3 <= product[63:30];
    {right3, v3, zp3, qmin3, qmax3} <= {right2, v2, zp2, qmin2, qmax2};

    p4 <= p3;
    {right4, v4, zp4, qmin4, qmax4} <= {right3, v3, zp3, qmin3, qmax3};

    h5 <= high > 33'sh0_7fff_ffff ? 32'sh7fff_ffff : high[31:0];
    {right5, v5, zp5, qmin5, qmax5} <= {right4, v4, zp4, qmin4, qmax4};

    r6 <= rounded;
    {v6, zp6, qmin6, qmax6} <= {v5, zp5, qmin5, qmax5};

    q <= clamped;
    v7 <= v6;
  end
  assign v = v7;
endmodule

`default_nettype wire
