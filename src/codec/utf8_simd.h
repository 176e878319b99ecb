// SPDX-License-Identifier: Apache-2.0
// A vector kernel for checking long text as UTF-8: codec.cpp's is_valid_utf8 takes it for text
// of 32 bytes or more in every x86-64 build, ahead of simdjson's validator (which it beats at
// these lengths, and which checks long text on a CPU without AVX2 when the library has
// simdjson); its scalar loop checks the rest. The library is built for baseline x86-64, so the
// kernel is compiled for AVX2 alone and chosen at run time (cpu.h), as base64's kernels are
// (base64_simd.h). Internal; not installed.
#pragma once

#include <cstddef>

namespace transit::detail {

#if defined(__x86_64__)
/// Whether the `size` bytes at `p` are well-formed UTF-8 (RFC 3629: no overlong form, no
/// surrogate, nothing above U+10FFFF, no sequence cut short), exactly as the scalar check
/// decides, 32 bytes a step, reading no byte outside them. Requires cpu_has_avx2() (cpu.h) and
/// `size` >= 32 (a last partial step is taken as the text's last 32 bytes).
bool utf8_valid_avx2(const unsigned char* p, std::size_t size) noexcept;
#endif

}  // namespace transit::detail
