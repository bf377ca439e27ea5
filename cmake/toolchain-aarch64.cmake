# Cross-compiling gridops for aarch64 (arm64) Linux with Debian 12's cross toolchain
# (crossbuild-essential-arm64: aarch64-linux-gnu-gcc/g++ 12) against the arm64 multiarch
# packages (libhwy-dev:arm64, libgtest-dev:arm64, ...: libraries and CMake packages under
# /usr/lib/aarch64-linux-gnu, headers under /usr/include and /usr/include/aarch64-linux-gnu),
# running the test binaries under qemu-user. scripts/test-arm64.sh uses it:
#
#   cmake -S . -B build/arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake ...
#   QEMU_CPU=max,sve256=on ctest --test-dir build/arm64
#
# CMAKE_CROSSCOMPILING_EMULATOR makes ctest (add_test with a target as COMMAND) and
# gtest_discover_tests (the post-build listing of each test binary) run them through
# qemu-aarch64; qemu reads the CPU model from the environment (QEMU_CPU, e.g. cortex-a72
# for NEON only, max,sve256=on for 256-bit SVE; qemu's default is max).
#
# Overridable: GRIDOPS_AARCH64_TRIPLE (aarch64-linux-gnu), GRIDOPS_QEMU_AARCH64
# (qemu-aarch64 on PATH), GRIDOPS_AARCH64_LD_PREFIX (qemu's -L, below).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

if(NOT GRIDOPS_AARCH64_TRIPLE)
  set(GRIDOPS_AARCH64_TRIPLE aarch64-linux-gnu)
endif()
set(CMAKE_C_COMPILER ${GRIDOPS_AARCH64_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${GRIDOPS_AARCH64_TRIPLE}-g++)

# Debian multiarch: find_package looks in <prefix>/lib/aarch64-linux-gnu/cmake/<Name>,
# find_library in <prefix>/lib/aarch64-linux-gnu, never in the host's x86_64-linux-gnu dirs.
set(CMAKE_LIBRARY_ARCHITECTURE ${GRIDOPS_AARCH64_TRIPLE})
# The host's programs (protoc, ...) are the ones to run at build time; libraries, headers
# and packages are searched in the normal prefixes (/usr, /usr/local, CMAKE_PREFIX_PATH),
# where the multiarch layout keeps the arm64 ones apart.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config (if anything asks it): the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${GRIDOPS_AARCH64_TRIPLE}/pkgconfig:/usr/share/pkgconfig")

# qemu's -L: where the arm64 dynamic loader is looked up first. With the multiarch
# libc6:arm64 installed (every arm64 -dev package depends on it) that is "/": its
# /lib/ld-linux-aarch64.so.1 and the libc.so.6 the libraries resolve to (through
# /etc/ld.so.cache, /usr/lib/aarch64-linux-gnu) are one build. -L /usr/aarch64-linux-gnu
# (the cross toolchain's libc6-arm64-cross, an older 2.36 build) would pair that loader
# with the multiarch libc.so.6, and then a program's second thread never started (a oneTBB
# arena of 2 spun forever under qemu). Without libc6:arm64, the cross toolchain's copy.
if(NOT GRIDOPS_AARCH64_LD_PREFIX)
  if(EXISTS /lib/ld-linux-aarch64.so.1)
    set(GRIDOPS_AARCH64_LD_PREFIX /)
  else()
    set(GRIDOPS_AARCH64_LD_PREFIX /usr/${GRIDOPS_AARCH64_TRIPLE})
  endif()
endif()
if(NOT GRIDOPS_QEMU_AARCH64)
  find_program(GRIDOPS_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
endif()
if(GRIDOPS_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${GRIDOPS_QEMU_AARCH64};-L;${GRIDOPS_AARCH64_LD_PREFIX}")
else()
  message(WARNING "qemu-aarch64 not found (Debian: apt-get install qemu-user): the test "
    "binaries cannot be listed or run on this host")
endif()
# The overrides above reach try_compile projects too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES GRIDOPS_AARCH64_TRIPLE
     GRIDOPS_AARCH64_LD_PREFIX GRIDOPS_QEMU_AARCH64)
