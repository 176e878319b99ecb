// SPDX-License-Identifier: Apache-2.0
// The text codecs: every function, its edge cases and the inputs it must refuse.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cfloat>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "codec/cpu.h"
#include "codec/utf8_simd.h"

namespace transit::detail {
namespace {

std::string b64(std::string_view bytes) {
  std::string out;
  base64_encode(std::as_bytes(std::span(bytes.data(), bytes.size())), out);
  return out;
}

std::string instant(std::int64_t ms) {
  std::string out;
  format_instant(ms, out);
  return out;
}

std::string java(double d) {
  std::string out;
  format_double_java(d, out);
  return out;
}

std::string json(double d) {
  std::string out;
  format_double_json(d, out);
  return out;
}

std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

// Finite doubles spread over every exponent, plus the values at the edges of the format.
std::vector<double> sample_doubles() {
  std::vector<double> out = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.1,
                             1.0 / 3,
                             2.0 / 3,
                             5e-324,
                             -5e-324,
                             1e-323,
                             2.2250738585072009e-308,
                             DBL_MIN,
                             DBL_MAX,
                             -DBL_MAX,
                             DBL_EPSILON,
                             1e22,
                             1e23,
                             9007199254740993.0,
                             123456789012345678.0,
                             0.001,
                             9999999.999999998,
                             1e7};
  std::mt19937_64 rng(20240601);
  while (out.size() < 20000) {
    const double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) out.push_back(d);
  }
  // Short decimals, the kind people type.
  for (int i = -2000; i <= 2000; ++i) out.push_back(i / 100.0);
  return out;
}

// ---- base64 ------------------------------------------------------------------------------------

// RFC 4648's test vectors: bytes, then their base64.
constexpr std::pair<std::string_view, std::string_view> kRfc4648[] = {
    {"", ""},           {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
};

TEST(Base64, EncodesRfc4648Vectors) {
  for (const auto& [bytes, text] : kRfc4648) EXPECT_EQ(b64(bytes), text);
  EXPECT_EQ(b64("\xff\xfe\xfd"), "//79");
}

TEST(Base64, AppendsToExistingText) {
  std::string out = "x:";
  const std::byte data[] = {std::byte{1}, std::byte{2}, std::byte{3}};
  base64_encode(data, out);
  EXPECT_EQ(out, "x:AQID");
}

TEST(Base64, DecodesRfc4648Vectors) {
  for (const auto& [bytes, text] : kRfc4648) EXPECT_EQ(base64_decode(text), bytes);
}

TEST(Base64, RoundTripsEveryByteAndLength) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t len = 0; len <= all.size(); ++len) {
    const std::string bytes = all.substr(all.size() - len);
    EXPECT_EQ(base64_decode(b64(bytes)), bytes) << "length " << len;
  }
}

TEST(Base64, SkipsWhitespaceAndAcceptsMissingPadding) {
  EXPECT_EQ(base64_decode("Zm9v\nYmFy"), "foobar");
  EXPECT_EQ(base64_decode(" Zm9v\r\n YmE=\n"), "fooba");
  EXPECT_EQ(base64_decode("Zg= =\t"), "f");
  EXPECT_EQ(base64_decode("Zg"), "f");
  EXPECT_EQ(base64_decode("Zm8"), "fo");
  EXPECT_EQ(base64_decode(" \n "), "");
}

// The table-driven decoder of plain base64 (what Transit writers emit) agrees with
// base64_decode on every string of up to 6 chars over an alphabet of base64 chars, padding,
// whitespace and bytes outside the alphabet: when it decodes, base64_decode decodes the same
// bytes; it refuses whitespace (left to base64_decode) and what base64_decode refuses; and it
// takes every padded or unpadded text with no whitespace as plain.
TEST(Base64, PlainDecodeAgreesWithTheFullDecoder) {
  const std::string_view chars("A/z9=\x20-\xff", 8);
  std::string text;
  std::size_t plain = 0;
  const auto check = [&](const auto& self, std::size_t length) -> void {
    const std::optional<std::string> full = base64_decode(text);
    const std::size_t size = base64_plain_size(text);
    if (size != kNotPlainBase64) {
      ++plain;
      std::string out(size + 1, '#');
      const bool ok = base64_decode_plain(text, out.data());
      if (ok) {
        ASSERT_TRUE(full.has_value()) << '"' << text << '"';
        EXPECT_EQ(out.substr(0, size), *full) << '"' << text << '"';
      } else if (text.find(' ') == std::string::npos) {
        // Whitespace is left to base64_decode; anything else it refuses too.
        EXPECT_FALSE(full.has_value()) << '"' << text << '"';
      }
      EXPECT_EQ(out[size], '#') << "wrote past the end: \"" << text << '"';
    } else if (full && text.find(' ') == std::string::npos) {
      ADD_FAILURE() << "valid with no whitespace, yet not plain: \"" << text << '"';
    }
    if (length == 0) return;
    for (const char c : chars) {
      text.push_back(c);
      self(self, length - 1);
      text.pop_back();
    }
  };
  check(check, 6);
  EXPECT_GT(plain, 100'000u);
  // Long text, every byte value, padded and not.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t len = 0; len <= all.size(); ++len) {
    const std::string bytes = all.substr(all.size() - len);
    for (std::string encoded : {b64(bytes), b64(bytes).substr(0, b64(bytes).find('='))}) {
      std::string out(bytes.size(), '\0');
      ASSERT_EQ(base64_plain_size(encoded), bytes.size()) << encoded;
      ASSERT_TRUE(base64_decode_plain(encoded, out.data())) << encoded;
      EXPECT_EQ(out, bytes) << encoded;
    }
  }
}

TEST(Base64, RejectsBadCharactersAndPadding) {
  EXPECT_EQ(base64_decode("Zm9v!"), std::nullopt);
  EXPECT_EQ(base64_decode("Zm-_"), std::nullopt);  // the URL-safe alphabet is another encoding
  EXPECT_EQ(base64_decode("Zm9v\x80"), std::nullopt);
  EXPECT_EQ(base64_decode(std::string_view("Zm\0v", 4)), std::nullopt);
  EXPECT_EQ(base64_decode("Z"), std::nullopt);      // one sextet is not a byte
  EXPECT_EQ(base64_decode("Zm9vY"), std::nullopt);  // nor is a fifth one
  EXPECT_EQ(base64_decode("Zg="), std::nullopt);    // padding is all or nothing
  EXPECT_EQ(base64_decode("Zg==="), std::nullopt);
  EXPECT_EQ(base64_decode("Zm8=="), std::nullopt);
  EXPECT_EQ(base64_decode("Zm9v="), std::nullopt);
  EXPECT_EQ(base64_decode("===="), std::nullopt);
  EXPECT_EQ(base64_decode("=Zg="), std::nullopt);
  EXPECT_EQ(base64_decode("Zg==Zg=="), std::nullopt);  // nothing after the padding
  EXPECT_EQ(base64_decode("Zg==x"), std::nullopt);
}

// ---- base64: the vector kernels against the scalar code -----------------------------------------

// Bytes or text in a heap block of exactly their size, so that ASan reports any read past them.
std::unique_ptr<char[]> exact_copy(std::string_view s) {
  auto copy = std::make_unique<char[]>(s.size());
  std::copy(s.begin(), s.end(), copy.get());
  return copy;
}

std::string random_bytes(std::size_t n, std::mt19937& rng) {
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
  return bytes;
}

// Room past the end of every output, filled with a mark that must survive.
constexpr std::size_t kGuard = 40;

// `encode` (a base64_encode_to with its kernel bound) on `bytes` in an exact-size block.
template <class Encode>
std::string encode_with(Encode encode, std::string_view bytes) {
  const std::unique_ptr<char[]> in = exact_copy(bytes);
  std::string out(base64_length(bytes.size()) + kGuard, '#');
  char* end = encode(std::as_bytes(std::span(in.get(), bytes.size())), out.data());
  EXPECT_EQ(end, out.data() + base64_length(bytes.size()));
  EXPECT_EQ(out.substr(base64_length(bytes.size())), std::string(kGuard, '#'))
      << "wrote past the end";
  out.resize(base64_length(bytes.size()));
  return out;
}

// What a plain decoder makes of `text`: nullopt when it refuses it.
template <class Decode>
std::optional<std::string> decode_with(Decode decode, std::string_view text) {
  const std::size_t size = base64_plain_size(text);
  if (size == kNotPlainBase64) return std::nullopt;
  const std::unique_ptr<char[]> in = exact_copy(text);
  std::string out(size + kGuard, '#');
  const bool ok = decode(std::string_view(in.get(), text.size()), out.data());
  EXPECT_EQ(out.substr(size), std::string(kGuard, '#')) << "wrote past the end: " << text;
  if (!ok) return std::nullopt;
  out.resize(size);
  return out;
}

// The dispatched functions, and each kernel's, as encode_with and decode_with take them.
const auto kDispatchedEncode = [](std::span<const std::byte> data, char* out) {
  return base64_encode_to(data, out);
};
const auto kScalarEncode = [](std::span<const std::byte> data, char* out) {
  return base64_encode_to_scalar(data, out);
};
const auto kDispatchedDecode = [](std::string_view text, char* out) {
  return base64_decode_plain(text, out);
};
const auto kScalarDecode = [](std::string_view text, char* out) {
  return base64_decode_plain_scalar(text, out);
};
auto encoder(Base64Kernel kernel) {
  return [kernel](std::span<const std::byte> data, char* out) {
    return base64_encode_to(kernel, data, out);
  };
}
auto decoder(Base64Kernel kernel) {
  return [kernel](std::string_view text, char* out) {
    return base64_decode_plain(kernel, text, out);
  };
}

// The kernel the dispatch picked on this machine: the widest the CPU has, so that the tests
// below run it (and not the scalar code twice).
TEST(Base64, PicksTheVectorKernelWhereTheCpuHasIt) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") != 0;
  const bool vbmi = __builtin_cpu_supports("avx512f") != 0 &&
                    __builtin_cpu_supports("avx512bw") != 0 &&
                    __builtin_cpu_supports("avx512vbmi") != 0 &&
                    __builtin_cpu_supports("bmi2") != 0;
#else
  const bool avx2 = false;
  const bool vbmi = false;
#endif
  std::cout << "base64 kernel: " << base64_kernel_name() << " (available:";
  for (const Base64Kernel k : kBase64Kernels) {
    if (base64_kernel_available(k)) std::cout << ' ' << base64_kernel_name(k);
  }
  std::cout << ")\n";
  EXPECT_EQ(base64_kernel_name(), vbmi ? "vbmi" : avx2 ? "avx2" : "scalar");
  EXPECT_TRUE(base64_kernel_available(Base64Kernel::scalar));
  EXPECT_EQ(base64_kernel_available(Base64Kernel::avx2), avx2);
  EXPECT_EQ(base64_kernel_available(Base64Kernel::vbmi), vbmi);
}

// Each kernel by name, skipped where the CPU lacks it (a CI machine without AVX-512 skips vbmi).
class Base64Kernels : public testing::TestWithParam<Base64Kernel> {
 protected:
  void SetUp() override {
    if (!base64_kernel_available(GetParam())) {
      GTEST_SKIP() << "this CPU has no " << base64_kernel_name(GetParam()) << " kernel";
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Base64, Base64Kernels, testing::ValuesIn(kBase64Kernels),
                         [](const testing::TestParamInfo<Base64Kernel>& info) {
                           return std::string(base64_kernel_name(info.param));
                         });

// Every length from 0 to 300 (the vector kernels take 24 or 48 bytes and 32 or 64 chars a
// block, so this covers 0 to 12 blocks and every tail): the kernel writes what the scalar code
// writes, and gives the bytes back from the padded and the unpadded text; so does the
// dispatched pair.
TEST_P(Base64Kernels, AgreeWithTheScalarCodeOnEveryLength) {
  const auto encode = encoder(GetParam());
  const auto decode = decoder(GetParam());
  std::mt19937 rng(20261202);
  for (std::size_t len = 0; len <= 300; ++len) {
    const std::string bytes = random_bytes(len, rng);
    const std::string scalar = encode_with(kScalarEncode, bytes);
    const std::string encoded = encode_with(encode, bytes);
    ASSERT_EQ(encoded, scalar) << "length " << len;
    ASSERT_EQ(encode_with(kDispatchedEncode, bytes), scalar) << "length " << len;
    ASSERT_EQ(encoded, b64(bytes)) << "length " << len;
    const std::string unpadded = encoded.substr(0, encoded.find('='));
    for (const std::string& text : {encoded, unpadded}) {
      EXPECT_EQ(decode_with(decode, text), bytes) << text;
      EXPECT_EQ(decode_with(kDispatchedDecode, text), bytes) << text;
      EXPECT_EQ(decode_with(kScalarDecode, text), bytes) << text;
      EXPECT_EQ(base64_decode(text), bytes) << text;
    }
  }
}

// One char outside the alphabet at every position of every text of 0 to 200 bytes (up to 268
// chars; the vector kernels see most positions in their blocks, the last ones in their tails):
// the kernel refuses exactly what the scalar code refuses, gives the same bytes when it
// accepts, and whatever it accepts base64_decode accepts with the same bytes. The bad chars
// include the neighbours of the alphabet's ranges and, for the VBMI table that reads 7 bits,
// alphabet chars with the high bit added. Then the padding forms, right and wrong, at the end
// of every length.
TEST_P(Base64Kernels, RefuseExactlyWhatTheScalarCodeRefuses) {
  const auto decode = decoder(GetParam());
  std::mt19937 rng(11);
  const std::string_view bad_chars("= \n-_\0\x80\xff.@[`{:*\xc1\xe1\xab\xaf\xb0", 20);
  std::size_t vector_sized = 0;
  const auto agree = [&](const std::string& text) {
    if (text.size() >= 32) ++vector_sized;
    const std::optional<std::string> vector = decode_with(decode, text);
    const std::optional<std::string> scalar = decode_with(kScalarDecode, text);
    ASSERT_EQ(vector, scalar) << '"' << text << '"';
    if (vector) {
      EXPECT_EQ(base64_decode(text), vector) << '"' << text << '"';
    }
  };
  for (std::size_t len = 0; len <= 200; ++len) {
    const std::string encoded = b64(random_bytes(len, rng));
    const std::string unpadded = encoded.substr(0, encoded.find('='));
    for (const std::string& text : {encoded, unpadded}) {
      for (std::size_t at = 0; at < text.size(); ++at) {
        for (const char bad : bad_chars) {
          std::string broken = text;
          broken[at] = bad;
          agree(broken);
          // A bad char the decode must refuse, wherever it is; '=' may make a padded form.
          if (bad != '=') {
            ASSERT_FALSE(decode_with(decode, broken).has_value()) << broken;
            ASSERT_FALSE(decode_with(kDispatchedDecode, broken).has_value()) << broken;
          }
        }
      }
      for (const char* end : {"", "=", "==", "===", "====", "=A", "A=", "AA=", "AAA=", "A==",
                              "AA==", "AAA==", "A", "AA", "AAA"}) {
        agree(text + end);
      }
      if (!text.empty()) agree(text.substr(0, text.size() - 1));
    }
  }
  EXPECT_GT(vector_sized, 100'000u);
}

// Every one of the 256 byte values, alone among valid chars at the first, a middle and the last
// position of a 2-block text and of a tail: accepted exactly when it is in the alphabet.
TEST_P(Base64Kernels, AcceptExactlyTheAlphabet) {
  const auto decode = decoder(GetParam());
  const std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (const std::size_t size : {4u, 60u, 128u, 132u}) {
    for (const std::size_t at : {std::size_t{0}, size / 2, size - 1}) {
      for (int c = 0; c < 256; ++c) {
        std::string text(size, 'Q');
        text[at] = static_cast<char>(c);
        const bool in_alphabet = alphabet.find(static_cast<char>(c)) != std::string_view::npos;
        // '=' at the end is padding, which base64_plain_size takes off.
        if (c == '=' && at == size - 1) continue;
        EXPECT_EQ(decode_with(decode, text).has_value(), in_alphabet)
            << "char " << c << " at " << at << " of " << size;
      }
    }
  }
}

// The split form a reader uses (handlers/ground.cpp: the plain chars found once, the output
// sized from them) decodes what base64_decode_plain decodes, and the sizes agree, padded and
// not, on every length 0..100 and on texts that are not plain.
TEST(Base64, PlainCharsThenDecodeIsThePlainDecode) {
  std::mt19937 rng(21);
  for (std::size_t len = 0; len <= 100; ++len) {
    const std::string bytes = random_bytes(len, rng);
    const std::string encoded = b64(bytes);
    const std::string unpadded = encoded.substr(0, encoded.find('='));
    for (const std::string& text : {encoded, unpadded, encoded + "=", unpadded + "A"}) {
      const std::size_t chars = base64_plain_chars(text);
      ASSERT_EQ(chars == kNotPlainBase64, base64_plain_size(text) == kNotPlainBase64) << text;
      if (chars == kNotPlainBase64) continue;
      ASSERT_EQ(base64_plain_bytes(chars), base64_plain_size(text)) << text;
      const auto split = [chars](std::string_view t, char* out) {
        return base64_decode_plain_chars(t.data(), chars, out);
      };
      EXPECT_EQ(decode_with(split, text), decode_with(kDispatchedDecode, text)) << text;
    }
  }
}

// The padding-last form a reader uses for long texts (handlers/ground.cpp: room for no padding,
// the padding looked for after the groups before it): on every length 0..200, padded and not,
// with a bad char at every position and every padding form at the end, it accepts exactly what
// base64_decode_plain accepts, with the same bytes and size, and writes nothing past its room.
TEST(Base64, PaddingLastDecodeIsThePlainDecode) {
  std::mt19937 rng(1205);
  const auto padding_last = [](std::string_view text) -> std::optional<std::string> {
    const std::unique_ptr<char[]> in = exact_copy(text);
    const std::size_t room = base64_room(text.size());
    std::string out(room + kGuard, '#');
    const std::size_t n = base64_decode_plain_to(std::string_view(in.get(), text.size()), out.data());
    EXPECT_EQ(out.substr(room), std::string(kGuard, '#')) << "wrote past its room: " << text;
    if (n == kNotPlainBase64) return std::nullopt;
    EXPECT_LE(n, room) << text;
    out.resize(n);
    return out;
  };
  std::size_t checked = 0;
  const auto agree = [&](const std::string& text) {
    ++checked;
    ASSERT_EQ(padding_last(text), decode_with(kDispatchedDecode, text)) << '"' << text << '"';
  };
  for (std::size_t len = 0; len <= 200; ++len) {
    const std::string encoded = b64(random_bytes(len, rng));
    const std::string unpadded = encoded.substr(0, encoded.find('='));
    for (const std::string& text : {encoded, unpadded}) {
      agree(text);
      for (std::size_t at = 0; at < text.size(); ++at) {
        for (const char bad : {'=', ' ', '\n', '-', '\x80'}) {
          std::string broken = text;
          broken[at] = bad;
          agree(broken);
        }
      }
      for (const char* end : {"=", "==", "===", "====", "=A", "A=", "AA=", "AAA=", "A==",
                              "AA==", "AAA==", "A", "AA", "AAA"}) {
        agree(text + end);
      }
      if (!text.empty()) agree(text.substr(0, text.size() - 1));
    }
  }
  EXPECT_GT(checked, 100'000u);
}

// Large texts (1 MB and 1 MB + 47 bytes, as the benchmarks' largest) round-trip through each
// kernel.
TEST_P(Base64Kernels, RoundTripLargeBuffers) {
  const auto encode = encoder(GetParam());
  const auto decode = decoder(GetParam());
  std::mt19937 rng(5);
  for (const std::size_t len : {std::size_t{1} << 20, (std::size_t{1} << 20) + 47}) {
    const std::string bytes = random_bytes(len, rng);
    const std::string encoded = encode_with(encode, bytes);
    ASSERT_EQ(encoded, encode_with(kScalarEncode, bytes));
    ASSERT_EQ(decode_with(decode, encoded), bytes);
  }
}

// ---- UUID --------------------------------------------------------------------------------------

TEST(Uuid, FormatsCanonicalLowercase) {
  std::string out;
  format_uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL}, out);
  EXPECT_EQ(out, "5a2cbea3-e8c6-428b-b525-21239370dd55");
  out.clear();
  format_uuid({}, out);
  EXPECT_EQ(out, "00000000-0000-0000-0000-000000000000");
  out.clear();
  format_uuid({~0ULL, ~0ULL}, out);
  EXPECT_EQ(out, "ffffffff-ffff-ffff-ffff-ffffffffffff");
}

TEST(Uuid, ParsesEitherCase) {
  const Uuid expected{0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL};
  EXPECT_EQ(parse_uuid("5a2cbea3-e8c6-428b-b525-21239370dd55"), expected);
  EXPECT_EQ(parse_uuid("5A2CBEA3-E8C6-428B-B525-21239370DD55"), expected);
}

TEST(Uuid, RoundTrips) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const Uuid u{rng(), rng()};
    std::string text;
    format_uuid(u, text);
    EXPECT_EQ(parse_uuid(text), u) << text;
  }
}

TEST(Uuid, RejectsOtherForms) {
  EXPECT_EQ(parse_uuid(""), std::nullopt);
  EXPECT_EQ(parse_uuid("5a2cbea3-e8c6-428b-b525-21239370dd5"), std::nullopt);
  EXPECT_EQ(parse_uuid("5a2cbea3-e8c6-428b-b525-21239370dd555"), std::nullopt);
  EXPECT_EQ(parse_uuid("5a2cbea3-e8c6-428b-b525-21239370dd5g"), std::nullopt);
  EXPECT_EQ(parse_uuid("5a2cbea3e8c6-428b-b525-21239370dd55-"), std::nullopt);
  EXPECT_EQ(parse_uuid("5a2cbea3-e8c6-428b-b525_21239370dd55"), std::nullopt);
  EXPECT_EQ(parse_uuid("5a2cbea3e8c6428bb52521239370dd55"), std::nullopt);
  EXPECT_EQ(parse_uuid("{5a2cbea3-e8c6-428b-b525-21239370dd5}"), std::nullopt);
  EXPECT_EQ(parse_uuid("+a2cbea3-e8c6-428b-b525-21239370dd55"), std::nullopt);
}

// Every byte of a UUID replaced by each of the 256 values: a hex digit gives the UUID with
// that nibble, anything else (a byte with its high bit set, one next to a digit or a letter
// a-f in ASCII, a letter past f) is refused; a hyphen's place takes only a hyphen.
TEST(Uuid, ChecksEveryByte) {
  const std::string good = "5a2cbea3-e8c6-428b-b525-21239370dd55";
  const Uuid base{0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL};
  int nibble = 0;  // the hex digit's index, 0-31
  for (std::size_t i = 0; i < good.size(); ++i) {
    const bool hyphen = good[i] == '-';
    for (int b = 0; b < 256; ++b) {
      std::string text = good;
      text[i] = static_cast<char>(b);
      int value = -1;
      if (b >= '0' && b <= '9') value = b - '0';
      if (b >= 'a' && b <= 'f') value = b - 'a' + 10;
      if (b >= 'A' && b <= 'F') value = b - 'A' + 10;
      if (hyphen) {
        EXPECT_EQ(parse_uuid(text), b == '-' ? std::optional<Uuid>(base) : std::nullopt) << i << " " << b;
        continue;
      }
      if (value < 0) {
        EXPECT_EQ(parse_uuid(text), std::nullopt) << i << " " << b;
        continue;
      }
      Uuid want = base;
      std::uint64_t& half = nibble < 16 ? want.hi : want.lo;
      const int shift = 4 * (15 - nibble % 16);
      half = (half & ~(std::uint64_t{0xF} << shift)) | std::uint64_t(value) << shift;
      EXPECT_EQ(parse_uuid(text), want) << i << " " << b;
    }
    if (!hyphen) ++nibble;
  }
}

// ---- instants ----------------------------------------------------------------------------------

TEST(Instant, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(instant(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(instant(946728000000), "2000-01-01T12:00:00.000Z");
  EXPECT_EQ(instant(1396909037000), "2014-04-07T22:17:17.000Z");
  EXPECT_EQ(instant(1396909037123), "2014-04-07T22:17:17.123Z");
  EXPECT_EQ(instant(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(instant(4107542399999), "2100-02-28T23:59:59.999Z");
  EXPECT_EQ(instant(4107542400000), "2100-03-01T00:00:00.000Z");
}

TEST(Instant, FormatsBeforeTheEpoch) {
  EXPECT_EQ(instant(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(instant(-86400000), "1969-12-31T00:00:00.000Z");
  EXPECT_EQ(instant(-86400001), "1969-12-30T23:59:59.999Z");
  EXPECT_EQ(instant(-6106017600000), "1776-07-04T12:00:00.000Z");
  EXPECT_EQ(instant(-2208988800000), "1900-01-01T00:00:00.000Z");
  EXPECT_EQ(instant(-62135596800000), "0001-01-01T00:00:00.000Z");
}

// A year past 9999 has all its digits and no sign, as transit-java writes it and as its reader
// (XML Schema's dateTime) requires; a year before 0 has its `-`.
TEST(Instant, FormatsYearsPast9999AsTransitJavaDoes) {
  EXPECT_EQ(instant(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(instant(253402300800000), "10000-01-01T00:00:00.000Z");
  EXPECT_EQ(instant(-62167219200000), "0000-01-01T00:00:00.000Z");
  EXPECT_EQ(instant(-62167219200001), "-0001-12-31T23:59:59.999Z");
  EXPECT_EQ(instant(std::numeric_limits<std::int64_t>::max()), "292278994-08-17T07:12:55.807Z");
  EXPECT_EQ(instant(std::numeric_limits<std::int64_t>::min()), "-292275055-05-16T16:47:04.192Z");
}

TEST(Instant, FormatsClojureSuffixForEdn) {
  std::string out;
  format_instant_edn(-6106017600000, out);
  EXPECT_EQ(out, "1776-07-04T12:00:00.000-00:00");
}

TEST(Instant, ParsesWhatItFormats) {
  std::vector<std::int64_t> samples = {0,
                                       -1,
                                       1,
                                       -6106017600000,
                                       253402300800000,
                                       -62167219200001,
                                       std::numeric_limits<std::int64_t>::max(),
                                       std::numeric_limits<std::int64_t>::min()};
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> near(-20'000'000'000'000, 20'000'000'000'000);
  for (int i = 0; i < 20000; ++i) samples.push_back(near(rng));
  for (int i = 0; i < 2000; ++i) samples.push_back(static_cast<std::int64_t>(rng()));
  for (const std::int64_t ms : samples) {
    const std::string text = instant(ms);
    EXPECT_EQ(parse_instant(text), ms) << text;
    std::string edn;
    format_instant_edn(ms, edn);
    EXPECT_EQ(parse_instant(edn), ms) << edn;
  }
}

TEST(Instant, ParsesLenientForms) {
  EXPECT_EQ(parse_instant("2000-01-01T12:00:00.000Z"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01T12:00:00Z"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01T12:00Z"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01t12:00:00z"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01T12:00:00.5Z"), 946728000500);
  EXPECT_EQ(parse_instant("2000-01-01T12:00:00.12Z"), 946728000120);
  EXPECT_EQ(parse_instant("2000-01-01T12:00:00.123999999Z"), 946728000123);
  EXPECT_EQ(parse_instant("2000-01-01T13:00:00+01:00"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01T13:00:00+0100"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01T06:30:00.000-05:30"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01T12:00:00.000-00:00"), 946728000000);
  EXPECT_EQ(parse_instant("2000-01-01"), 946684800000);
  EXPECT_EQ(parse_instant("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(parse_instant("2000-02-29T00:00:00Z"), 951782400000);
}

// Years as peers write them without ISO 8601's sign or padding: transit-java's
// SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") prints every digit of a year past 9999, and
// transit-js an unpadded year before 1000. Each means one instant; they were refused.
TEST(Instant, ParsesUnsignedYearsOfAnyWidthAsPeersWriteThem) {
  EXPECT_EQ(parse_instant("10000-01-01T00:00:00.000Z"), 253402300800000);
  EXPECT_EQ(parse_instant("+10000-01-01T00:00:00.000Z"), 253402300800000);
  EXPECT_EQ(parse_instant("+010000-01-01T00:00:00.000Z"), 253402300800000);  // JavaScript's
  EXPECT_EQ(parse_instant("20000-01-01"), 568971820800000);
  EXPECT_EQ(parse_instant("+20000-01-01"), 568971820800000);
  // Long.MAX_VALUE ms, a Java program's "never": transit-java writes it so.
  EXPECT_EQ(parse_instant("292278994-08-17T07:12:55.807Z"),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_instant("1-01-01T00:00:00.000Z"), -62135596800000);
  EXPECT_EQ(parse_instant("1-01-01T00:00:00.000Z"), parse_instant("0001-01-01T00:00:00.000Z"));
  EXPECT_EQ(parse_instant("999-12-31T23:59:59.999Z"), -30610224000001);
  EXPECT_EQ(parse_instant("0999-12-31T23:59:59.999Z"), -30610224000001);
}

// transit-js writes a year before 0 as JavaScript's getUTCFullYear() prints it: a `-` and no
// padding (`-1-12-31T...`). Refused until round thirty-five; a `+` still takes four digits,
// and fewer than four after a `-` are transit-js's only with no leading zero.
TEST(Instant, ParsesUnpaddedNegativeYearsAsTransitJsWritesThem) {
  EXPECT_EQ(parse_instant("-1-12-31T23:59:59.999Z"), -62167219200001);
  EXPECT_EQ(parse_instant("-1-12-31T23:59:59.999Z"), parse_instant("-0001-12-31T23:59:59.999Z"));
  EXPECT_EQ(parse_instant("-12-06-15T12:30:00.250Z"), -62531522999750);
  EXPECT_EQ(parse_instant("-999-12-31T23:59:59.999Z"), -93661056000001);
  EXPECT_EQ(parse_instant("-0-01-01T00:00:00.000Z"), std::nullopt);  // no one's form: zero padded
  EXPECT_EQ(parse_instant("-012-01-01T00:00:00.000Z"), std::nullopt);
  EXPECT_EQ(parse_instant("+12-01-01T00:00:00.000Z"), std::nullopt);
  EXPECT_EQ(parse_instant("-T00:00:00.000Z"), std::nullopt);
  EXPECT_EQ(parse_instant("--1-01-01T00:00:00.000Z"), std::nullopt);
}

TEST(Instant, RejectsMalformedOrOutOfRange) {
  for (const char* text : {"",
                           "2000",
                           "2000-01",
                           "2000-1-01",
                           "9999999999-01-01T00:00:00Z",
                           "292278994-08-17T07:12:55.808Z",
                           "2000-00-01",
                           "2000-13-01",
                           "2000-01-00",
                           "2000-01-32",
                           "2000-02-30",
                           "1900-02-29",
                           "2000-01-01T",
                           "2000-01-01T12",
                           "2000-01-01T12:00",
                           "2000-01-01T12:00:00",
                           "2000-01-01T24:00:00Z",
                           "2000-01-01T12:60:00Z",
                           "2000-01-01T12:00:60Z",
                           "2000-01-01T12:00:00.Z",
                           "2000-01-01T12:00:0Z",
                           "2000-01-01 12:00:00Z",
                           "2000-01-01T12:00:00Zjunk",
                           "2000-01-01T12:00:00+1",
                           "2000-01-01T12:00:00+01:",
                           "2000-01-01T12:00:00+24:00",
                           "2000-01-01T12:00:00+01:60",
                           "2000-01-01Z",
                           "+999999999-01-01T00:00:00Z",
                           "-999999999-01-01T00:00:00Z",
                           "+292278994-08-17T07:12:55.808Z",
                           "+10-01-01"})
    EXPECT_EQ(parse_instant(text), std::nullopt) << text;
}

// parse_instant's path for "YYYY-MM-DDTHH:MM:SS.mmmZ" (24 bytes, checked a word at a time):
// every byte that is not what the form has there is refused (or read by the general path as
// the same instant: `t`, `z`), and every field out of range is refused.
TEST(Instant, CanonicalFormChecksEveryByte) {
  const std::string good = "2000-02-29T23:59:59.999Z";
  ASSERT_EQ(parse_instant(good), 951868799999);
  for (std::size_t i = 0; i < good.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(good[i])) != 0;
    for (int b = 0; b < 256; ++b) {
      std::string text = good;
      text[i] = static_cast<char>(b);
      if (text == good || (digit && b >= '0' && b <= '9')) continue;
      if ((i == 10 && b == 't') || (i == 23 && b == 'z')) {
        EXPECT_EQ(parse_instant(text), 951868799999) << text;
        continue;
      }
      EXPECT_EQ(parse_instant(text), std::nullopt) << i << " " << b;
    }
  }
  EXPECT_EQ(parse_instant("0000-01-01T00:00:00.000Z"), -62167219200000);
  EXPECT_EQ(parse_instant("9999-12-31T23:59:59.999Z"), 253402300799999);
  EXPECT_EQ(parse_instant("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(parse_instant("1970-01-01T00:00:00.001Z"), 1);
  EXPECT_EQ(parse_instant("1600-02-29T00:00:00.000Z"), -11670998400000);
  for (const char* text :
       {"2000-00-01T00:00:00.000Z", "2000-13-01T00:00:00.000Z", "2000-01-00T00:00:00.000Z",
        "2000-01-32T00:00:00.000Z", "2000-04-31T00:00:00.000Z", "1900-02-29T00:00:00.000Z",
        "2100-02-29T00:00:00.000Z", "2001-02-29T00:00:00.000Z", "2000-01-01T24:00:00.000Z",
        "2000-01-01T12:60:00.000Z", "2000-01-01T12:00:60.000Z", "2000-01-01T99:99:99.999Z"})
    EXPECT_EQ(parse_instant(text), std::nullopt) << text;
}

// The canonical form with random digits in every digit's place (most of them no date) against
// std::chrono's calendar: the instant where the fields make one, nullopt where they do not.
TEST(Instant, CanonicalFormAgreesWithChrono) {
  std::mt19937_64 rng(16);
  for (int i = 0; i < 200000; ++i) {
    std::string text = "0000-00-00T00:00:00.000Z";
    for (char& c : text)
      if (c == '0') c = static_cast<char>('0' + rng() % 10);
    // Half of them with fields kept near their ranges, so that most of those are dates.
    if (i % 2 == 0) {
      text[5] = static_cast<char>('0' + rng() % 2);
      text[8] = static_cast<char>('0' + rng() % 4);
      text[11] = static_cast<char>('0' + rng() % 3);
      text[14] = static_cast<char>('0' + rng() % 6);
      text[17] = static_cast<char>('0' + rng() % 6);
    }
    const auto field = [&](std::size_t at, std::size_t n) { return std::stoi(text.substr(at, n)); };
    const std::chrono::year_month_day ymd{std::chrono::year(field(0, 4)),
                                          std::chrono::month(static_cast<unsigned>(field(5, 2))),
                                          std::chrono::day(static_cast<unsigned>(field(8, 2)))};
    const int hour = field(11, 2), minute = field(14, 2), second = field(17, 2);
    std::optional<std::int64_t> want;
    if (ymd.ok() && hour < 24 && minute < 60 && second < 60)
      want = std::chrono::sys_days(ymd).time_since_epoch().count() * 86'400'000LL +
             ((hour * 60LL + minute) * 60 + second) * 1000 + field(20, 3);
    EXPECT_EQ(parse_instant(text), want) << text;
  }
}

// ---- UTF-8 -------------------------------------------------------------------------------------

TEST(Utf8, AcceptsWellFormedText) {
  for (const char* text : {"", "plain ascii", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                           "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80",
                           "0123456789abcdef\xc3\xa9"
                           "0123456789abcdef",
                           "\xe8\xa9\xb9\xe5\xa7\x86\xe6\x96\xaf"})
    EXPECT_TRUE(is_valid_utf8(text)) << text;
  EXPECT_TRUE(is_valid_utf8(std::string_view("\0", 1)));
}

TEST(Utf8, RejectsIllFormedText) {
  for (const char* text : {
           "\x80",                      // lone continuation
           "\xbf",                      //
           "\xc0\x80",                  // overlong NUL
           "\xc1\xbf",                  // overlong
           "\xe0\x80\x80",              // overlong
           "\xe0\x9f\xbf",              // overlong
           "\xed\xa0\x80",              // surrogate D800
           "\xed\xbf\xbf",              // surrogate DFFF
           "\xf0\x8f\xbf\xbf",          // overlong
           "\xf4\x90\x80\x80",          // above U+10FFFF
           "\xf5\x80\x80\x80",          // lead byte never used
           "\xff",                      //
           "\xe2\x82",                  // truncated
           "\xf0\x9f\x98",              // truncated
           "\xc3",                      // truncated
           "\xe2\x28\xa1",              // continuation missing
           "\xc3\xa9\x80",              // stray continuation
           "abcdefghijklmnop\xe2\x82",  // truncated after a run of ASCII
           "abcdefgh\xff"
           "abcdefgh",
       })
    EXPECT_FALSE(is_valid_utf8(text)) << ::testing::PrintToString(std::string(text));
}

// Long text may be checked another way (a vectorized validator): it must say what the short
// check says, wherever in the text the sequence falls.
TEST(Utf8, LongTextIsCheckedAsShortTextIs) {
  const std::pair<const char*, bool> samples[] = {
      {"\xc3\xa9", true},      {"\xe2\x82\xac", true},  {"\xf0\x9f\x98\x80", true},
      {"\xf4\x8f\xbf\xbf", true}, {"\xed\x9f\xbf", true},  {"\x80", false},
      {"\xc0\x80", false},     {"\xe0\x9f\xbf", false}, {"\xed\xa0\x80", false},
      {"\xf0\x8f\xbf\xbf", false}, {"\xf4\x90\x80\x80", false}, {"\xf5\x80\x80\x80", false},
      {"\xff", false},          {"\xe2\x82", false},      {"\xc3\xa9\x80", false},
  };
  for (const auto& [sample, valid] : samples) {
    ASSERT_EQ(is_valid_utf8(sample), valid) << ::testing::PrintToString(std::string(sample));
    for (std::size_t before : {0, 1, 31, 32, 63, 64, 65, 127, 200}) {
      for (const char* pad : {"a", "\xe8\xa9\xb9"}) {
        std::string text;
        while (text.size() < before) text += pad;
        text += sample;
        // Ends with the sample (a truncated sequence at the very end), or padded after it.
        EXPECT_EQ(is_valid_utf8(text), valid) << ::testing::PrintToString(text);
        for (int i = 0; i < 40; ++i) text += pad;
        EXPECT_EQ(is_valid_utf8(text), valid) << ::testing::PrintToString(text);
      }
    }
  }
}

TEST(Utf8, CountsUtf16Units) {
  EXPECT_EQ(utf16_length(""), 0u);
  EXPECT_EQ(utf16_length("abc"), 3u);
  EXPECT_EQ(utf16_length("caf\xc3\xa9"), 4u);
  EXPECT_EQ(utf16_length("\xe2\x82\xac"), 1u);
  EXPECT_EQ(utf16_length("\xf0\x9f\x98\x80"), 2u);
  EXPECT_EQ(utf16_length("a\xf0\x9f\x98\x80z\xf4\x8f\xbf\xbf"), 6u);
}

TEST(Utf8, DecodesExactlyOneCodePoint) {
  EXPECT_EQ(decode_one_code_point("a"), U'a');
  EXPECT_EQ(decode_one_code_point(std::string_view("\0", 1)), U'\0');
  EXPECT_EQ(decode_one_code_point("\xc3\xa9"), U'\u00e9');
  EXPECT_EQ(decode_one_code_point("\xe2\x82\xac"), U'\u20ac');
  EXPECT_EQ(decode_one_code_point("\xf0\x9f\x98\x80"), U'\U0001F600');
  EXPECT_EQ(decode_one_code_point(""), std::nullopt);
  EXPECT_EQ(decode_one_code_point("ab"), std::nullopt);
  EXPECT_EQ(decode_one_code_point("\xc3\xa9!"), std::nullopt);
  EXPECT_EQ(decode_one_code_point("\xc3"), std::nullopt);
  EXPECT_EQ(decode_one_code_point("\xed\xa0\x80"), std::nullopt);
}

TEST(Utf8, AppendsEncodings) {
  const auto enc = [](char32_t c) {
    std::string out;
    append_utf8(c, out);
    return out;
  };
  EXPECT_EQ(enc(U'a'), "a");
  EXPECT_EQ(enc(0x7F), "\x7f");
  EXPECT_EQ(enc(0x80), "\xc2\x80");
  EXPECT_EQ(enc(0x7FF), "\xdf\xbf");
  EXPECT_EQ(enc(0x800), "\xe0\xa0\x80");
  EXPECT_EQ(enc(0xFFFF), "\xef\xbf\xbf");
  EXPECT_EQ(enc(0x10000), "\xf0\x90\x80\x80");
  EXPECT_EQ(enc(0x10FFFF), "\xf4\x8f\xbf\xbf");
}

TEST(Utf8, EveryScalarValueRoundTrips) {
  std::string out;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    out.clear();
    append_utf8(c, out);
    ASSERT_EQ(decode_one_code_point(out), c) << static_cast<std::uint32_t>(c);
    ASSERT_EQ(utf16_length(out), c > 0xFFFF ? 2u : 1u);
  }
}

// ---- UTF-8: the AVX2 kernel --------------------------------------------------------------------

#if defined(__x86_64__)
// The kernel (is_valid_utf8's for text of 32 bytes or more on a CPU with AVX2) must decide
// every text as the scalar loop does: on every pair of bytes and a sample of longer sequences,
// at each place in a block a sequence can fall, and cut short at the end.
class Utf8Avx2 : public testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  }
  // The kernel takes text of 32 bytes or more (shorter text is not worth its call).
  static bool avx2(std::string_view s) {
    EXPECT_GE(s.size(), 32u);
    return utf8_valid_avx2(reinterpret_cast<const unsigned char*>(s.data()), s.size());
  }
  // Checks `bytes` after `before` ASCII bytes (at least 32 in all), alone at the end and
  // with ASCII after it.
  static void expect_agreement(std::string_view bytes, std::size_t before) {
    std::string text(before, 'a');
    text += bytes;
    if (text.size() >= 32) {
      ASSERT_EQ(avx2(text), is_valid_utf8_scalar(text)) << testing::PrintToString(text);
    }
    text.append(40, 'b');
    ASSERT_EQ(avx2(text), is_valid_utf8_scalar(text)) << testing::PrintToString(text);
  }
};

TEST_F(Utf8Avx2, AgreesWithTheScalarCheckOnEveryPairOfBytes) {
  char pair[2];
  std::size_t valid = 0;
  for (unsigned a = 0; a < 256; ++a) {
    for (unsigned b = 0; b < 256; ++b) {
      pair[0] = static_cast<char>(a);
      pair[1] = static_cast<char>(b);
      // At a block's start, across its lanes' edge, across two blocks, in a tail of each
      // length, at the text's end.
      for (const std::size_t before : {0u, 15u, 31u, 32u, 33u, 47u, 62u, 63u})
        ASSERT_NO_FATAL_FAILURE(expect_agreement({pair, 2}, before));
      valid += is_valid_utf8_scalar({pair, 2});
    }
  }
  // 128 * 128 ASCII pairs and the 1,920 two-byte sequences (U+0080 to U+07FF).
  EXPECT_EQ(valid, 128u * 128u + 1920u);
}

TEST_F(Utf8Avx2, AgreesWithTheScalarCheckOnLongerSequences) {
  // Every lead and every second byte, a third and fourth of each high nibble (and low
  // nibbles varied), so every class of each byte's place in a sequence of three or four.
  std::vector<unsigned char> later;
  for (unsigned high = 0; high < 16; ++high)
    later.push_back(static_cast<unsigned char>(high * 16 + (high * 7) % 16));
  later.push_back(0x80);
  later.push_back(0xBF);
  char seq[4];
  for (unsigned a = 0xC0; a < 256; ++a) {
    for (unsigned b = 0; b < 256; ++b) {
      for (const unsigned char c : later) {
        seq[0] = static_cast<char>(a);
        seq[1] = static_cast<char>(b);
        seq[2] = static_cast<char>(c);
        ASSERT_NO_FATAL_FAILURE(expect_agreement({seq, 3}, 30));
        if (a < 0xF0) continue;
        for (const unsigned char d : later) {
          seq[3] = static_cast<char>(d);
          ASSERT_NO_FATAL_FAILURE(expect_agreement({seq, 4}, 29));
        }
      }
    }
  }
}

TEST_F(Utf8Avx2, AgreesWithTheScalarCheckOnRandomText) {
  // Text of ASCII and of valid and ill-formed sequences, 32 to 200 bytes long.
  const std::vector<std::string> pieces = {
      "a", "~:k", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
      "\xed\x9f\xbf", "\xee\x80\x80", "\xe8\xa9\xb9", "\x80", "\xbf", "\xc0\x80", "\xc1\xbf",
      "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
      "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xf8\x88\x80\x80\x80"};
  std::mt19937 rng(20261207);
  std::size_t valid = 0, checked = 0;
  for (int round = 0; round < 60'000; ++round) {
    const std::size_t target = 32 + rng() % 169;
    // Mostly valid text, so that a late error in a long one is tested too.
    const bool clean = rng() % 2 == 0;
    std::string text;
    while (text.size() < target) {
      const std::size_t k = rng() % pieces.size();
      if (clean && k >= 9) continue;
      text += pieces[k];
    }
    const bool want = is_valid_utf8_scalar(text);
    ASSERT_EQ(avx2(text), want) << testing::PrintToString(text);
    valid += want;
    ++checked;
  }
  // Both answers were met often.
  EXPECT_GT(valid, checked / 3);
  EXPECT_LT(valid, checked);
}

TEST_F(Utf8Avx2, ReadsNoByteOutsideTheText) {
  // Each text ends right before a page that cannot be read, or starts right after one.
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* const map =
      mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* const base = static_cast<char*>(map);
  ASSERT_EQ(mprotect(base, page, PROT_NONE), 0);
  ASSERT_EQ(mprotect(base + 2 * page, page, PROT_NONE), 0);
  for (std::size_t size = 32; size <= 100; ++size) {
    for (char* const text : {base + 2 * page - size, base + page}) {
      for (std::size_t i = 0; i < size; ++i) text[i] = "\xe8\xa9\xb9"[i % 3];
      EXPECT_EQ(avx2({text, size}), size % 3 == 0) << size;
    }
  }
  munmap(map, 3 * page);
}
#endif

// ---- numbers: formatting -----------------------------------------------------------------------

TEST(FormatDoubleJson, AlwaysReadsAsADouble) {
  EXPECT_EQ(json(0.0), "0.0");
  EXPECT_EQ(json(-0.0), "-0.0");
  EXPECT_EQ(json(1.0), "1.0");
  EXPECT_EQ(json(-42.0), "-42.0");
  EXPECT_EQ(json(1.5), "1.5");
  EXPECT_EQ(json(0.1), "0.1");
  EXPECT_EQ(json(123456789.0), "123456789.0");
  EXPECT_EQ(json(1e22), "1e+22");
  EXPECT_EQ(json(1e-7), "1e-07");
  EXPECT_EQ(json(5e-324), "5e-324");
  EXPECT_EQ(json(DBL_MAX), "1.7976931348623157e+308");
}

TEST(FormatDoubleJson, RoundTripsBitForBit) {
  for (const double d : sample_doubles()) {
    const std::string text = json(d);
    ASSERT_NE(text.find_first_of(".eE"), std::string::npos) << text;
    const auto back = parse_double(text);
    ASSERT_TRUE(back.has_value()) << text;
    ASSERT_EQ(bits(*back), bits(d)) << text;
  }
}

// What the general path writes for a non-integral double: std::to_chars's shortest text.
std::string to_chars_text(double d) {
  char buf[64];
  return {buf, std::to_chars(buf, buf + sizeof buf, d).ptr};
}

TEST(FormatDoubleJson, DecimalFastPathWritesWhatToCharsWrites) {
  // Values of the fast path's range [0.001, 1e6) with up to 7 decimals (all of which it takes),
  // others with more digits (float32 roundings, random bits: all of which it must refuse), and
  // the edges of the range; each must come out as to_chars writes it.
  std::mt19937_64 rng(11);
  std::vector<double> values = {0.001, 0.0011, 0.00099999, 999999.9999999, 999999.5, 1e6 - 1e-7,
                                0.1, 0.2, 0.3, 0.7, 1.1, 2.675, 179.9999999, 0.0123456,
                                std::nextafter(0.001, 0.0), std::nextafter(0.001, 1.0),
                                std::nextafter(1e6, 0.0), std::nextafter(0.1, 1.0)};
  for (int i = 0; i < 100000; ++i) {
    const int k = static_cast<int>(rng() % 8);
    const double scale = std::pow(10.0, k);
    const double m = static_cast<double>(rng() % static_cast<std::uint64_t>(1e6 * scale));
    values.push_back(m / scale);
    values.push_back(static_cast<double>(static_cast<float>(m / scale)));
    const double r = std::bit_cast<double>(rng());
    if (std::isfinite(r)) values.push_back(r);
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 60)));
  }
  for (double d : values)
    for (const double v : {d, -d}) {
      if (v == std::trunc(v)) continue;  // integral values take their own form
      ASSERT_EQ(json(v), to_chars_text(v)) << std::hexfloat << v;
    }
}

TEST(FormatDoubleJava, FollowsDoubleToStringLayout) {
  EXPECT_EQ(java(1.0), "1.0");
  EXPECT_EQ(java(2.0), "2.0");
  EXPECT_EQ(java(-5.0), "-5.0");
  EXPECT_EQ(java(100.0), "100.0");
  EXPECT_EQ(java(0.5), "0.5");
  EXPECT_EQ(java(0.1), "0.1");
  EXPECT_EQ(java(-3.14159), "-3.14159");
  EXPECT_EQ(java(12345.678), "12345.678");
  EXPECT_EQ(java(9999999.0), "9999999.0");
  EXPECT_EQ(java(1e7), "1.0E7");
  EXPECT_EQ(java(12345678.9), "1.23456789E7");
  EXPECT_EQ(java(0.001), "0.001");
  EXPECT_EQ(java(0.00123), "0.00123");
  EXPECT_EQ(java(0.0001), "1.0E-4");
  EXPECT_EQ(java(4.0E11), "4.0E11");
  EXPECT_EQ(java(2.998E8), "2.998E8");
  EXPECT_EQ(java(6.626E-34), "6.626E-34");
  EXPECT_EQ(java(1e23), "1.0E23");
  EXPECT_EQ(java(2e23), "2.0E23");
  EXPECT_EQ(java(-1e-10), "-1.0E-10");
  EXPECT_EQ(java(DBL_MAX), "1.7976931348623157E308");
  EXPECT_EQ(java(DBL_MIN), "2.2250738585072014E-308");
}

TEST(FormatDoubleJava, PicksTheClosestTwoDigitsWhenOneWouldDo) {
  // Java's Double.MIN_VALUE prints as 4.9E-324: the true value is 4.94...E-324.
  EXPECT_EQ(java(5e-324), "4.9E-324");
  EXPECT_EQ(java(1e-323), "9.9E-324");
  EXPECT_EQ(java(2e-323), "2.0E-323");
}

TEST(FormatDoubleJava, PrintsSpecialValuesAsJavaDoes) {
  EXPECT_EQ(java(0.0), "0.0");
  EXPECT_EQ(java(-0.0), "-0.0");
  EXPECT_EQ(java(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(java(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(java(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(FormatDoubleJava, RoundTripsBitForBit) {
  for (const double d : sample_doubles()) {
    const std::string text = java(d);
    const auto back = parse_double(text);
    ASSERT_TRUE(back.has_value()) << text;
    ASSERT_EQ(bits(*back), bits(d)) << text;
    // Plain notation exactly for 1e-3 <= |d| < 1e7, with a digit after the point either way.
    const double mag = std::fabs(d);
    const bool plain = mag >= 1e-3 && mag < 1e7;
    ASSERT_EQ(text.find('E') == std::string::npos, plain || d == 0) << text;
    const std::size_t point = text.find('.');
    ASSERT_NE(point, std::string::npos) << text;
    ASSERT_TRUE(point + 1 < text.size() && text[point + 1] >= '0' && text[point + 1] <= '9')
        << text;
  }
}

// ---- numbers: parsing --------------------------------------------------------------------------

TEST(ParseDouble, ReadsJsonAndJavaForms) {
  EXPECT_EQ(parse_double("0"), 0.0);
  EXPECT_EQ(parse_double("42"), 42.0);
  EXPECT_EQ(parse_double("-2.5"), -2.5);
  EXPECT_EQ(parse_double("1."), 1.0);
  EXPECT_EQ(parse_double(".5"), 0.5);
  EXPECT_EQ(parse_double("-.5"), -0.5);
  EXPECT_EQ(parse_double("1e5"), 1e5);
  EXPECT_EQ(parse_double("1E+5"), 1e5);
  EXPECT_EQ(parse_double("1.e2"), 100.0);
  EXPECT_EQ(parse_double("2.5e-3"), 2.5e-3);
  EXPECT_EQ(parse_double("4.0E11"), 4e11);
  EXPECT_EQ(parse_double("007"), 7.0);
  const auto neg_zero = parse_double("-0.0");
  ASSERT_TRUE(neg_zero);
  EXPECT_TRUE(std::signbit(*neg_zero));
}

TEST(ParseDouble, RoundsCorrectly) {
  EXPECT_EQ(parse_double("0.1000000000000000055511151231257827"), 0.1);
  EXPECT_EQ(parse_double("9007199254740993"), 9007199254740992.0);  // tie goes to even
  EXPECT_EQ(parse_double("9007199254740995"), 9007199254740996.0);
  EXPECT_EQ(parse_double("1.7976931348623157e308"), DBL_MAX);
  EXPECT_EQ(parse_double("1.7976931348623158e308"), DBL_MAX);
  EXPECT_EQ(parse_double("4.9E-324"), 5e-324);
  EXPECT_EQ(parse_double("2.4703282292062328e-324"), 5e-324);
  EXPECT_EQ(parse_double("2.2250738585072011e-308"), 2.225073858507201e-308);
}

TEST(ParseDouble, SaturatesOnOverflowAndUnderflow) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(parse_double("1e400"), inf);
  EXPECT_EQ(parse_double("-1e400"), -inf);
  EXPECT_EQ(parse_double("1.7976931348623159e308"), inf);
  EXPECT_EQ(parse_double("1e99999999999999999999"), inf);
  EXPECT_EQ(parse_double("123456789e999"), inf);
  const auto tiny = parse_double("1e-400");
  ASSERT_TRUE(tiny);
  EXPECT_EQ(bits(*tiny), bits(0.0));
  const auto neg_tiny = parse_double("-1e-400");
  ASSERT_TRUE(neg_tiny);
  EXPECT_EQ(bits(*neg_tiny), bits(-0.0));
  EXPECT_EQ(parse_double("2.4703282292062327e-324"), 0.0);
  EXPECT_EQ(parse_double("0.000001e-99999999999999999999"), 0.0);
  EXPECT_EQ(parse_double("0e99999"), 0.0);
}

TEST(ParseDouble, RejectsBadSyntax) {
  for (const char* text : {"", "-", "+1", ".", "-.", "e5", "1e", "1e+", "1e-", "1.5x", " 1", "1 ",
                           "1e5.5", "--1", "1..2", "inf", "-inf", "nan", "NaN", "Infinity",
                           "-Infinity", "0x1p3", "0x10", "1,5", "1_000"})
    EXPECT_EQ(parse_double(text), std::nullopt) << text;
}

TEST(ParseInt64, ReadsTheWholeRange) {
  EXPECT_EQ(parse_int64("0"), 0);
  EXPECT_EQ(parse_int64("-0"), 0);
  EXPECT_EQ(parse_int64("42"), 42);
  EXPECT_EQ(parse_int64("-42"), -42);
  EXPECT_EQ(parse_int64("007"), 7);
  EXPECT_EQ(parse_int64("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_int64("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
}

// parse_uuid looks each digit up in a table and tests for a bad one once, at the end: every
// place takes every byte, and only hex digits in the digit places (dashes in the others) pass,
// with the value a digit-by-digit reading gives.
TEST(Uuid, EveryByteAtEveryPlace) {
  const std::string good = "0123abcd-EF45-6789-aBcD-ef0123456789";
  for (std::size_t i = 0; i < good.size(); ++i)
    for (int b = 0; b < 256; ++b) {
      std::string text = good;
      text[i] = static_cast<char>(b);
      const bool dash_place = i == 8 || i == 13 || i == 18 || i == 23;
      const bool hex = std::isxdigit(b) != 0;
      if (dash_place ? b != '-' : !hex) {
        EXPECT_EQ(parse_uuid(text), std::nullopt) << i << " " << b;
        continue;
      }
      Uuid expected;
      int nibbles = 0;
      for (std::size_t j = 0; j < text.size(); ++j) {
        if (j == 8 || j == 13 || j == 18 || j == 23) continue;
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[j])));
        const std::uint64_t v = static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
        std::uint64_t& half = nibbles++ < 16 ? expected.hi : expected.lo;
        half = (half << 4) | v;
      }
      EXPECT_EQ(parse_uuid(text), expected) << text;
    }
}

TEST(ParseInt64, RejectsOverflowAndBadSyntax) {
  for (const char* text : {"", "-", "+1", "+", " 1", "1 ", "1a", "1.0", "1e3", "--1", "0x10",
                           "9223372036854775808", "-9223372036854775809",
                           "99999999999999999999999"})
    EXPECT_EQ(parse_int64(text), std::nullopt) << text;
}

TEST(IntegerText, IsOptionalMinusThenDigits) {
  for (const char* text : {"0", "7", "-12", "007", "123456789012345678901234567890"})
    EXPECT_TRUE(is_integer_text(text)) << text;
  for (const char* text : {"", "-", "+1", "1.0", "1e3", " 1", "1 ", "--1", "\xef\xbc\x91", "/",
                           ":", "12/3", "12:3", "-:", "1-2", "12\x80", "\xb0"})
    EXPECT_FALSE(is_integer_text(text)) << text;
}

// is_integer_text tests 8 chars a step and parse_int64 reads up to 18 digits in one pass,
// each with one verdict at the end: every length, every byte at every place, against
// from_chars and a char-by-char test.
TEST(IntegerText, EveryByteAtEveryPlaceOfEveryLength) {
  for (std::size_t n = 1; n <= 41; ++n)
    for (const bool negative : {false, true}) {
      std::string good = negative ? "-" : "";
      for (std::size_t i = 0; i < n; ++i) good += static_cast<char>('0' + (i * 7 + n) % 10);
      for (std::size_t at = 0; at < good.size(); ++at)
        for (int b = 0; b < 256; ++b) {
          std::string text = good;
          text[at] = static_cast<char>(b);
          const std::string_view body = std::string_view(text).substr(text.front() == '-' ? 1 : 0);
          const bool expected = !body.empty() && std::all_of(body.begin(), body.end(), [](char c) {
            return c >= '0' && c <= '9';
          });
          ASSERT_EQ(is_integer_text(text), expected) << text;
          std::int64_t v = 0;
          const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
          const std::optional<std::int64_t> reference =
              r.ec == std::errc{} && r.ptr == text.data() + text.size() && text.front() != '+'
                  ? std::optional<std::int64_t>(v)
                  : std::nullopt;
          ASSERT_EQ(parse_int64(text), reference) << text;
        }
    }
}

TEST(DecimalText, FollowsBigDecimalSyntax) {
  for (const char* text : {"0", "-1", "+1", "1.5", ".5", "1.", "-.5", "00.00", "1E3", "1e+3",
                           "-1.5E-10", "123456789012345678901234567890.5",
                           "1e2147483647", "1e-2147483647"})
    EXPECT_TRUE(is_decimal_text(text)) << text;
  for (const char* text : {"", ".", "+", "-", "+.", "e3", ".e3", "1e", "1e+", "1e-", "1.5.2",
                           "1 ", " 1", "1_0", "NaN", "Infinity", "0x10", "1.5M", "1e3.0",
                           "1e2147483648", "0.5e-2147483647"})
    EXPECT_FALSE(is_decimal_text(text)) << text;
}

}  // namespace
}  // namespace transit::detail
