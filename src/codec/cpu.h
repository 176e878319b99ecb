// SPDX-License-Identifier: Apache-2.0
// What this CPU runs, for the codecs' vector kernels (base64_simd.h, utf8_simd.h), each compiled
// for its own instruction set in a library built for baseline x86-64. Internal; not installed.
#pragma once

namespace transit::detail {

#if defined(__x86_64__)
/// Whether this CPU (and OS: libgcc asks XGETBV for the ymm state) runs AVX2. CPUID is read
/// once, on the first call, so any static initializer, in any translation unit, gets the
/// answer; initialised by hand, as GCC asks of __builtin_cpu_supports in code that may run
/// before the constructors.
inline bool cpu_has_avx2() noexcept {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif

}  // namespace transit::detail
