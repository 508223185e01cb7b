// The compute unit's command check: the field checks of
// kernels/fpga/model/compute_ops.cc and fault.cc, with the same error code
// the model reports (BAD_FIELD before SRAM_RANGE), and the sliding window's
// address steps for window_walker.sv. Commands whose opcode is not CONV, ADD
// or MAXPOOL get BAD_OPCODE (fetch never sends them).
//
//   CONV     BAD_FIELD   cb_count, kh, kw, stride_y/x, dilation_y/x, oh, ow = 0;
//                        last_x = (ow-1)·stride_x + (kw-1)·dilation_x >= in_w;
//                        cb_begin + cb_count > in_cb
//            SRAM_RANGE  last input row >= INP_ROWS, i.e.
//                        inp_base + (last_y·in_w + last_x)·in_cb + cb_begin + cb_count > INP_ROWS,
//                        last_y = (oh-1)·stride_y + (kh-1)·dilation_y;
//                        wgt_base + cb_count·kh·kw·N > WGT_ROWS;
//                        acc_base + oh·ow > ACC_ROWS
//   MAXPOOL  as CONV with cb_begin = cb, cb_count = 1 and no weights
//   ADD      BAD_FIELD   rows = 0; a_shift or b_shift = -32 (outside [-31, 31])
//            SRAM_RANGE  a_base + rows or b_base + rows > INP_ROWS; acc_base + rows > ACC_ROWS
//
// Timing: start (cmd valid) in cycle 0; checked pulses in cycle 3 for ADD and
// cycle 10 for the others, with error_code and the outputs below valid
// from then until the next start. The large products (in_w·in_cb, oh·ow,
// last_y·in_w, cb_count·kh·kw, (last_y·in_w + last_x)·in_cb) share one
// pipelined multiplier (one DSP48E1), one product per cycle; last_y and
// last_y·in_w + last_x saturate at INP_ROWS (in_w and in_cb are >= 1 once
// the BAD_FIELD checks pass, so a saturated factor is out of range anyway).
//
// Window outputs (CONV and MAXPOOL; valid only for a command without error):
// input row = first + c + ky·tap_y + kx·tap_x + oy·step_y + ox·step_x, all
// modulo 2^INP_AW (exact, since every row read lies inside the buffer):
//   first = inp_base + cb_begin (MAXPOOL: cb), step_x = stride_x·in_cb,
//   step_y = stride_y·in_w·in_cb, tap_x = dilation_x·in_cb,
//   tap_y = dilation_y·in_w·in_cb; the loop bounds minus one; acc_base
//   (ADD's too). Ports are declared in the body: their widths come from the
//   contract include.
`default_nettype none

module compute_check (
  clk, rst_n, start, cmd, checked, error_code, is_conv, is_pool, is_add,
  first, step_x, step_y, tap_x, tap_y, kw_m1, kh_m1, cb_m1, ow_m1, oh_m1, acc_base
);
  `include "loom_accel_config.svh"
  localparam int INP_AW = $clog2(INP_ROWS);
  localparam int ACC_AW = $clog2(ACC_ROWS);
  localparam int SAT_W = $clog2(INP_ROWS + 1);  // values saturated at INP_ROWS
  localparam int LAST_STEP = 9;

  input  wire logic              clk;
  input  wire logic              rst_n;  // synchronous
  input  wire logic              start;
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [CMD_BITS-1:0] cmd;  // the unit's other fields are read elsewhere
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                   checked;
  output logic [7:0]             error_code;
  output logic                   is_conv, is_pool, is_add;
  output logic [INP_AW-1:0]      first, step_x, step_y, tap_x, tap_y;
  output logic [3:0]             kw_m1, kh_m1;
  output logic [7:0]             cb_m1;
  output logic [11:0]            ow_m1, oh_m1;
  output logic [ACC_AW-1:0]      acc_base;

  // a · b for a b of a few bits: shifted copies of a added, no multiplier.
  function automatic logic [31:0] times_small(input logic [31:0] a, input logic [3:0] b);
    times_small = 0;
    for (int i = 0; i < 4; i++) if (b[i]) times_small = times_small + (a << i);
  endfunction

  // Cycle 0: the fields, CONV's and MAXPOOL's in one form.
  logic [3:0] opcode;
  logic [15:0] f_inp_base, f_wgt_base, f_acc_base, f_a_base, f_b_base, f_rows;
  logic [11:0] f_in_w, f_oh, f_ow;
  logic [7:0] f_in_cb, f_cb_first, f_cb_count;
  logic [3:0] f_kh, f_kw;
  logic [2:0] f_sy, f_sx, f_dy, f_dx;
  logic f_bad_shift;
  assign opcode = cmd[CMD_OPCODE_LSB +: CMD_OPCODE_W];

  // Step k is cycle k after start; ADD's checks end in step 2, the others' in step 9.
  logic running, last_step;
  logic [3:0] step;
  assign last_step = running && step == (is_add ? 4'd2 : 4'(LAST_STEP));
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      running <= 1'b0;
      checked <= 1'b0;
    end else begin
      checked <= last_step;
      if (start) running <= 1'b1;
      else if (last_step) running <= 1'b0;
    end
    if (start) step <= 4'd1;
    else if (running) step <= step + 1'b1;
  end

  always_ff @(posedge clk) begin
    if (start) begin
      is_conv <= opcode == OP_CONV;
      is_pool <= opcode == OP_MAXPOOL;
      is_add <= opcode == OP_ADD;
      if (opcode == OP_CONV) begin
        f_inp_base <= cmd[CONV_INP_BASE_LSB +: CONV_INP_BASE_W];
        f_in_w <= cmd[CONV_IN_W_LSB +: CONV_IN_W_W];
        f_in_cb <= cmd[CONV_IN_CB_LSB +: CONV_IN_CB_W];
        f_cb_first <= cmd[CONV_CB_BEGIN_LSB +: CONV_CB_BEGIN_W];
        f_cb_count <= cmd[CONV_CB_COUNT_LSB +: CONV_CB_COUNT_W];
        f_kh <= cmd[CONV_KH_LSB +: CONV_KH_W];
        f_kw <= cmd[CONV_KW_LSB +: CONV_KW_W];
        f_sy <= cmd[CONV_STRIDE_Y_LSB +: CONV_STRIDE_Y_W];
        f_sx <= cmd[CONV_STRIDE_X_LSB +: CONV_STRIDE_X_W];
        f_dy <= cmd[CONV_DILATION_Y_LSB +: CONV_DILATION_Y_W];
        f_dx <= cmd[CONV_DILATION_X_LSB +: CONV_DILATION_X_W];
        f_oh <= cmd[CONV_OH_LSB +: CONV_OH_W];
        f_ow <= cmd[CONV_OW_LSB +: CONV_OW_W];
        f_acc_base <= cmd[CONV_ACC_BASE_LSB +: CONV_ACC_BASE_W];
      end else begin
        f_inp_base <= cmd[MAXPOOL_INP_BASE_LSB +: MAXPOOL_INP_BASE_W];
        f_in_w <= cmd[MAXPOOL_IN_W_LSB +: MAXPOOL_IN_W_W];
        f_in_cb <= cmd[MAXPOOL_IN_CB_LSB +: MAXPOOL_IN_CB_W];
        f_cb_first <= cmd[MAXPOOL_CB_LSB +: MAXPOOL_CB_W];
        f_cb_count <= 8'd1;
        f_kh <= cmd[MAXPOOL_KH_LSB +: MAXPOOL_KH_W];
        f_kw <= cmd[MAXPOOL_KW_LSB +: MAXPOOL_KW_W];
        f_sy <= cmd[MAXPOOL_STRIDE_Y_LSB +: MAXPOOL_STRIDE_Y_W];
        f_sx <= cmd[MAXPOOL_STRIDE_X_LSB +: MAXPOOL_STRIDE_X_W];
        f_dy <= cmd[MAXPOOL_DILATION_Y_LSB +: MAXPOOL_DILATION_Y_W];
        f_dx <= cmd[MAXPOOL_DILATION_X_LSB +: MAXPOOL_DILATION_X_W];
        f_oh <= cmd[MAXPOOL_OH_LSB +: MAXPOOL_OH_W];
        f_ow <= cmd[MAXPOOL_OW_LSB +: MAXPOOL_OW_W];
        f_acc_base <= opcode == OP_ADD ? cmd[ADD_ACC_BASE_LSB +: ADD_ACC_BASE_W]
                                       : cmd[MAXPOOL_ACC_BASE_LSB +: MAXPOOL_ACC_BASE_W];
      end
      f_wgt_base <= opcode == OP_CONV ? cmd[CONV_WGT_BASE_LSB +: CONV_WGT_BASE_W] : 16'd0;
      f_a_base <= cmd[ADD_A_BASE_LSB +: ADD_A_BASE_W];
      f_b_base <= cmd[ADD_B_BASE_LSB +: ADD_B_BASE_W];
      f_rows <= cmd[ADD_ROWS_LSB +: ADD_ROWS_W];
      f_bad_shift <= cmd[ADD_A_SHIFT_LSB +: ADD_A_SHIFT_W] == 6'b100000 ||
                     cmd[ADD_B_SHIFT_LSB +: ADD_B_SHIFT_W] == 6'b100000;
    end
  end

  // The shared multiplier: operands chosen in step k, product readable in step k + 2.
  logic [SAT_W-1:0] mul_a;
  logic [11:0] mul_b;
  logic [SAT_W+11:0] mul_p;
  always_ff @(posedge clk) mul_p <= mul_a * mul_b;

  logic bad_zero, bad_x, bad_cb, bad_add_field;
  logic inp_over, wgt_over, acc_over, add_over;
  logic [14:0] t_ox, t_kx, t_oy, t_ky, last_y, last_x;
  logic [8:0] cb_end;
  logic [7:0] khkw;
  logic [SAT_W-1:0] last_y_sat, y_sat;
  logic [INP_AW-1:0] row_pitch;
  logic [SAT_W+11:0] y_full;
  logic [11:0] ow_dec, oh_dec;
  logic [3:0] kw_dec, kh_dec;
  assign ow_dec = f_ow - 12'd1;
  assign oh_dec = f_oh - 12'd1;
  assign kw_dec = f_kw - 4'd1;
  assign kh_dec = f_kh - 4'd1;
  assign last_x = t_ox + t_kx;
  assign last_y = t_oy + t_ky;
  assign row_pitch = mul_p[INP_AW-1:0];
  assign y_full = mul_p + (SAT_W + 12)'(last_x);

  always_ff @(posedge clk) begin
    case (step)
      4'd1: begin
        bad_zero <= f_cb_count == 0 || f_kh == 0 || f_kw == 0 || f_sy == 0 || f_sx == 0 ||
                    f_dy == 0 || f_dx == 0 || f_oh == 0 || f_ow == 0;
        t_ox <= 15'(times_small(32'(ow_dec), {1'b0, f_sx}));
        t_kx <= 15'(times_small(32'(kw_dec), {1'b0, f_dx}));
        t_oy <= 15'(times_small(32'(oh_dec), {1'b0, f_sy}));
        t_ky <= 15'(times_small(32'(kh_dec), {1'b0, f_dy}));
        cb_end <= 9'(f_cb_first) + 9'(f_cb_count);
        khkw <= 8'(times_small(32'(f_kh), f_kw));
        step_x <= INP_AW'(times_small(32'(f_in_cb), {1'b0, f_sx}));
        tap_x <= INP_AW'(times_small(32'(f_in_cb), {1'b0, f_dx}));
        first <= INP_AW'(f_inp_base + 16'(f_cb_first));
        kw_m1 <= kw_dec;
        kh_m1 <= kh_dec;
        cb_m1 <= f_cb_count - 8'd1;
        ow_m1 <= ow_dec;
        oh_m1 <= oh_dec;
        acc_base <= ACC_AW'(f_acc_base);
        bad_add_field <= f_rows == 0 || f_bad_shift;
        add_over <= 17'(f_a_base) + 17'(f_rows) > 17'(INP_ROWS) ||
                    17'(f_b_base) + 17'(f_rows) > 17'(INP_ROWS) ||
                    17'(f_acc_base) + 17'(f_rows) > 17'(ACC_ROWS);
        mul_a <= SAT_W'(f_in_w);
        mul_b <= 12'(f_in_cb);
      end
      4'd2: begin
        bad_x <= last_x >= 15'(f_in_w);
        bad_cb <= cb_end > 9'(f_in_cb);
        last_y_sat <= last_y >= 15'(INP_ROWS) ? SAT_W'(INP_ROWS) : SAT_W'(last_y);
        mul_a <= SAT_W'(f_oh);
        mul_b <= f_ow;
      end
      4'd3: begin
        step_y <= INP_AW'(times_small(32'(row_pitch), {1'b0, f_sy}));
        tap_y <= INP_AW'(times_small(32'(row_pitch), {1'b0, f_dy}));
        mul_a <= last_y_sat;
        mul_b <= f_in_w;
      end
      4'd4: begin
        acc_over <= 25'(f_acc_base) + 25'(mul_p) > 25'(ACC_ROWS);  // oh·ow
        mul_a <= SAT_W'(f_cb_count);
        mul_b <= 12'(khkw);
      end
      4'd5: y_sat <= y_full >= (SAT_W + 12)'(INP_ROWS) ? SAT_W'(INP_ROWS) : SAT_W'(y_full);
      4'd6: begin
        wgt_over <= 26'(f_wgt_base) + (26'(mul_p) << $clog2(N)) > 26'(WGT_ROWS);  // taps·N
        mul_a <= y_sat;
        mul_b <= 12'(f_in_cb);
      end
      4'd8: inp_over <= 26'(f_inp_base) + 26'(mul_p) + 26'(cb_end) > 26'(INP_ROWS);
      default: ;
    endcase
  end

  // The code, in the model's order; registered with checked.
  always_ff @(posedge clk) begin
    if (last_step) begin
      if (is_add) error_code <= bad_add_field ? ERR_BAD_FIELD : add_over ? ERR_SRAM_RANGE : ERR_NONE;
      else if (!is_conv && !is_pool) error_code <= ERR_BAD_OPCODE;
      else if (bad_zero || bad_x || bad_cb) error_code <= ERR_BAD_FIELD;
      else if (inp_over || (is_conv && wgt_over) || acc_over) error_code <= ERR_SRAM_RANGE;
      else error_code <= ERR_NONE;
    end
  end
endmodule

`default_nettype wire
