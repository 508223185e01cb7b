// The accelerator (hw/README.md, Micro-architecture and Top level): the
// AXI4-Lite register slave, fetch, the load / compute / store queues with
// their sequencers and the four token FIFOs, the units, the on-chip buffers,
// and the AXI4 master (three read clients through dma_read_arbiter, the
// store unit on the write DMA).
//
// A run: ap_start (axil_regs) -> core_ready; the arguments are latched and
// the datapath (everything but the registers and the run control) is reset
// for one cycle, so queues, token FIFOs, units (the store unit then clears
// its parameter buffer) and the DMA error flags start empty and the counters
// restart; fetch reads the stream; the run ends when every command was
// dispatched and executed and the last write's response arrived ->
// core_done (ap_done and the interrupt). The counters and the error
// registers keep their values until the next ap_start.
//
// Errors (ERROR, ERROR_CMD; the functional model's codes and command
// indices, kernels/fpga/model/accel_model.h):
//   fetch      ERR_MISALIGNED (stream address, command 0), ERR_BAD_OPCODE,
//              ERR_BAD_TOKENS, at decode
//   units      their error with done (BAD_FIELD, MISALIGNED, SRAM_RANGE),
//              named by the command their sequencer started
//   deadlock   no command running, every non-empty queue's head waits for a
//              token or for room to push one, fetch is done or blocked on a
//              full queue, and commands remain: ERR_DEADLOCK with the lowest
//              command index at a queue head (checked over DEADLOCK_CYCLES
//              consecutive cycles, so no pipeline register can fake one)
//   bus        RRESP/BRESP SLVERR or DECERR: ERR_BUS_ERROR; a read beat's
//              error is tracked to the client that takes the beat (fetch:
//              the command the beat belongs to; load/store: their running
//              command), a write's to the store unit's command
//   DMA        a request the DMA refuses (misaligned; the units check first,
//              so this is a safety net): ERR_MISALIGNED, named by the last
//              granted read client's command, or the store unit's
// The first error wins (several in one cycle: the lowest command index).
// It stops dispatch (fetch and the sequencers start nothing new); commands
// running finish, and the run ends once the AXI master is quiet. A refused
// DMA request never finishes: then the run ends after ABORT_QUIET_CYCLES
// without AXI traffic, and the datapath reset at the end clears it. Every
// run ends with core_done.
//
// Buffers (sram_sdp): input and weight (load writes, compute reads); two
// accumulator banks, by the row address's top bit, each one read and one
// write port: compute writes, compute and the store unit read, compute
// first: the store unit's acc_ready is low in a cycle where compute reads
// the same bank. The parameter buffer is inside the store unit.
//
// Counters: CYCLES while a run is active; per unit, busy while its
// sequencer runs a command and stall while its queue's head waits for a
// token or for room (memory stalls inside a unit count as busy);
// DMA_READ/WRITE_BYTES from the R and W handshakes.
`default_nettype none

module loom_accel_top (
  ap_clk, ap_rst_n, interrupt,
  s_axi_control_awvalid, s_axi_control_awready, s_axi_control_awaddr,
  s_axi_control_wvalid, s_axi_control_wready, s_axi_control_wdata, s_axi_control_wstrb,
  s_axi_control_bvalid, s_axi_control_bready, s_axi_control_bresp,
  s_axi_control_arvalid, s_axi_control_arready, s_axi_control_araddr,
  s_axi_control_rvalid, s_axi_control_rready, s_axi_control_rdata, s_axi_control_rresp,
  m_axi_gmem_awvalid, m_axi_gmem_awready, m_axi_gmem_awaddr, m_axi_gmem_awlen, m_axi_gmem_awsize,
  m_axi_gmem_awburst, m_axi_gmem_awcache, m_axi_gmem_awprot,
  m_axi_gmem_wvalid, m_axi_gmem_wready, m_axi_gmem_wdata, m_axi_gmem_wstrb, m_axi_gmem_wlast,
  m_axi_gmem_bvalid, m_axi_gmem_bready, m_axi_gmem_bresp,
  m_axi_gmem_arvalid, m_axi_gmem_arready, m_axi_gmem_araddr, m_axi_gmem_arlen, m_axi_gmem_arsize,
  m_axi_gmem_arburst, m_axi_gmem_arcache, m_axi_gmem_arprot,
  m_axi_gmem_rvalid, m_axi_gmem_rready, m_axi_gmem_rdata, m_axi_gmem_rresp, m_axi_gmem_rlast
);
  `include "loom_accel_config.svh"
  // The systolic array's rows in DSP48s (hw/README.md, DSP budget): 12 of 16
  // fit the XC7Z020's 220 DSPs.
  parameter int DSP_ROWS = N == 16 ? 12 : N;

  localparam int DATA_BITS = AXI_DATA_BITS;
  localparam int ADDR_BITS = ADDRESS_BITS;
  localparam int INP_AW = $clog2(INP_ROWS);
  localparam int WGT_AW = $clog2(WGT_ROWS);
  localparam int ACC_AW = $clog2(ACC_ROWS);
  localparam int BANK_AW = ACC_AW - 1;
  localparam int DEADLOCK_CYCLES = 4;
  localparam int ABORT_QUIET_CYCLES = 1024;
  localparam int BEAT_BYTES = DATA_BITS / 8;

  input  wire logic                   ap_clk;
  input  wire logic                   ap_rst_n;
  /* verilator lint_off SYMRSVDWORD */
  output logic                        interrupt;  // the XRT kernel's name
  /* verilator lint_on SYMRSVDWORD */
  input  wire logic                   s_axi_control_awvalid;
  output logic                        s_axi_control_awready;
  input  wire logic [7:0]             s_axi_control_awaddr;
  input  wire logic                   s_axi_control_wvalid;
  output logic                        s_axi_control_wready;
  input  wire logic [31:0]            s_axi_control_wdata;
  input  wire logic [3:0]             s_axi_control_wstrb;
  output logic                        s_axi_control_bvalid;
  input  wire logic                   s_axi_control_bready;
  output logic      [1:0]             s_axi_control_bresp;
  input  wire logic                   s_axi_control_arvalid;
  output logic                        s_axi_control_arready;
  input  wire logic [7:0]             s_axi_control_araddr;
  output logic                        s_axi_control_rvalid;
  input  wire logic                   s_axi_control_rready;
  output logic      [31:0]            s_axi_control_rdata;
  output logic      [1:0]             s_axi_control_rresp;
  output logic                        m_axi_gmem_awvalid;
  input  wire logic                   m_axi_gmem_awready;
  output logic      [ADDR_BITS-1:0]   m_axi_gmem_awaddr;
  output logic      [7:0]             m_axi_gmem_awlen;
  output logic      [2:0]             m_axi_gmem_awsize;
  output logic      [1:0]             m_axi_gmem_awburst;
  output logic      [3:0]             m_axi_gmem_awcache;
  output logic      [2:0]             m_axi_gmem_awprot;
  output logic                        m_axi_gmem_wvalid;
  input  wire logic                   m_axi_gmem_wready;
  output logic      [DATA_BITS-1:0]   m_axi_gmem_wdata;
  output logic      [DATA_BITS/8-1:0] m_axi_gmem_wstrb;
  output logic                        m_axi_gmem_wlast;
  input  wire logic                   m_axi_gmem_bvalid;
  output logic                        m_axi_gmem_bready;
  input  wire logic [1:0]             m_axi_gmem_bresp;
  output logic                        m_axi_gmem_arvalid;
  input  wire logic                   m_axi_gmem_arready;
  output logic      [ADDR_BITS-1:0]   m_axi_gmem_araddr;
  output logic      [7:0]             m_axi_gmem_arlen;
  output logic      [2:0]             m_axi_gmem_arsize;
  output logic      [1:0]             m_axi_gmem_arburst;
  output logic      [3:0]             m_axi_gmem_arcache;
  output logic      [2:0]             m_axi_gmem_arprot;
  input  wire logic                   m_axi_gmem_rvalid;
  output logic                        m_axi_gmem_rready;
  input  wire logic [DATA_BITS-1:0]   m_axi_gmem_rdata;
  input  wire logic [1:0]             m_axi_gmem_rresp;
  input  wire logic                   m_axi_gmem_rlast;

  wire clk = ap_clk;

  // ================================================================ registers and run control
  logic        ap_start, core_ready, core_done, core_idle;
  logic [63:0] arg_cmd_addr, arg_cmd_count, arg_base0, arg_base1, arg_base2, arg_base3;
  logic [7:0]  error_code;
  logic [31:0] error_cmd;
  logic [63:0] cnt_cycles, cnt_load_busy, cnt_load_stall, cnt_compute_busy, cnt_compute_stall;
  logic [63:0] cnt_store_busy, cnt_store_stall, cnt_dma_read_bytes, cnt_dma_write_bytes;

  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] unused_cmd_count_hi;
  /* verilator lint_on UNUSEDSIGNAL */
  assign unused_cmd_count_hi = arg_cmd_count[63:32];

  axil_regs #(.ADDR_BITS(8)) regs (
    .clk, .rst_n(ap_rst_n),
    .s_axi_awvalid(s_axi_control_awvalid), .s_axi_awready(s_axi_control_awready),
    .s_axi_awaddr(s_axi_control_awaddr), .s_axi_wvalid(s_axi_control_wvalid),
    .s_axi_wready(s_axi_control_wready), .s_axi_wdata(s_axi_control_wdata),
    .s_axi_wstrb(s_axi_control_wstrb), .s_axi_bvalid(s_axi_control_bvalid),
    .s_axi_bready(s_axi_control_bready), .s_axi_bresp(s_axi_control_bresp),
    .s_axi_arvalid(s_axi_control_arvalid), .s_axi_arready(s_axi_control_arready),
    .s_axi_araddr(s_axi_control_araddr), .s_axi_rvalid(s_axi_control_rvalid),
    .s_axi_rready(s_axi_control_rready), .s_axi_rdata(s_axi_control_rdata),
    .s_axi_rresp(s_axi_control_rresp), .irq(interrupt),
    .ap_start, .core_ready, .core_done, .core_idle,
    .arg_cmd_addr, .arg_base0, .arg_base1, .arg_base2, .arg_base3, .arg_cmd_count,
    .error_code, .error_cmd,
    .cnt_cycles, .cnt_load_busy, .cnt_load_stall, .cnt_compute_busy, .cnt_compute_stall,
    .cnt_store_busy, .cnt_store_stall, .cnt_dma_read_bytes, .cnt_dma_write_bytes);

  localparam logic [1:0] S_IDLE = 2'd0, S_RESET = 2'd1, S_RUN = 2'd2, S_DONE = 2'd3;
  logic [1:0] state;
  logic       run_rst_n;    // the datapath's reset: one cycle at ap_start
  logic       start_fire, fetch_start, finish;
  logic       err_latched;  // the run's first error is in error_code / error_cmd
  logic       stop;         // start nothing new
  logic [BASE_SLOTS*64-1:0] base;       // the arguments, latched at ap_start
  logic [ADDR_BITS-1:0]     cmd_addr;
  logic [31:0]              cmd_count;  // CMD_COUNT: the low 32 bits are used

  assign start_fire = state == S_IDLE && ap_start;
  assign core_ready = start_fire;
  assign core_idle = state == S_IDLE;
  assign core_done = state == S_DONE;
  assign stop = err_latched || state != S_RUN;

  always_ff @(posedge clk) begin
    if (!ap_rst_n) begin
      state <= S_IDLE;
      run_rst_n <= 1'b0;
      fetch_start <= 1'b0;
    end else begin
      fetch_start <= state == S_RESET;
      run_rst_n <= !start_fire;
      case (state)
        S_IDLE: if (start_fire) state <= S_RESET;
        S_RESET: state <= S_RUN;
        S_RUN: if (finish) state <= S_DONE;
        default: state <= S_IDLE;
      endcase
    end
  end

  always_ff @(posedge clk) begin
    if (start_fire) begin
      base <= {arg_base3, arg_base2, arg_base1, arg_base0};
      cmd_addr <= arg_cmd_addr;
      cmd_count <= arg_cmd_count[31:0];
    end
  end

  // ================================================================ fetch and queues
  localparam int Q_LOAD = 0, Q_COMPUTE = 1, Q_STORE = 2;
  localparam int QW = CMD_BITS + 32;  // {index, command}
  logic                 f_req_valid, f_req_ready, f_rsp_ready;
  logic [ADDR_BITS-1:0] f_req_addr;
  logic [31:0]          f_req_bytes;
  logic [2:0]           f_push, q_room, q_valid, q_pop;
  logic [CMD_BITS-1:0]  f_cmd;
  logic [31:0]          f_index, f_rx_index, f_error_index;
  logic                 f_dispatched_all, f_blocked, f_reading, f_error;
  logic [7:0]           f_error_code;
  logic [3*QW-1:0]      q_out;
  logic [2:0]           rd_rsp_valid;
  logic [DATA_BITS-1:0] rd_rsp_data;
  logic                 rd_rsp_last;

  fetch_unit #(.ADDR_BITS(ADDR_BITS), .DATA_BITS(DATA_BITS), .CMD_W(CMD_BITS)) fetch (
    .clk, .rst_n(run_rst_n), .start(fetch_start), .cmd_addr, .cmd_count,
    .stop,
    .req_valid(f_req_valid), .req_ready(f_req_ready), .req_addr(f_req_addr), .req_bytes(f_req_bytes),
    .rsp_valid(rd_rsp_valid[0]), .rsp_ready(f_rsp_ready), .rsp_data(rd_rsp_data), .rsp_last(rd_rsp_last),
    .q_push(f_push), .q_room, .q_cmd(f_cmd), .q_index(f_index),
    .dispatched_all(f_dispatched_all), .blocked(f_blocked), .rx_index(f_rx_index), .reading(f_reading),
    .error(f_error), .error_code(f_error_code), .error_index(f_error_index));

  logic [QW-1:0] q_in;
  assign q_in = {f_index, f_cmd};
  for (genvar q = 0; q < 3; q++) begin : g_queue
    /* verilator lint_off UNUSEDSIGNAL */
    logic [$clog2(QUEUE_DEPTH+1)-1:0] unused_count;
    /* verilator lint_on UNUSEDSIGNAL */
    fifo #(.WIDTH(QW), .DEPTH(QUEUE_DEPTH)) queue (
      .clk, .rst_n(run_rst_n),
      .in_valid(f_push[q]), .in_ready(q_room[q]), .in_data(q_in),
      .out_valid(q_valid[q]), .out_ready(q_pop[q]), .out_data(q_out[q*QW +: QW]),
      .count(unused_count));
  end

  // ================================================================ tokens and sequencers
  // Token FIFOs: 0 load->compute, 1 compute->load, 2 compute->store, 3 store->compute.
  logic [3:0] tok_push, tok_pop, tok_nonempty, tok_room;
  for (genvar t = 0; t < 4; t++) begin : g_token
    /* verilator lint_off UNUSEDSIGNAL */
    logic [$clog2(QUEUE_DEPTH+1)-1:0] unused_count;
    /* verilator lint_on UNUSEDSIGNAL */
    token_fifo #(.DEPTH(QUEUE_DEPTH)) tokens (
      .clk, .rst_n(run_rst_n), .push(tok_push[t]), .pop(tok_pop[t]),
      .nonempty(tok_nonempty[t]), .room(tok_room[t]), .count(unused_count));
  end

  // Per unit, [1:0] = {next side, prev side}; a missing side is tied off.
  logic [3*2-1:0]      s_tok_pop, s_tok_push;
  logic [2:0]          s_start, s_done, s_busy, s_unit_error, s_running, s_waiting, s_error;
  logic [2:0]          s_busy_strobe, s_stall_strobe;
  logic [3*CMD_BITS-1:0] s_cmd;
  logic [3*32-1:0]     s_index;
  logic [3*8-1:0]      s_unit_code, s_error_code;
  logic [3*2-1:0]      s_nonempty, s_room;  // per unit u: [u*2 +: 2]

  assign s_nonempty = {1'b0, tok_nonempty[2],             // store: prev = compute->store
                       tok_nonempty[3], tok_nonempty[0],   // compute: next = store->compute, prev = load->compute
                       tok_nonempty[1], 1'b0};             // load: next = compute->load
  assign s_room = {1'b0, tok_room[3],                      // store: prev = store->compute
                   tok_room[2], tok_room[1],               // compute: next = compute->store, prev = compute->load
                   tok_room[0], 1'b0};                     // load: next = load->compute
  assign tok_pop = {s_tok_pop[Q_COMPUTE*2 + 1], s_tok_pop[Q_STORE*2], s_tok_pop[Q_LOAD*2 + 1], s_tok_pop[Q_COMPUTE*2]};
  assign tok_push = {s_tok_push[Q_STORE*2], s_tok_push[Q_COMPUTE*2 + 1], s_tok_push[Q_COMPUTE*2],
                     s_tok_push[Q_LOAD*2 + 1]};

  logic [31:0] idx_load, idx_store;  // the command each unit runs (or ran last)
  assign idx_load = s_index[Q_LOAD*32 +: 32];
  assign idx_store = s_index[Q_STORE*32 +: 32];
  for (genvar u = 0; u < 3; u++) begin : g_seq
    unit_sequencer #(.CMD_W(CMD_BITS)) seq (
      .clk, .rst_n(run_rst_n), .enable(!stop),
      .q_valid(q_valid[u]), .q_pop(q_pop[u]),
      .q_cmd(q_out[u*QW +: CMD_BITS]), .q_index(q_out[u*QW + CMD_BITS +: 32]),
      .tok_nonempty(s_nonempty[u*2 +: 2]), .tok_pop(s_tok_pop[u*2 +: 2]),
      .tok_room(s_room[u*2 +: 2]), .tok_push(s_tok_push[u*2 +: 2]),
      .unit_start(s_start[u]), .unit_cmd(s_cmd[u*CMD_BITS +: CMD_BITS]),
      .unit_done(s_done[u]), .unit_busy(s_busy[u]),
      .unit_error(s_unit_error[u]), .unit_error_code(s_unit_code[u*8 +: 8]),
      .running(s_running[u]), .waiting(s_waiting[u]), .index(s_index[u*32 +: 32]),
      .error(s_error[u]), .error_code(s_error_code[u*8 +: 8]),
      .busy_strobe(s_busy_strobe[u]), .stall_strobe(s_stall_strobe[u]));
  end

  // ================================================================ buffers
  logic                inp_we, inp_re, wgt_we, wgt_re;
  logic [INP_AW-1:0]   inp_waddr, inp_raddr;
  logic [WGT_AW-1:0]   wgt_waddr, wgt_raddr;
  logic [N*8-1:0]      inp_wdata, inp_rdata, wgt_wdata, wgt_rdata;

  sram_sdp #(.WIDTH(N * 8), .DEPTH(INP_ROWS)) inp_buf (
    .clk, .we(inp_we), .waddr(inp_waddr), .wdata(inp_wdata), .re(inp_re), .raddr(inp_raddr), .rdata(inp_rdata));
  sram_sdp #(.WIDTH(N * 8), .DEPTH(WGT_ROWS)) wgt_buf (
    .clk, .we(wgt_we), .waddr(wgt_waddr), .wdata(wgt_wdata), .re(wgt_re), .raddr(wgt_raddr), .rdata(wgt_rdata));

  // Accumulators: two banks; compute reads and writes, the store unit reads.
  logic                c_acc_re, c_acc_we, st_acc_re, st_acc_ready;
  logic [ACC_AW-1:0]   c_acc_raddr, c_acc_waddr, st_acc_raddr;
  logic [N*32-1:0]     c_acc_wdata, c_acc_rdata, st_acc_rdata;
  logic [2*N*32-1:0]   bank_rdata;
  logic                c_bank_q, st_bank_q;  // the bank each one's last read went to

  assign st_acc_ready = !(c_acc_re && c_acc_raddr[BANK_AW] == st_acc_raddr[BANK_AW]);
  for (genvar b = 0; b < 2; b++) begin : g_acc_bank
    logic c_here, st_here;
    assign c_here = c_acc_re && c_acc_raddr[BANK_AW] == 1'(b);
    assign st_here = st_acc_re && st_acc_ready && st_acc_raddr[BANK_AW] == 1'(b);
    sram_sdp #(.WIDTH(N * 32), .DEPTH(ACC_ROWS / 2)) bank (
      .clk,
      .we(c_acc_we && c_acc_waddr[BANK_AW] == 1'(b)), .waddr(c_acc_waddr[BANK_AW-1:0]), .wdata(c_acc_wdata),
      .re(c_here || st_here), .raddr(c_here ? c_acc_raddr[BANK_AW-1:0] : st_acc_raddr[BANK_AW-1:0]),
      .rdata(bank_rdata[b*N*32 +: N*32]));
  end
  always_ff @(posedge clk) begin
    if (c_acc_re) c_bank_q <= c_acc_raddr[BANK_AW];
    if (st_acc_re && st_acc_ready) st_bank_q <= st_acc_raddr[BANK_AW];
  end
  assign c_acc_rdata = bank_rdata[c_bank_q*N*32 +: N*32];
  assign st_acc_rdata = bank_rdata[st_bank_q*N*32 +: N*32];

  // ================================================================ units
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0] unused_c_cnt_busy, unused_c_cnt_macs;
  /* verilator lint_on UNUSEDSIGNAL */

  compute_unit #(.DSP_ROWS(DSP_ROWS)) compute (
    .clk, .rst_n(run_rst_n),
    .start(s_start[Q_COMPUTE]), .cmd(s_cmd[Q_COMPUTE*CMD_BITS +: CMD_BITS]),
    .busy(s_busy[Q_COMPUTE]), .done(s_done[Q_COMPUTE]),
    .error(s_unit_error[Q_COMPUTE]), .error_code(s_unit_code[Q_COMPUTE*8 +: 8]),
    .inp_re, .inp_raddr, .inp_rdata, .wgt_re, .wgt_raddr, .wgt_rdata,
    .acc_re(c_acc_re), .acc_raddr(c_acc_raddr), .acc_rdata(c_acc_rdata),
    .acc_we(c_acc_we), .acc_waddr(c_acc_waddr), .acc_wdata(c_acc_wdata),
    .cnt_busy(unused_c_cnt_busy), .cnt_macs(unused_c_cnt_macs));

  // Read clients of the arbiter: 0 fetch, 1 load, 2 store (parameters).
  logic [2:0]             rd_req_valid, rd_req_ready, rd_rsp_ready;
  logic [3*ADDR_BITS-1:0] rd_req_addr;
  logic [3*32-1:0]        rd_req_bytes;
  logic                   l_req_valid, st_req_valid;
  logic [ADDR_BITS-1:0]   l_req_addr, st_req_addr;
  logic [31:0]            l_req_bytes, st_req_bytes;

  logic [63:0] l_cnt_stall, st_cnt_stall;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0] unused_l_cnt_busy, unused_st_cnt_busy;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        rd_bus_error;

  load_unit load (
    .clk, .rst_n(run_rst_n), .clear(1'b0),
    .start(s_start[Q_LOAD]), .cmd(s_cmd[Q_LOAD*CMD_BITS +: CMD_BITS]),
    .busy(s_busy[Q_LOAD]), .done(s_done[Q_LOAD]),
    .error(s_unit_error[Q_LOAD]), .error_code(s_unit_code[Q_LOAD*8 +: 8]),
    .base,
    .rd_req_valid(l_req_valid), .rd_req_ready(rd_req_ready[1]), .rd_req_addr(l_req_addr),
    .rd_req_bytes(l_req_bytes), .rd_rsp_valid(rd_rsp_valid[1]), .rd_rsp_ready(rd_rsp_ready[1]),
    .rd_rsp_data(rd_rsp_data), .rd_rsp_last(rd_rsp_last), .rd_bus_error,
    .inp_we, .inp_waddr, .inp_wdata, .wgt_we, .wgt_waddr, .wgt_wdata,
    .cnt_busy(unused_l_cnt_busy), .cnt_stall(l_cnt_stall));

  logic                 wr_req_valid, wr_req_ready, wr_req_error, wr_req_done, wr_bus_error, wr_idle;
  logic [ADDR_BITS-1:0] wr_req_addr;
  logic [31:0]          wr_req_bytes;
  logic                 wr_data_valid, wr_data_ready;
  logic [DATA_BITS-1:0] wr_data;

  store_unit store (
    .clk, .rst_n(run_rst_n), .clear(1'b0),
    .start(s_start[Q_STORE]), .cmd(s_cmd[Q_STORE*CMD_BITS +: CMD_BITS]),
    .busy(s_busy[Q_STORE]), .done(s_done[Q_STORE]),
    .error(s_unit_error[Q_STORE]), .error_code(s_unit_code[Q_STORE*8 +: 8]),
    .base,
    .rd_req_valid(st_req_valid), .rd_req_ready(rd_req_ready[2]), .rd_req_addr(st_req_addr),
    .rd_req_bytes(st_req_bytes), .rd_rsp_valid(rd_rsp_valid[2]), .rd_rsp_ready(rd_rsp_ready[2]),
    .rd_rsp_data(rd_rsp_data), .rd_rsp_last(rd_rsp_last), .rd_bus_error,
    .acc_re(st_acc_re), .acc_ready(st_acc_ready), .acc_raddr(st_acc_raddr), .acc_rdata(st_acc_rdata),
    .wr_req_valid, .wr_req_ready, .wr_req_addr, .wr_req_bytes, .wr_req_done,
    .wr_data_valid, .wr_data_ready, .wr_data, .wr_bus_error,
    .cnt_busy(unused_st_cnt_busy), .cnt_stall(st_cnt_stall));

  // ================================================================ DMA
  logic                 dma_req_valid, dma_req_ready, dma_data_valid, dma_data_ready, dma_data_last;
  logic                 rd_req_error, rd_idle;
  logic [ADDR_BITS-1:0] dma_req_addr;
  logic [31:0]          dma_req_bytes;
  logic [DATA_BITS-1:0] dma_data;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0]          unused_bytes_read, unused_bytes_written;
  /* verilator lint_on UNUSEDSIGNAL */

  assign rd_req_valid = {st_req_valid, l_req_valid, f_req_valid};
  assign rd_req_addr = {st_req_addr, l_req_addr, f_req_addr};
  assign rd_req_bytes = {st_req_bytes, l_req_bytes, f_req_bytes};
  assign f_req_ready = rd_req_ready[0];
  assign rd_rsp_ready[0] = f_rsp_ready;

  dma_read_arbiter #(.K(3), .DATA_BITS(DATA_BITS), .ADDR_BITS(ADDR_BITS)) arbiter (
    .clk, .rst_n(run_rst_n),
    .req_valid(rd_req_valid), .req_ready(rd_req_ready), .req_addr(rd_req_addr), .req_bytes(rd_req_bytes),
    .rsp_valid(rd_rsp_valid), .rsp_ready(rd_rsp_ready), .rsp_data(rd_rsp_data), .rsp_last(rd_rsp_last),
    .dma_req_valid, .dma_req_ready, .dma_req_addr, .dma_req_bytes,
    .dma_data_valid, .dma_data_ready, .dma_data, .dma_data_last);

  axi_dma_read #(.DATA_BITS(DATA_BITS), .ADDR_BITS(ADDR_BITS)) dma_read (
    .clk, .rst_n(run_rst_n), .clear(1'b0),
    .req_valid(dma_req_valid), .req_ready(dma_req_ready), .req_addr(dma_req_addr), .req_bytes(dma_req_bytes),
    .req_error(rd_req_error),
    .data_valid(dma_data_valid), .data_ready(dma_data_ready), .data(dma_data), .data_last(dma_data_last),
    .bus_error(rd_bus_error), .bytes_read(unused_bytes_read), .idle(rd_idle),
    .m_axi_arvalid(m_axi_gmem_arvalid), .m_axi_arready(m_axi_gmem_arready), .m_axi_araddr(m_axi_gmem_araddr),
    .m_axi_arlen(m_axi_gmem_arlen), .m_axi_arsize(m_axi_gmem_arsize), .m_axi_arburst(m_axi_gmem_arburst),
    .m_axi_arcache(m_axi_gmem_arcache), .m_axi_arprot(m_axi_gmem_arprot),
    .m_axi_rvalid(m_axi_gmem_rvalid), .m_axi_rready(m_axi_gmem_rready), .m_axi_rdata(m_axi_gmem_rdata),
    .m_axi_rresp(m_axi_gmem_rresp), .m_axi_rlast(m_axi_gmem_rlast));

  axi_dma_write #(.DATA_BITS(DATA_BITS), .ADDR_BITS(ADDR_BITS)) dma_write (
    .clk, .rst_n(run_rst_n), .clear(1'b0),
    .req_valid(wr_req_valid), .req_ready(wr_req_ready), .req_addr(wr_req_addr), .req_bytes(wr_req_bytes),
    .req_error(wr_req_error), .req_done(wr_req_done),
    .wdata_valid(wr_data_valid), .wdata_ready(wr_data_ready), .wdata(wr_data),
    .bus_error(wr_bus_error), .bytes_written(unused_bytes_written), .idle(wr_idle),
    .m_axi_awvalid(m_axi_gmem_awvalid), .m_axi_awready(m_axi_gmem_awready), .m_axi_awaddr(m_axi_gmem_awaddr),
    .m_axi_awlen(m_axi_gmem_awlen), .m_axi_awsize(m_axi_gmem_awsize), .m_axi_awburst(m_axi_gmem_awburst),
    .m_axi_awcache(m_axi_gmem_awcache), .m_axi_awprot(m_axi_gmem_awprot),
    .m_axi_wvalid(m_axi_gmem_wvalid), .m_axi_wready(m_axi_gmem_wready), .m_axi_wdata(m_axi_gmem_wdata),
    .m_axi_wstrb(m_axi_gmem_wstrb), .m_axi_wlast(m_axi_gmem_wlast),
    .m_axi_bvalid(m_axi_gmem_bvalid), .m_axi_bready(m_axi_gmem_bready), .m_axi_bresp(m_axi_gmem_bresp));

  // ================================================================ bus errors, by client
  // A read beat's RRESP follows it through the read DMA's two-entry buffer
  // (pushed on R, popped when the beat leaves to a client).
  logic r_fire, r_bad, w_fire, dma_beat, beat_bad, rd_err_valid, wr_err_valid, req_err_valid;
  logic [31:0] rd_err_index, req_err_index;
  logic [1:0]  last_grant;  // the read client whose request the DMA saw last
  logic [1:0]  resp_bad, resp_count;  // RRESP errors of the beats in the buffer, oldest at 0

  assign r_fire = m_axi_gmem_rvalid && m_axi_gmem_rready;
  assign r_bad = m_axi_gmem_rresp[1];  // SLVERR or DECERR
  assign w_fire = m_axi_gmem_wvalid && m_axi_gmem_wready;
  assign dma_beat = dma_data_valid && dma_data_ready;
  always_ff @(posedge clk) begin
    if (!run_rst_n) begin
      resp_count <= '0;
    end else if (r_fire && !dma_beat) begin
      resp_bad[resp_count[0]] <= r_bad;
      resp_count <= resp_count + 1'b1;
    end else if (dma_beat && !r_fire) begin
      resp_bad[0] <= resp_bad[1];
      resp_count <= resp_count - 1'b1;
    end else if (dma_beat && r_fire) begin
      resp_bad[0] <= resp_count == 2'd1 ? r_bad : resp_bad[1];
      resp_bad[1] <= r_bad;
    end
  end
  assign beat_bad = resp_bad[0];

  assign rd_err_valid = dma_beat && beat_bad;
  assign rd_err_index = rd_rsp_valid[0] ? f_rx_index : rd_rsp_valid[1] ? idx_load
                                                                         : idx_store;
  assign wr_err_valid = wr_bus_error;

  always_ff @(posedge clk) begin
    if (!run_rst_n) last_grant <= '0;
    else if (rd_req_ready[1] && rd_req_valid[1]) last_grant <= 2'd1;
    else if (rd_req_ready[2] && rd_req_valid[2]) last_grant <= 2'd2;
    else if (rd_req_ready[0] && rd_req_valid[0]) last_grant <= 2'd0;
  end
  assign req_err_valid = rd_req_error || wr_req_error;
  assign req_err_index = wr_req_error || last_grant == 2'd2 ? idx_store
                       : last_grant == 2'd1 ? idx_load : 32'd0;

  // ================================================================ deadlock
  logic        dl_now, queues_empty, work_left, any_running;
  logic [$clog2(DEADLOCK_CYCLES+1)-1:0] dl_cycles;
  logic [31:0] dl_index;

  assign any_running = s_running != '0 || s_busy != '0;
  assign queues_empty = q_valid == '0;
  assign work_left = !queues_empty || !f_dispatched_all;
  assign dl_now = !stop && !any_running && (f_dispatched_all || f_blocked) && work_left &&
                  (!q_valid[0] || s_waiting[0]) && (!q_valid[1] || s_waiting[1]) && (!q_valid[2] || s_waiting[2]);

  // The lowest index at a queue head.
  always_comb begin
    dl_index = '1;
    for (int q = 0; q < 3; q++) begin
      if (q_valid[q] && q_out[q*QW + CMD_BITS +: 32] < dl_index) dl_index = q_out[q*QW + CMD_BITS +: 32];
    end
  end

  always_ff @(posedge clk) begin
    if (!run_rst_n || !dl_now) dl_cycles <= '0;
    else if (dl_cycles != $bits(dl_cycles)'(DEADLOCK_CYCLES)) dl_cycles <= dl_cycles + 1'b1;
  end

  // ================================================================ the first error
  // Sources: fetch, the three units, deadlock, read bus, write bus, DMA refusal.
  localparam int SOURCES = 8;
  logic [SOURCES-1:0]    src_valid;
  logic [SOURCES*8-1:0]  src_code;
  logic [SOURCES*32-1:0] src_index;
  logic                  first_valid;
  logic [7:0]            first_code;
  logic [31:0]           first_index;

  assign src_valid = {req_err_valid, wr_err_valid, rd_err_valid, dl_cycles == $bits(dl_cycles)'(DEADLOCK_CYCLES),
                      s_error, f_error};
  assign src_code = {ERR_MISALIGNED, ERR_BUS_ERROR, ERR_BUS_ERROR, ERR_DEADLOCK, s_error_code, f_error_code};
  assign src_index = {req_err_index, idx_store, rd_err_index, dl_index, s_index, f_error_index};

  always_comb begin
    first_valid = 1'b0;
    first_code = ERR_NONE;
    first_index = '0;
    for (int s = 0; s < SOURCES; s++) begin
      if (src_valid[s] && (!first_valid || src_index[s*32 +: 32] < first_index)) begin
        first_valid = 1'b1;
        first_code = src_code[s*8 +: 8];
        first_index = src_index[s*32 +: 32];
      end
    end
  end

  always_ff @(posedge clk) begin
    if (!ap_rst_n) begin
      err_latched <= 1'b0;
      error_code <= ERR_NONE;
      error_cmd <= '0;
    end else if (start_fire) begin
      err_latched <= 1'b0;
      error_code <= ERR_NONE;
      error_cmd <= '0;
    end else if (state == S_RUN && !err_latched && first_valid) begin
      err_latched <= 1'b1;
      error_code <= first_code;
      error_cmd <= first_index;
    end
  end

  // ================================================================ the end of a run
  logic quiet_axi, all_idle;
  logic [$clog2(ABORT_QUIET_CYCLES+1)-1:0] quiet_cycles;

  assign quiet_axi = rd_idle && wr_idle && !dma_req_valid && rd_req_valid == '0 && !f_reading;
  assign all_idle = !any_running && !fetch_start;
  always_comb begin
    if (!err_latched) finish = f_dispatched_all && queues_empty && all_idle && quiet_axi && !f_error;
    else finish = (all_idle && quiet_axi) || quiet_cycles == $bits(quiet_cycles)'(ABORT_QUIET_CYCLES);
  end

  // Cycles without an AXI handshake after an error.
  always_ff @(posedge clk) begin
    if (!err_latched || state != S_RUN || r_fire || w_fire || m_axi_gmem_bvalid ||
        (m_axi_gmem_arvalid && m_axi_gmem_arready) || (m_axi_gmem_awvalid && m_axi_gmem_awready))
      quiet_cycles <= '0;
    else if (quiet_cycles != $bits(quiet_cycles)'(ABORT_QUIET_CYCLES))
      quiet_cycles <= quiet_cycles + 1'b1;
  end

  // ================================================================ counters
  // Load and store stalls: waiting for a token (the sequencer) or for memory
  // (the unit's own counter, cleared by the datapath reset at ap_start).
  logic [63:0] load_token_stall, store_token_stall;
  assign cnt_load_stall = load_token_stall + l_cnt_stall;
  assign cnt_store_stall = store_token_stall + st_cnt_stall;

  always_ff @(posedge clk) begin
    if (!ap_rst_n || start_fire) begin
      cnt_cycles <= '0;
      cnt_load_busy <= '0;
      load_token_stall <= '0;
      cnt_compute_busy <= '0;
      cnt_compute_stall <= '0;
      cnt_store_busy <= '0;
      store_token_stall <= '0;
      cnt_dma_read_bytes <= '0;
      cnt_dma_write_bytes <= '0;
    end else if (state == S_RUN) begin
      cnt_cycles <= cnt_cycles + 1;
      cnt_load_busy <= cnt_load_busy + 64'(s_busy_strobe[Q_LOAD]);
      load_token_stall <= load_token_stall + 64'(s_stall_strobe[Q_LOAD]);
      cnt_compute_busy <= cnt_compute_busy + 64'(s_busy_strobe[Q_COMPUTE]);
      cnt_compute_stall <= cnt_compute_stall + 64'(s_stall_strobe[Q_COMPUTE]);
      cnt_store_busy <= cnt_store_busy + 64'(s_busy_strobe[Q_STORE]);
      store_token_stall <= store_token_stall + 64'(s_stall_strobe[Q_STORE]);
      if (r_fire) cnt_dma_read_bytes <= cnt_dma_read_bytes + 64'(BEAT_BYTES);
      if (w_fire) cnt_dma_write_bytes <= cnt_dma_write_bytes + 64'(BEAT_BYTES);
    end
  end
endmodule

`default_nettype wire
