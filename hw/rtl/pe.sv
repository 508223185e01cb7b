// One processing element of the weight-stationary systolic array
// (systolic_array.sv explains the array, its timing and its bank protocol).
//
// Two weight banks hold int8 weights; each activation carries the bank of its
// weight tile, so the array switches tiles with the data wavefront and one
// bank loads while the other computes. Every cycle:
//   psum_out <= psum_in + w[a_bank] * a_in           (partial sums move down)
//   a_out <= a_in                                    (activations move right)
//   if (wl) w[wl_bank] <= w_in                       (this row's weight arrives)
// a_in is a 9-bit signed operand (int8 sign-extended or uint8 zero-extended);
// it must be 0 when no vector is there (the array zeroes idle lanes at its
// input), so the PE needs no gating and psum passes through unchanged.
// The control that travels with the data (a_bank, the load enable wl and its
// bank, the weights moving down) lives in the array as shared shift
// registers: a PE's copy of them would only delay them again by one cycle
// per PE, and a whole row or diagonal shifts as one word in simulation.
//
// USE_DSP selects the multiplier: 1 infers a multiply (`*`) that Vivado and
// yosys map to a DSP48; 0 builds it in LUTs from radix-4 Booth partial
// products, which no tool turns into a DSP (yosys has no per-operator
// use_dsp; Vivado honours the attribute as well).
`default_nettype none

module pe #(
  parameter int PSUM_W = 21,  // the column-sum width, 17 + log2(N) (systolic_array)
  parameter bit USE_DSP = 1'b1
) (
  input  wire logic                     clk,
  input  wire logic signed [8:0]        a_in,
  input  wire logic                     a_bank,   // the bank of a_in's weight tile
  output logic signed [8:0]             a_out,
  input  wire logic signed [7:0]        w_in,
  input  wire logic                     wl,       // write w_in into bank wl_bank
  input  wire logic                     wl_bank,
  input  wire logic signed [PSUM_W-1:0] psum_in,
  output logic signed [PSUM_W-1:0]      psum_out
);
  logic signed [7:0] w_bank0, w_bank1;
  logic signed [7:0] w_sel;
  assign w_sel = a_bank ? w_bank1 : w_bank0;

  always_ff @(posedge clk) begin
    if (wl) begin
      if (wl_bank) w_bank1 <= w_in;
      else w_bank0 <= w_in;
    end
    a_out <= a_in;
  end

  if (USE_DSP) begin : g_dsp
    // The 17-bit product (|a * w| <= 2^15) of the operands sign-extended to
    // 32 bits: synthesis narrows the multiply back to 9 x 8 bits, and the
    // simulation computes it in one native multiply instead of re-extending
    // each operand and the product at every width step.
    /* verilator lint_off UNUSEDSIGNAL */
    (* use_dsp = "yes" *) logic signed [31:0] product;
    /* verilator lint_on UNUSEDSIGNAL */
    assign product = 32'(a_in) * 32'(w_sel);
    always_ff @(posedge clk) psum_out <= psum_in + product[PSUM_W-1:0];
  end else begin : g_lut
    // Radix-4 Booth: a * w = sum over k < 4 of d_k * a * 4^k, with the digits
    // d_k = -2 w[2k+1] + w[2k] + w[2k-1] in {-2 .. 2} (w[-1] = 0). A partial
    // product is |d_k| * a (a, 2a or 0), inverted when d_k < 0; the +1 that
    // completes the negation goes into a free low bit of another operand
    // (the top digit's into its own 11-bit increment). Three adders, one LUT
    // per partial-product bit.
    logic [8:0] digits;  // digit k reads bits 2k+2 .. 2k
    logic [3:0] neg;
    logic [4*11-1:0] pp;  // partial product k at bits 11k, before the +1
    assign digits = {w_sel, 1'b0};
    for (genvar k = 0; k < 4; k++) begin : g_pp
      logic one, two;
      assign neg[k] = digits[2*k+2];
      assign one = digits[2*k+1] ^ digits[2*k];
      assign two = digits[2*k+2] ? !digits[2*k+1] && !digits[2*k] : digits[2*k+1] && digits[2*k];
      assign pp[k*11 +: 11] = (({11{one}} & 11'(a_in)) | ({11{two}} & (11'(a_in) << 1))) ^ {11{neg[k]}};
    end
    (* use_dsp = "no" *) logic signed [10:0] pp3;
    (* use_dsp = "no" *) logic signed [12:0] sum01, sum23;
    (* use_dsp = "no" *) logic signed [16:0] product;
    (* use_dsp = "no" *) logic signed [PSUM_W-1:0] sum;
    assign pp3 = pp[33 +: 11] + 11'(neg[3]);
    assign sum01 = 13'($signed(pp[0 +: 11])) + $signed({pp[11 +: 11], 1'b0, neg[0]});
    assign sum23 = 13'($signed(pp[22 +: 11])) + $signed({pp3, 1'b0, neg[2]});
    assign product = 17'(sum01) + $signed({sum23, 1'b0, neg[1], 2'b00});
    assign sum = psum_in + PSUM_W'(product);
    always_ff @(posedge clk) psum_out <= sum;
  end
endmodule

`default_nettype wire
