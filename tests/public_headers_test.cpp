// SPDX-License-Identifier: Apache-2.0
// What including the public headers costs a user's file. <filesystem> (with <locale>,
// <codecvt>, <iomanip>) was 0.2 s of a small file's 1.6 s compile (performance-log.md, "What
// `<filesystem>` in the public headers costs"), so the headers know a path by its shape and
// leave the include to the user who has one. The transit headers come first here, before
// anything else could bring <filesystem> in.
#include <transit/transit.h>
#include <transit/typed.h>

namespace {
#if defined(__GLIBCXX__) && defined(_GLIBCXX_FILESYSTEM)
constexpr bool kFilesystemIncluded = true;
#else
constexpr bool kFilesystemIncluded = false;
#endif
#if defined(__GLIBCXX__)
constexpr bool kKnowsLibstdcxx = true;
#else
constexpr bool kKnowsLibstdcxx = false;
#endif
}  // namespace

#include <gtest/gtest.h>

#include <string>

TEST(PublicHeaders, DoNotIncludeFilesystem) {
  if (!kKnowsLibstdcxx) GTEST_SKIP() << "checks libstdc++'s include guard";
  EXPECT_FALSE(kFilesystemIncluded);
}

TEST(PublicHeaders, AStringIsNoPath) {
  static_assert(!transit::detail::FilesystemPath<std::string>);
  static_assert(!transit::detail::FilesystemPath<std::u8string>);
  EXPECT_EQ(transit::write(std::u8string(u8"a/b"), transit::Encoding::json), "[\"~#'\",\"a/b\"]");
}
