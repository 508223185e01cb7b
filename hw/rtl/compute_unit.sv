// The compute unit: CONV on the N x N systolic array, and ADD and MAXPOOL
// on vector lanes, from the input and weight buffers into the accumulators,
// exactly as kernels/fpga/model/compute_ops.cc (the executable spec; hw/tests/
// tb_compute_unit.cc compares every accumulator row with it).
//
// Interface (widths from the contract include, so ports are declared in the
// body; INP_AW = log2 INP_ROWS, WGT_AW, ACC_AW likewise):
//   start, cmd[CMD_BITS]   a command, taken in a cycle where busy is low
//                          (ignored while busy: one command at a time)
//   busy                   from the cycle after start up to the cycle before done
//   done                   one-cycle pulse: the command has finished, its last
//                          accumulator write included (written at the end of
//                          the cycle before done)
//   error, error_code[8]   with done: ERR_* as the model reports it (BAD_FIELD
//                          before SRAM_RANGE; compute_check.sv); a failing
//                          command writes no accumulator. error_code holds
//                          ERR_NONE after a good command.
//   inp_re, inp_raddr      input buffer read port, inp_rdata[N*8] one cycle later
//   wgt_re, wgt_raddr      weight buffer read port, wgt_rdata[N*8] one cycle later
//   acc_re, acc_raddr      accumulator read port, acc_rdata[N*32] one cycle later
//   acc_we, acc_waddr, acc_wdata[N*32]   accumulator write port
//   cnt_busy, cnt_macs     64-bit counters since reset: busy cycles, and N·N
//                          per activation vector the array took
// The unit owns all these ports while busy and drives them only then. The
// buffers are sram_sdp: registered read, a read in the cycle of a write to
// the same row returns the old row.
// Parameters: DSP_ROWS (systolic_array's DSP rows, default N), VEC_LANES
// (ADD lanes per cycle, a power of two dividing N; compute_add.sv) and
// ADD_USE_DSP (the ADD lanes' multiplies in DSPs, else LUTs).
//
// Command flow: compute_check.sv checks the command (3 cycles for ADD, 10
// for the others) and derives the window steps. A failing command ends with
// done and error right after its check; a failing CONV only once its tile 0
// weight load has completed (N + 1 cycles), since the array counts weight
// rows and every load must be exactly N rows. Otherwise:
//
// CONV: tiles t = ((c·kh) + ky)·kw + kx, P = oh·ow pixels each. Tile t's N
// weight rows (wgt_base + t·N + i, one running pointer) load into bank t % 2
// during the first N cycles of tile t-1 (tile 0's in a prologue that starts
// with the check, so the check is hidden); tile t streams its P input rows
// (window_walker.sv) in max(P, N) cycles (the last tile: P), back to back:
// the array's bank rule of systolic_array.sv holds by construction (a load
// into bank b starts after the last vector of tile t-2 and ends before the
// first vector of tile t). Pipeline of one pixel emitted in cycle g:
//   g+1 input read   g+2 data, sign/zero-extended   g+3 into the array
//   g+33 accumulator read (address and flags delayed beside the array)
//   g+34 psum out of the array: sum = psum, or psum + acc for every tile but
//        a first one with accumulate = 0   g+35 accumulator write
// Read-after-write hazard: a pixel's row is read again a tile period
// (>= N cycles) later; its previous write lands 2 cycles after its read, so
// for N >= 3 the read sees it: no idle cycles and no forwarding are needed.
// Cycles from start to done: 1 + N (tile 0's weights; the check is hidden
// behind them) + the tile periods (last tile: P) + 35 (the pipeline).
//
// MAXPOOL: per pixel its kh·kw taps, one input read per cycle (the window
// walker with taps inner); best = max over taps of the 9-bit lanes, then
// acc = best - in_zp (int32), written two cycles after the last tap's data.
// Cycles: 11 (check) + oh·ow·kh·kw + 4.
//
// ADD: compute_add.sv, max(2, N / VEC_LANES) cycles per row.
`default_nettype none

module compute_unit (
  clk, rst_n,
  start, cmd, busy, done, error, error_code,
  inp_re, inp_raddr, inp_rdata,
  wgt_re, wgt_raddr, wgt_rdata,
  acc_re, acc_raddr, acc_rdata,
  acc_we, acc_waddr, acc_wdata,
  cnt_busy, cnt_macs
);
  `include "loom_accel_config.svh"
  parameter int DSP_ROWS = N;
  parameter int VEC_LANES = 4;
  parameter bit ADD_USE_DSP = 1'b0;

  localparam int INP_AW = $clog2(INP_ROWS);
  localparam int WGT_AW = $clog2(WGT_ROWS);
  localparam int ACC_AW = $clog2(ACC_ROWS);
  localparam int ARRAY_LATENCY = 2 * N - 1;
  localparam int ACC_DELAY = ARRAY_LATENCY - 2;  // array input -> accumulator read register
  localparam int WROW_W = $clog2(N + 1);

  input  wire logic                 clk;
  input  wire logic                 rst_n;  // synchronous
  input  wire logic                 start;
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [CMD_BITS-1:0]  cmd;    // the flags and other opcodes' fields are not used
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                      busy;
  output logic                      done;
  output logic                      error;
  output logic      [7:0]           error_code;
  output logic                      inp_re;
  output logic      [INP_AW-1:0]    inp_raddr;
  input  wire logic [N*8-1:0]       inp_rdata;
  output logic                      wgt_re;
  output logic      [WGT_AW-1:0]    wgt_raddr;
  input  wire logic [N*8-1:0]       wgt_rdata;
  output logic                      acc_re;
  output logic      [ACC_AW-1:0]    acc_raddr;
  input  wire logic [N*32-1:0]      acc_rdata;
  output logic                      acc_we;
  output logic      [ACC_AW-1:0]    acc_waddr;
  output logic      [N*32-1:0]      acc_wdata;
  output logic      [63:0]          cnt_busy;
  output logic      [63:0]          cnt_macs;

  localparam logic [1:0] S_IDLE = 2'd0, S_CHECK = 2'd1, S_RUN = 2'd2, S_DRAIN = 2'd3;
  logic [1:0] state;
  logic take;  // start accepted
  assign take = start && state == S_IDLE;
  assign busy = state != S_IDLE;

  logic [CMD_BITS-1:0] cmd_q;
  always_ff @(posedge clk) if (take) cmd_q <= cmd;

  // ---------------------------------------------------------------- check
  logic chk_checked, is_conv, is_pool, is_add;
  logic [INP_AW-1:0] win_first, win_step_x, win_step_y, win_tap_x, win_tap_y;
  logic [3:0] win_kw_m1, win_kh_m1;
  logic [7:0] win_cb_m1;
  logic [11:0] win_ow_m1, win_oh_m1;
  logic [ACC_AW-1:0] acc_base;
  compute_check u_check (
    .clk(clk), .rst_n(rst_n), .start(take), .cmd(cmd), .checked(chk_checked), .error_code(error_code),
    .is_conv(is_conv), .is_pool(is_pool), .is_add(is_add),
    .first(win_first), .step_x(win_step_x), .step_y(win_step_y), .tap_x(win_tap_x), .tap_y(win_tap_y),
    .kw_m1(win_kw_m1), .kh_m1(win_kh_m1), .cb_m1(win_cb_m1), .ow_m1(win_ow_m1), .oh_m1(win_oh_m1),
    .acc_base(acc_base));

  logic chk_valid, chk_ok, chk_bad;  // the check has ended (sticky until the next start)
  always_ff @(posedge clk) begin
    if (!rst_n || take) chk_valid <= 1'b0;
    else if (chk_checked) chk_valid <= 1'b1;
  end
  assign chk_ok = chk_valid && error_code == ERR_NONE;
  assign chk_bad = chk_valid && error_code != ERR_NONE;

  logic accumulate, act_unsigned;
  logic signed [8:0] in_zp;
  assign accumulate = cmd_q[CONV_ACCUMULATE_LSB];
  assign act_unsigned = is_conv ? cmd_q[CONV_ACT_UNSIGNED_LSB] : cmd_q[MAXPOOL_ACT_UNSIGNED_LSB];
  assign in_zp = cmd_q[MAXPOOL_IN_ZP_LSB +: MAXPOOL_IN_ZP_W];

  // ---------------------------------------------------------------- walker
  logic walk_tap_next, walk_pix_next, tap_first, tap_last, pix_last;
  logic [INP_AW-1:0] walk_addr;
  logic [ACC_AW-1:0] pix_idx;
  window_walker #(.AW(INP_AW), .IW(ACC_AW)) u_walker (
    .clk(clk), .clear(take), .tap_next(walk_tap_next), .pix_next(walk_pix_next),
    .first(win_first), .step_x(win_step_x), .step_y(win_step_y), .tap_x(win_tap_x), .tap_y(win_tap_y),
    .kw_m1(win_kw_m1), .kh_m1(win_kh_m1), .cb_m1(win_cb_m1), .ow_m1(win_ow_m1), .oh_m1(win_oh_m1),
    .addr(walk_addr), .pix_idx(pix_idx), .tap_first(tap_first), .tap_last(tap_last), .pix_last(pix_last));

  // ---------------------------------------------------------------- CONV tile loop
  // The current tile period: conv_pre (tile -1: only tile 0's weights),
  // conv_pix (pixels left to emit), conv_wrow (weight rows emitted or, on the
  // last tile, skipped: 0 .. N), conv_bank (this tile's bank; the load goes
  // to the other one).
  logic conv_active, conv_pre, conv_pix, conv_bank, conv_first_tile;
  logic [WROW_W-1:0] conv_wrow;
  logic [WGT_AW-1:0] wgt_ptr;
  logic conv_emit_w, conv_emit_pix, conv_tile_end, conv_loaded, conv_finish;
  assign conv_active = is_conv && (state == S_CHECK || state == S_RUN);
  assign conv_loaded = conv_wrow == WROW_W'(N);
  assign conv_emit_w = conv_active && !conv_loaded && (conv_pre || !tap_last);
  assign conv_emit_pix = conv_active && conv_pix;
  assign conv_tile_end = conv_active && (!conv_pix || pix_last) &&
                         (conv_pre ? chk_ok && conv_wrow >= WROW_W'(N - 1) : tap_last || conv_wrow >= WROW_W'(N - 1));
  assign conv_finish = conv_tile_end && !conv_pre && tap_last;

  always_ff @(posedge clk) begin
    if (take) begin
      conv_pre <= 1'b1;
      conv_pix <= 1'b0;
      conv_wrow <= '0;
      conv_bank <= 1'b1;
      conv_first_tile <= 1'b0;
      wgt_ptr <= WGT_AW'(cmd[CONV_WGT_BASE_LSB +: CONV_WGT_BASE_W]);
    end else if (conv_active) begin
      if (conv_emit_w) wgt_ptr <= wgt_ptr + 1'b1;
      if (conv_tile_end) begin
        conv_pre <= 1'b0;
        conv_pix <= !conv_finish;
        conv_wrow <= '0;
        conv_bank <= !conv_bank;
        conv_first_tile <= conv_pre;
      end else begin
        if (!conv_loaded) conv_wrow <= conv_wrow + 1'b1;
        if (conv_emit_pix && pix_last) conv_pix <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- MAXPOOL emission
  logic pool_emit, pool_finish;
  assign pool_emit = is_pool && state == S_RUN;
  assign pool_finish = pool_emit && tap_last && pix_last;

  assign walk_pix_next = conv_emit_pix || (pool_emit && tap_last);
  assign walk_tap_next = (conv_tile_end && !conv_pre) || pool_emit;

  // ---------------------------------------------------------------- control
  logic add_go, add_we, add_last, last_write;
  logic wr_we, wr_last;
  assign add_go = is_add && state == S_CHECK && chk_ok;
  assign last_write = (wr_we && wr_last) || (add_we && add_last);
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE;
      done <= 1'b0;
      error <= 1'b0;
    end else begin
      done <= 1'b0;
      error <= 1'b0;
      case (state)
        S_IDLE: if (take) state <= S_CHECK;
        S_CHECK:
          // A failed CONV first completes its prologue's N-row weight load:
          // the array counts rows, so every load is exactly N rows.
          if (chk_bad && (!is_conv || conv_loaded)) begin
            done <= 1'b1;
            error <= 1'b1;
            state <= S_IDLE;
          end else if (chk_ok) begin
            state <= is_add ? S_DRAIN : S_RUN;
          end
        S_RUN: if (conv_finish || pool_finish) state <= S_DRAIN;
        S_DRAIN:
          if (last_write) begin
            done <= 1'b1;
            state <= S_IDLE;
          end
      endcase
    end
  end

  // ---------------------------------------------------------------- emission registers
  // e1: the read is issued (inp_raddr held), e2: its data arrives.
  logic win_re, e1_valid, e1_bank, e1_first, e1_tap_last, e1_last;
  logic e2_valid, e2_bank, e2_first, e2_tap_last, e2_last;
  logic [INP_AW-1:0] win_raddr;
  logic [ACC_AW-1:0] e1_acc, e2_acc;
  logic w1_valid, w1_bank, w2_valid, w2_bank;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      {win_re, e1_valid, e2_valid, wgt_re, w1_valid, w2_valid} <= '0;
    end else begin
      win_re <= conv_emit_pix || pool_emit;
      e1_valid <= conv_emit_pix || pool_emit;
      e2_valid <= e1_valid;
      wgt_re <= conv_emit_w;
      w1_valid <= conv_emit_w;
      w2_valid <= w1_valid;
    end
    win_raddr <= walk_addr;
    e1_bank <= conv_bank;
    // CONV: overwrite instead of accumulate; MAXPOOL: the pixel's first tap.
    e1_first <= is_conv ? conv_first_tile && !accumulate : tap_first;
    e1_tap_last <= tap_last;
    e1_last <= tap_last && pix_last;
    e1_acc <= acc_base + pix_idx;
    {e2_bank, e2_first, e2_tap_last, e2_last, e2_acc} <= {e1_bank, e1_first, e1_tap_last, e1_last, e1_acc};
    wgt_raddr <= wgt_ptr;
    w1_bank <= !conv_bank;
    w2_bank <= w1_bank;
  end

  // An input byte as the array sees it: int8, or uint8 as a 9-bit signed operand.
  function automatic logic signed [8:0] Act(input logic [7:0] byte_in, input logic is_unsigned);
    Act = is_unsigned ? {1'b0, byte_in} : {byte_in[7], byte_in};
  endfunction

  // ---------------------------------------------------------------- CONV datapath
  logic [N*9-1:0] act_q;
  logic act_valid_q, act_bank_q;
  logic [N*8-1:0] w_row_q;
  logic w_valid_q, w_bank_q;
  logic a3_first, a3_last;
  logic [ACC_AW-1:0] a3_acc;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      act_valid_q <= 1'b0;
      w_valid_q <= 1'b0;
    end else begin
      act_valid_q <= e2_valid && is_conv;
      w_valid_q <= w2_valid;
    end
    for (int i = 0; i < N; i++) act_q[i*9 +: 9] <= Act(inp_rdata[i*8 +: 8], act_unsigned);
    act_bank_q <= e2_bank;
    {a3_first, a3_last, a3_acc} <= {e2_first, e2_last, e2_acc};
    w_row_q <= wgt_rdata;
    w_bank_q <= w2_bank;
  end

  logic [N*32-1:0] psum;
  logic psum_valid;
  systolic_array #(.N(N), .DSP_ROWS(DSP_ROWS)) u_array (
    .clk(clk), .rst_n(rst_n),
    .act(act_q), .act_valid(act_valid_q), .act_bank(act_bank_q),
    .w_row(w_row_q), .w_valid(w_valid_q), .w_bank(w_bank_q),
    .psum(psum), .psum_valid(psum_valid));

  // The pixel's accumulator row and flags travel beside the array: read the
  // row one cycle before psum comes out, add (or not) when it does.
  logic [ACC_DELAY-1:0] valid_sr;
  logic d_first, d_last, r_first, r_last, s_first, s_last;
  logic [ACC_AW-1:0] d_acc, s_acc;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      valid_sr <= '0;
      acc_re <= 1'b0;
    end else begin
      valid_sr <= {valid_sr[ACC_DELAY-2:0], act_valid_q};
      acc_re <= valid_sr[ACC_DELAY-1];
    end
  end
  delay_line #(.WIDTH(ACC_AW + 2), .DEPTH(ACC_DELAY)) u_acc_ctrl (
    .clk(clk), .in({a3_first, a3_last, a3_acc}), .out({d_first, d_last, d_acc}));
  always_ff @(posedge clk) begin
    {r_first, r_last, acc_raddr} <= {d_first, d_last, d_acc};
    {s_first, s_last, s_acc} <= {r_first, r_last, acc_raddr};
  end

  // ---------------------------------------------------------------- MAXPOOL datapath
  logic [N*9-1:0] best;
  logic [N*9-1:0] best_next;
  always_comb begin
    for (int j = 0; j < N; j++) begin
      logic signed [8:0] x, b;
      x = Act(inp_rdata[j*8 +: 8], act_unsigned);
      b = best[j*9 +: 9];
      best_next[j*9 +: 9] = e2_first || x > b ? x : b;
    end
  end
  always_ff @(posedge clk) if (e2_valid && is_pool) best <= best_next;

  // ---------------------------------------------------------------- accumulator writes
  logic [ACC_AW-1:0] wr_addr;
  logic [N*32-1:0] wr_data;
  logic pool_write;
  assign pool_write = e2_valid && is_pool && e2_tap_last;
  always_ff @(posedge clk) begin
    if (!rst_n) wr_we <= 1'b0;
    else wr_we <= psum_valid || pool_write;
    if (pool_write) begin
      for (int j = 0; j < N; j++) wr_data[j*32 +: 32] <= 32'($signed(best_next[j*9 +: 9])) - 32'(in_zp);
      wr_addr <= e2_acc;
      wr_last <= e2_last;
    end else begin
      for (int j = 0; j < N; j++)
        wr_data[j*32 +: 32] <= psum[j*32 +: 32] + (s_first ? 32'd0 : acc_rdata[j*32 +: 32]);
      wr_addr <= s_acc;
      wr_last <= s_last;
    end
  end

  // ---------------------------------------------------------------- ADD
  logic add_inp_re;
  logic [INP_AW-1:0] add_inp_raddr;
  logic [ACC_AW-1:0] add_waddr;
  logic [N*32-1:0] add_wdata;
  compute_add #(.N(N), .INP_AW(INP_AW), .ACC_AW(ACC_AW), .VEC_LANES(VEC_LANES), .USE_DSP(ADD_USE_DSP)) u_add (
    .clk(clk), .rst_n(rst_n), .go(add_go),
    .a_base(INP_AW'(cmd_q[ADD_A_BASE_LSB +: ADD_A_BASE_W])),
    .b_base(INP_AW'(cmd_q[ADD_B_BASE_LSB +: ADD_B_BASE_W])),
    .acc_base(acc_base),
    .rows((ACC_AW + 1)'(cmd_q[ADD_ROWS_LSB +: ADD_ROWS_W])),
    .a_zp(cmd_q[ADD_A_ZP_LSB +: ADD_A_ZP_W]), .b_zp(cmd_q[ADD_B_ZP_LSB +: ADD_B_ZP_W]),
    .a_multiplier(cmd_q[ADD_A_MULTIPLIER_LSB +: ADD_A_MULTIPLIER_W]),
    .b_multiplier(cmd_q[ADD_B_MULTIPLIER_LSB +: ADD_B_MULTIPLIER_W]),
    .a_shift(cmd_q[ADD_A_SHIFT_LSB +: ADD_A_SHIFT_W]), .b_shift(cmd_q[ADD_B_SHIFT_LSB +: ADD_B_SHIFT_W]),
    .act_unsigned(cmd_q[ADD_ACT_UNSIGNED_LSB]),
    .inp_re(add_inp_re), .inp_raddr(add_inp_raddr), .inp_rdata(inp_rdata),
    .acc_we(add_we), .acc_waddr(add_waddr), .acc_wdata(add_wdata), .acc_last(add_last));

  // ---------------------------------------------------------------- ports
  assign inp_re = win_re || add_inp_re;
  assign inp_raddr = is_add ? add_inp_raddr : win_raddr;
  assign acc_we = wr_we || add_we;
  assign acc_waddr = is_add ? add_waddr : wr_addr;
  assign acc_wdata = is_add ? add_wdata : wr_data;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      cnt_busy <= '0;
      cnt_macs <= '0;
    end else begin
      cnt_busy <= cnt_busy + 64'(busy);
      if (act_valid_q) cnt_macs <= cnt_macs + 64'(N * N);
    end
  end
endmodule

`default_nettype wire
