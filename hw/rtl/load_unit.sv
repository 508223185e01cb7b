// The load unit: LOAD_ACT and LOAD_WGT, DRAM -> input and weight buffers,
// exactly as kernels/fpga/model/load_ops.cc (the executable spec;
// hw/sim/tests/load_store_test.cc compares the buffers with it).
//
// Interface (the units' common one; widths from the contract include, so
// ports are declared in the body; INP_AW = log2 INP_ROWS, WGT_AW likewise):
//   start, cmd[CMD_BITS]   a command, taken in a cycle where busy is low
//   busy                   from the cycle after start up to the cycle before done
//   done                   one-cycle pulse: the command has finished, its last
//                          buffer row included (written in the cycle before)
//   error, error_code[8]   with done (held until the next done): ERR_* as the
//                          model reports it. BAD_FIELD, MISALIGNED, SRAM_RANGE
//                          come from the checks before anything happens
//                          (nothing is read or written); BUS_ERROR when
//                          rd_bus_error is high at the end of the command.
//                          Other opcodes: BAD_OPCODE (fetch never sends them).
//   base[BASE_SLOTS*64]    the base-address slots (slot s at bits s*64),
//                          latched at ap_start by the top
//   rd_req_*, rd_rsp_*     a dma_read_arbiter port: requests (addr, bytes);
//                          beats rd_rsp_data[AXI_DATA_BITS] with rd_rsp_last,
//                          in request order. rd_rsp_ready is high all through
//                          a command: the unit never stalls the read stream.
//   rd_bus_error           axi_dma_read's sticky bus_error (cleared at ap_start)
//   inp_we/waddr/wdata[N*8], wgt_we/waddr/wdata[N*8]   buffer write ports
//                          (sram_sdp), registered outputs
//   clear                  zeroes the counters (a pulse, at ap_start)
//   cnt_busy, cnt_stall    64-bit counters: cycles busy, and busy cycles in
//                          which the unit waited for memory (a command ran,
//                          but no beat arrived and no row was written)
//
// LOAD_ACT: a (pad_top + y_size + pad_bottom) x (pad_left + x_size +
// pad_right) tile of cb rows per pixel, [y][x][c] from sram_row. The checks
// (1 cycle, then the products: serial_mul, up to 8 + 13 cycles) find the
// tile size and three row offsets; then three processes run at once:
//   requests  dma_req_walker: one request per DRAM row of x_size·cb·N bytes
//             when pixels are contiguous (pixel_pitch = cb·N), else one per
//             pixel (cb·N bytes); it runs ahead as far as the arbiter and the
//             DMA take requests, so the DMA stays busy
//   data      beats -> N-byte rows (beat_gather) written in order over the
//             y_size spans of x_size·cb real rows, span y at
//             sram_row + ((pad_top + y)·width + pad_left)·cb
//   padding   walks the tile from sram_row to its end, writing pad_value rows
//             and jumping over the spans, in every cycle the data writer does
//             not write: with two beats per row (pynq_z2 and kv260) it gets
//             at least every other cycle, so padding hides behind the data.
// LOAD_WGT: rows·N contiguous bytes, one request, rows written in order.
//
// A bus error stops further requests and buffer writes; the unit takes the
// beats of the requests already made and ends with BUS_ERROR (the model stops
// at the failing pixel; padding rows the RTL wrote before it may differ).
// rd_bus_error is the DMA's sticky flag, so another client's bus error also
// ends the command with BUS_ERROR (the run ends at the first error anyway).
`default_nettype none

module load_unit (
  clk, rst_n, clear,
  start, cmd, busy, done, error, error_code, base,
  rd_req_valid, rd_req_ready, rd_req_addr, rd_req_bytes,
  rd_rsp_valid, rd_rsp_ready, rd_rsp_data, rd_rsp_last, rd_bus_error,
  inp_we, inp_waddr, inp_wdata, wgt_we, wgt_waddr, wgt_wdata,
  cnt_busy, cnt_stall
);
  `include "loom_accel_config.svh"

  localparam int ROW_BITS = N * 8;
  localparam int INP_AW = $clog2(INP_ROWS);
  localparam int WGT_AW = $clog2(WGT_ROWS);
  localparam int ROW_W = $clog2(INP_ROWS > WGT_ROWS ? INP_ROWS : WGT_ROWS) + 1;  // 0 .. rows
  localparam int N_LSB = $clog2(N);
  localparam int ALIGN_LSB = $clog2(DRAM_ALIGNMENT);
  localparam int DIM_W = LOAD_ACT_Y_SIZE_W + 1;  // tile height or width, padding included
  localparam int CB_W = LOAD_ACT_CB_W;
  localparam int PAD_W = LOAD_ACT_PAD_TOP_W;
  localparam int PENDING_W = 16;                 // requests made, last beat not yet taken

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
  input  wire logic [AXI_DATA_BITS-1:0] rd_rsp_data;
  input  wire logic                     rd_rsp_last;
  input  wire logic                     rd_bus_error;
  output logic                          inp_we;
  output logic      [INP_AW-1:0]        inp_waddr;
  output logic      [ROW_BITS-1:0]      inp_wdata;
  output logic                          wgt_we;
  output logic      [WGT_AW-1:0]        wgt_waddr;
  output logic      [ROW_BITS-1:0]      wgt_wdata;
  output logic      [63:0]              cnt_busy;
  output logic      [63:0]              cnt_stall;

  localparam logic [2:0] S_IDLE = 3'd0, S_DECODE = 3'd1, S_MUL_A = 3'd2, S_MUL_B = 3'd3, S_RUN = 3'd4;
  logic [2:0] state;
  assign busy = state != S_IDLE;

  /* verilator lint_off UNUSEDSIGNAL */
  logic [CMD_BITS-1:0] cmd_q;  // the flags and the bits no field uses are not read
  /* verilator lint_on UNUSEDSIGNAL */
  always_ff @(posedge clk) if (start && !busy) cmd_q <= cmd;

  // ---------------------------------------------------------------- fields
  logic                          is_act, is_wgt;
  logic [LOAD_ACT_SLOT_W-1:0]    slot;
  logic [31:0]                   dram_offset;
  logic [15:0]                   sram_row;
  logic [LOAD_ACT_Y_SIZE_W-1:0]  y_size;
  logic [LOAD_ACT_X_SIZE_W-1:0]  x_size;
  logic [CB_W-1:0]               cb;
  logic [LOAD_ACT_ROW_PITCH_W-1:0]   row_pitch;
  logic [LOAD_ACT_PIXEL_PITCH_W-1:0] pixel_pitch;
  logic [PAD_W-1:0]              pad_top, pad_bottom, pad_left, pad_right;
  logic [7:0]                    pad_value;
  logic [LOAD_WGT_ROWS_W-1:0]    wgt_rows;

  assign is_act = cmd_q[CMD_OPCODE_LSB +: CMD_OPCODE_W] == OP_LOAD_ACT;
  assign is_wgt = cmd_q[CMD_OPCODE_LSB +: CMD_OPCODE_W] == OP_LOAD_WGT;
  assign slot = is_wgt ? cmd_q[LOAD_WGT_SLOT_LSB +: LOAD_WGT_SLOT_W] : cmd_q[LOAD_ACT_SLOT_LSB +: LOAD_ACT_SLOT_W];
  assign dram_offset = is_wgt ? cmd_q[LOAD_WGT_DRAM_OFFSET_LSB +: LOAD_WGT_DRAM_OFFSET_W]
                              : cmd_q[LOAD_ACT_DRAM_OFFSET_LSB +: LOAD_ACT_DRAM_OFFSET_W];
  assign sram_row = is_wgt ? cmd_q[LOAD_WGT_SRAM_ROW_LSB +: LOAD_WGT_SRAM_ROW_W]
                           : cmd_q[LOAD_ACT_SRAM_ROW_LSB +: LOAD_ACT_SRAM_ROW_W];
  assign y_size = cmd_q[LOAD_ACT_Y_SIZE_LSB +: LOAD_ACT_Y_SIZE_W];
  assign x_size = cmd_q[LOAD_ACT_X_SIZE_LSB +: LOAD_ACT_X_SIZE_W];
  assign cb = cmd_q[LOAD_ACT_CB_LSB +: LOAD_ACT_CB_W];
  assign row_pitch = cmd_q[LOAD_ACT_ROW_PITCH_LSB +: LOAD_ACT_ROW_PITCH_W];
  assign pixel_pitch = cmd_q[LOAD_ACT_PIXEL_PITCH_LSB +: LOAD_ACT_PIXEL_PITCH_W];
  assign pad_top = cmd_q[LOAD_ACT_PAD_TOP_LSB +: LOAD_ACT_PAD_TOP_W];
  assign pad_bottom = cmd_q[LOAD_ACT_PAD_BOTTOM_LSB +: LOAD_ACT_PAD_BOTTOM_W];
  assign pad_left = cmd_q[LOAD_ACT_PAD_LEFT_LSB +: LOAD_ACT_PAD_LEFT_W];
  assign pad_right = cmd_q[LOAD_ACT_PAD_RIGHT_LSB +: LOAD_ACT_PAD_RIGHT_W];
  assign pad_value = cmd_q[LOAD_ACT_PAD_VALUE_LSB +: LOAD_ACT_PAD_VALUE_W];
  assign wgt_rows = cmd_q[LOAD_WGT_ROWS_LSB +: LOAD_WGT_ROWS_W];

  logic [ADDRESS_BITS-1:0] dram_addr;
  logic [DIM_W-1:0]        height, width;
  logic                    contiguous;
  assign dram_addr = base[32'(slot) * 64 +: 64] + ADDRESS_BITS'(dram_offset);
  assign height = DIM_W'(pad_top) + DIM_W'(y_size) + DIM_W'(pad_bottom);
  assign width = DIM_W'(pad_left) + DIM_W'(x_size) + DIM_W'(pad_right);
  assign contiguous = 32'(pixel_pitch) == 32'(cb) << N_LSB;

  // ---------------------------------------------------------------- checks
  // Products: phase A (b = cb) width·cb, x_size·cb, pad_left·cb; phase B
  // (a = width·cb) the tile's rows height·width·cb and pad_top·width·cb.
  logic                   mul_a_start, mul_b_start, mul_a_done, mul_b_done;
  logic [3:0]             dones;
  logic [DIM_W+CB_W-1:0]  wcb;        // rows per tile row
  logic [LOAD_ACT_X_SIZE_W+CB_W-1:0] xcb;  // rows per span (a DRAM row's pixels)
  logic [PAD_W+CB_W-1:0]  lcb;        // left padding rows
  logic [DIM_W+CB_W+DIM_W-1:0] tile_rows;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [DIM_W+CB_W+PAD_W-1:0] top_rows;   // read once inside the buffer: its low ROW_W bits
  /* verilator lint_on UNUSEDSIGNAL */
  assign mul_a_start = state == S_DECODE;
  assign mul_b_start = state == S_MUL_A && mul_a_done;
  serial_mul #(.A_W(DIM_W), .B_W(CB_W)) u_mul_wcb (
    .clk(clk), .start(mul_a_start), .a(width), .b(cb), .done(dones[0]), .product(wcb));
  serial_mul #(.A_W(LOAD_ACT_X_SIZE_W), .B_W(CB_W)) u_mul_xcb (
    .clk(clk), .start(mul_a_start), .a(x_size), .b(cb), .done(dones[1]), .product(xcb));
  serial_mul #(.A_W(PAD_W), .B_W(CB_W)) u_mul_lcb (
    .clk(clk), .start(mul_a_start), .a(pad_left), .b(cb), .done(dones[2]), .product(lcb));
  serial_mul #(.A_W(DIM_W + CB_W), .B_W(DIM_W)) u_mul_tile (
    .clk(clk), .start(mul_b_start), .a(wcb), .b(height), .done(mul_b_done), .product(tile_rows));
  serial_mul #(.A_W(DIM_W + CB_W), .B_W(PAD_W)) u_mul_top (
    .clk(clk), .start(mul_b_start), .a(wcb), .b(pad_top), .done(dones[3]), .product(top_rows));
  assign mul_a_done = &dones[2:0];

  logic bad_field, misaligned, wgt_overrun, act_overrun;
  assign bad_field = is_wgt ? wgt_rows == '0 : y_size == '0 || x_size == '0 || cb == '0;
  assign misaligned = dram_addr[ALIGN_LSB-1:0] != '0 ||
                      (is_act && (row_pitch[ALIGN_LSB-1:0] != '0 || pixel_pitch[ALIGN_LSB-1:0] != '0));
  assign wgt_overrun = 32'(sram_row) + 32'(wgt_rows) > 32'(WGT_ROWS);
  assign act_overrun = 40'(sram_row) + 40'(tile_rows) > 40'(INP_ROWS);

  // The command ends (fin) with fin_code; it starts running (go) after its checks.
  logic       fin, go, run_end;
  logic [7:0] fin_code;
  always_comb begin
    fin = 1'b0;
    fin_code = ERR_NONE;
    go = 1'b0;
    case (state)
      S_DECODE: begin
        fin = 1'b1;
        if (!is_act && !is_wgt) fin_code = ERR_BAD_OPCODE;
        else if (bad_field) fin_code = ERR_BAD_FIELD;
        else if (misaligned) fin_code = ERR_MISALIGNED;
        else if (is_wgt && wgt_overrun) fin_code = ERR_SRAM_RANGE;
        else fin = 1'b0;
        go = !fin && is_wgt;
      end
      S_MUL_B: if (mul_b_done && dones[3]) begin
        fin = act_overrun;
        fin_code = act_overrun ? ERR_SRAM_RANGE : ERR_NONE;
        go = !act_overrun;
      end
      S_RUN: begin
        fin = run_end;
        fin_code = rd_bus_error ? ERR_BUS_ERROR : ERR_NONE;
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk) begin
    if (!rst_n || fin) begin
      state <= S_IDLE;
    end else begin
      case (state)
        S_IDLE: if (start) state <= S_DECODE;
        S_DECODE: state <= is_wgt ? S_RUN : S_MUL_A;
        S_MUL_A: if (mul_a_done) state <= S_MUL_B;
        S_MUL_B: if (go) state <= S_RUN;
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------- requests
  logic        walk_finished;
  logic [31:0] req_bytes;
  assign req_bytes = is_wgt ? 32'(wgt_rows) << N_LSB : contiguous ? 32'(xcb) << N_LSB : 32'(cb) << N_LSB;
  dma_req_walker #(.ADDR_BITS(ADDRESS_BITS), .COUNT_W(LOAD_ACT_Y_SIZE_W), .ROW_PITCH_W(LOAD_ACT_ROW_PITCH_W),
                   .COL_PITCH_W(LOAD_ACT_PIXEL_PITCH_W)) u_walker (
    .clk(clk), .rst_n(rst_n), .load(go), .addr(dram_addr),
    .rows(is_wgt ? LOAD_ACT_Y_SIZE_W'(1) : y_size),
    .cols(is_wgt || contiguous ? LOAD_ACT_X_SIZE_W'(1) : x_size),
    .row_pitch(row_pitch), .col_pitch(pixel_pitch), .bytes(req_bytes), .hold(rd_bus_error || state != S_RUN),
    .finished(walk_finished), .req_valid(rd_req_valid), .req_ready(rd_req_ready), .req_addr(rd_req_addr),
    .req_bytes(rd_req_bytes));

  logic rsp_fire, row_done;
  logic [ROW_BITS-1:0] row;
  logic [PENDING_W-1:0] pending;
  assign rd_rsp_ready = state == S_RUN;
  assign rsp_fire = rd_rsp_valid && rd_rsp_ready;
  beat_gather #(.IN_W(AXI_DATA_BITS), .OUT_W(ROW_BITS)) u_gather (
    .clk(clk), .restart(go), .in_fire(rsp_fire), .in_data(rd_rsp_data), .last(row_done), .row(row));

  always_ff @(posedge clk) begin
    if (go) pending <= '0;
    else pending <= pending + PENDING_W'(rd_req_valid && rd_req_ready) - PENDING_W'(rsp_fire && rd_rsp_last);
  end

  // ---------------------------------------------------------------- writers
  // Both count buffer rows from sram_row's position in ROW_W bits: once the
  // checks pass, every position lies in 0 .. the buffer's rows.
  logic [ROW_W-1:0] span_len, stride;       // rows per span; from one span to the next
  logic [ROW_W-1:0] dw_addr, dw_span, dw_col;  // data: next row, its span's start, row in span
  logic [ROW_W-1:0] pw_addr, pw_end, pw_span;  // padding: next row, tile end, next span's start
  logic [LOAD_ACT_Y_SIZE_W-1:0] pw_spans;      // spans the padding walk has still to jump
  logic [ROW_W-1:0] first_span;
  logic pad_done, pad_jump, pad_write, data_write;
  assign first_span = is_wgt ? ROW_W'(sram_row) : ROW_W'(sram_row) + ROW_W'(top_rows) + ROW_W'(lcb);
  assign pad_done = pw_addr == pw_end;
  assign pad_jump = state == S_RUN && pw_spans != '0 && pw_addr == pw_span;
  assign data_write = row_done && rsp_fire;
  assign pad_write = state == S_RUN && !pad_done && !pad_jump && !data_write;

  always_ff @(posedge clk) begin
    if (go) begin
      span_len <= is_wgt ? ROW_W'(wgt_rows) : ROW_W'(xcb);
      stride <= ROW_W'(wcb);
      dw_addr <= first_span;
      dw_span <= first_span;
      dw_col <= '0;
      pw_addr <= ROW_W'(sram_row);
      pw_end <= is_wgt ? ROW_W'(sram_row) : ROW_W'(sram_row) + ROW_W'(tile_rows);
      pw_span <= first_span;
      pw_spans <= is_wgt ? '0 : y_size;
    end else begin
      if (data_write) begin
        if (dw_col == span_len - 1'b1) begin
          dw_col <= '0;
          dw_span <= dw_span + stride;
          dw_addr <= dw_span + stride;
        end else begin
          dw_col <= dw_col + 1'b1;
          dw_addr <= dw_addr + 1'b1;
        end
      end
      if (pad_jump) begin
        pw_addr <= pw_addr + span_len;
        pw_span <= pw_span + stride;
        pw_spans <= pw_spans - 1'b1;
      end else if (pad_write) begin
        pw_addr <= pw_addr + 1'b1;
      end
    end
  end

  // The write port register: a data row has priority over a padding row.
  logic                w_valid, w_wgt;
  logic [ROW_W-2:0]    w_addr;  // a row inside a buffer
  logic [ROW_BITS-1:0] w_data;
  always_ff @(posedge clk) begin
    if (!rst_n) w_valid <= 1'b0;
    else w_valid <= (data_write || pad_write) && !rd_bus_error;
    w_wgt <= is_wgt;
    w_addr <= (ROW_W - 1)'(data_write ? dw_addr : pw_addr);
    w_data <= data_write ? row : {N{pad_value}};
  end
  assign inp_we = w_valid && !w_wgt;
  assign inp_waddr = w_addr[INP_AW-1:0];
  assign inp_wdata = w_data;
  assign wgt_we = w_valid && w_wgt;
  assign wgt_waddr = w_addr[WGT_AW-1:0];
  assign wgt_wdata = w_data;

  // Every request made has all its beats (so every data row is in the write
  // register or written), and the padding is written; after a bus error the
  // requests already made only.
  assign run_end = (walk_finished || rd_bus_error) && pending == '0 && (pad_done || rd_bus_error);

  unit_status u_status (
    .clk(clk), .rst_n(rst_n), .clear(clear), .fin(fin), .fin_code(fin_code),
    .busy(busy), .stall(state == S_RUN && !rsp_fire && !pad_write && !pad_jump),
    .done(done), .error(error), .error_code(error_code), .cnt_busy(cnt_busy), .cnt_stall(cnt_stall));
endmodule

`default_nettype wire
