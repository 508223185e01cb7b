# ctest hw.lint: verilator --lint-only -Wall on every file of RTL_DIR, the
# module named like the file as the top, submodules found in RTL_DIR and
# includes in INCLUDE_DIR.
#   cmake -DVERILATOR=... -DRTL_DIR=... -DINCLUDE_DIR=... -P lint_rtl.cmake
file(GLOB files ${RTL_DIR}/*.sv)
set(failed "")
foreach(file ${files})
  get_filename_component(top ${file} NAME_WE)
  execute_process(COMMAND ${VERILATOR} --lint-only -Wall -y ${RTL_DIR} -I${INCLUDE_DIR} ${file} --top-module ${top}
                  RESULT_VARIABLE result)
  if(result EQUAL 0)
    message(STATUS "lint ok: ${top}")
  else()
    list(APPEND failed ${top})
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "verilator lint failed: ${failed}")
endif()
