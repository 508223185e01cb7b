// The N x N weight-stationary systolic array: one N-channel activation
// vector in and one N-channel column-sum vector out per cycle.
//
// PE(i, j) (pe.sv) holds weight w[i][j], input channel i and output channel
// j, in two banks. Activations enter row i delayed i cycles (input skew) and
// move right one PE per cycle; partial sums move down; column j's sum leaves
// the bottom at a delay of N - 1 - j cycles less than column 0's, which the
// output deskew evens out.
//
// Interface, one transfer per cycle on each port (no back-pressure):
//   act[9i +: 9]    input channel i: int8 sign-extended or uint8 zero-extended
//                   (any 9-bit signed value works), with act_valid and
//                   act_bank (the weight bank this vector multiplies)
//   w_row[8j +: 8]  weight of output channel j in the current row of a tile
//                   load, with w_valid and w_bank (the bank written)
//   psum[32j +: 32] output channel j: sum over i of act_i * w[bank][i][j],
//                   sign-extended from the exact 17 + log2(N) bits, with
//                   psum_valid; outputs come in input order
//
// Latency: a vector presented in cycle T (act_valid high at the rising edge
// that ends T) comes out in cycle T + LATENCY, LATENCY = 2N - 1: PE(i, j)
// multiplies it in cycle T + i + j (row i's input skew is i cycles, one
// more per column), the bottom PE of column j registers the sum for cycle
// T + N + j, and column j's output deskew adds N - 1 - j. Idle cycles
// (act_valid low) are bubbles that give idle output cycles (psum_valid low).
//
// Weight loading and banks. A tile is N rows, row i = input channel i,
// written over N cycles with w_valid high (gaps allowed); the array counts
// rows itself (0 .. N-1 and again, cleared by reset), so every load is
// exactly N rows into one bank. Row i travels down the columns together with
// a load enable that follows the activations' skew, so each PE writes its
// weight exactly when the activation wavefront of the same cycle passes.
// The array therefore behaves as if it had no pipeline at all:
//
//   a vector presented in cycle T uses, for every row, the weights last
//   written to its bank in a cycle before T.
//
// So: a row written in cycle t is used by vectors from cycle t + 1 on; a
// vector in the same cycle as a row write still sees the old row. The
// protocol that follows for back-to-back tiles on alternating banks:
//   - a load into bank b may start in the cycle of the last vector of the
//     previous tile on bank b (or later) and must write its N-th row before
//     the first vector that uses it;
//   - while it runs, vectors use the other bank.
// A tile of P vectors therefore takes max(P, N) cycles when weights change
// every tile: with P >= N tiles run back to back with no gap (the load of
// tile k+1 hides behind tile k); with P < N the weight port is the limit and
// the compute unit inserts N - P idle cycles per tile (P = N - 1 needs one).
// Nothing else is required: any traffic is well defined by the rule above.
// Reset drops the vectors and weight rows in flight and restarts the row
// count; the banks then hold undefined weights until both are reloaded.
//
// Structure: a PE holds its two weight banks, its activation register and
// its partial sum. What only travels along with the data is shared: PE(i, j)
// sees the wavefront of cycle T in cycle T + i + j, so the activation's bank,
// the load's bank and act_valid are shift registers of one bit per delay
// (tap i + j), row i's load enable one of N bits (tap j), and column j's
// weights a byte chain that shifts only while a load is in flight. The same
// flops as per-PE copies, fewer of them (synthesis shares them anyway), and in
// simulation a row or diagonal moves as one word instead of 256 PE registers.
//
// Arithmetic: products are 9 x 8 bits signed, |a * w| <= 2^15, so a column
// sum of N of them needs exactly 17 + log2(N) bits (21 for N = 16); the PEs
// carry that width and the output sign-extends it to 32 bits.
//
// DSP budget (XC7Z020: 220 DSP48E1; N = 16 needs 256 multipliers). Options:
//   (a) one DSP48E1 per PE in rows 0 .. DSP_ROWS-1 and LUT multipliers in
//       the rest (chosen): a DSP PE's psum_in + w * a is one DSP48E1
//       (multiplier, post-adder, P register; yosys chains the column through
//       PCIN), a LUT PE builds the 9 x 8 product from four radix-4 Booth
//       partial products (~100 LUTs with its adder and bank multiplexer);
//   (b) two MACs per DSP48E1 sharing the activation, A = w_j * 2^17 + w_j+1
//       through the pre-adder: the 25-bit multiplier input leaves 17 bits to
//       the low lane, enough for one product but not for a column sum
//       (21 bits), so neither the post-adder nor the PCIN cascade can
//       accumulate. Each DSP would need its lanes split (hi += lo[16]) and two
//       21-bit fabric adders, and columns j, j+1 must see each activation in
//       the same cycle (a column-pair array with its own skew). That is
//       128 DSP48E1 for all 256 MACs plus ~6k LUTs of adders: about the LUTs
//       of (a) for 64 fewer DSPs, at the price of an irregular array. Worth
//       it only when the DSPs are needed elsewhere.
// For pynq_z2 use DSP_ROWS = 12: 192 DSP48E1 for the array leaves 28, for
// the store unit's requantization lanes (4 DSP48E1 each, requant.sv; 16 for
// its 4 lanes) and spare. yosys 0.23 synth_xilinx -family xc7 -flatten,
// systolic_array N = 16 (hw/synth/synth.py --top systolic_array
// --param N=16 --param DSP_ROWS=12):
//   DSP_ROWS = 12: 192 DSP48E1, 8933 LUT + 488 SRL16E, 9813 FF, 0 BRAM
//   DSP_ROWS = 16: 256 DSP48E1, 2597 LUT + 467 SRL16E, 8805 FF (over budget)
// so the 64 LUT PEs cost ~6.3k LUTs (12 % of the device).
`default_nettype none

module systolic_array #(
  parameter int N = 16,        // a power of two, >= 2
  parameter int DSP_ROWS = N   // rows 0 .. DSP_ROWS-1 multiply in DSPs, the rest in LUTs
) (
  input  wire logic           clk,
  input  wire logic           rst_n,  // synchronous; clears valids and the row count
  input  wire logic [N*9-1:0] act,
  input  wire logic           act_valid,
  input  wire logic           act_bank,
  input  wire logic [N*8-1:0] w_row,
  input  wire logic           w_valid,
  input  wire logic           w_bank,
  output logic [N*32-1:0]     psum,
  output logic                psum_valid
);
  localparam int PSUM_W = 17 + $clog2(N);
  localparam int CNT_W = $clog2(N);
  localparam int DIAG = 2 * N - 1;  // PE(i, j) sees its inputs delayed i + j = 0 .. 2N-2 cycles

  // The row of the tile being loaded.
  logic [CNT_W-1:0] w_count;
  always_ff @(posedge clk) begin
    if (!rst_n) w_count <= '0;
    else if (w_valid) w_count <= w_count == CNT_W'(N - 1) ? '0 : w_count + 1'b1;
  end

  // Control bits delayed 0 .. 2N-2 cycles (bit k: k cycles): PE(i, j) reads
  // tap i + j of the activation's and the weight load's bank (the wavefront
  // of cycle T reaches it in T + i + j); act_valid also to 2N-1 (psum_valid),
  // w_valid and w_count to N-1 (row i's load enable, tap i).
  logic [DIAG:1] act_valid_q;
  logic [DIAG-1:1] act_bank_q, w_valid_q, w_bank_q;
  logic [(N-1)*CNT_W-1:0] w_count_q;
  logic [DIAG-1:0] act_valid_tap, act_bank_tap, w_valid_tap, w_bank_tap;
  logic [N*CNT_W-1:0] w_count_tap;
  assign act_valid_tap = {act_valid_q[DIAG-1:1], act_valid};
  assign act_bank_tap = {act_bank_q, act_bank};
  assign w_valid_tap = {w_valid_q, w_valid};
  assign w_bank_tap = {w_bank_q, w_bank};
  assign w_count_tap = {w_count_q, w_count};
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      act_valid_q <= '0;
      w_valid_q <= '0;
    end else begin
      act_valid_q <= act_valid_tap;
      w_valid_q <= w_valid_tap[DIAG-2:0];
    end
    act_bank_q <= act_bank_tap[DIAG-2:0];
    w_bank_q <= w_bank_tap[DIAG-2:0];
    w_count_q <= w_count_tap[(N-1)*CNT_W-1:0];
  end

  // Weights move down a column only while a tile load is in flight: a row
  // entering in cycle s is written by PE(i, j) in cycle s + i + j <= s + 2N-2,
  // and until then w_valid stays high in its taps 0 .. 2N-2, so every shift
  // that carries it happens. Outside a load the column registers have no
  // reader, and holding them costs the simulation nothing.
  logic w_moving;
  assign w_moving = w_valid_tap != '0;

  // Input skew: row i's activation delayed i cycles (zero when idle), column
  // j's weight byte delayed j cycles.
  for (genvar i = 0; i < N; i++) begin : g_skew
    logic [8:0] a_skewed;
    logic [7:0] w_skewed;
    delay_line #(.WIDTH(9), .DEPTH(i)) u_act (
      .clk(clk), .in(act_valid ? act[i*9 +: 9] : 9'd0), .out(a_skewed));
    delay_line #(.WIDTH(8), .DEPTH(i)) u_wgt (.clk(clk), .in(w_row[i*8 +: 8]), .out(w_skewed));
  end

  // Column j's weights on their way down: tap i (row i's w_in) is the skewed
  // byte delayed i more cycles.
  for (genvar j = 0; j < N; j++) begin : g_wcol
    logic [(N-1)*8-1:0] w_q;
    logic [N*8-1:0] w_tap;
    assign w_tap = {w_q, g_skew[j].w_skewed};
    always_ff @(posedge clk) if (w_moving) w_q <= w_tap[(N-1)*8-1:0];
  end

  // Row i's load enable: its tile row (w_count = i) entered i cycles ago;
  // PE(i, j) takes it j cycles later (tap j).
  for (genvar i = 0; i < N; i++) begin : g_wl
    logic [N-1:1] wl_q;
    logic [N-1:0] wl_tap;
    assign wl_tap = {wl_q, w_valid_tap[i] && w_count_tap[i*CNT_W +: CNT_W] == CNT_W'(i)};
    always_ff @(posedge clk) begin
      if (!rst_n) wl_q <= '0;
      else wl_q <= wl_tap[N-2:0];
    end
  end

  for (genvar i = 0; i < N; i++) begin : g_row
    for (genvar j = 0; j < N; j++) begin : g_col
      // The last column's outgoing activation and the last row's partial sum
      // (read by the deskew) have no reader inside the grid.
      /* verilator lint_off UNUSEDSIGNAL */
      logic signed [8:0] a_in, a_out;
      logic signed [PSUM_W-1:0] psum_in, psum_out;
      /* verilator lint_on UNUSEDSIGNAL */
      if (j == 0) begin : g_left
        assign a_in = g_skew[i].a_skewed;
      end else begin : g_inner
        assign a_in = g_row[i].g_col[j-1].a_out;
      end
      if (i == 0) begin : g_top
        assign psum_in = '0;
      end else begin : g_below
        assign psum_in = g_row[i-1].g_col[j].psum_out;
      end
      pe #(.PSUM_W(PSUM_W), .USE_DSP(i < DSP_ROWS)) u_pe (
        .clk(clk),
        .a_in(a_in), .a_bank(act_bank_tap[i+j]), .a_out(a_out),
        .w_in(g_wcol[j].w_tap[i*8 +: 8]), .wl(g_wl[i].wl_tap[j]), .wl_bank(w_bank_tap[i+j]),
        .psum_in(psum_in), .psum_out(psum_out));
    end
  end

  // Output deskew: column j delayed N - 1 - j cycles, then sign-extended.
  for (genvar j = 0; j < N; j++) begin : g_deskew
    logic signed [PSUM_W-1:0] column_sum;
    delay_line #(.WIDTH(PSUM_W), .DEPTH(N - 1 - j)) u_sum (
      .clk(clk), .in(g_row[N-1].g_col[j].psum_out), .out(column_sum));
    assign psum[j*32 +: 32] = 32'(column_sum);
  end
  assign psum_valid = act_valid_q[DIAG];
endmodule

`default_nettype wire
