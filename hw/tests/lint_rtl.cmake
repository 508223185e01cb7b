# ctest hw.lint: verilator --lint-only -Wall on every file of RTL_DIR, the
# module named like the file as the top, submodules and the contract include
# found in RTL_DIR; once with the default configuration and once per macro in
# DEFINES (LOOM_CONFIG_KV260, ...).
#   cmake -DVERILATOR=... -DRTL_DIR=... -DDEFINES=LOOM_CONFIG_KV260 -P lint_rtl.cmake
file(GLOB files ${RTL_DIR}/*.sv)
set(failed "")
foreach(define IN ITEMS "" ${DEFINES})
  set(define_arg "")
  if(define)
    set(define_arg +define+${define})
  endif()
  foreach(file ${files})
    get_filename_component(top ${file} NAME_WE)
    execute_process(COMMAND ${VERILATOR} --lint-only -Wall -y ${RTL_DIR} ${define_arg} ${file} --top-module ${top}
                    RESULT_VARIABLE result)
    if(result EQUAL 0)
      message(STATUS "lint ok: ${top} ${define}")
    else()
      list(APPEND failed "${top} ${define}")
    endif()
  endforeach()
endforeach()
if(failed)
  message(FATAL_ERROR "verilator lint failed: ${failed}")
endif()
