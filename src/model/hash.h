// SPDX-License-Identifier: Apache-2.0
// Keyed hashing. Every Value hash and the write cache's string hash mix their input with a key
// drawn at random once per process, so a peer that cannot see the key cannot choose values
// whose hashes share a bucket (hash flooding). The mixing step is a folded multiply (the low and
// high halves of a 64x64->128-bit product, xored), which is not invertible even with the key
// known, unlike the xor-shift and odd-multiply finaliser it replaces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace transit::detail {

/// Four random words: what makes this process's hashes unpredictable to a peer.
struct HashKey {
  std::uint64_t k0, k1, k2, k3;
};

/// This process's key, drawn from the operating system's random source on first use.
const HashKey& process_hash_key() noexcept;

__extension__ using Uint128 = unsigned __int128;

inline std::uint64_t fold_mul(std::uint64_t a, std::uint64_t b) noexcept {
  const Uint128 p = static_cast<Uint128>(a) * b;
  return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
}

/// A keyed hash of one word.
inline std::uint64_t keyed_word(const HashKey& key, std::uint64_t x) noexcept {
  return fold_mul(fold_mul(x ^ key.k0, key.k1) ^ key.k2, key.k3);
}

/// A keyed hash of two words.
inline std::uint64_t keyed_pair(const HashKey& key, std::uint64_t a, std::uint64_t b) noexcept {
  return fold_mul(fold_mul(a ^ key.k0, b ^ key.k1) ^ key.k2, key.k3);
}

/// keyed_bytes, always inline: the write cache's text hash (KeyedCacheHash::text), where GCC
/// left keyed_bytes out of line in the JSON writer's miss, a call and frame a cached text.
[[gnu::always_inline]] inline std::uint64_t keyed_bytes_inline(const HashKey& key, const void* data,
                                                               std::size_t n) noexcept {
  const char* p = static_cast<const char*>(data);
  auto load64 = [](const char* q) {
    std::uint64_t w;
    std::memcpy(&w, q, 8);
    return w;
  };
  auto load32 = [](const char* q) {
    std::uint32_t w;
    std::memcpy(&w, q, 4);
    return std::uint64_t{w};
  };
  std::uint64_t h = fold_mul(n ^ key.k2, key.k1);
  std::uint64_t a = 0, b = 0;
  if (n > 16) {
    const char* const end = p + n;
    for (; end - p > 16; p += 16) h = fold_mul(load64(p) ^ key.k0, load64(p + 8) ^ h);
    a = load64(end - 16);
    b = load64(end - 8);
  } else if (n >= 8) {
    a = load64(p);
    b = load64(p + n - 8);
  } else if (n >= 4) {
    a = load32(p);
    b = load32(p + n - 4);
  } else if (n > 0) {
    const auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])}; };
    a = byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1);
  }
  return fold_mul(fold_mul(a ^ key.k0, b ^ h) ^ key.k3, key.k1 ^ n);
}

/// A keyed hash of `n` bytes: 16 bytes per folded multiply, chained, the last 16 read again
/// (overlapping) so that every length takes the same path.
inline std::uint64_t keyed_bytes(const HashKey& key, const void* data, std::size_t n) noexcept {
  return keyed_bytes_inline(key, data, n);
}

}  // namespace transit::detail
