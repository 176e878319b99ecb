// SPDX-License-Identifier: Apache-2.0
// AVX2 UTF-8 validation, after the design John Keiser and Daniel Lemire published
// ("Validating UTF-8 In Less Than One Instruction Per Byte", 2021). Every ill-formed pair of
// adjacent bytes is named by the high nibble of the first, its low nibble and the high nibble
// of the second: three 16-entry tables, looked up by pshufb, give a byte of error bits each,
// and a pair is ill-formed exactly when a bit is set in all three. The one rule a pair cannot
// tell, that the third and fourth bytes of a long sequence are continuations (a pair of
// continuations is otherwise an error), comes from the bytes two and three back; a sequence
// cut short by the end of the text, from the last three bytes of the last block.
#include "codec/utf8_simd.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

namespace transit::detail {

namespace {

// What is wrong with a pair of adjacent bytes (first, second), a bit each (`_`: any bit).
// A lead not followed by a continuation: 11______ 0_______, 11______ 11______.
constexpr std::uint8_t kTooShort = 1 << 0;
// A continuation after ASCII: 0_______ 10______.
constexpr std::uint8_t kTooLong = 1 << 1;
// 11100000 100_____.
constexpr std::uint8_t kOverlong3 = 1 << 2;
// 11110100 1001____, 11110100 101_____, and 11110101-11111111 before 1001____ or 101_____.
constexpr std::uint8_t kTooLarge = 1 << 3;
// 11101101 101_____.
constexpr std::uint8_t kSurrogate = 1 << 4;
// 1100000_ 10______.
constexpr std::uint8_t kOverlong2 = 1 << 5;
// 11110101-11111111 1000____, and 11110000 1000____ (kOverlong4): one bit, as no first byte
// has both.
constexpr std::uint8_t kTooLarge1000 = 1 << 6;
constexpr std::uint8_t kOverlong4 = 1 << 6;
// 10______ 10______: an error unless the second is the third or fourth byte of a sequence.
constexpr std::uint8_t kTwoConts = 1 << 7;
// The bits every low nibble of a first byte allows.
constexpr std::uint8_t kCarry = kTooShort | kTooLong | kTwoConts;

// The three tables, by nibble.
constexpr std::uint8_t kFirstHigh[16] = {
    // 0_______: ASCII
    kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong,
    // 10______: a continuation
    kTwoConts, kTwoConts, kTwoConts, kTwoConts,
    // 1100____, 1101____: a lead of two bytes
    kTooShort | kOverlong2, kTooShort,
    // 1110____: of three
    kTooShort | kOverlong3 | kSurrogate,
    // 1111____: of four, or no lead at all
    kTooShort | kTooLarge | kTooLarge1000 | kOverlong4};
constexpr std::uint8_t kFirstLow[16] = {
    // ____0000
    kCarry | kOverlong3 | kOverlong2 | kOverlong4,
    // ____0001
    kCarry | kOverlong2,
    // ____001_
    kCarry, kCarry,
    // ____0100
    kCarry | kTooLarge,
    // ____0101 to ____1100
    kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
    // ____1101
    kCarry | kTooLarge | kTooLarge1000 | kSurrogate,
    // ____111_
    kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000};
constexpr std::uint8_t kSecondHigh[16] = {
    // 0_______: ASCII
    kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort,
    // 1000____
    kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge1000 | kOverlong4,
    // 1001____
    kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge,
    // 101_____
    kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge,
    kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge,
    // 11______: a lead
    kTooShort, kTooShort, kTooShort, kTooShort};
// Subtracted with saturation from a block's last three bytes, leaves them nonzero where a
// sequence begun there needs bytes after the block: a lead of four bytes three from its end,
// of three or four two from it, any lead last.
constexpr std::uint8_t kIncompleteAbove[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xF0 - 1, 0xE0 - 1, 0xC0 - 1};

// From kEndAt + n, a pshufb mask that moves the first n bytes (n <= 16) of 16 to their end,
// zeros before them.
constexpr std::uint8_t kEndAt[32] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0,    1,    2,    3,    4,    5,    6,    7,
                                     8,    9,    10,   11,   12,   13,   14,   15};

// A 16-byte table in both 128-bit lanes: pshufb looks up within each lane.
__attribute__((target("avx2"))) inline __m256i lanes(const std::uint8_t (&table)[16]) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table)));
}

// Set up by utf8_valid_avx2 (a member initializer would be compiled without AVX2).
struct Checker {
  __m256i error;       // nonzero: an ill-formed sequence so far
  __m256i previous;    // the block before, or zeros (ASCII)
  __m256i incomplete;  // nonzero: `previous` ends inside a sequence

  __attribute__((target("avx2"))) static __m256i high_nibbles(__m256i v) {
    return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F));
  }

  __attribute__((target("avx2"))) void check(__m256i input) {
    if (_mm256_movemask_epi8(input) == 0) {
      // ASCII: nothing to check but that the block before did not end inside a sequence.
      error = _mm256_or_si256(error, incomplete);
      incomplete = _mm256_setzero_si256();
      previous = input;
      return;
    }
    // The 32 bytes before each byte of `input` by one, two and three places: `input` shifted
    // with the end of `previous` shifted in (alignr works within each 128-bit lane, so the
    // lane it needs from the left is put beside each lane first).
    const __m256i before = _mm256_permute2x128_si256(previous, input, 0x21);
    const __m256i prev1 = _mm256_alignr_epi8(input, before, 15);
    const __m256i prev2 = _mm256_alignr_epi8(input, before, 14);
    const __m256i prev3 = _mm256_alignr_epi8(input, before, 13);

    const __m256i first_high = _mm256_shuffle_epi8(lanes(kFirstHigh), high_nibbles(prev1));
    const __m256i first_low =
        _mm256_shuffle_epi8(lanes(kFirstLow), _mm256_and_si256(prev1, _mm256_set1_epi8(0x0F)));
    const __m256i second_high = _mm256_shuffle_epi8(lanes(kSecondHigh), high_nibbles(input));
    const __m256i pairs = _mm256_and_si256(_mm256_and_si256(first_high, first_low), second_high);

    // A byte two after a lead of three or four bytes (1110____, 1111____), or three after a
    // lead of four, must be a continuation: its pair with the continuation before it then
    // has kTwoConts (bit 7) set, which this clears, and any other byte there is an error.
    // Subtracted with saturation, only such leads keep bit 7.
    const __m256i third =
        _mm256_subs_epu8(prev2, _mm256_set1_epi8(static_cast<char>(0xE0 - 0x80)));
    const __m256i fourth =
        _mm256_subs_epu8(prev3, _mm256_set1_epi8(static_cast<char>(0xF0 - 0x80)));
    const __m256i must_continue =
        _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8(static_cast<char>(0x80)));
    error = _mm256_or_si256(error, _mm256_xor_si256(must_continue, pairs));

    // Whether the block ends inside a sequence (see kIncompleteAbove).
    incomplete = _mm256_subs_epu8(
        input, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kIncompleteAbove)));
    previous = input;
  }
};

}  // namespace

__attribute__((target("avx2"))) bool utf8_valid_avx2(const unsigned char* p,
                                                     std::size_t size) noexcept {
  Checker checker{_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  std::size_t i = 0;
  for (; i + 32 <= size; i += 32)
    checker.check(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
  if (i < size) {
    // The tail: the text's last 32 bytes, overlapping the block before (a pair checked twice
    // is decided alike), after the three bytes before them as `previous`'s last. (Copied into
    // a block of zeros, the tail cost as much as a block's check: its store, not forwarded to
    // the load, waited for the cache.)
    const std::size_t start = size - 32;
    const std::size_t from = start >= 16 ? start - 16 : 0;
    const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kEndAt + (start - from)));
    const __m128i before =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + from)), mask);
    checker.previous = _mm256_broadcastsi128_si256(before);
    checker.check(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + start)));
  }
  const __m256i error = _mm256_or_si256(checker.error, checker.incomplete);
  return _mm256_testz_si256(error, error) != 0;
}

}  // namespace transit::detail
#endif
