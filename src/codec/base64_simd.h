// SPDX-License-Identifier: Apache-2.0
// Vector kernels for the bulk of base64 text: codec.cpp's scalar code does the tail and runs
// alone on CPUs without them. The library is built for baseline x86-64, so each kernel is
// compiled for its own instruction set and chosen once, at run time. Internal; not installed.
#pragma once

#include <cstddef>

namespace transit::detail {

/// The base64 kernels (codec.h's base64_encode_to and base64_decode_plain run one of them).
enum class Base64Kernel : unsigned char { scalar, avx2, vbmi };

#if !defined(__x86_64__)
/// Elsewhere the scalar code is the only kernel.
inline constexpr Base64Kernel kBase64Best = Base64Kernel::scalar;
#else
/// The best kernel this CPU runs, chosen once before main from kBase64HaveVbmi below (in its
/// translation unit, so after it) and cpu_has_avx2() (cpu.h); scalar for any static
/// initializer that runs first.
extern const Base64Kernel kBase64Best;

/// Encodes the whole groups of 3 bytes of `in` to 4 chars each at `out`, by blocks of 24 bytes
/// to 32 chars (while 28 bytes remain, so that every load stays inside `in`), the last one
/// ending with the last whole group (overlapping the block before). Returns the bytes
/// consumed: 0 when `size` is under 28, else `size` rounded down to a multiple of 3.
/// Requires cpu_has_avx2().
std::size_t base64_encode_avx2(const unsigned char* in, std::size_t size, char* out) noexcept;

/// Decodes the whole groups of 4 chars of `in` (`chars` of plain base64, no padding among
/// them) to 3 bytes each at `out`, by blocks of 32 chars to 24 bytes, the last one ending with
/// the last whole group (overlapping the block before), writing no byte past the first
/// chars / 4 * 3. Returns the chars consumed: 0 when `chars` is under 32, else `chars` rounded
/// down to a multiple of 4; `valid` is false when any of them is outside the alphabet (and
/// then the bytes written mean nothing). Requires cpu_has_avx2().
std::size_t base64_decode_avx2(const unsigned char* in, std::size_t chars, char* out,
                               bool& valid) noexcept;

/// Whether this CPU (and OS) runs AVX-512 VBMI, BW and BMI2 with the zmm state enabled; set
/// once, before main, by CPUID. Read as false by any static initializer that runs first.
/// False under valgrind, which has no AVX-512.
extern const bool kBase64HaveVbmi;

/// Encodes all of `in` with its padding (what base64_encode_to_scalar writes), 48 bytes to 64
/// chars a step and the tail by masked loads and stores: reads no byte past `in + size` and
/// writes none past the returned end. Requires kBase64HaveVbmi.
char* base64_encode_vbmi(const unsigned char* in, std::size_t size, char* out) noexcept;

/// Decodes all `chars` of plain base64 (no padding among them; chars % 4 != 1) into exactly
/// the bytes base64_plain_size counts, 64 chars to 48 bytes a step and the tail by masked loads
/// and stores, reading and writing nothing past them. False when any char is outside the
/// alphabet (and then the bytes written mean nothing). Requires kBase64HaveVbmi.
bool base64_decode_vbmi(const unsigned char* in, std::size_t chars, char* out) noexcept;
#endif

}  // namespace transit::detail
