// The sliding-window address generator of CONV and MAXPOOL (hw/README.md,
// CONV address generation): two nested wrap-around counters,
//   tap   (c, ky, kx), kx fastest: c < cb_m1 + 1, ky < kh_m1 + 1, kx < kw_m1 + 1
//   pixel (oy, ox), ox fastest:    oy < oh_m1 + 1, ox < ow_m1 + 1
// and the input row they address,
//   addr = first + c + ky·tap_y + kx·tap_x + oy·step_y + ox·step_x  (mod 2^AW),
// kept as running sums (additions only, no multiplier), plus the pixel's
// index oy·(ow_m1 + 1) + ox (mod 2^IW), the accumulator row offset. Each
// counter advances by one position when its *_next input is high and wraps to
// 0 after its last position, so CONV (pixels inner: pix_next every pixel,
// tap_next at the end of a tile) and MAXPOOL (taps inner: tap_next every
// read, pix_next with the last tap) use the same walker. compute_check.sv
// derives the steps. clear puts both at 0 (the command's first read);
// outputs describe the current position, for the read issued from it.
`default_nettype none

module window_walker #(
  parameter int AW = 12,  // input buffer address bits
  parameter int IW = 11   // accumulator address bits
) (
  input  wire logic          clk,
  input  wire logic          clear,
  input  wire logic          tap_next,
  input  wire logic          pix_next,
  input  wire logic [AW-1:0] first,
  input  wire logic [AW-1:0] step_x,
  input  wire logic [AW-1:0] step_y,
  input  wire logic [AW-1:0] tap_x,
  input  wire logic [AW-1:0] tap_y,
  input  wire logic [3:0]    kw_m1,
  input  wire logic [3:0]    kh_m1,
  input  wire logic [7:0]    cb_m1,
  input  wire logic [11:0]   ow_m1,
  input  wire logic [11:0]   oh_m1,
  output logic      [AW-1:0] addr,
  output logic      [IW-1:0] pix_idx,
  output logic               tap_first,  // c = ky = kx = 0
  output logic               tap_last,
  output logic               pix_last
);
  logic [3:0] kx, ky;
  logic [7:0] c;
  logic [11:0] ox, oy;
  // Offsets: tap_c = c, tap_row = c + ky·tap_y, tap_off = tap_row + kx·tap_x;
  // pix_row = oy·step_y, pix_off = pix_row + ox·step_x.
  logic [AW-1:0] tap_c, tap_row, tap_off, pix_row, pix_off;
  logic kx_end, ky_end, c_end, ox_end, oy_end;
  assign kx_end = kx == kw_m1;
  assign ky_end = ky == kh_m1;
  assign c_end = c == cb_m1;
  assign ox_end = ox == ow_m1;
  assign oy_end = oy == oh_m1;

  always_ff @(posedge clk) begin
    if (clear) begin
      {kx, ky, c, tap_c, tap_row, tap_off} <= '0;
    end else if (tap_next) begin
      if (!kx_end) begin
        kx <= kx + 1'b1;
        tap_off <= tap_off + tap_x;
      end else begin
        kx <= '0;
        if (!ky_end) begin
          ky <= ky + 1'b1;
          tap_row <= tap_row + tap_y;
          tap_off <= tap_row + tap_y;
        end else begin
          ky <= '0;
          c <= c_end ? '0 : c + 1'b1;
          tap_c <= c_end ? '0 : tap_c + 1'b1;
          tap_row <= c_end ? '0 : tap_c + 1'b1;
          tap_off <= c_end ? '0 : tap_c + 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk) begin
    if (clear) begin
      {ox, oy, pix_row, pix_off, pix_idx} <= '0;
    end else if (pix_next) begin
      pix_idx <= ox_end && oy_end ? '0 : pix_idx + 1'b1;
      if (!ox_end) begin
        ox <= ox + 1'b1;
        pix_off <= pix_off + step_x;
      end else begin
        ox <= '0;
        oy <= oy_end ? '0 : oy + 1'b1;
        pix_row <= oy_end ? '0 : pix_row + step_y;
        pix_off <= oy_end ? '0 : pix_row + step_y;
      end
    end
  end

  assign addr = first + tap_off + pix_off;
  assign tap_first = kx == 0 && ky == 0 && c == 0;
  assign tap_last = kx_end && ky_end && c_end;
  assign pix_last = ox_end && oy_end;
endmodule

`default_nettype wire
