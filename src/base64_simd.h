// SPDX-License-Identifier: Apache-2.0
// Vector kernels for the bulk of base64 text: codec.cpp's scalar code does the tail and runs
// alone on CPUs without them. The library is built for baseline x86-64, so each kernel is
// compiled for its own instruction set and chosen once, at run time. Internal; not installed.
#pragma once

#include <cstddef>

namespace transit::detail {

#if defined(__x86_64__)
/// Whether this CPU (and OS) runs AVX2; set once, before main, by CPUID. Read as false by any
/// static initializer that runs first, which then takes the scalar path.
extern const bool kBase64HaveAvx2;

/// Encodes whole blocks of 24 bytes of `in` (only while 28 bytes remain, so that every load
/// stays inside `in`) to 32 chars each at `out`; returns the bytes consumed, a multiple of 24.
/// Requires kBase64HaveAvx2.
std::size_t base64_encode_avx2(const unsigned char* in, std::size_t size, char* out) noexcept;

/// Decodes whole blocks of 32 chars of `in` (`chars` of plain base64, no padding among them) to
/// 24 bytes each at `out`, writing no byte past the first chars / 4 * 3. Returns the chars
/// consumed, a multiple of 32; `valid` is false when any of them is outside the alphabet (and
/// then the bytes written mean nothing). Requires kBase64HaveAvx2.
std::size_t base64_decode_avx2(const unsigned char* in, std::size_t chars, char* out,
                               bool& valid) noexcept;
#endif

}  // namespace transit::detail
