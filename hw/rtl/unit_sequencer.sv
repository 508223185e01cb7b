// The small wrapper every unit (load, compute, store) sits in
// (hw/README.md, Micro-architecture): it takes the head command of the
// unit's queue, waits for the tokens its pop_* flags ask for and for room in
// the token FIFOs its push_* flags will push into, starts the unit, and when
// the unit is done pushes the tokens its push_* flags ask for.
//
// The head stays in the queue until it can start, so the queue holds what the
// functional model's queue holds (AccelModel pops a command when it starts):
// fetch sees the same full queues, and deadlock detection the same heads.
// Checking push room before the start mirrors the model too: only this unit
// pushes into its push FIFOs, so room at the start is room at the end.
//
// Token ports: index 0 is the prev side, 1 the next side (flags pop_prev /
// push_prev and pop_next / push_next). A side a unit does not have is tied
// off by the top (fetch rejects such flags with ERR_BAD_TOKENS).
//
// Timing: in the cycle the head can start (and `enable` is high) the queue and
// the tokens are popped and the command is registered; the unit sees a
// one-cycle start with the registered command in the next cycle, and the
// command stays on unit_cmd until the unit's done. An error from the unit
// ends the command without pushing tokens; it is held on error/error_code
// with the command's index until reset.
//
// Counters (strobes for the top's 64-bit counters): busy while a command
// runs (from start to done), stall while the head waits for a token or room.
`default_nettype none

module unit_sequencer #(
  parameter int CMD_W = 256,  // CMD_BITS
  parameter int INDEX_BITS = 32
) (
  input  wire logic                  clk,
  input  wire logic                  rst_n,       // synchronous
  input  wire logic                  enable,      // low: start nothing new (after an error)
  // the unit's command queue (fifo out side)
  input  wire logic                  q_valid,
  output logic                       q_pop,
  input  wire logic [CMD_W-1:0]      q_cmd,
  input  wire logic [INDEX_BITS-1:0] q_index,
  // token FIFOs, [0] prev side, [1] next side
  input  wire logic [1:0]            tok_nonempty,  // of the FIFOs this unit pops
  output logic      [1:0]            tok_pop,
  input  wire logic [1:0]            tok_room,      // of the FIFOs this unit pushes
  output logic      [1:0]            tok_push,
  // the unit
  output logic                       unit_start,
  output logic      [CMD_W-1:0]      unit_cmd,
  input  wire logic                  unit_done,
  input  wire logic                  unit_busy,
  input  wire logic                  unit_error,
  input  wire logic [7:0]            unit_error_code,
  // status
  output logic                       running,     // a command started and not yet done
  output logic                       waiting,     // the head waits for a token or room
  output logic      [INDEX_BITS-1:0] index,       // of the running (or last) command
  output logic                       error,       // sticky: the unit reported an error
  output logic      [7:0]            error_code,
  output logic                       busy_strobe,
  output logic                       stall_strobe
);
  `include "loom_accel_config.svh"

  logic [1:0] head_pop, head_push, run_push;  // {next, prev} flags
  logic       can_start, start, finish;

  // The head's flags decide whether it can start, the running command's what
  // it pushes when done.
  assign head_pop = {q_cmd[CMD_POP_NEXT_LSB], q_cmd[CMD_POP_PREV_LSB]};
  assign head_push = {q_cmd[CMD_PUSH_NEXT_LSB], q_cmd[CMD_PUSH_PREV_LSB]};
  assign run_push = {unit_cmd[CMD_PUSH_NEXT_LSB], unit_cmd[CMD_PUSH_PREV_LSB]};
  assign can_start = (head_pop & ~tok_nonempty) == '0 && (head_push & ~tok_room) == '0;
  assign start = enable && q_valid && !running && !unit_busy && can_start;
  assign finish = running && unit_done && !unit_error;
  assign waiting = q_valid && !running && !unit_busy && !can_start;

  assign q_pop = start;
  assign tok_pop = start ? head_pop : 2'b00;
  assign tok_push = finish ? run_push : 2'b00;
  assign busy_strobe = running;
  assign stall_strobe = enable && waiting;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      running <= 1'b0;
      unit_start <= 1'b0;
      error <= 1'b0;
      error_code <= '0;
      index <= '0;
    end else begin
      unit_start <= start;
      if (start) begin
        running <= 1'b1;
        index <= q_index;
      end else if (running && (unit_done || unit_error)) begin
        running <= 1'b0;
      end
      if (running && unit_error && !error) begin
        error <= 1'b1;
        error_code <= unit_error_code;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (start) unit_cmd <= q_cmd;
  end
endmodule

`default_nettype wire
