// The store unit: LOAD_PARAM (DRAM -> parameter buffer) and STORE
// (accumulators -> + bias, requantize, clamp -> int8, or raw int32 -> DRAM),
// exactly as kernels/fpga/model/store_ops.cc (the executable spec;
// hw/sim/tests/load_store_test.cc compares DRAM with it).
//
// Interface (the units' common one; widths from the contract include, so
// ports are declared in the body; ACC_AW = log2 ACC_ROWS):
//   start, cmd[CMD_BITS]   a command, taken in a cycle where busy is low
//   busy                   from the cycle after start up to the cycle before
//                          done; also while the parameter buffer is cleared
//   done                   one-cycle pulse: the command has finished; after a
//                          STORE every write has been acknowledged (req_done),
//                          after a LOAD_PARAM its last record is written
//   error, error_code[8]   with done (held until the next done): ERR_* as the
//                          model reports it. BAD_FIELD, MISALIGNED, SRAM_RANGE
//                          come from the checks before anything happens;
//                          LOAD_PARAM's BAD_FIELD for a shift outside
//                          [-31, 31] during the transfer (the records before
//                          it are written, as in the model); BUS_ERROR when
//                          rd_bus_error (LOAD_PARAM) or wr_bus_error (STORE)
//                          is high at the end. Other opcodes: BAD_OPCODE.
//   base[BASE_SLOTS*64]    the base-address slots (slot s at bits s*64)
//   rd_req_*, rd_rsp_*, rd_bus_error   a dma_read_arbiter port (LOAD_PARAM)
//   acc_re, acc_raddr      accumulator read port: a read is taken in a cycle
//                          with acc_re && acc_ready (the top gives the compute
//                          unit priority by lowering acc_ready), acc_rdata
//                          [N*32] comes in the next cycle
//   wr_req_*, wr_data_*, wr_req_done, wr_bus_error   axi_dma_write's request side
//   clear                  zeroes the counters and the parameter buffer (a
//                          pulse, at ap_start: the model starts every run with
//                          zeroed records); so does reset. Clearing takes
//                          PARAM_ROWS cycles with busy high.
//   cnt_busy, cnt_stall    64-bit counters: cycles running a command, and
//                          those in which it waited for memory (no beat moved
//                          on the DMA and no lane group entered requantization)
// Parameters: LANES (requant lanes, default REQUANT_LANES: a power of two
// dividing N with LANES·32 >= AXI_DATA_BITS), OUT_DEPTH (output FIFO entries).
//
// Parameter buffer: PARAM_ROWS rows of {shift[6], multiplier[32], bias[32]}
// (sram_sdp, inside the unit). LOAD_PARAM takes its records from one request
// of count·16 bytes and writes one row per record as it arrives.
//
// STORE: the checks (1 cycle, then oh·ow by serial_mul, up to 12 cycles)
// overlap with the preload of the N records param_row + j into per-lane
// registers (N + 1 cycles; per_tensor: the command's multiplier and shift
// with bias 0, so the lanes need no mux). Then, at once:
//   requests  dma_req_walker: one per output row of ow·bytes-per-pixel when
//             pixels are contiguous (pixel_pitch = N, or 4N for out_int32),
//             else one per pixel
//   reads     accumulator row acc_base + p for pixel p = oy·ow + ox, read
//             when the row register will be free (in the cycle the last
//             group of the previous pixel issues; its data is used directly
//             in the next cycle), so pixels follow each other without a gap
//   issue     per cycle one group of LANES lanes into the requant lanes
//             (N / LANES cycles per pixel) while the output FIFO has a credit
//             for its result: requant.sv has no stall, so a group enters only
//             when its result has a place; credits count groups in the lanes
//             and in the FIFO
//   output    a group's LANES int32 sums (out_int32: one FIFO entry), or its
//             LANES bytes packed with the next groups' up to AXI_DATA_BITS
//             (int8); each FIFO entry leaves as LANES·32 / AXI_DATA_BITS
//             beats (int32) or max(1, LANES·8 / AXI_DATA_BITS) (int8) on
//             wr_data.
// pynq_z2 (N 16, 4 lanes, 64-bit AXI): int8 4 cycles per pixel (the lanes;
// 2 beats), int32 8 cycles per pixel (the bus; 8 beats).
// A bus error does not stop a STORE (the writes already accepted cannot be
// cancelled): it runs to its end and reports BUS_ERROR, while the model stops
// at the failing pixel. A LOAD_PARAM writes no record after a bus error, but
// the ones before the failing beat are written (the model, which reads all
// records before writing any, writes none). rd_bus_error and wr_bus_error are
// the DMA's sticky flags: another client's bus error also ends a command
// with BUS_ERROR, which is right for the run (it ends at the first error).
`default_nettype none

module store_unit (
  clk, rst_n, clear,
  start, cmd, busy, done, error, error_code, base,
  rd_req_valid, rd_req_ready, rd_req_addr, rd_req_bytes,
  rd_rsp_valid, rd_rsp_ready, rd_rsp_data, rd_rsp_last, rd_bus_error,
  acc_re, acc_ready, acc_raddr, acc_rdata,
  wr_req_valid, wr_req_ready, wr_req_addr, wr_req_bytes, wr_req_done,
  wr_data_valid, wr_data_ready, wr_data, wr_bus_error,
  cnt_busy, cnt_stall
);
  `include "loom_accel_config.svh"
  parameter int LANES = REQUANT_LANES;
  parameter int OUT_DEPTH = 16;

  localparam int D = AXI_DATA_BITS;
  localparam int ACC_AW = $clog2(ACC_ROWS);
  localparam int PRM_AW = $clog2(PARAM_ROWS);
  localparam int PRM_W = 70;                        // {shift[6], multiplier[32], bias[32]}
  localparam int REC_BITS = PARAM_RECORD_BYTES * 8;
  localparam int REC_LSB = $clog2(PARAM_RECORD_BYTES);
  localparam int ALIGN_LSB = $clog2(DRAM_ALIGNMENT);
  localparam int G = N / LANES;                     // lane groups per pixel
  localparam int G_W = G > 1 ? $clog2(G) : 1;
  localparam int PIECE_W = LANES * 8;               // a group's int8 results
  localparam int ENTRY_W = LANES * 32;              // a group's int32 results
  localparam int PPE = PIECE_W >= D ? 1 : D / PIECE_W;    // int8 groups per FIFO entry
  localparam int BPE8 = PIECE_W >= D ? PIECE_W / D : 1;   // beats per entry, int8
  localparam int BPE32 = ENTRY_W / D;                     // beats per entry, int32
  localparam int SUB_W = BPE32 > 1 ? $clog2(BPE32) : 1;
  localparam int CREDIT_W = $clog2(OUT_DEPTH * PPE + 1);
  localparam int PENDING_W = 16;                    // write requests not yet done
  localparam int STORE_DIM_W = STORE_OH_W;          // oh, ow

  input  wire logic                     clk;
  input  wire logic                     rst_n;  // synchronous
  input  wire logic                     clear;
  input  wire logic                     start;
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [CMD_BITS-1:0]      cmd;    // the token flags are the sequencer's
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                          busy;
  output logic                          done;
  output logic                          error;
  output logic      [7:0]               error_code;
  input  wire logic [BASE_SLOTS*64-1:0] base;
  output logic                          rd_req_valid;
  input  wire logic                     rd_req_ready;
  output logic      [ADDRESS_BITS-1:0]  rd_req_addr;
  output logic      [31:0]              rd_req_bytes;
  input  wire logic                     rd_rsp_valid;
  output logic                          rd_rsp_ready;
  input  wire logic [D-1:0]             rd_rsp_data;
  input  wire logic                     rd_rsp_last;
  input  wire logic                     rd_bus_error;
  output logic                          acc_re;
  input  wire logic                     acc_ready;
  output logic      [ACC_AW-1:0]        acc_raddr;
  input  wire logic [N*32-1:0]          acc_rdata;
  output logic                          wr_req_valid;
  input  wire logic                     wr_req_ready;
  output logic      [ADDRESS_BITS-1:0]  wr_req_addr;
  output logic      [31:0]              wr_req_bytes;
  input  wire logic                     wr_req_done;
  output logic                          wr_data_valid;
  input  wire logic                     wr_data_ready;
  output logic      [D-1:0]             wr_data;
  input  wire logic                     wr_bus_error;
  output logic      [63:0]              cnt_busy;
  output logic      [63:0]              cnt_stall;

  localparam logic [2:0] S_IDLE = 3'd0, S_CLEAR = 3'd1, S_DECODE = 3'd2, S_CHECK = 3'd3, S_PARAM = 3'd4,
                         S_STORE = 3'd5;
  logic [2:0] state;
  assign busy = state != S_IDLE;

  /* verilator lint_off UNUSEDSIGNAL */
  logic [CMD_BITS-1:0] cmd_q;  // the flags and the bits no field uses are not read
  /* verilator lint_on UNUSEDSIGNAL */
  always_ff @(posedge clk) if (start && !busy) cmd_q <= cmd;

  // ---------------------------------------------------------------- fields
  logic                               is_param, is_store;
  logic [STORE_SLOT_W-1:0]            slot;
  logic [31:0]                        dram_offset;
  logic [LOAD_PARAM_PARAM_ROW_W-1:0]  lp_row;
  logic [LOAD_PARAM_COUNT_W-1:0]      lp_count;
  logic [STORE_ACC_BASE_W-1:0]        acc_base;
  logic [STORE_DIM_W-1:0]             oh, ow;
  logic [STORE_ROW_PITCH_W-1:0]       row_pitch;
  logic [STORE_PIXEL_PITCH_W-1:0]     pixel_pitch;
  logic [STORE_PARAM_ROW_W-1:0]       st_row;
  logic                               out_int32, per_tensor;
  logic signed [8:0]                  zero_point, qmin, qmax;
  logic [31:0]                        multiplier;
  logic signed [5:0]                  shift;

  assign is_param = cmd_q[CMD_OPCODE_LSB +: CMD_OPCODE_W] == OP_LOAD_PARAM;
  assign is_store = cmd_q[CMD_OPCODE_LSB +: CMD_OPCODE_W] == OP_STORE;
  assign slot = is_param ? cmd_q[LOAD_PARAM_SLOT_LSB +: LOAD_PARAM_SLOT_W] : cmd_q[STORE_SLOT_LSB +: STORE_SLOT_W];
  assign dram_offset = is_param ? cmd_q[LOAD_PARAM_DRAM_OFFSET_LSB +: LOAD_PARAM_DRAM_OFFSET_W]
                                : cmd_q[STORE_DRAM_OFFSET_LSB +: STORE_DRAM_OFFSET_W];
  assign lp_row = cmd_q[LOAD_PARAM_PARAM_ROW_LSB +: LOAD_PARAM_PARAM_ROW_W];
  assign lp_count = cmd_q[LOAD_PARAM_COUNT_LSB +: LOAD_PARAM_COUNT_W];
  assign acc_base = cmd_q[STORE_ACC_BASE_LSB +: STORE_ACC_BASE_W];
  assign oh = cmd_q[STORE_OH_LSB +: STORE_OH_W];
  assign ow = cmd_q[STORE_OW_LSB +: STORE_OW_W];
  assign row_pitch = cmd_q[STORE_ROW_PITCH_LSB +: STORE_ROW_PITCH_W];
  assign pixel_pitch = cmd_q[STORE_PIXEL_PITCH_LSB +: STORE_PIXEL_PITCH_W];
  assign st_row = cmd_q[STORE_PARAM_ROW_LSB +: STORE_PARAM_ROW_W];
  assign out_int32 = cmd_q[STORE_OUT_INT32_LSB];
  assign per_tensor = cmd_q[STORE_PER_TENSOR_LSB];
  assign zero_point = cmd_q[STORE_ZERO_POINT_LSB +: STORE_ZERO_POINT_W];
  assign qmin = cmd_q[STORE_QMIN_LSB +: STORE_QMIN_W];
  assign qmax = cmd_q[STORE_QMAX_LSB +: STORE_QMAX_W];
  assign multiplier = cmd_q[STORE_MULTIPLIER_LSB +: STORE_MULTIPLIER_W];
  assign shift = cmd_q[STORE_SHIFT_LSB +: STORE_SHIFT_W];

  logic [ADDRESS_BITS-1:0] dram_addr;
  logic [31:0]             pixel_bytes;
  logic [4:0]              pixel_lsb;  // log2 pixel_bytes
  logic                    contiguous;
  assign dram_addr = base[32'(slot) * 64 +: 64] + ADDRESS_BITS'(dram_offset);
  assign pixel_lsb = out_int32 ? 5'($clog2(4 * N)) : 5'($clog2(N));
  assign pixel_bytes = 32'(1) << pixel_lsb;
  assign contiguous = 32'(pixel_pitch) == pixel_bytes;

  // ---------------------------------------------------------------- checks
  logic                      mul_done, preload_done;
  logic [2*STORE_DIM_W-1:0]  pixels;  // oh·ow
  serial_mul #(.A_W(STORE_DIM_W), .B_W(STORE_DIM_W)) u_mul_pixels (
    .clk(clk), .start(state == S_DECODE), .a(ow), .b(oh), .done(mul_done), .product(pixels));

  logic bad_field, misaligned, overrun;
  always_comb begin
    if (is_param) begin
      bad_field = lp_count == '0;
      misaligned = dram_addr[ALIGN_LSB-1:0] != '0;
      overrun = 32'(lp_row) + 32'(lp_count) > 32'(PARAM_ROWS);
    end else begin
      bad_field = oh == '0 || ow == '0 ||
                  (!out_int32 && (qmin < -9'sd128 || qmin > qmax || (per_tensor && shift < -6'sd31)));
      misaligned = dram_addr[ALIGN_LSB-1:0] != '0 || row_pitch[ALIGN_LSB-1:0] != '0 ||
                   pixel_pitch[ALIGN_LSB-1:0] != '0;
      overrun = 32'(acc_base) + 32'(pixels) > 32'(ACC_ROWS) ||
                (!per_tensor && 32'(st_row) + 32'(N) > 32'(PARAM_ROWS));
    end
  end

  // LOAD_PARAM's records (below).
  logic                rsp_fire, rec_last, rec_done, shift_ok, rec_write;
  logic                param_bad;  // a record's shift was out of range: no more records are written
  /* verilator lint_off UNUSEDSIGNAL */
  logic [REC_BITS-1:0] rec;        // bytes 9 .. 15 are padding
  /* verilator lint_on UNUSEDSIGNAL */

  logic       fin, go, param_end, store_end;
  logic [7:0] fin_code;
  always_comb begin
    fin = 1'b0;
    fin_code = ERR_NONE;
    go = 1'b0;
    case (state)
      S_DECODE: begin
        fin = 1'b1;
        if (!is_param && !is_store) fin_code = ERR_BAD_OPCODE;
        else if (bad_field) fin_code = ERR_BAD_FIELD;
        else if (misaligned) fin_code = ERR_MISALIGNED;
        else if (is_param && overrun) fin_code = ERR_SRAM_RANGE;
        else fin = 1'b0;
        go = !fin && is_param;
      end
      S_CHECK: if (mul_done && preload_done) begin
        fin = overrun;
        fin_code = overrun ? ERR_SRAM_RANGE : ERR_NONE;
        go = !overrun;
      end
      S_PARAM: begin
        fin = param_end;
        fin_code = rd_bus_error ? ERR_BUS_ERROR : param_bad || (rec_done && !shift_ok) ? ERR_BAD_FIELD : ERR_NONE;
      end
      S_STORE: begin
        fin = store_end;
        fin_code = wr_bus_error ? ERR_BUS_ERROR : ERR_NONE;
      end
      default: ;
    endcase
  end

  logic [PRM_AW-1:0] clear_row;
  always_ff @(posedge clk) begin
    if (!rst_n || clear) begin
      state <= S_CLEAR;
      clear_row <= '0;
    end else if (fin) begin
      state <= S_IDLE;
    end else begin
      case (state)
        S_CLEAR: begin
          clear_row <= clear_row + 1'b1;
          if (clear_row == PRM_AW'(PARAM_ROWS - 1)) state <= S_IDLE;
        end
        S_IDLE: if (start) state <= S_DECODE;
        S_DECODE: state <= is_param ? S_PARAM : S_CHECK;
        S_CHECK: if (go) state <= S_STORE;
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------- requests
  logic walk_finished, walk_valid, walk_ready;
  logic [ADDRESS_BITS-1:0] walk_addr;
  logic [31:0] walk_bytes;
  dma_req_walker #(.ADDR_BITS(ADDRESS_BITS), .COUNT_W(STORE_DIM_W), .ROW_PITCH_W(STORE_ROW_PITCH_W),
                   .COL_PITCH_W(STORE_PIXEL_PITCH_W)) u_walker (
    .clk(clk), .rst_n(rst_n), .load(go), .addr(dram_addr),
    .rows(is_param ? STORE_DIM_W'(1) : oh),
    .cols(is_param || contiguous ? STORE_DIM_W'(1) : ow),
    .row_pitch(row_pitch), .col_pitch(pixel_pitch),
    .bytes(is_param ? 32'(lp_count) << REC_LSB : contiguous ? 32'(ow) << pixel_lsb : pixel_bytes),
    .hold(state != S_PARAM && state != S_STORE),
    .finished(walk_finished), .req_valid(walk_valid), .req_ready(walk_ready), .req_addr(walk_addr),
    .req_bytes(walk_bytes));
  assign rd_req_valid = walk_valid && state == S_PARAM;
  assign wr_req_valid = walk_valid && state == S_STORE;
  assign walk_ready = state == S_PARAM ? rd_req_ready : wr_req_ready;
  assign rd_req_addr = walk_addr;
  assign rd_req_bytes = walk_bytes;
  assign wr_req_addr = walk_addr;
  assign wr_req_bytes = walk_bytes;

  // ---------------------------------------------------------------- parameter buffer
  logic              prm_we, prm_re;
  logic [PRM_AW-1:0] prm_waddr, prm_raddr, lp_waddr;
  logic [PRM_W-1:0]  prm_wdata, prm_rdata;
  sram_sdp #(.WIDTH(PRM_W), .DEPTH(PARAM_ROWS)) u_params (
    .clk(clk), .we(prm_we), .waddr(prm_waddr), .wdata(prm_wdata), .re(prm_re), .raddr(prm_raddr),
    .rdata(prm_rdata));

  // LOAD_PARAM: record k -> row param_row + k while its shift is in range.
  assign rd_rsp_ready = state == S_PARAM;
  assign rsp_fire = rd_rsp_valid && rd_rsp_ready;
  beat_gather #(.IN_W(D), .OUT_W(REC_BITS)) u_records (
    .clk(clk), .restart(go), .in_fire(rsp_fire), .in_data(rd_rsp_data), .last(rec_last), .row(rec));
  assign rec_done = rsp_fire && rec_last;
  assign shift_ok = $signed(rec[71:64]) >= -8'sd31 && $signed(rec[71:64]) <= 8'sd31;
  assign rec_write = rec_done && shift_ok && !param_bad && !rd_bus_error;
  assign param_end = rsp_fire && rd_rsp_last;

  always_ff @(posedge clk) begin
    if (go) begin
      lp_waddr <= PRM_AW'(lp_row);
      param_bad <= 1'b0;
    end else if (rec_done) begin
      lp_waddr <= lp_waddr + 1'b1;
      if (!shift_ok) param_bad <= 1'b1;
    end
  end

  assign prm_we = state == S_CLEAR || rec_write;
  assign prm_waddr = state == S_CLEAR ? clear_row : lp_waddr;
  assign prm_wdata = state == S_CLEAR ? '0 : {rec[69:64], rec[63:32], rec[31:0]};

  // STORE's preload: records st_row + j, j < N, into lane j's registers;
  // per_tensor: N copies of {shift, multiplier, bias 0} from the command.
  localparam int PRE_W = $clog2(N + 1);
  logic [PRE_W-1:0]   pre_sent;   // reads made
  logic               pre_valid;  // a read's data is on prm_rdata
  logic [N*PRM_W-1:0] lane_prm;   // lane j at bits j*PRM_W
  assign prm_re = state == S_CHECK && pre_sent != PRE_W'(N);
  assign prm_raddr = PRM_AW'(st_row) + PRM_AW'(pre_sent);
  assign preload_done = pre_sent == PRE_W'(N) && !pre_valid;
  always_ff @(posedge clk) begin
    if (state == S_DECODE) pre_sent <= '0;
    else if (prm_re) pre_sent <= pre_sent + 1'b1;
    pre_valid <= prm_re;
    if (pre_valid) lane_prm <= {per_tensor ? {shift, multiplier, 32'd0} : prm_rdata, lane_prm[N*PRM_W-1:PRM_W]};
  end

  // ---------------------------------------------------------------- STORE pixels
  logic                out_pop;
  logic [CREDIT_W-1:0] credits_used;  // groups issued whose result has not left the FIFO (int8: in
                                      // groups, PPE to an entry; int32: entries)
  logic                cur_valid, rd_pending, have, issue, grp_last;
  logic [ACC_AW:0]     rd_left;       // pixels not yet read
  logic [ACC_AW-1:0]   acc_addr;
  logic [G_W-1:0]      grp;
  logic [N*32-1:0]     acc_cur;
  assign have = rd_pending || cur_valid;
  assign issue = state == S_STORE && have &&
                 credits_used < (out_int32 ? CREDIT_W'(OUT_DEPTH) : CREDIT_W'(OUT_DEPTH * PPE));
  assign grp_last = grp == G_W'(G - 1);
  assign acc_re = state == S_STORE && rd_left != '0 && (!have || (issue && grp_last));
  assign acc_raddr = acc_addr;

  always_ff @(posedge clk) begin
    if (go) begin
      rd_left <= (ACC_AW + 1)'(pixels);
      acc_addr <= ACC_AW'(acc_base);
      rd_pending <= 1'b0;
      cur_valid <= 1'b0;
      grp <= '0;
      credits_used <= '0;
    end else begin
      rd_pending <= acc_re && acc_ready;
      if (acc_re && acc_ready) begin
        rd_left <= rd_left - 1'b1;
        acc_addr <= acc_addr + 1'b1;
      end
      if (rd_pending) acc_cur <= acc_rdata;
      cur_valid <= have && !(issue && grp_last);
      if (issue) grp <= grp_last ? '0 : grp + 1'b1;
      credits_used <= credits_used + CREDIT_W'(issue) -
                      (out_pop ? (out_int32 ? CREDIT_W'(1) : CREDIT_W'(PPE)) : '0);
    end
  end

  // The lanes: group grp of the pixel's N channels.
  logic [LANES*32-1:0]    grp_acc;
  logic [LANES*PRM_W-1:0] grp_prm;
  logic [LANES-1:0]       res_valid;
  logic [PIECE_W-1:0]     res_q;
  logic [ENTRY_W-1:0]     res_v;
  // G-way muxes (a variable part-select would become a barrel shifter). A
  // row read in the last cycle is group 0 of a new pixel: only that group
  // bypasses acc_cur.
  always_comb begin
    grp_acc = acc_cur[0 +: LANES * 32];
    grp_prm = lane_prm[0 +: LANES * PRM_W];
    for (int i = 1; i < G; i++) begin
      if (grp == G_W'(i)) begin
        grp_acc = acc_cur[i * LANES * 32 +: LANES * 32];
        grp_prm = lane_prm[i * LANES * PRM_W +: LANES * PRM_W];
      end
    end
    if (rd_pending) grp_acc = acc_rdata[0 +: LANES * 32];
  end
  for (genvar k = 0; k < LANES; k++) begin : g_lane
    logic [PRM_W-1:0] p;
    assign p = grp_prm[k*PRM_W +: PRM_W];
    requant u_requant (
      .clk(clk), .rst_n(rst_n), .in_valid(issue), .acc(grp_acc[k*32 +: 32]),
      .bias(p[31:0]), .multiplier(p[63:32]), .shift(p[69:64]), .zero_point(zero_point), .qmin(qmin), .qmax(qmax),
      .out_valid(res_valid[k]), .q(res_q[k*8 +: 8]), .v(res_v[k*32 +: 32]));
  end

  // Results -> FIFO entries -> beats.
  logic                   pack_last, out_push, out_valid, sub_last;
  logic [PPE*PIECE_W-1:0] packed_q;
  logic [ENTRY_W-1:0]     out_entry;
  logic [SUB_W-1:0]       sub;  // beat of the head entry
  /* verilator lint_off UNUSEDSIGNAL */
  logic                            unused_in_ready;  // credits keep the FIFO from filling
  logic [$clog2(OUT_DEPTH+1)-1:0]  unused_count;
  wire unused_lanes = &{1'b0, res_valid[LANES-1:0]};
  /* verilator lint_on UNUSEDSIGNAL */
  beat_gather #(.IN_W(PIECE_W), .OUT_W(PPE * PIECE_W)) u_pack (
    .clk(clk), .restart(go), .in_fire(res_valid[0] && !out_int32), .in_data(res_q), .last(pack_last),
    .row(packed_q));
  assign out_push = res_valid[0] && (out_int32 || pack_last);
  fifo #(.WIDTH(ENTRY_W), .DEPTH(OUT_DEPTH)) u_out (
    .clk(clk), .rst_n(rst_n), .in_valid(out_push), .in_ready(unused_in_ready),
    .in_data(out_int32 ? res_v : ENTRY_W'(packed_q)), .out_valid(out_valid), .out_ready(out_pop),
    .out_data(out_entry), .count(unused_count));

  assign sub_last = sub == (out_int32 ? SUB_W'(BPE32 - 1) : SUB_W'(BPE8 - 1));
  assign wr_data_valid = out_valid;
  always_comb begin
    wr_data = out_entry[0 +: D];
    for (int i = 1; i < BPE32; i++) if (sub == SUB_W'(i)) wr_data = out_entry[i * D +: D];
  end
  assign out_pop = out_valid && wr_data_ready && sub_last;
  always_ff @(posedge clk) begin
    if (go) sub <= '0;
    else if (out_valid && wr_data_ready) sub <= sub_last ? '0 : sub + 1'b1;
  end

  // Write requests handed over and not yet done; the STORE ends when all are.
  logic [PENDING_W-1:0] wr_pending;
  always_ff @(posedge clk) begin
    if (go) wr_pending <= '0;
    else wr_pending <= wr_pending + PENDING_W'(wr_req_valid && wr_req_ready) - PENDING_W'(wr_req_done);
  end
  assign store_end = walk_finished && wr_pending == '0 && credits_used == '0;

  unit_status u_status (
    .clk(clk), .rst_n(rst_n), .clear(clear), .fin(fin), .fin_code(fin_code),
    .busy(state != S_IDLE && state != S_CLEAR),
    .stall((state == S_PARAM && !rsp_fire) || (state == S_STORE && !issue && !(wr_data_valid && wr_data_ready))),
    .done(done), .error(error), .error_code(error_code), .cnt_busy(cnt_busy), .cnt_stall(cnt_stall));
endmodule

`default_nettype wire
