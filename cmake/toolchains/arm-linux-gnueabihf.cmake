# Cross compilation for arm-linux-gnueabihf (Debian's g++-arm-linux-gnueabihf), run side only:
#   cmake -G Ninja -S . -B build-<arch> -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake \
#         -DLOOM_BUILDER=OFF -DLOOM_TESTS=OFF
# scripts/cross_build.sh does this. Libraries and headers come from the target
# root only; flatc and the header-only flatbuffers and CLI11 are taken from the
# host by cmake/flatbuffers.cmake and tools/loom/CMakeLists.txt. Target
# binaries run under qemu user emulation (binfmt need not be registered).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm-static -L /usr/arm-linux-gnueabihf)
