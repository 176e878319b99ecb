// SPDX-License-Identifier: Apache-2.0
// Which sanitizer the test binary is built with. Tests that measure the heap or limit the
// address space need to know: the sanitizers' allocators serve malloc and reserve their own.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define TRANSIT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRANSIT_TEST_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define TRANSIT_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TRANSIT_TEST_TSAN 1
#endif
#endif

namespace transit::test {
#ifdef TRANSIT_TEST_ASAN
inline constexpr bool kAsan = true;
#else
inline constexpr bool kAsan = false;
#endif
}  // namespace transit::test
