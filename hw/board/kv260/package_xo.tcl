# Packages the accelerator as an XRT RTL kernel (.xo) for the KV260 (ZU5EV).
#
#   vivado -mode batch -source hw/board/kv260/package_xo.tcl \
#          -tclargs REPO_DIR OUT.xo
#
# REPO_DIR is the Loom checkout. The define LOOM_CONFIG_KV260 selects the
# kv260 part of hw/rtl/loom_accel_config.svh (generated from
# hw/contract/accel.json, checked in). The kernel is `loom_accel` with XRT's
# ap_ctrl_hs protocol; its argument registers follow hw/contract/accel.json
# (kernel.xml beside this script; a test checks the two agree).

if {[llength $argv] != 2} {
  puts stderr "usage: vivado -mode batch -source package_xo.tcl -tclargs REPO_DIR OUT.xo"
  exit 2
}
lassign $argv repo_dir xo_path

set kernel_name   loom_accel
set part          xck26-sfvc784-2LV-c
set data_bits     128
set clock_hz      250000000
set script_dir    [file dirname [file normalize [info script]]]
set work_dir      [file normalize [file join [file dirname $xo_path] ${kernel_name}_pack]]
set ip_dir        [file join $work_dir ip]

file delete -force $work_dir
create_project -force ${kernel_name}_pack [file join $work_dir project] -part $part

add_files -norecurse [glob [file join $repo_dir hw rtl *.sv]]
add_files -norecurse [file join $repo_dir hw board loom_accel.v]
add_files -norecurse [file join $repo_dir hw rtl loom_accel_config.svh]
set_property file_type {Verilog Header} [get_files loom_accel_config.svh]
set_property include_dirs [list [file join $repo_dir hw rtl]] [current_fileset]
set_property verilog_define {LOOM_CONFIG_KV260} [current_fileset]
set_property generic "C_M_AXI_GMEM_DATA_WIDTH=$data_bits" [current_fileset]
set_property top $kernel_name [current_fileset]
update_compile_order -fileset sources_1

ipx::package_project -root_dir $ip_dir -vendor loom.dev -library RTLKernel -taxonomy /KernelIP \
  -import_files -set_current false
ipx::unload_core [file join $ip_dir component.xml]
ipx::edit_ip_in_project -upgrade true -name ${kernel_name}_edit -directory $ip_dir \
  [file join $ip_dir component.xml]

set core [ipx::current_core]
set_property core_revision 1 $core
set_property sdx_kernel true $core
set_property sdx_kernel_type rtl $core
set_property supported_families {zynquplus Production} $core
set_property auto_family_support_level level_2 $core

# The data width is fixed per board: no user parameter survives packaging.
foreach up [ipx::get_user_parameters -of_objects $core] {
  ipx::remove_user_parameter [get_property NAME $up] $core
}

ipx::associate_bus_interfaces -busif s_axi_control -clock ap_clk $core
ipx::associate_bus_interfaces -busif m_axi_gmem -clock ap_clk $core
set clk_param [ipx::add_bus_parameter -quiet FREQ_HZ [ipx::get_bus_interfaces ap_clk -of_objects $core]]
set_property value $clock_hz $clk_param
set_property value_source constant $clk_param

# The register map XRT programs: control registers, then one 64-bit
# argument every 8 bytes from 0x10. Pointer arguments name the master port
# they address (ASSOCIATED_BUSIF), which is how v++ connects them to memory.
set mem_map [ipx::add_memory_map -quiet s_axi_control $core]
set block   [ipx::add_address_block -quiet reg0 $mem_map]
set_property range 0x100 $block
set_property width 32 $block
set_property slave_memory_map_ref s_axi_control [ipx::get_bus_interfaces s_axi_control -of_objects $core]

proc add_reg {block name offset bits {busif ""}} {
  set reg [ipx::add_register $name $block]
  set_property address_offset $offset $reg
  set_property size $bits $reg
  if {$busif ne ""} {
    set param [ipx::add_register_parameter ASSOCIATED_BUSIF $reg]
    set_property value $busif $param
  }
  return $reg
}

add_reg $block CTRL      0x00 32
add_reg $block GIER      0x04 32
add_reg $block IP_IER    0x08 32
add_reg $block IP_ISR    0x0C 32
add_reg $block commands  0x10 64 m_axi_gmem
add_reg $block base0     0x18 64 m_axi_gmem
add_reg $block base1     0x20 64 m_axi_gmem
add_reg $block base2     0x28 64 m_axi_gmem
add_reg $block base3     0x30 64 m_axi_gmem
add_reg $block count     0x38 64

set_property xpm_libraries {XPM_MEMORY XPM_FIFO} $core
ipx::create_xgui_files $core
ipx::update_checksums $core
ipx::check_integrity -kernel $core
ipx::save_core $core
close_project -delete

if {[file exists $xo_path]} { file delete -force $xo_path }
package_xo -xo_path $xo_path -kernel_name $kernel_name -ip_directory $ip_dir \
  -kernel_xml [file join $script_dir kernel.xml]
puts "package_xo: wrote $xo_path"
