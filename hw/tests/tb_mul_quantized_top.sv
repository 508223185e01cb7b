// The Verilated top of hw.mul_quantized (tb_mul_quantized.cc): mul_quantized
// in the form the compute unit's ADD lanes use (a 10-bit acc times 2^20),
// once with the LUT Booth multiplier and once with the DSP multiply, on the
// same inputs. (The full-width form is requant's, tested by hw.requant.)
`default_nettype none

module tb_mul_quantized_top (
  input  wire logic               clk,
  input  wire logic signed [9:0]  acc,
  input  wire logic signed [31:0] multiplier,
  input  wire logic signed [5:0]  shift,
  output logic signed [31:0]      result_lut,
  output logic signed [31:0]      result_dsp
);
  mul_quantized #(.ACC_W(10), .ACC_SHIFT(20), .USE_DSP(1'b0)) u_lut (
    .clk(clk), .in_valid(1'b1), .acc(acc), .multiplier(multiplier), .shift(shift), .result(result_lut));
  mul_quantized #(.ACC_W(10), .ACC_SHIFT(20), .USE_DSP(1'b1)) u_dsp (
    .clk(clk), .in_valid(1'b1), .acc(acc), .multiplier(multiplier), .shift(shift), .result(result_dsp));
endmodule

`default_nettype wire
