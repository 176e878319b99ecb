// SPDX-License-Identifier: Apache-2.0
// Internal: whether a parser that reads a fixed number of bytes past a text's end may do so
// in place, or needs the text copied into a padded buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define TRANSIT_HAVE_MEMCHECK_H 1
#endif

namespace transit::detail::json {

/// Whether this build runs under AddressSanitizer, which reports any read past an allocation.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

/// Whether the program runs under valgrind's memcheck: natively a few register moves that
/// answer no; under callgrind no too (its counts then see what the program does natively).
inline bool under_memcheck() noexcept {
#ifdef TRANSIT_HAVE_MEMCHECK_H
  static const char probe = 0;
  char vbits[1];
  return VALGRIND_GET_VBITS(&probe, vbits, 1) != 0;  // 0 unless memcheck answers
#else
  return false;
#endif
}

/// Whether the `padding` bytes after `text[0, size)` may be read (their content is never
/// used): true when they lie in the 4 KiB block that holds the text's last byte, which is
/// readable, and memory protection never splits such a block (every page size is a multiple of
/// 4 KiB). False for an empty text, under AddressSanitizer and under memcheck (both report a
/// read past an allocation, and memcheck a branch on undefined bytes); the caller then copies.
inline bool padding_readable(const char* text, std::size_t size, std::size_t padding) noexcept {
  if (kAddressSanitizer || size == 0) return false;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(text) + (size - 1);
  return (last >> 12) == ((last + padding) >> 12) && !under_memcheck();
}

}  // namespace transit::detail::json
