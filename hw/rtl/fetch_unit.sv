// Fetch: reads the run's command stream (cmd_count commands of 32 bytes from
// cmd_addr) through a dma_read_arbiter port, decodes each command's opcode and
// dependency flags, and pushes {index, command} into the load, compute or
// store queue in stream order, stalling while the target queue is full.
//
// Errors, as the functional model reports them (AccelModel, at fetch):
//   ERR_MISALIGNED, index 0: cmd_addr is not a multiple of 32 (checked at
//                  start, also for an empty stream)
//   ERR_BAD_OPCODE: an opcode that is no command (0 and 8..15)
//   ERR_BAD_TOKENS: a flag toward a neighbour the command's unit lacks (load
//                  has no prev, store no next)
// A command is decoded when it reaches the dispatch register, after every
// earlier command was dispatched, so an error names the first bad command.
// Fetch stops at its own error and when `stop` rises (an error elsewhere):
// it then requests nothing and dispatches nothing, but still takes the
// responses of the requests it made.
//
// Reading: requests of up to MAX_BURST_BEATS beats (one burst), issued only
// while the beat buffer has room for everything requested and not yet
// consumed, so fetch never holds the shared response bus (dma_read_arbiter
// answers in request order: a stalled response would also stall the load
// and store units behind it). Beats shift into the dispatch register (the
// first beat is the command's low bits); a dispatch and the next command's
// first beat share a cycle, so fetch delivers a command every
// CMD_BITS / AXI_DATA_BITS cycles.
//
// Status for the top: dispatched_all (every command is in a queue), blocked
// (the decoded command's queue is full), rx_index (the command the next
// response beat belongs to, for naming a bus error), reading (requests not
// yet answered).
`default_nettype none

module fetch_unit #(
  parameter int ADDR_BITS = 64,
  parameter int DATA_BITS = 64,   // AXI_DATA_BITS
  parameter int CMD_W = 256       // CMD_BITS
) (
  input  wire logic                         clk,
  input  wire logic                         rst_n,  // synchronous
  input  wire logic                         start,  // pulse: fetch the stream
  input  wire logic [ADDR_BITS-1:0]         cmd_addr,
  input  wire logic [31:0]                  cmd_count,
  input  wire logic                         stop,
  // dma_read_arbiter port
  output logic                              req_valid,
  input  wire logic                         req_ready,
  output logic      [ADDR_BITS-1:0]         req_addr,
  output logic      [31:0]                  req_bytes,
  input  wire logic                         rsp_valid,
  output logic                              rsp_ready,
  input  wire logic [DATA_BITS-1:0]         rsp_data,
  input  wire logic                         rsp_last,
  // queues: [0] load, [1] compute, [2] store; one shared payload
  output logic      [2:0]                   q_push,
  input  wire logic [2:0]                   q_room,
  output logic      [CMD_W-1:0]             q_cmd,
  output logic      [31:0]                  q_index,
  // status
  output logic                              dispatched_all,
  output logic                              blocked,
  output logic      [31:0]                  rx_index,
  output logic                              reading,
  output logic                              error,  // sticky until reset
  output logic      [7:0]                   error_code,
  output logic      [31:0]                  error_index
);
  `include "loom_accel_config.svh"

  localparam int CMD_BYTES = CMD_W / 8;
  localparam int BEATS_PER_CMD = CMD_W / DATA_BITS;
  localparam int BPC_LSB = $clog2(BEATS_PER_CMD);
  localparam int CHUNK_CMDS = MAX_BURST_BEATS / BEATS_PER_CMD;  // one burst
  localparam int BUF_BEATS = 2 * MAX_BURST_BEATS;
  localparam int BUF_W = $clog2(BUF_BEATS + 1);
  localparam int CMD_LSB = $clog2(CMD_BYTES);

  logic                  active;       // between start and the last dispatch
  logic [31:0]           requested;    // commands requested
  logic [31:0]           dispatched;   // commands dispatched = index of the decoded one
  logic [BUF_W-1:0]      reserved;     // beats requested and not yet shifted in
  logic [31:0]           rx_beats;     // beats received
  logic [31:0]           left, chunk;  // commands not yet requested; this request's
  logic [BUF_W-1:0]      chunk_beats;
  logic                  req_fire, beat_valid, beat_take, dispatch;
  logic [DATA_BITS-1:0]  beat;
  logic [BPC_LSB:0]      shifted;      // beats in the dispatch register
  logic                  cmd_full;
  logic [3:0]            opcode;
  logic                  valid_op, bad_tokens;
  logic [2:0]            target;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [BUF_W-1:0]      unused_buf_count;
  logic                  unused_rsp_last;
  /* verilator lint_on UNUSEDSIGNAL */

  assign unused_rsp_last = rsp_last;

  // ---------------------------------------------------------------- requests
  assign left = cmd_count - requested;
  assign chunk = left < 32'(CHUNK_CMDS) ? left : 32'(CHUNK_CMDS);
  assign chunk_beats = BUF_W'(chunk) << BPC_LSB;
  assign req_valid = active && !stop && !error && left != '0 &&
                     32'(reserved) + 32'(chunk_beats) <= 32'(BUF_BEATS);
  assign req_addr = cmd_addr + (ADDR_BITS'(requested) << CMD_LSB);
  assign req_bytes = chunk << CMD_LSB;
  assign req_fire = req_valid && req_ready;
  assign reading = rx_beats != (requested << BPC_LSB);
  assign rx_index = rx_beats >> BPC_LSB;

  // Room for every beat requested is reserved, so a response is never refused.
  fifo #(.WIDTH(DATA_BITS), .DEPTH(BUF_BEATS)) beats (
    .clk, .rst_n,
    .in_valid(rsp_valid), .in_ready(rsp_ready), .in_data(rsp_data),
    .out_valid(beat_valid), .out_ready(beat_take), .out_data(beat),
    .count(unused_buf_count));

  // ---------------------------------------------------------------- decode
  assign cmd_full = shifted == (BPC_LSB + 1)'(BEATS_PER_CMD);
  assign opcode = q_cmd[CMD_OPCODE_LSB +: CMD_OPCODE_W];
  assign target = {QUEUE_STORE_OPS[opcode], QUEUE_COMPUTE_OPS[opcode], QUEUE_LOAD_OPS[opcode]};
  assign valid_op = target != '0;
  assign bad_tokens = (target[0] && (q_cmd[CMD_POP_PREV_LSB] || q_cmd[CMD_PUSH_PREV_LSB])) ||
                      (target[2] && (q_cmd[CMD_POP_NEXT_LSB] || q_cmd[CMD_PUSH_NEXT_LSB]));
  assign q_index = dispatched;
  assign dispatch = cmd_full && active && !stop && !error && valid_op && !bad_tokens && (target & q_room) != '0;
  assign q_push = dispatch ? target : 3'b000;
  assign blocked = cmd_full && valid_op && !bad_tokens && (target & q_room) == '0;
  assign dispatched_all = dispatched == cmd_count;
  // A beat enters while the register fills, or as the full one leaves.
  assign beat_take = beat_valid && (!cmd_full || dispatch);

  always_ff @(posedge clk) begin
    if (beat_take) q_cmd <= {beat, q_cmd[CMD_W-1:DATA_BITS]};
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      active <= 1'b0;
      requested <= '0;
      dispatched <= '0;
      reserved <= '0;
      rx_beats <= '0;
      shifted <= '0;
      error <= 1'b0;
      error_code <= ERR_NONE;
      error_index <= '0;
    end else begin
      if (start) begin
        requested <= '0;
        dispatched <= '0;
        if (cmd_addr[CMD_LSB-1:0] != '0) begin
          error <= 1'b1;
          error_code <= ERR_MISALIGNED;
          error_index <= '0;
        end else begin
          active <= cmd_count != '0;
        end
      end
      if (req_fire) requested <= requested + chunk;
      reserved <= reserved + (req_fire ? chunk_beats : '0) - (beat_take ? BUF_W'(1) : '0);
      if (rsp_valid && rsp_ready) rx_beats <= rx_beats + 1;
      shifted <= (dispatch ? '0 : shifted) + (beat_take ? (BPC_LSB + 1)'(1) : '0);
      if (dispatch) begin
        dispatched <= dispatched + 1;
        if (dispatched + 1 == cmd_count) active <= 1'b0;
      end
      if (cmd_full && active && !stop && !error && (!valid_op || bad_tokens)) begin
        error <= 1'b1;
        error_code <= valid_op ? ERR_BAD_TOKENS : ERR_BAD_OPCODE;
        error_index <= dispatched;
      end
    end
  end
endmodule

`default_nettype wire
