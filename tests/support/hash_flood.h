// SPDX-License-Identifier: Apache-2.0
// Hash-flooding inputs, made as an attacker would against the hashes transit-cpp used before
// they were keyed: integers and doubles went through the splitmix64 finaliser (an invertible
// xor-shift and odd-multiply chain), long strings through libstdc++'s fixed-seed murmur hash.
// Both are inverted here, so the inputs are exactly the ones that once sent every element to
// one bucket. Shared by the hostile tests and the benchmarks.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace transit::test {

inline constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// The inverse of an odd number modulo 2^64 (Newton's iteration doubles the good bits).
constexpr std::uint64_t inverse_odd(std::uint64_t m) {
  std::uint64_t x = m;
  for (int i = 0; i < 6; ++i) x *= 2 - m * x;
  return x;
}

// x ^ (x >> s) undone.
constexpr std::uint64_t unxorshift(std::uint64_t y, int s) {
  std::uint64_t x = y;
  for (int i = 0; i < 64 / s + 1; ++i) x = y ^ (x >> s);
  return x;
}

// The old integer hash (splitmix64's finaliser) and its inverse.
constexpr std::uint64_t old_mix(std::uint64_t x) {
  x += kGolden;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
constexpr std::uint64_t old_unmix(std::uint64_t h) {
  std::uint64_t x = unxorshift(h, 31);
  x = unxorshift(x * inverse_odd(0x94d049bb133111ebULL), 27);
  x = unxorshift(x * inverse_odd(0xbf58476d1ce4e5b9ULL), 30);
  return x - kGolden;
}
static_assert(old_unmix(old_mix(12345)) == 12345);

// The old way of folding a kind into a hash: combine(seed, h) = mix(seed ^ (h + ...)).
constexpr std::uint64_t old_combine(std::uint64_t seed, std::uint64_t h) {
  return old_mix(seed ^ (h + kGolden + (seed << 6) + (seed >> 2)));
}
constexpr std::uint64_t old_uncombine(std::uint64_t seed, std::uint64_t target) {
  return (old_unmix(target) ^ seed) - kGolden - (seed << 6) - (seed >> 2);
}

/// `n` distinct integers whose old hashes are k << 32 for k = 1..n: every one of them in the
/// same slot of any table of up to 2^32 slots.
inline std::vector<std::int64_t> colliding_ints(std::size_t n) {
  std::vector<std::int64_t> out;
  out.reserve(n);
  for (std::uint64_t k = 1; k <= n; ++k) out.push_back(static_cast<std::int64_t>(old_unmix(k << 32)));
  return out;
}

/// `n` distinct finite doubles whose old hashes (kind 4 folded in) are k << 32.
inline std::vector<double> colliding_doubles(std::size_t n) {
  std::vector<double> out;
  for (std::uint64_t k = 1; out.size() < n; ++k) {
    const std::uint64_t bits = old_unmix(old_uncombine(4, k << 32));
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (d == d && d != 0 && d - d == 0) out.push_back(d);  // finite, not NaN, not +-0
  }
  return out;
}

/// `n` sets of 9 distinct integers whose old set hashes (the sum of the element hashes) are all
/// equal: 8 free elements, the ninth solved for.
inline std::vector<std::vector<std::int64_t>> colliding_int_sets(std::size_t n) {
  std::vector<std::vector<std::int64_t>> out;
  std::uint64_t next = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> set;
    std::uint64_t sum = 0;
    for (int j = 0; j < 8; ++j) {
      const std::uint64_t x = next++ * 0x100000001ULL;
      set.push_back(static_cast<std::int64_t>(x));
      sum += old_mix(x);
    }
    set.push_back(static_cast<std::int64_t>(old_unmix(0x5eed - sum)));
    out.push_back(std::move(set));
  }
  return out;
}

// libstdc++'s std::hash<std::string_view> on 64-bit targets (murmur 2 with a fixed seed).
constexpr std::uint64_t kMurmurMul = 0xc6a4a7935bd1e995ULL;
constexpr std::uint64_t kMurmurSeed = 0xc70f6907ULL;
constexpr std::uint64_t shift_mix(std::uint64_t v) { return v ^ (v >> 47); }

/// `n` distinct 16-byte strings with one std::hash<std::string_view> value: the first 8 bytes
/// count, the last 8 are solved for.
inline std::vector<std::string> colliding_strings(std::size_t n) {
  constexpr std::uint64_t inv = inverse_odd(kMurmurMul);
  constexpr std::uint64_t target = 0x0123456789abcdefULL;
  // Undo the finalisation, then the last block's multiply.
  const std::uint64_t h2 = shift_mix(shift_mix(target) * inv);
  std::vector<std::string> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    // Room for any 64-bit count (g++ -Wformat-truncation); n stays far below 2^32, so the
    // first 8 bytes are all of it.
    char prefix[17];
    std::snprintf(prefix, sizeof prefix, "%08llx", static_cast<unsigned long long>(i));
    std::uint64_t first;
    std::memcpy(&first, prefix, 8);
    const std::uint64_t h1 =
        ((kMurmurSeed ^ (16 * kMurmurMul)) ^ (shift_mix(first * kMurmurMul) * kMurmurMul)) * kMurmurMul;
    const std::uint64_t data = (h2 * inv) ^ h1;  // shift_mix(block * mul) * mul
    const std::uint64_t block = shift_mix(data * inv) * inv;
    std::string s(prefix, 8);
    s.append(reinterpret_cast<const char*>(&block), 8);
    out.push_back(std::move(s));
  }
  return out;
}

/// The JSON text of a Transit set of integers, big ones as "~i" strings as a writer sends them.
inline std::string json_int_set(const std::vector<std::int64_t>& ints) {
  std::string out = "[\"~#set\",[";
  for (std::size_t i = 0; i < ints.size(); ++i) {
    if (i) out += ',';
    out += "\"~i" + std::to_string(ints[i]) + "\"";
  }
  return out + "]]";
}

}  // namespace transit::test
