// requant::MultiplyByQuantizedMultiplier of kernels/common/requantize.h, the
// one definition of the arithmetic: for x = acc · 2^ACC_SHIFT,
//   RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(
//       sat32(x · 2^max(shift, 0)), multiplier), max(-shift, 0))
// shared by the store unit's requantization lanes (requant.sv, a full int32
// accumulator) and the compute unit's ADD lanes (compute_add.sv, x =
// (q - zp) · 2^20 with 10-bit q - zp). shift is in [-31, 31].
//
// Fully pipelined, one result per cycle, no stall, no reset (callers carry
// their own valid bits): inputs in cycle T give result in T + LATENCY,
// LATENCY = 5. With GATE, in_valid marks the inputs worth computing: a stage
// loads only when the input it computes from was valid, so an idle pipeline
// holds its registers (a clock enable per stage; in simulation the idle
// stages cost nothing) and result keeps the last valid input's result.
// Without GATE (requant's DSP form, whose registers are the DSP's) every
// stage loads every cycle and in_valid is not used.
//   stage 1  the left shift: x · 2^left saturated to int32 (left = max(shift, 0))
//   stage 2  the 64-bit product x · multiplier, bits 63 .. 30 (all the rounding
//   stage 3       reads); see the two forms below
//   stage 4  h = SaturatingRoundingDoublingHighMul = floor((p + 2^30) / 2^31)
//              = p[63:31] + p[30], INT32_MAX when that is 2^31 (only
//              x = multiplier = INT32_MIN)
//   stage 5  RoundingDivideByPOT(h, e), e = max(-shift, 0):
//              floor((h + 2^(e-1) - [h < 0]) / 2^e) for e > 0, halves away from zero
//
// The product, two forms:
//   ACC_W = 32 (requant): one 32 x 32 signed multiply (4 DSP48E1 in yosys),
//     registered twice for the DSP's M and P registers.
//   ACC_W < 32 (ADD): x · 2^left is either acc · 2^k with k = ACC_SHIFT + left
//     <= 31 (no saturation), INT32_MIN = -1 · 2^31, or INT32_MAX = 2^31 - 1,
//     so the product is (mant · multiplier) · 2^k - [x = INT32_MAX] · multiplier
//     with mant = acc, -1 or 1: an ACC_W x 32 multiply and a shift instead of
//     32 x 32. With USE_DSP it is a `*` (2 DSP48E1 for ACC_W <= 18); without,
//     a radix-4 Booth multiplier in LUTs (ACC_W / 2 partial products, summed
//     over stages 1 and 2). Stage 3 shifts and subtracts:
//       floor(p / 2^30) = floor(2q / 2^(31-k)) - [x = INT32_MAX] · ceil(m / 2^30).
`default_nettype none

module mul_quantized #(
  parameter int ACC_W = 32,      // 32, or an even width <= 30 - ACC_SHIFT + 1
  parameter int ACC_SHIFT = 0,   // x = acc · 2^ACC_SHIFT; 0 when ACC_W = 32
  parameter bit USE_DSP = 1'b1,  // the ACC_W < 32 multiply: DSP (1) or LUT Booth (0)
  parameter bit GATE = 1'b0      // load a stage only for a valid input (in_valid)
) (
  input  wire logic                    clk,
  input  wire logic                    in_valid,
  input  wire logic signed [ACC_W-1:0] acc,
  input  wire logic signed [31:0]      multiplier,
  input  wire logic signed [5:0]       shift,
  output logic signed [31:0]           result
);
  // The narrow form's widths (module-level: yosys 0.23 sizes casts only with these).
  localparam int RSH_W = $clog2(32 - ACC_SHIFT);  // 31 - k
  localparam int Q_W = ACC_W + 32;                 // mant · multiplier
  localparam int D = ACC_W / 2;                    // Booth digits
  localparam int PAIRS = (D + 1) / 2;

  // The narrow form's stage 1 (g_lut below explains it): the radix-4 Booth
  // partial products of a · m added in pairs, pair i at bits i*Q_W, the
  // vector of negation +1s in the last pair. A function, so that the
  // partial products are computed only when the stage loads.
  function automatic logic [PAIRS*Q_W-1:0] BoothPairSums(input logic [ACC_W-1:0] a, input logic [31:0] m);
    logic [D*Q_W-1:0] pp;  // partial product k at bits k*Q_W, shifted to its weight
    logic [Q_W-1:0] negs, m_ext, sel;
    logic [ACC_W:0] digits;
    logic one, two, neg;
    digits = {a, 1'b0};
    m_ext = Q_W'($signed(m));
    negs = '0;
    for (int k = 0; k < D; k++) begin
      neg = digits[2*k+2];
      one = digits[2*k+1] ^ digits[2*k];
      two = digits[2*k+2] ? !digits[2*k+1] && !digits[2*k] : digits[2*k+1] && digits[2*k];
      sel = ({Q_W{one}} & m_ext) | ({Q_W{two}} & (m_ext << 1));
      pp[k*Q_W +: Q_W] = (sel ^ {Q_W{neg}}) << (2 * k);
      // The inverted product's low 2k bits are ones shifted out as zeros:
      // adding 2^(2k) completes the negation of the shifted value.
      negs[2*k] = neg;
    end
    for (int i = 0; i < PAIRS; i++) begin
      if (2 * i + 1 < D) begin
        if (2 * i + 2 >= D) BoothPairSums[i*Q_W +: Q_W] = pp[2*i*Q_W +: Q_W] + pp[(2*i+1)*Q_W +: Q_W] + negs;
        else BoothPairSums[i*Q_W +: Q_W] = pp[2*i*Q_W +: Q_W] + pp[(2*i+1)*Q_W +: Q_W];
      end else begin
        BoothPairSums[i*Q_W +: Q_W] = pp[2*i*Q_W +: Q_W] + negs;
      end
    end
  endfunction

  // The left shift of x, saturating, as in requant: it overflows when a bit
  // shifted out or the new sign bit differs from the old sign bit, i.e. one
  // of bits 30 .. 31 - left differs from bit 31.
  logic [4:0] left, right;
  logic [30:0] shifted_out;
  logic signed [31:0] x;  // acc · 2^ACC_SHIFT
  logic overflow;
  assign left = shift > 0 ? shift[4:0] : 5'd0;
  assign right = shift < 0 ? 5'(-shift) : 5'd0;
  assign shifted_out = ~(31'h7fff_ffff >> left);
  assign x = 32'(acc) <<< ACC_SHIFT;
  assign overflow = ((x[30:0] ^ {31{x[31]}}) & shifted_out) != 0;

  // load[k]: stage k + 1 loads (GATE: its input was valid, in_valid delayed
  // k cycles; no reset, as a stage that loads needlessly is harmless).
  logic [4:0] load;
  if (GATE) begin : g_gate
    logic [4:1] v;
    always_ff @(posedge clk) v <= {v[3:1], in_valid};
    assign load = {v, in_valid};
  end else begin : g_every_cycle
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_in_valid = in_valid;
    /* verilator lint_on UNUSEDSIGNAL */
    assign load = '1;
  end

  logic [4:0] right1, right2, right3, right4;
  logic signed [33:0] p3;  // bits 63 .. 30 of x · multiplier
  logic signed [31:0] h4;

  if (ACC_W == 32) begin : g_wide
    logic signed [31:0] x1, mult1;
    logic signed [33:0] p2;
    /* verilator lint_off UNUSEDSIGNAL */
    logic signed [63:0] product;
    /* verilator lint_on UNUSEDSIGNAL */
    assign product = x1 * mult1;
    always_ff @(posedge clk) begin
      if (load[0]) begin
        if (!overflow) x1 <= x <<< left;
        else x1 <= x[31] ? 32'sh8000_0000 : 32'sh7fff_ffff;
        mult1 <= multiplier;
      end
      if (load[1]) p2 <= product[63:30];
      if (load[2]) p3 <= p2;
    end
  end else begin : g_narrow
    // k = 31 - rsh; rsh in [0, 31 - ACC_SHIFT]. acc = 0 or a saturated x
    // use k = 31 (rsh 0).
    logic signed [31:0] mult1, mult2;
    logic [RSH_W-1:0] rsh1, rsh2;
    logic sat1, sat_neg1, sat_pos1, sat_pos2;
    logic signed [Q_W-1:0] q2;
    assign sat_pos1 = sat1 && !sat_neg1;

    always_ff @(posedge clk) begin
      if (load[0]) begin
        sat1 <= overflow;
        sat_neg1 <= acc < 0;
        rsh1 <= overflow || acc == 0 ? '0 : RSH_W'(31 - ACC_SHIFT) - RSH_W'(left);
        mult1 <= multiplier;
      end
      if (load[1]) begin
        rsh2 <= rsh1;
        mult2 <= mult1;
        sat_pos2 <= sat_pos1;
      end
    end

    if (USE_DSP) begin : g_dsp
      logic signed [ACC_W-1:0] mant1;
      always_ff @(posedge clk) begin
        if (load[0]) begin
          if (!overflow) mant1 <= acc;
          else mant1 <= acc < 0 ? -(ACC_W'(1)) : ACC_W'(1);
        end
        if (load[1]) q2 <= mant1 * mult1;
      end
    end else begin : g_lut
      // Radix-4 Booth over acc: acc · m = sum over k < D of d_k · m · 4^k, with
      // digits d_k = -2 acc[2k+1] + acc[2k] + acc[2k-1] in {-2 .. 2}
      // (acc[-1] = 0). Partial product k is |d_k| · m inverted when d_k < 0;
      // the +1s that complete the negations sit at bits 2k of one extra
      // vector. Stage 1 adds pairs of partial products (the extra vector
      // joins the last), stage 2 the pair sums. A saturated x bypasses it:
      // q = -m or m (mant -1 or 1).
      logic [PAIRS*Q_W-1:0] pair_sum1;
      always_ff @(posedge clk) if (load[0]) pair_sum1 <= BoothPairSums(acc, multiplier);
      logic [Q_W-1:0] sum;
      always_comb begin
        sum = '0;
        for (int i = 0; i < PAIRS; i++) sum = sum + pair_sum1[i*Q_W +: Q_W];
      end
      always_ff @(posedge clk) begin
        if (load[1]) begin
          if (sat1) q2 <= sat_neg1 ? -(Q_W'(mult1)) : Q_W'(mult1);
          else q2 <= $signed(sum);
        end
      end
    end

    // Stage 3: floor(q · 2^k / 2^30) = floor(2q / 2^rsh), minus ceil(m / 2^30)
    // for x = INT32_MAX (p = m · 2^31 - m).
    logic signed [33:0] scaled;
    logic signed [2:0] ceil_m;
    assign scaled = 34'($signed({q2, 1'b0}) >>> rsh2);
    assign ceil_m = 3'($signed(mult2[31:30])) + 3'(mult2[29:0] != 0);
    always_ff @(posedge clk) if (load[2]) p3 <= scaled - (sat_pos2 ? 34'(ceil_m) : 34'sd0);
  end

  // Stage 4: the doubling high multiply, rounded.
  logic signed [32:0] high;
  assign high = $signed(p3[33:1]) + 33'(p3[0]);

  // Stage 5: the rounding right shift, in 33 bits (h + 2^30 may pass INT32_MAX).
  logic signed [32:0] round_bias;
  assign round_bias = right4 == 0 ? 33'sd0 : (33'sd1 <<< (right4 - 5'd1)) - (h4 < 0 ? 33'sd1 : 33'sd0);

  always_ff @(posedge clk) begin
    if (load[0]) right1 <= right;
    if (load[1]) right2 <= right1;
    if (load[2]) right3 <= right2;
    if (load[3]) begin
      right4 <= right3;
      h4 <= high > 33'sh0_7fff_ffff ? 32'sh7fff_ffff : high[31:0];
    end
    if (load[4]) result <= 32'((33'(h4) + round_bias) >>> right4);
  end
endmodule

`default_nettype wire
