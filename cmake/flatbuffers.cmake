# Locates flatc (run on the build host) and the header-only flatbuffers
# runtime. Native builds use Debian's CMake package `FlatBuffers`; cross builds
# cannot use the host's target files, so they fall back to find_program/find_path
# and expose only the flatbuffers headers (never the rest of /usr/include).
find_package(FlatBuffers QUIET)
if(TARGET flatbuffers::flatc AND NOT CMAKE_CROSSCOMPILING)
  set(LOOM_FLATC $<TARGET_FILE:flatbuffers::flatc>)
else()
  find_program(LOOM_FLATC_PROGRAM flatc NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  set(LOOM_FLATC ${LOOM_FLATC_PROGRAM})
endif()

find_path(LOOM_FLATBUFFERS_HEADER_DIR flatbuffers/flatbuffers.h
          PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
# A private include root holding only a link to the flatbuffers headers.
set(LOOM_FLATBUFFERS_INCLUDE ${CMAKE_BINARY_DIR}/flatbuffers-include)
file(MAKE_DIRECTORY ${LOOM_FLATBUFFERS_INCLUDE})
if(NOT EXISTS ${LOOM_FLATBUFFERS_INCLUDE}/flatbuffers)
  file(CREATE_LINK ${LOOM_FLATBUFFERS_HEADER_DIR}/flatbuffers
       ${LOOM_FLATBUFFERS_INCLUDE}/flatbuffers SYMBOLIC)
endif()
add_library(loom_flatbuffers_headers INTERFACE)
target_include_directories(loom_flatbuffers_headers SYSTEM INTERFACE ${LOOM_FLATBUFFERS_INCLUDE})
