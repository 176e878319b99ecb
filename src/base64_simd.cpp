// SPDX-License-Identifier: Apache-2.0
// AVX2 base64, after the design Wojciech Muła and Daniel Lemire published ("Faster Base64
// Encoding and Decoding Using AVX2 Instructions", 2018): 32 chars at a time are classified by
// two 16-entry tables indexed by their nibbles (a char is bad when the bits of its low nibble
// and of its high nibble meet), turned into sextets by an offset chosen by the high nibble,
// and packed 4 sextets to 3 bytes by two multiply-adds. Encoding runs the other way: bytes
// spread to 4 sextets by masks and 16-bit multiplies, then an offset per sextet range.
// No AVX-512: valgrind cannot run it, and instruction counts come from callgrind.
#include "base64_simd.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace transit::detail {

const bool kBase64HaveAvx2 = [] {
  // CPUID is read here, before main, so it must be initialised by hand (GCC's rule for
  // __builtin_cpu_supports in code that may run before the constructors).
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

// A 16-byte table set in both 128-bit lanes: pshufb looks up within each lane.
#define TRANSIT_B64_LANES(...) _mm256_setr_epi8(__VA_ARGS__, __VA_ARGS__)

__attribute__((target("avx2"))) std::size_t base64_encode_avx2(const unsigned char* in,
                                                               std::size_t size,
                                                               char* out) noexcept {
  // Each lane takes 12 bytes, 4 groups of 3 (b0 b1 b2), spread to a 32-bit word whose 16-bit
  // halves are b0:b1 and b1:b2: sextets 0 and 1 sit in the first half, 2 and 3 in the second.
  const __m256i spread = TRANSIT_B64_LANES(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
  // Sextets 0 and 2 (bits 15..10 of b0:b1, bits 11..6 of b1:b2) are shifted down to their
  // bytes 0 and 2 by taking the high half of a multiply by 2^6 and by 2^10 ...
  const __m256i mask_02 = _mm256_set1_epi32(0x0FC0FC00);
  const __m256i shift_02 = _mm256_set1_epi32(0x04000040);
  // ... and sextets 1 and 3 (bits 9..4, bits 5..0) up to bytes 1 and 3 by the low half of a
  // multiply by 2^4 and by 2^8.
  const __m256i mask_13 = _mm256_set1_epi32(0x003F03F0);
  const __m256i shift_13 = _mm256_set1_epi32(0x01000010);
  // Sextet to char: saturating 51 off maps 0..51 to 0 and 52..63 to 1..12; 0..25 are then
  // marked 13. The offset added per class: a..z +71, 0..9 -4, '+' -19, '/' -16, A..Z +65.
  const __m256i above_51 = _mm256_set1_epi8(51);
  const __m256i below_26 = _mm256_set1_epi8(26);
  const __m256i upper_class = _mm256_set1_epi8(13);
  const __m256i offsets =
      TRANSIT_B64_LANES(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 65, 0, 0);
  std::size_t i = 0;
  // Two 16-byte loads of which each lane uses 12: the second reads up to byte i + 28.
  for (; i + 28 <= size; i += 24, out += 32) {
    const __m256i raw = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 12)), 1);
    const __m256i words = _mm256_shuffle_epi8(raw, spread);
    const __m256i sextets =
        _mm256_or_si256(_mm256_mulhi_epu16(_mm256_and_si256(words, mask_02), shift_02),
                        _mm256_mullo_epi16(_mm256_and_si256(words, mask_13), shift_13));
    const __m256i range =
        _mm256_or_si256(_mm256_subs_epu8(sextets, above_51),
                        _mm256_and_si256(_mm256_cmpgt_epi8(below_26, sextets), upper_class));
    const __m256i chars = _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), chars);
  }
  return i;
}

__attribute__((target("avx2"))) std::size_t base64_decode_avx2(const unsigned char* in,
                                                               std::size_t chars, char* out,
                                                               bool& valid) noexcept {
  // Validation: a char's high nibble selects one class bit (0: 0x0_, 0x1_ and 0x8_..0xF_, no
  // char valid; 1: 0x2_, only '+' and '/'; 2: 0x3_, digits; 3: 0x4_ and 0x6_, all but '@' and
  // '`'; 4: 0x5_ and 0x7_, up to 'Z' and 'z'), and its low nibble the classes in which it is
  // bad. Every byte from 0x80 has high nibble 8..F, so non-ASCII is caught as well.
  const __m256i bad_by_low = TRANSIT_B64_LANES(  //
      0x0B, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x15, 0x17, 0x17, 0x17,
      0x15);
  const __m256i class_by_high = TRANSIT_B64_LANES(  //
      0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x08, 0x10, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
      0x01);
  // Char to sextet: an offset by high nibble ('/' moved to index 1 to part it from '+').
  const __m256i offset_by_high =
      TRANSIT_B64_LANES(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i slash = _mm256_set1_epi8('/');
  // Packing: sextets a b c d (in that order in each 32-bit word) to a*64+b and c*64+d, then to
  // (a*64+b)*4096 + c*64+d: the 3 bytes, least significant first.
  const __m256i merge_pairs = _mm256_set1_epi32(0x01400140);
  const __m256i merge_quads = _mm256_set1_epi32(0x00011000);
  const __m256i byte_order =
      TRANSIT_B64_LANES(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  // The 12 bytes of each lane side by side: 24 bytes, then 8 that mean nothing.
  const __m256i join_lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
  __m256i bad = _mm256_setzero_si256();
  const auto decode_block = [&](std::size_t i) __attribute__((target("avx2"))) {
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i high = _mm256_and_si256(_mm256_srli_epi32(c, 4), nibble);
    const __m256i low = _mm256_and_si256(c, nibble);
    bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_shuffle_epi8(bad_by_low, low),
                                                _mm256_shuffle_epi8(class_by_high, high)));
    const __m256i offset =
        _mm256_shuffle_epi8(offset_by_high, _mm256_add_epi8(high, _mm256_cmpeq_epi8(c, slash)));
    const __m256i sextets = _mm256_add_epi8(c, offset);
    const __m256i quads =
        _mm256_madd_epi16(_mm256_maddubs_epi16(sextets, merge_pairs), merge_quads);
    return _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(quads, byte_order), join_lanes);
  };
  const std::size_t blocks = chars / 32;
  // A block's 32-byte store writes 8 bytes past its 24, where the next block (or the scalar
  // tail) writes: allowed while they stay inside the output, chars / 4 * 3 bytes. A block
  // ending within 8 bytes of that, the last one or two, stores exactly 24.
  const std::size_t room = chars / 4 * 3;
  const std::size_t wide_blocks = room >= 32 ? std::min(blocks, (room - 32) / 24 + 1) : 0;
  std::size_t block = 0;
  for (; block < wide_blocks; ++block) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 24 * block), decode_block(32 * block));
  }
  for (; block < blocks; ++block) {
    const __m256i bytes = decode_block(32 * block);
    char* at = out + 24 * block;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at), _mm256_castsi256_si128(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(at + 16), _mm256_extracti128_si256(bytes, 1));
  }
  valid = _mm256_testz_si256(bad, bad) != 0;
  return 32 * blocks;
}

#undef TRANSIT_B64_LANES

}  // namespace transit::detail
#endif
