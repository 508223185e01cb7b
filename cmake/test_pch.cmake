# loom_test_pch: the precompiled header every test target reuses
# (loom_test_target). GoogleTest and the standard headers most test files
# include are parsed once per build instead of once per test file (about a
# second each) or once per test target (the per-target header took 3-8 s to
# make). A test file still includes what it uses: the build with
# -DLOOM_PCH=OFF compiles each file on its own includes.
#
# GCC refuses a precompiled header made with other -O, -fPIE or -fsanitize
# settings (-Winvalid-pch, an error under -Werror), so the host is an
# executable with the test targets' flags (loom_test_flags).
if(NOT LOOM_PCH)
  return()
endif()
add_executable(loom_test_pch ${CMAKE_CURRENT_LIST_DIR}/test_pch_main.cc)
target_link_libraries(loom_test_pch PRIVATE GTest::gtest)
loom_test_flags(loom_test_pch)
target_precompile_headers(loom_test_pch PRIVATE
  <gtest/gtest.h>
  <algorithm> <array> <chrono> <cmath> <cstdint> <cstdio> <cstdlib> <cstring> <functional> <limits> <map>
  <memory> <numeric> <random> <string> <utility> <vector>)
