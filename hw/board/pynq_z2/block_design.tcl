# Builds the PYNQ-Z2 (XC7Z020) bitstream: the Zynq PS with the accelerator's
# AXI4-Lite slave on M_AXI_GP0, its AXI master on S_AXI_HP0 (64-bit, to the
# DDR) and its interrupt on IRQ_F2P, all at FCLK_CLK0 = 100 MHz. Writes
# loom_accel.bit and loom_accel.hwh (what PYNQ's Overlay loads) to OUT_DIR.
#
#   vivado -mode batch -source hw/board/pynq_z2/block_design.tcl \
#          -tclargs REPO_DIR OUT_DIR
#
# The define LOOM_CONFIG_PYNQ_Z2 documents the configuration; pynq_z2 is
# hw/rtl/loom_accel_config.svh's default. The PS settings are the PYNQ-Z2's (DDR3
# MT41K256M16 RE-125, 32-bit, 525 MHz), so no board files are needed.

if {[llength $argv] != 2} {
  puts stderr "usage: vivado -mode batch -source block_design.tcl -tclargs REPO_DIR OUT_DIR"
  exit 2
}
lassign $argv repo_dir out_dir

set part      xc7z020clg400-1
set design    loom
set data_bits 64
set proj_dir  [file normalize [file join $out_dir project]]

file mkdir $out_dir
create_project -force loom_pynq_z2 $proj_dir -part $part

add_files -norecurse [glob [file join $repo_dir hw rtl *.sv]]
add_files -norecurse [file join $repo_dir hw board loom_accel.v]
add_files -norecurse [file join $repo_dir hw rtl loom_accel_config.svh]
set_property file_type {Verilog Header} [get_files loom_accel_config.svh]
set_property include_dirs [list [file join $repo_dir hw rtl]] [current_fileset]
set_property verilog_define {LOOM_CONFIG_PYNQ_Z2} [current_fileset]
update_compile_order -fileset sources_1

create_bd_design $design

# Zynq PS: the PYNQ-Z2's DDR and MIO, one 100 MHz fabric clock, GP0 master,
# HP0 slave, fabric interrupts.
set ps [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7:5.5 ps7]
set_property -dict [list \
  CONFIG.PCW_PRESET_BANK1_VOLTAGE {LVCMOS 1.8V} \
  CONFIG.PCW_UIPARAM_DDR_PARTNO {MT41K256M16 RE-125} \
  CONFIG.PCW_UIPARAM_DDR_BUS_WIDTH {32 Bit} \
  CONFIG.PCW_UIPARAM_DDR_FREQ_MHZ {525} \
  CONFIG.PCW_CRYSTAL_PERIPHERAL_FREQMHZ {50} \
  CONFIG.PCW_APU_PERIPHERAL_FREQMHZ {650} \
  CONFIG.PCW_UART0_PERIPHERAL_ENABLE {1} \
  CONFIG.PCW_UART0_UART0_IO {MIO 14 .. 15} \
  CONFIG.PCW_SD0_PERIPHERAL_ENABLE {1} \
  CONFIG.PCW_SD0_GRP_CD_ENABLE {1} \
  CONFIG.PCW_SD0_GRP_CD_IO {MIO 47} \
  CONFIG.PCW_ENET0_PERIPHERAL_ENABLE {1} \
  CONFIG.PCW_ENET0_ENET0_IO {MIO 16 .. 27} \
  CONFIG.PCW_ENET0_GRP_MDIO_ENABLE {1} \
  CONFIG.PCW_USB0_PERIPHERAL_ENABLE {1} \
  CONFIG.PCW_USB0_RESET_ENABLE {1} \
  CONFIG.PCW_USB0_RESET_IO {MIO 46} \
  CONFIG.PCW_QSPI_PERIPHERAL_ENABLE {1} \
  CONFIG.PCW_QSPI_GRP_SINGLE_SS_ENABLE {1} \
  CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ {100} \
  CONFIG.PCW_USE_M_AXI_GP0 {1} \
  CONFIG.PCW_USE_S_AXI_HP0 {1} \
  CONFIG.PCW_S_AXI_HP0_DATA_WIDTH $data_bits \
  CONFIG.PCW_USE_FABRIC_INTERRUPT {1} \
  CONFIG.PCW_IRQ_F2P_INTR {1} \
] $ps
apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
  -config {make_external "FIXED_IO, DDR" apply_board_preset "0" Master "Disable" Slave "Disable"} $ps

# The accelerator, through its Verilog wrapper.
set accel [create_bd_cell -type module -reference loom_accel accel]
set_property CONFIG.C_M_AXI_GMEM_DATA_WIDTH $data_bits $accel

# AXI4-Lite control on GP0 and the data master on HP0 (an AXI3 port: the
# accelerator's bursts are at most 16 beats and never cross 4 KB).
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config [list \
  Clk_master {/ps7/FCLK_CLK0 (100 MHz)} Clk_slave {/ps7/FCLK_CLK0 (100 MHz)} Clk_xbar {Auto} \
  Master {/ps7/M_AXI_GP0} Slave {/accel/s_axi_control} intc_ip {New AXI Interconnect} master_apm {0}] \
  [get_bd_intf_pins accel/s_axi_control]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config [list \
  Clk_master {/ps7/FCLK_CLK0 (100 MHz)} Clk_slave {/ps7/FCLK_CLK0 (100 MHz)} Clk_xbar {Auto} \
  Master {/accel/m_axi_gmem} Slave {/ps7/S_AXI_HP0} intc_ip {Auto} master_apm {0}] \
  [get_bd_intf_pins ps7/S_AXI_HP0]
connect_bd_net [get_bd_pins accel/interrupt] [get_bd_pins ps7/IRQ_F2P]

assign_bd_address
validate_bd_design
save_bd_design

set bd_file [get_files $design.bd]
generate_target all $bd_file
set wrapper [make_wrapper -files $bd_file -top]
add_files -norecurse $wrapper
set_property top ${design}_wrapper [current_fileset]
update_compile_order -fileset sources_1

launch_runs impl_1 -to_step write_bitstream -jobs 4
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} {
  puts stderr "block_design.tcl: implementation failed; see $proj_dir"
  exit 1
}

set impl_dir [get_property DIRECTORY [get_runs impl_1]]
file copy -force [file join $impl_dir ${design}_wrapper.bit] [file join $out_dir loom_accel.bit]
set hwh [lindex [glob -nocomplain [file join $proj_dir *.gen sources_1 bd $design hw_handoff $design.hwh] \
                                  [file join $proj_dir *.srcs sources_1 bd $design hw_handoff $design.hwh]] 0]
if {$hwh eq ""} {
  puts stderr "block_design.tcl: no $design.hwh hardware handoff found under $proj_dir"
  exit 1
}
file copy -force $hwh [file join $out_dir loom_accel.hwh]
puts "block_design.tcl: wrote [file join $out_dir loom_accel.bit] and loom_accel.hwh"
