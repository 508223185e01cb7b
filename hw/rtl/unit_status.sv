// The status outputs the load and store units share: the done pulse with
// the error latched beside it, and the busy and stall counters.
//   fin, fin_code   the command ends in this cycle, with ERR_* fin_code
//   done            pulses in the next cycle; error (fin_code != ERR_NONE)
//                   and error_code hold from then until the next done
//   busy, stall     counted per cycle into cnt_busy and cnt_stall, which
//                   reset and clear (a pulse, at ap_start) zero
`default_nettype none

module unit_status (
  input  wire logic        clk,
  input  wire logic        rst_n,  // synchronous
  input  wire logic        clear,
  input  wire logic        fin,
  input  wire logic [7:0]  fin_code,
  input  wire logic        busy,
  input  wire logic        stall,
  output logic             done,
  output logic             error,
  output logic      [7:0]  error_code,
  output logic      [63:0] cnt_busy,
  output logic      [63:0] cnt_stall
);
  `include "loom_accel_config.svh"

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      done <= 1'b0;
      error <= 1'b0;
      error_code <= ERR_NONE;
    end else begin
      done <= fin;
      if (fin) begin
        error <= fin_code != ERR_NONE;
        error_code <= fin_code;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n || clear) begin
      cnt_busy <= '0;
      cnt_stall <= '0;
    end else begin
      cnt_busy <= cnt_busy + 64'(busy);
      cnt_stall <= cnt_stall + 64'(stall);
    end
  end
endmodule

`default_nettype wire
