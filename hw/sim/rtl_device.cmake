# loom_hw_rtl_device: RtlDevice (rtl_device.h), the whole accelerator
# (hw/rtl/loom_accel_top.sv, pynq_z2) Verilated (FST tracing with LOOM_HW_TRACE), on the AXI
# DDR model and the AXI-Lite driver; the engine's fpga-rtl backend wraps it.
#   loom_hw_accel_top_model  the Verilated top (class Vloom_accel_top); its C++
#                            is compiled without the project's warnings
#   loom_hw_rtl_device       rtl_device.cc, with them
# Verilator flags (measured in hw/README.md, Simulation speed): -O3 and
# --x-assign/--x-initial fast as for every model here; --output-split-cfuncs
# so that the big eval functions compile in pieces; -GDSP_ROWS=16: every
# array row as the DSP kind of PE, which simulates about 30 % faster than the
# pynq_z2 build's 12 DSP + 4 LUT rows and computes the same bits (both kinds
# are checked against each other by hw.systolic_array_n16 / _n4). Set
# -DLOOM_HW_RTL_DEVICE_VERILATOR_FLAGS to simulate the synthesized mix.
# TRACE_FST (compiled in with -DLOOM_HW_TRACE=ON) costs no measurable speed
# when no trace is open, only compile time; -O2 for the model's C++ instead of the build's -O3 is no faster
# (hw/README.md, Simulation speed).
set(LOOM_HW_RTL_DEVICE_VERILATOR_FLAGS -O3 --x-assign fast --x-initial fast --output-split-cfuncs 5000
    -GDSP_ROWS=16 CACHE STRING "Verilator flags of the RtlDevice model (loom_accel_top)")
set(LOOM_HW_RTL_DEVICE_VERILATOR_ARGS ${LOOM_HW_RTL_DEVICE_VERILATOR_FLAGS} -Wall -y ${PROJECT_SOURCE_DIR}/hw/rtl
    -I${LOOM_HW_SIM_SVH_DIR})

add_library(loom_hw_accel_top_model STATIC)
loom_hw_forget_stale_verilate(loom_hw_accel_top_model Vloom_accel_top)
verilate(loom_hw_accel_top_model ${LOOM_HW_TRACE_ARG} SOURCES ${PROJECT_SOURCE_DIR}/hw/rtl/loom_accel_top.sv
         TOP_MODULE loom_accel_top PREFIX Vloom_accel_top VERILATOR_ARGS ${LOOM_HW_RTL_DEVICE_VERILATOR_ARGS})
loom_hw_use_shared_runtime(loom_hw_accel_top_model)
target_compile_definitions(loom_hw_accel_top_model PUBLIC LOOM_HW_TRACE_FST=$<BOOL:${LOOM_HW_TRACE}>)

add_library(loom_hw_rtl_device STATIC rtl_device.cc rtl_accel_device.cc)
target_link_libraries(loom_hw_rtl_device PUBLIC loom_hw_sim loom_fpga_model loom_fpga_devices
                      PRIVATE loom_hw_accel_top_model)
# Verilator's and the model's headers as system headers, so the project's
# -Werror skips them.
target_include_directories(loom_hw_rtl_device SYSTEM PRIVATE ${VERILATOR_ROOT}/include
                           ${VERILATOR_ROOT}/include/vltstd
                           ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/loom_hw_accel_top_model.dir/Vloom_accel_top.dir)
string(REPLACE ";" " " flags "${LOOM_HW_RTL_DEVICE_VERILATOR_FLAGS}")
target_compile_definitions(loom_hw_rtl_device PRIVATE LOOM_HW_RTL_VERILATOR_FLAGS="${flags}")
loom_project_target(loom_hw_rtl_device)

if(NOT LOOM_TESTS)
  return()
endif()

# hw.rtl_device (CI, label hw): randomized layers on the RTL and the model,
# bit for bit, and the bad streams; hw.rtl_device_long (label hw-long, not in
# CI): thousands of layers and the ResNet-18 convolutions with cycle counts.
add_executable(loom_hw_rtl_device_test tests/rtl_device_test.cc
               ${PROJECT_SOURCE_DIR}/kernels/fpga/lowering/testing/lowering_test_util.cc
               ${PROJECT_SOURCE_DIR}/kernels/fpga/model/testing/model_test_util.cc)
target_link_libraries(loom_hw_rtl_device_test PRIVATE loom_hw_rtl_device loom_fpga_lowering loom_fpga_model loom_fpga_perf
                      loom_kernels GTest::gtest_main)
loom_project_target(loom_hw_rtl_device_test)
add_test(NAME hw.rtl_device COMMAND loom_hw_rtl_device_test --gtest_filter=-*Long*)
set_tests_properties(hw.rtl_device PROPERTIES LABELS hw)
# hw.rtl_accel_device (CI): the fpga-rtl AccelDevice backend through the driver.
add_executable(loom_hw_rtl_accel_device_test tests/rtl_accel_device_test.cc)
target_link_libraries(loom_hw_rtl_accel_device_test PRIVATE loom_hw_rtl_device loom_fpga_device_testing
                      GTest::gtest_main)
loom_project_target(loom_hw_rtl_accel_device_test)
add_test(NAME hw.rtl_accel_device COMMAND loom_hw_rtl_accel_device_test)
set_tests_properties(hw.rtl_accel_device PROPERTIES LABELS hw)

add_test(NAME hw.rtl_device_long COMMAND loom_hw_rtl_device_test --gtest_filter=*Long*)
set_tests_properties(hw.rtl_device_long PROPERTIES LABELS hw-long ENVIRONMENT LOOM_FPGA_LONG=20)
