# Cross compilation for aarch64-linux-gnu (Debian's g++-aarch64-linux-gnu), run side only:
#   cmake -G Ninja -S . -B build-<arch> -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DLOOM_BUILDER=OFF -DLOOM_TESTS=OFF
# scripts/cross_build.sh does this. Libraries and headers come from the target
# root only; flatc and the header-only flatbuffers and CLI11 are taken from the
# host by cmake/flatbuffers.cmake and tools/loom/CMakeLists.txt. Target
# binaries run under qemu user emulation (binfmt need not be registered).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
