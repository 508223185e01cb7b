// Gathers OUT_W / IN_W consecutive IN_W-bit beats into one OUT_W-bit row,
// the first beat in the low bits (little endian: DRAM's byte order). Used
// where the units unpack DMA beats into buffer rows or parameter records.
//   last   the beat offered now (in_data) completes a row
//   row    that row: the earlier beats and in_data (combinational), valid
//          in a cycle with last
//   in_fire takes the beat; restart (a new command) makes the next beat a
//   row's first. OUT_W must be a multiple of IN_W.
`default_nettype none

module beat_gather #(
  parameter int IN_W = 64,
  parameter int OUT_W = 128
) (
  input  wire logic             clk,
  input  wire logic             restart,
  input  wire logic             in_fire,
  input  wire logic [IN_W-1:0]  in_data,
  output logic                  last,
  output logic      [OUT_W-1:0] row
);
  localparam int BEATS = OUT_W / IN_W;

  if (BEATS == 1) begin : g_one
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused = &{1'b0, clk, restart, in_fire};
    /* verilator lint_on UNUSEDSIGNAL */
    assign last = 1'b1;
    assign row = in_data;
  end else begin : g_many
    localparam int COUNT_W = $clog2(BEATS);
    logic [COUNT_W-1:0]    count;    // beats of the current row taken
    logic [OUT_W-IN_W-1:0] earlier;  // those beats, the newest on top

    assign last = count == COUNT_W'(BEATS - 1);
    assign row = {in_data, earlier};
    always_ff @(posedge clk) begin
      if (restart) count <= '0;
      else if (in_fire) count <= last ? '0 : count + 1'b1;
      if (in_fire) earlier <= row[OUT_W-1:IN_W];
    end
  end
endmodule

`default_nettype wire
