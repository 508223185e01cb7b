// The compute unit's ADD: for r < rows, lane j < N,
//   acc[acc_base + r][j] = ScaleAddInput(a_j, a_zp, {a_multiplier, a_shift})
//                        + ScaleAddInput(b_j, b_zp, {b_multiplier, b_shift})   (int32, wrapping)
// a = input row a_base + r, b = input row b_base + r, bytes int8 or uint8
// (act_unsigned); ScaleAddInput(q, zp, m) = MultiplyByQuantizedMultiplier(
// (q - zp) · 2^20, m) (kernels/common/requantize.h; mul_quantized.sv with a
// 10-bit q - zp). The command was checked (compute_check.sv) before go.
//
// Throughput: one input read port, so a row's a and b take two reads; the
// VEC_LANES lanes (two mul_quantized each) then take G = N / VEC_LANES
// cycles per row, overlapped with the next row's reads: a row every
// R = max(2, G) cycles (pynq_z2, VEC_LANES = 4: 4 cycles per row).
//
// Pipeline, row period starting in cycle s (cycle numbers from s):
//   s, s+1     read a_base + r, b_base + r (inp_re/inp_raddr registered here)
//   s+2, s+3   a, b arrive; a waits in a_row, both move to the work registers
//   s+4 ..     one group of VEC_LANES lanes per cycle, lowest lanes first:
//              q - zp registered, then mul_quantized (5 cycles), then the
//              two results are added and shifted into out_row
//   the last group's sum completes out_row, written in the next cycle with
//   acc_last on the command's last row (done follows it)
// Rows are written in order and never read, so there is no hazard.
`default_nettype none

module compute_add #(
  parameter int N = 16,
  parameter int INP_AW = 12,
  parameter int ACC_AW = 11,
  parameter int VEC_LANES = 4,  // a power of two dividing N
  parameter bit USE_DSP = 1'b0  // the lanes' ACC_W x 32 multiplies in DSPs (2 each) or LUTs
) (
  input  wire logic                clk,
  input  wire logic                rst_n,  // synchronous
  input  wire logic                go,     // a pulse: the fields below hold until the last write
  input  wire logic [INP_AW-1:0]   a_base,
  input  wire logic [INP_AW-1:0]   b_base,
  input  wire logic [ACC_AW-1:0]   acc_base,
  input  wire logic [ACC_AW:0]     rows,   // 1 .. ACC_ROWS
  input  wire logic signed [8:0]   a_zp,
  input  wire logic signed [8:0]   b_zp,
  input  wire logic signed [31:0]  a_multiplier,
  input  wire logic signed [31:0]  b_multiplier,
  input  wire logic signed [5:0]   a_shift,
  input  wire logic signed [5:0]   b_shift,
  input  wire logic                act_unsigned,
  output logic                     inp_re,
  output logic      [INP_AW-1:0]   inp_raddr,
  input  wire logic [N*8-1:0]      inp_rdata,
  output logic                     acc_we,
  output logic      [ACC_AW-1:0]   acc_waddr,
  output logic      [N*32-1:0]     acc_wdata,
  output logic                     acc_last  // with acc_we: the command's last write
);
  localparam int VL = VEC_LANES;
  localparam int G = N / VL;
  localparam int R = G > 2 ? G : 2;
  localparam int PH_W = $clog2(R);
  localparam int MQ_LATENCY = 5;

  // Reads: phase 0 reads a, phase 1 reads b, a new row every R cycles.
  logic running;
  logic [PH_W-1:0] phase;
  logic [INP_AW-1:0] a_ptr, b_ptr;
  logic [ACC_AW-1:0] acc_ptr;
  logic [ACC_AW:0] rows_left;
  logic e_a, e_b, e_last, d_a, d_b, d_last;
  logic [ACC_AW-1:0] e_acc, d_acc;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      running <= 1'b0;
      inp_re <= 1'b0;
      {e_a, e_b, d_a, d_b} <= '0;
    end else begin
      inp_re <= running && (phase == 0 || phase == PH_W'(1));
      e_a <= running && phase == 0;
      e_b <= running && phase == PH_W'(1);
      d_a <= e_a;
      d_b <= e_b;
      if (go) running <= 1'b1;
      else if (running && phase == PH_W'(R - 1) && rows_left == 1) running <= 1'b0;
    end
    inp_raddr <= phase == 0 ? a_ptr : b_ptr;
    e_acc <= acc_ptr;
    e_last <= rows_left == 1;
    d_acc <= e_acc;
    d_last <= e_last;
    if (go) begin
      phase <= '0;
      a_ptr <= a_base;
      b_ptr <= b_base;
      acc_ptr <= acc_base;
      rows_left <= rows;
    end else if (running) begin
      phase <= phase == PH_W'(R - 1) ? '0 : phase + 1'b1;
      if (phase == PH_W'(R - 1)) begin
        a_ptr <= a_ptr + 1'b1;
        b_ptr <= b_ptr + 1'b1;
        acc_ptr <= acc_ptr + 1'b1;
        rows_left <= rows_left - 1'b1;
      end
    end
  end

  // The work registers: a row's a and b, shifted down VL lanes per group.
  logic [N*8-1:0] a_row, work_a, work_b;
  logic [$clog2(G+1)-1:0] work_left;  // groups still to feed
  logic [ACC_AW-1:0] work_acc;
  logic work_last;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      work_left <= '0;
    end else if (d_b) begin
      work_left <= ($clog2(G+1))'(G);
    end else if (work_left != 0) begin
      work_left <= work_left - 1'b1;
    end
    if (d_a) a_row <= inp_rdata;
    if (d_b) begin
      work_a <= a_row;
      work_b <= inp_rdata;
      work_acc <= d_acc;
      work_last <= d_last;
    end else if (work_left != 0) begin
      work_a <= work_a >> (8 * VL);
      work_b <= work_b >> (8 * VL);
    end
  end

  // Feed: q - zp for the lowest VL lanes, registered (cycle f+1 = the
  // mul_quantized input cycle); results in cycle f+6.
  logic f_valid, f_group_last, f_row_last;
  logic [ACC_AW-1:0] f_acc;
  logic [VL*10-1:0] da, db;
  always_ff @(posedge clk) begin
    if (!rst_n) f_valid <= 1'b0;
    else f_valid <= work_left != 0;
    f_group_last <= work_left == 1;
    f_row_last <= work_last;
    f_acc <= work_acc;
    if (work_left != 0) begin
      for (int l = 0; l < VL; l++) begin
        da[l*10 +: 10] <= Diff(work_a[l*8 +: 8], a_zp);
        db[l*10 +: 10] <= Diff(work_b[l*8 +: 8], b_zp);
      end
    end
  end

  // The byte as a 9-bit operand minus the zero point: [-383, 511], 10 bits.
  function automatic logic [9:0] Diff(input logic [7:0] q, input logic signed [8:0] zp);
    Diff = (act_unsigned ? {2'b00, q} : {{2{q[7]}}, q}) - 10'(zp);
  endfunction

  logic [VL*32-1:0] ra, rb;
  for (genvar l = 0; l < VL; l++) begin : g_lane
    mul_quantized #(.ACC_W(10), .ACC_SHIFT(20), .USE_DSP(USE_DSP), .GATE(1'b1)) u_a (
      .clk(clk), .in_valid(f_valid), .acc(da[l*10 +: 10]), .multiplier(a_multiplier), .shift(a_shift),
      .result(ra[l*32 +: 32]));
    mul_quantized #(.ACC_W(10), .ACC_SHIFT(20), .USE_DSP(USE_DSP), .GATE(1'b1)) u_b (
      .clk(clk), .in_valid(f_valid), .acc(db[l*10 +: 10]), .multiplier(b_multiplier), .shift(b_shift),
      .result(rb[l*32 +: 32]));
  end

  // The group's control, MQ_LATENCY cycles later beside the results.
  logic m_valid, m_group_last, m_row_last;
  logic [ACC_AW-1:0] m_acc;
  logic [MQ_LATENCY-1:0] valid_q;
  always_ff @(posedge clk) begin
    if (!rst_n) valid_q <= '0;
    else valid_q <= {valid_q[MQ_LATENCY-2:0], f_valid};
  end
  assign m_valid = valid_q[MQ_LATENCY-1];
  delay_line #(.WIDTH(ACC_AW + 2), .DEPTH(MQ_LATENCY)) u_ctrl (
    .clk(clk), .in({f_group_last, f_row_last, f_acc}), .out({m_group_last, m_row_last, m_acc}));

  logic [VL*32-1:0] sums;
  always_comb begin
    for (int l = 0; l < VL; l++) sums[l*32 +: 32] = ra[l*32 +: 32] + rb[l*32 +: 32];
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      acc_we <= 1'b0;
    end else begin
      acc_we <= m_valid && m_group_last;
    end
    acc_waddr <= m_acc;
    acc_last <= m_row_last;
  end
  if (G == 1) begin : g_whole_row
    always_ff @(posedge clk) if (m_valid) acc_wdata <= sums;
  end else begin : g_shift_in
    always_ff @(posedge clk) if (m_valid) acc_wdata <= {sums, acc_wdata[N*32-1 : VL*32]};
  end
endmodule

`default_nettype wire
