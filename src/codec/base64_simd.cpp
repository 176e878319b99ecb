// SPDX-License-Identifier: Apache-2.0
// AVX2 base64, after the design Wojciech Muła and Daniel Lemire published ("Faster Base64
// Encoding and Decoding Using AVX2 Instructions", 2018): 32 chars at a time are classified by
// two 16-entry tables indexed by their nibbles (a char is bad when the bits of its low nibble
// and of its high nibble meet), turned into sextets by an offset chosen by the high nibble,
// and packed 4 sextets to 3 bytes by two multiply-adds. Encoding runs the other way: bytes
// spread to 4 sextets by masks and 16-bit multiplies, then an offset per sextet range.
//
// AVX-512 VBMI base64, after the design the same authors published ("Base64 encoding and
// decoding at almost the speed of a memory copy", 2019): 64 chars are looked up at once in a
// 128-entry table by vpermi2b (a sextet, or a byte with its high bit set for a char outside
// the alphabet; a non-ASCII char has its own high bit set), packed by the same two
// multiply-adds, and the 48 bytes gathered by one vpermb. Encoding: one vpermb spreads 48
// bytes to 16 words, vpmultishiftqb cuts the sextets out, and a vpermb over the 64-char
// alphabet makes the chars. These kernels take the whole text, the tail by masked loads and
// stores (a masked-off byte is never read: no fault, no read past the input).
//
// Valgrind (3.19 here) has no AVX-512 and its CPUID says so, so under callgrind the VBMI
// kernels are never chosen (kBase64HaveVbmi is false) and the AVX2 ones run: instruction
// counts stay comparable with earlier rounds, and no callgrind run meets an AVX-512
// instruction (checked: bench/instr_table.sh runs through, no SIGILL).
#include "codec/base64_simd.h"
#include "codec/cpu.h"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics fill their unused merge operand with _mm512_undefined_epi32(), a
// variable initialised from itself, which -Wmaybe-uninitialized reports inside the headers
// (GCC bug 105593, fixed in GCC 13): silenced for this file, from the include on.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace transit::detail {

const bool kBase64HaveVbmi = [] {
  // CPUID is read here, before main, so it must be initialised by hand (GCC's rule for
  // __builtin_cpu_supports in code that may run before the constructors).
  __builtin_cpu_init();
  // libgcc sets the avx512* bits only when the OS has enabled the opmask and zmm state (XGETBV:
  // XCR0 bits 5-7 with SSE and YMM), so a kernel that does not save zmm registers is seen as
  // having none. BMI2 (_bzhi_u64, for the masks) every VBMI CPU has, but it is asked all the same.
  return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0 &&
         __builtin_cpu_supports("avx512vbmi") != 0 && __builtin_cpu_supports("bmi2") != 0;
}();

const Base64Kernel kBase64Best = kBase64HaveVbmi   ? Base64Kernel::vbmi
                                 : cpu_has_avx2()  ? Base64Kernel::avx2
                                                   : Base64Kernel::scalar;

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
  // The second lane's bytes 4 further into its 16: for a last block whose second load ends
  // at the last whole group, 4 bytes before where a block's would.
  const __m256i spread_end = _mm256_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,  //
                                              5, 4, 6, 5, 8, 7, 9, 8, 11, 10, 12, 11, 14, 13, 15, 14);
  char* const start = out;
  const auto encode_block = [&](const __m256i raw, const __m256i order)
                                __attribute__((target("avx2"))) {
    const __m256i words = _mm256_shuffle_epi8(raw, order);
    const __m256i sextets =
        _mm256_or_si256(_mm256_mulhi_epu16(_mm256_and_si256(words, mask_02), shift_02),
                        _mm256_mullo_epi16(_mm256_and_si256(words, mask_13), shift_13));
    const __m256i range =
        _mm256_or_si256(_mm256_subs_epu8(sextets, above_51),
                        _mm256_and_si256(_mm256_cmpgt_epi8(below_26, sextets), upper_class));
    return _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range));
  };
  std::size_t i = 0;
  // Two 16-byte loads of which each lane uses 12: the second reads up to byte i + 28.
  for (; i + 28 <= size; i += 24, out += 32) {
    const __m256i raw = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 12)), 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), encode_block(raw, spread));
  }
  // The whole groups of 3 bytes after the last block (up to 27 bytes): a block ending with
  // them, overlapping the one before (the chars both write are the same), and when 27 remain
  // one more before it; their second load is taken 4 bytes earlier (spread_end), so that
  // nothing past the last whole group is read. The scalar code took them a group at a time,
  // 7.6% of a MessagePack write of bytes.json on a Zen 3.
  if (i == 0) return 0;
  const auto encode_ending_at = [&](std::size_t end) __attribute__((target("avx2"))) {
    const __m256i raw = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + end - 24))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + end - 16)), 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(start + (end - 24) / 3 * 4),
                        encode_block(raw, spread_end));
  };
  const std::size_t whole = size - size % 3;
  if (whole - i > 24) encode_ending_at(i + 24);
  if (whole != i) encode_ending_at(whole);
  return whole;
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
  // A block's 24 bytes as two lanes of 12, each followed by 4 that mean nothing.
  const auto decode_lanes = [&](std::size_t i) __attribute__((target("avx2"))) {
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
    return _mm256_shuffle_epi8(quads, byte_order);
  };
  // A block's 24 bytes stored exactly: joined by one lane crossing permute.
  const auto store_24 = [&](std::size_t i, char* at) __attribute__((target("avx2"))) {
    const __m256i bytes = _mm256_permutevar8x32_epi32(decode_lanes(i), join_lanes);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at), _mm256_castsi256_si128(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(at + 16), _mm256_extracti128_si256(bytes, 1));
  };
  const std::size_t blocks = chars / 32;
  // Each lane's 12 bytes stored by a 16-byte store, the second lane's over the first's last 4:
  // the 4 bytes after the 24 are written before the next block (or the scalar tail) writes
  // them, allowed while they stay inside the output, chars / 4 * 3 bytes. A block ending within
  // 4 bytes of that, the last one, stores exactly 24. (One 32-byte store of the lanes joined by
  // a permute, as before, took 4% longer on a Zen 3: bytes.json's MessagePack read.)
  const std::size_t room = chars / 4 * 3;
  const std::size_t wide_blocks = room >= 28 ? std::min(blocks, (room - 28) / 24 + 1) : 0;
  std::size_t block = 0;
  for (; block < wide_blocks; ++block) {
    const __m256i lanes = decode_lanes(32 * block);
    char* at = out + 24 * block;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at), _mm256_castsi256_si128(lanes));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at + 12), _mm256_extracti128_si256(lanes, 1));
  }
  for (; block < blocks; ++block) store_24(32 * block, out + 24 * block);
  // The whole groups after the last block: one more block, ending where they end, so that it
  // overlaps the one before and rewrites its last bytes with the same values (stores of
  // exactly 24: the bytes it ends at are the last whole group's). The scalar code took them a
  // group at a time, 6% of a read of bytes.json's MessagePack on a Zen 3.
  const std::size_t whole = chars & ~std::size_t{3};
  if (blocks != 0 && whole != 32 * blocks) store_24(whole - 32, out + (whole - 32) / 4 * 3);
  valid = _mm256_testz_si256(bad, bad) != 0;
  return blocks != 0 ? whole : 0;
}

#undef TRANSIT_B64_LANES

namespace {

// The tables of the VBMI kernels, built at compile time from the alphabet.
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Char (its low 7 bits) to sextet, or 0x80 for a char outside the alphabet.
struct alignas(64) DecodeTable {
  unsigned char v[128];
};
constexpr DecodeTable kDecodeTable = [] {
  DecodeTable t{};
  for (unsigned char& v : t.v) v = 0x80;
  for (unsigned char i = 0; i < 64; ++i) t.v[static_cast<unsigned char>(kAlphabet[i])] = i;
  return t;
}();

// Output byte 3k+j of a block takes byte 2-j of 32-bit word k: a word holds its 3 bytes least
// significant first. The last 16 entries pick nothing that is stored.
struct alignas(64) Bytes64 {
  unsigned char v[64];
};
constexpr Bytes64 kPackOrder = [] {
  Bytes64 t{};
  for (unsigned k = 0; k < 16; ++k) {
    for (unsigned j = 0; j < 3; ++j) t.v[3 * k + j] = static_cast<unsigned char>(4 * k + 2 - j);
  }
  return t;
}();

// Word k of an encode block takes bytes b0 b1 b2 of group k as b1 b0 b2 b1: its low half is
// b0:b1 (sextets 0 and 1 at bits 10 and 4), its high half b1:b2 (sextets 2 and 3 at bits 6 and
// 0, 22 and 16 of the word).
constexpr Bytes64 kSpreadOrder = [] {
  Bytes64 t{};
  for (unsigned k = 0; k < 16; ++k) {
    t.v[4 * k] = static_cast<unsigned char>(3 * k + 1);
    t.v[4 * k + 1] = static_cast<unsigned char>(3 * k);
    t.v[4 * k + 2] = static_cast<unsigned char>(3 * k + 2);
    t.v[4 * k + 3] = static_cast<unsigned char>(3 * k + 1);
  }
  return t;
}();

constexpr Bytes64 kAlphabet64 = [] {
  Bytes64 t{};
  for (unsigned i = 0; i < 64; ++i) t.v[i] = static_cast<unsigned char>(kAlphabet[i]);
  return t;
}();

#define TRANSIT_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2")))

TRANSIT_VBMI inline __m512i load_table(const unsigned char* t) noexcept {
  return _mm512_load_si512(t);
}

// The first n bits set, n from 0 to 64 (bzhi keeps all 64 for n from 64 to 255; it reads only
// the index's low byte, and every caller passes 64 or less).
TRANSIT_VBMI inline __mmask64 first(std::size_t n) noexcept {
  return _bzhi_u64(~std::uint64_t{0}, static_cast<unsigned>(n));
}

}  // namespace

TRANSIT_VBMI char* base64_encode_vbmi(const unsigned char* in, std::size_t size,
                                      char* out) noexcept {
  const __m512i spread = load_table(kSpreadOrder.v);
  // Per byte of each 64-bit word (two 32-bit words), the bit its sextet starts at.
  const __m512i shifts = _mm512_set1_epi64(0x3036242a1016040a);
  const __m512i alphabet = load_table(kAlphabet64.v);
  // vpermb reads only the low 6 bits of each index: the 2 bits above a sextet go unmasked.
  const auto encode = [&](__m512i raw) TRANSIT_VBMI {
    const __m512i words = _mm512_permutexvar_epi8(spread, raw);
    return _mm512_permutexvar_epi8(_mm512_multishift_epi64_epi8(shifts, words), alphabet);
  };
  std::size_t i = 0;
  // A full 64-byte load of which 48 are used, while 64 bytes remain ...
  for (; i + 64 <= size; i += 48, out += 64) {
    _mm512_storeu_si512(out, encode(_mm512_loadu_si512(in + i)));
  }
  // ... then up to 63 bytes: one masked step of 48, and the rest.
  if (i + 48 <= size) {
    _mm512_storeu_si512(out, encode(_mm512_maskz_loadu_epi8(first(48), in + i)));
    i += 48;
    out += 64;
  }
  if (const std::size_t rest = size - i; rest != 0) {
    // Zeros past the input give the sextets the scalar code takes from zero bits; the chars
    // past the last that holds input bits are padding.
    const __m512i chars = encode(_mm512_maskz_loadu_epi8(first(rest), in + i));
    const std::size_t total = (rest + 2) / 3 * 4;
    const std::size_t used = (4 * rest + 2) / 3;
    const __m512i padded =
        _mm512_mask_blend_epi8(first(total) & ~first(used), chars, _mm512_set1_epi8('='));
    _mm512_mask_storeu_epi8(out, first(total), padded);
    out += total;
  }
  return out;
}

TRANSIT_VBMI bool base64_decode_vbmi(const unsigned char* in, std::size_t chars,
                                     char* out) noexcept {
  const __m512i low_half = load_table(kDecodeTable.v);
  const __m512i high_half = load_table(kDecodeTable.v + 64);
  const __m512i merge_pairs = _mm512_set1_epi32(0x01400140);
  const __m512i merge_quads = _mm512_set1_epi32(0x00011000);
  const __m512i pack = load_table(kPackOrder.v);
  // The OR of every char and its sextet: a high bit set means a char outside the alphabet.
  __m512i seen = _mm512_setzero_si512();
  const auto decode = [&](__m512i c) TRANSIT_VBMI {
    const __m512i sextets = _mm512_permutex2var_epi8(low_half, c, high_half);
    seen = _mm512_ternarylogic_epi32(seen, c, sextets, 0xFE);  // seen | c | sextets
    const __m512i quads =
        _mm512_madd_epi16(_mm512_maddubs_epi16(sextets, merge_pairs), merge_quads);
    return _mm512_permutexvar_epi8(pack, quads);
  };
  const std::size_t size = chars / 4 * 3 + (chars % 4 == 0 ? 0 : chars % 4 - 1);
  char* const end = out + size;
  std::size_t i = 0;
  // A block's 48 bytes stored by a 64-byte store while that stays inside the output (the next
  // block overwrites the 16 past them), else by a masked one.
  for (; i + 64 <= chars; i += 64, out += 48) {
    const __m512i bytes = decode(_mm512_loadu_si512(in + i));
    if (end - out >= 64) {
      _mm512_storeu_si512(out, bytes);
    } else {
      _mm512_mask_storeu_epi8(out, first(48), bytes);
    }
  }
  if (i != chars) {
    // Up to 63 chars, 'A' (sextet 0) past them: a group of 2 or 3 chars gives its 1 or 2
    // bytes, and the bits below them are ignored as the scalar code ignores them.
    const __m512i c = _mm512_mask_loadu_epi8(_mm512_set1_epi8('A'), first(chars - i), in + i);
    _mm512_mask_storeu_epi8(out, first(static_cast<std::size_t>(end - out)), decode(c));
  }
  return _mm512_test_epi8_mask(seen, _mm512_set1_epi8(static_cast<char>(0x80))) == 0;
}

#undef TRANSIT_VBMI

}  // namespace transit::detail
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif
