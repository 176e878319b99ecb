// SPDX-License-Identifier: Apache-2.0
// The std:: types a C++ user has, written as a peer expects them and read back: paths and
// strings of other character types as text, multi-key containers with nothing lost, monostate
// as nil, byte arrays as bytes, and the reads that did not compile (or failed only at run
// time, where they cannot work at all) put right. docs/typed-data.md lists the wire forms.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <valarray>
#include <variant>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

// Written, then read back typed, equal, in every encoding; the JSON text.
template <class T>
std::string round_trip(const T& v) {
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(v, e);
    // EXPECT_TRUE: the installed GoogleTest cannot print a std::u8string.
    EXPECT_TRUE(transit::read<T>(bytes, e) == v) << transit::encoding_name(e) << ": " << bytes;
  }
  return transit::write(v, Encoding::json);
}

template <class T>
std::string write_error(const T& v) {
  try {
    return "wrote " + transit::write(v, Encoding::json);
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    return e.what();
  }
}

template <class T>
std::string read_error(std::string_view json) {
  try {
    (void)transit::read<T>(json, Encoding::json);
    return "read";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), Errc::type_mismatch) << e.what();
    return e.what();
  }
}

// The message of a type_mismatch of a quoted JSON scalar (at byte 7): "expected <what>".
std::string quoted_mismatch(std::string_view what) {
  return "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected " + std::string(what);
}

// A path is text to every peer. It was a range of paths, so the writer recursed into its
// parts until the depth limit (too_deep), and a read of a string was a type_mismatch.
TEST(TypedStd, APathIsItsGenericTextInUtf8) {
  namespace fs = std::filesystem;
  // Known by its shape, so that the headers need not include <filesystem>.
  static_assert(transit::detail::FilesystemPath<fs::path>);
  EXPECT_EQ(round_trip(fs::path("/tmp/x y/caf\xc3\xa9.txt")), "[\"~#'\",\"/tmp/x y/caf\xc3\xa9.txt\"]");
  EXPECT_EQ(round_trip(fs::path()), "[\"~#'\",\"\"]");
  EXPECT_EQ(round_trip(std::map<fs::path, int>{{"a/b", 1}, {"c", 2}}),
            "[\"^ \",\"a/b\",1,\"c\",2]");
  EXPECT_EQ(round_trip(std::vector<fs::path>{"x", "~y"}), "[\"x\",\"~~y\"]");
  // POSIX allows any bytes in a path; a peer's strings are Unicode.
  EXPECT_EQ(write_error(fs::path(std::string("a\xff"))),
            "transit: invalid_argument: std::filesystem::path is not Unicode text: ill-formed "
            "UTF-8");
  EXPECT_EQ(read_error<fs::path>("[\"~#'\",1]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected "
            "std::filesystem::path, got integer 1");
}

// Strings of char8_t, char16_t, char32_t and wchar_t are text: they were arrays of integers
// (std::wstring(L"hi") was [104,105]), a read of a string was a type_mismatch, and a
// std::u8string did not compile.
TEST(TypedStd, StringsOfOtherCharacterTypesAreText) {
  const std::string text = "[\"~#'\",\"h\xc3\xa9\xf0\x9f\x98\x80\"]";  // hé😀
  EXPECT_EQ(round_trip(std::u16string(u"h\u00e9\U0001F600")), text);
  EXPECT_EQ(round_trip(std::u32string(U"h\u00e9\U0001F600")), text);
  EXPECT_EQ(round_trip(std::wstring(L"h\u00e9\U0001F600")), text);
  EXPECT_EQ(round_trip(std::u8string(u8"h\u00e9\U0001F600")), text);
  EXPECT_EQ(transit::write(std::u16string_view(u"hi")), "[\"~#'\",\"hi\"]");
  EXPECT_EQ(transit::write(std::wstring_view(L"hi")), "[\"~#'\",\"hi\"]");
  EXPECT_EQ(transit::write(u"hi"), "[\"~#'\",\"hi\"]");
  EXPECT_EQ(transit::write(std::u8string_view(u8"hi")), "[\"~#'\",\"hi\"]");
  EXPECT_EQ(round_trip(std::map<std::u16string, std::u32string>{{u"k", U"v"}}),
            "[\"^ \",\"k\",\"v\"]");
  EXPECT_EQ(round_trip(std::u16string(u"~tilde")), "[\"~#'\",\"~~tilde\"]");
  // What is not Unicode is an error naming the type, not a replacement character.
  EXPECT_EQ(write_error(std::u16string(1, char16_t(0xD83D)) + u"x"),
            "transit: invalid_argument: std::u16string is not Unicode text: a lone surrogate at "
            "code unit 0");
  EXPECT_EQ(write_error(u"x" + std::u16string(1, char16_t(0xD83D))),
            "transit: invalid_argument: std::u16string is not Unicode text: a lone surrogate at "
            "code unit 1");
  EXPECT_EQ(write_error(std::u16string(1, char16_t(0xDE00))),
            "transit: invalid_argument: std::u16string is not Unicode text: a lone surrogate at "
            "code unit 0");
  EXPECT_EQ(write_error(std::u32string(U"ab") + char32_t(0x110000)),
            "transit: invalid_argument: std::u32string is not Unicode text: a code point past "
            "U+10FFFF at code unit 2");
  EXPECT_EQ(write_error(std::u32string(1, char32_t(0xDFFF))),
            "transit: invalid_argument: std::u32string is not Unicode text: a surrogate code "
            "point at code unit 0");
  EXPECT_EQ(write_error(std::u8string(1, char8_t(0xC0)) + u8"x"),
            "transit: invalid_argument: std::u8string is not Unicode text: ill-formed UTF-8");
  if constexpr (sizeof(wchar_t) == 4) {
    EXPECT_EQ(write_error(std::wstring(1, wchar_t(-1))),
              "transit: invalid_argument: std::wstring is not Unicode text: a code point past "
              "U+10FFFF at code unit 0");
  }
  EXPECT_EQ(read_error<std::u16string>("[\"~#'\",1]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected std::u16string, "
            "got integer 1");
  // A Value's string is made by hand, unchecked: binding one that is not UTF-8 says so.
  try {
    (void)transit::from_value<std::u32string>(Value::string("a\xff"));
    ADD_FAILURE() << "bound";
  } catch (const transit::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "transit: type_mismatch in $: expected std::u32string, got string \"a\xff\" (not "
              "valid UTF-8)");
  }
}

// char16_t, char32_t and wchar_t alone are Transit characters (`~c`), as transit-java writes a
// Java char and transit-clj `\a`: they were integers, so a Java or Clojure peer read U'a' as the
// Long 97. A value that is no character is an error saying why, not an integer a peer then
// takes for one.
TEST(TypedStd, WideCharactersAreTransitCharacters) {
  EXPECT_EQ(round_trip(U'a'), "[\"~#'\",\"~ca\"]");
  EXPECT_EQ(round_trip(u'\u00e9'), "[\"~#'\",\"~c\xc3\xa9\"]");
  EXPECT_EQ(round_trip(U'\U0001F600'), "[\"~#'\",\"~c\xf0\x9f\x98\x80\"]");
  EXPECT_EQ(round_trip(L'~'), "[\"~#'\",\"~c~\"]");
  EXPECT_EQ(round_trip(std::vector<char16_t>{u'A', u'^', u' '}), "[\"~cA\",\"~c^\",\"~c \"]");
  // In every encoding the bytes of Value::character (MessagePack: the same `~c` string).
  for (Encoding e : kAll) {
    EXPECT_EQ(transit::write(U'\u4e2d', e), transit::write(Value::character(U'\u4e2d'), e));
    EXPECT_EQ(transit::read(transit::write(u'x', e), e), Value::character(U'x'));
  }
  // A Value made of one is the same character: write(Value::array({u'a'})) wrote 97.
  for (Encoding e : kAll) {
    EXPECT_EQ(transit::write(Value::array({u'a'}), e), transit::write(std::vector<char16_t>{u'a'}, e));
    EXPECT_EQ(transit::write(Value::array({U'\U0001F600'}), e),
              transit::write(std::vector<char32_t>{U'\U0001F600'}, e));
    EXPECT_EQ(transit::write(Value::array({L'~'}), e), transit::write(std::vector<wchar_t>{L'~'}, e));
  }
  // Map keys are `~c` strings, so a JSON map keeps string keys.
  EXPECT_EQ(round_trip(std::map<char32_t, int>{{U'a', 1}, {U'\u00e9', 2}}),
            "[\"^ \",\"~ca\",1,\"~c\xc3\xa9\",2]");
  EXPECT_EQ(round_trip(std::map<char16_t, std::set<wchar_t>>{{u'k', {L'v'}}}),
            "[\"^ \",\"~ck\",[\"~#set\",[\"~cv\"]]]");
  // An enum keeps its integer, whatever its underlying type.
  enum class Glyph : char32_t { a = U'a' };
  EXPECT_EQ(transit::write(Glyph::a), "[\"~#'\",97]");
  EXPECT_EQ(transit::read<Glyph>("[\"~#'\",97]"), Glyph::a);
  EXPECT_EQ(transit::from_value<char32_t>(Value::character(U'a')), U'a');
  // Not a character: which, and why.
  EXPECT_EQ(write_error(char16_t(0xD83D)),
            "transit: invalid_argument: char16_t 0xD83D is not a Unicode character: a lone "
            "surrogate");
  EXPECT_EQ(write_error(std::vector<char32_t>{U'a', char32_t(0xDFFF)}),
            "transit: invalid_argument: char32_t 0xDFFF is not a Unicode character: a surrogate "
            "code point");
  EXPECT_EQ(write_error(char32_t(0x110000)),
            "transit: invalid_argument: char32_t 0x110000 is not a Unicode character: a code "
            "point past U+10FFFF");
  if constexpr (sizeof(wchar_t) == 4) {
    EXPECT_EQ(write_error(wchar_t(-1)),
              "transit: invalid_argument: wchar_t 0xFFFFFFFF is not a Unicode character: a code "
              "point past U+10FFFF");
  }
  // A char16_t holds a code point of the Basic Multilingual Plane only.
  EXPECT_EQ(read_error<char16_t>("[\"~#'\",\"~c\xf0\x9f\x98\x80\"]"),
            quoted_mismatch("char16_t, got character \\\xf0\x9f\x98\x80 (out of range)"));
  EXPECT_EQ(read_error<char32_t>("[\"~#'\",true]"), quoted_mismatch("char32_t, got boolean true"));
}

// What else reads into a character: the integer an older version of this library wrote for
// it (TypedRead.WideCharacterTypesReadTheIntegersOlderVersionsWrote); and a string of one code
// point, which is what a peer with no character type (transit-js, transit-python,
// transit-ruby) writes back for `~c`. A longer string is not one character.
TEST(TypedStd, ACharacterReadsFromAOneCharacterString) {
  EXPECT_EQ(transit::read<char32_t>("[\"~#'\",\"a\"]"), U'a');
  EXPECT_EQ(transit::read<char16_t>("[\"~#'\",\"\xc3\xa9\"]"), u'\u00e9');
  EXPECT_EQ((transit::read<std::map<char32_t, int>>("[\"^ \",\"\xf0\x9f\x98\x80\",1]")),
            (std::map<char32_t, int>{{U'\U0001F600', 1}}));
  EXPECT_EQ(read_error<char32_t>("[\"~#'\",\"ab\"]"),
            quoted_mismatch("char32_t, got string \"ab\" (not one character)"));
  EXPECT_EQ(read_error<char32_t>("[\"~#'\",\"\"]"),
            quoted_mismatch("char32_t, got string \"\" (not one character)"));
  EXPECT_EQ(read_error<char16_t>("[\"~#'\",\"\xf0\x9f\x98\x80\"]"),
            quoted_mismatch("char16_t, got string \"\xf0\x9f\x98\x80\" (out of range)"));
  // A variant tells a character from an integer and a string when those come first.
  using Mixed = std::variant<std::int64_t, std::string, char32_t>;
  EXPECT_EQ(round_trip(std::vector<Mixed>{std::int64_t{97}, std::string("a"), U'a'}),
            "[97,\"a\",\"~ca\"]");
}

// A std::valarray was written as an array (a range through std::begin and std::end) but read
// as a user type, having no push_back: no_handler at run time. It reads from an array, and
// from a `~#list` or a `~#set` as a std::vector does.
TEST(TypedStd, AValarrayReadsBackFromAnArray) {
  const std::valarray<double> v{1.5, -0.0, 3};
  for (Encoding e : kAll) {
    const std::valarray<double> back = transit::read<std::valarray<double>>(transit::write(v, e), e);
    EXPECT_TRUE(std::equal(std::begin(back), std::end(back), std::begin(v), std::end(v)))
        << transit::encoding_name(e);
  }
  EXPECT_EQ(transit::write(v), "[1.5,-0.0,3.0]");
  const auto from_list = transit::read<std::valarray<int>>("[\"~#list\",[1,2,3]]");
  EXPECT_EQ((std::vector<int>(std::begin(from_list), std::end(from_list))), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(transit::read<std::valarray<int>>("[\"~#set\",[4]]")[0], 4);
  EXPECT_EQ(transit::read<std::valarray<int>>("[]").size(), 0u);
  const auto nested = transit::read<std::map<std::string, std::valarray<std::int64_t>>>(
      transit::write(std::map<std::string, std::valarray<std::int64_t>>{{"k", {7, 8}}}));
  EXPECT_EQ(nested.at("k").sum(), 15);
  EXPECT_EQ(read_error<std::valarray<int>>("[\"~#'\",1]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected "
            "std::valarray<int>, got integer 1");
  EXPECT_EQ(read_error<std::valarray<int>>("[1,\"a\"]"),
            "transit: type_mismatch at byte 3 (line 1, column 4) in $[1]: expected int, got "
            "string \"a\"");
}

// A std::pmr::string was written as a string, and a read of one did not compile (it was read
// as an array of chars, which are refused).
TEST(TypedStd, APmrStringIsAString) {
  EXPECT_EQ(round_trip(std::pmr::string("caf\xc3\xa9")), "[\"~#'\",\"caf\xc3\xa9\"]");
  EXPECT_EQ(round_trip(std::pmr::vector<std::pmr::string>{"a", "~b"}), "[\"a\",\"~~b\"]");
  EXPECT_EQ(read_error<std::pmr::string>("[\"~#'\",1]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected "
            "std::basic_string<char, std::char_traits<char>, std::pmr::polymorphic_allocator<char>>, "
            "got integer 1");
}

// A multiset was written as a ~#set with its duplicates and a multimap as a map with duplicate
// keys: every peer (and a read into Value here) keeps one of each, so data was lost.
TEST(TypedStd, MultiKeyContainersLoseNothing) {
  EXPECT_EQ(round_trip(std::multiset<int>{3, 1, 1, 2}), "[1,1,2,3]");
  EXPECT_EQ(round_trip(std::multimap<int, std::string>{{2, "c"}, {1, "b"}, {1, "a"}}),
            "[\"^ \",\"~i1\",[\"b\",\"a\"],\"~i2\",[\"c\"]]");
  EXPECT_EQ(round_trip(std::multimap<std::string, int>{}), "[\"^ \"]");
  // A key that is not a scalar: a cmap, each key's values an array.
  EXPECT_EQ(round_trip(std::multimap<std::pair<int, int>, int>{{{1, 2}, 3}, {{1, 2}, 4}}),
            "[\"~#cmap\",[[1,2],[3,4]]]");
  // The unordered ones: each key once, its values in the order the container holds them.
  const std::unordered_multimap<std::string, int> um{{"a", 1}, {"a", 0}, {"b", 2}};
  const auto back = transit::read<std::unordered_multimap<std::string, int>>(
      transit::write(um, Encoding::msgpack), Encoding::msgpack);
  ASSERT_EQ(back.size(), 3u);
  for (const char* key : {"a", "b"}) {
    const auto [i, j] = um.equal_range(key);
    const auto [k, l] = back.equal_range(key);
    EXPECT_EQ(std::vector(i, j), std::vector(k, l)) << key;
  }
  EXPECT_EQ(transit::read(transit::write(um)).size(), 2u);  // a map of two keys
  const std::unordered_multiset<std::string> us{"x", "x", "y"};
  EXPECT_EQ(transit::read<std::unordered_multiset<std::string>>(transit::write(us)), us);
  EXPECT_EQ(transit::read(transit::write(us)).size(), 3u);  // an array of three
  // A ~#set or a ~#list reads into a multiset too (a set has each member once).
  EXPECT_EQ(transit::read<std::multiset<int>>("[\"~#set\",[2,1]]"), (std::multiset<int>{1, 2}));
  EXPECT_EQ(transit::read<std::multiset<int>>("[\"~#list\",[2,1,2]]"),
            (std::multiset<int>{1, 2, 2}));
  // A plain map is not a multimap's form: a value that is not an array is a mismatch.
  EXPECT_EQ((read_error<std::multimap<int, int>>("[\"^ \",\"~i1\",2]")),
            "transit: type_mismatch at byte 12 (line 1, column 13) in $[1]: expected "
            "std::multimap<int, int>, got integer 2 (a key's values are an array)");
}

// std::monostate had no write handler, so the idiomatic nullable variant could not be written.
TEST(TypedStd, MonostateIsNil) {
  using Nullable = std::variant<std::monostate, int>;
  EXPECT_EQ(round_trip(Nullable{}), "[\"~#'\",null]");
  EXPECT_EQ(round_trip(Nullable{7}), "[\"~#'\",7]");
  EXPECT_EQ(round_trip(std::vector<Nullable>{Nullable{}, Nullable{1}}), "[null,1]");
  EXPECT_EQ(round_trip(std::map<std::string, Nullable>{{"a", {}}}), "[\"^ \",\"a\",null]");
  EXPECT_EQ(round_trip(std::monostate{}), "[\"~#'\",null]");
  EXPECT_EQ(read_error<std::monostate>("[\"~#'\",0]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected std::monostate, "
            "got integer 0");
}

// Reads that did not compile: a shared_ptr (or unique_ptr) to const, and nullptr_t.
TEST(TypedStd, PointersToConstAndNullptr) {
  const auto p = transit::read<std::shared_ptr<const std::string>>("[\"~#'\",\"a\"]");
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, "a");
  EXPECT_FALSE(transit::read<std::shared_ptr<const std::string>>("[\"~#'\",null]"));
  const auto u = transit::read<std::unique_ptr<const std::vector<int>>>("[1,2]");
  ASSERT_TRUE(u);
  EXPECT_EQ(*u, (std::vector<int>{1, 2}));
  EXPECT_EQ(transit::read<std::nullptr_t>("[\"~#'\",null]"), nullptr);
  EXPECT_EQ(round_trip(std::vector<std::nullptr_t>(2)), "[null,null]");
  EXPECT_EQ(read_error<std::nullptr_t>("[\"~#'\",false]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected std::nullptr_t, "
            "got boolean false");
}

// Bytes in other containers: a std::array<std::byte, N> and a std::basic_string<std::byte> are
// written as ~b, as a std::vector<std::byte> is, and now read back from it (they were a
// type_mismatch).
TEST(TypedStd, ByteArraysAndByteStringsReadTheirBytes) {
  using Bytes3 = std::array<std::byte, 3>;
  EXPECT_EQ(round_trip(Bytes3{std::byte{1}, std::byte{2}, std::byte{3}}), "[\"~#'\",\"~bAQID\"]");
  EXPECT_EQ(round_trip(std::basic_string<std::byte>(2, std::byte{7})), "[\"~#'\",\"~bBwc=\"]");
  EXPECT_EQ(round_trip(std::map<std::string, Bytes3>{{"k", Bytes3{}}}),
            "[\"^ \",\"k\",\"~bAAAA\"]");
  EXPECT_EQ(read_error<Bytes3>("[\"~#'\",\"~bAQ==\"]"),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected "
            "std::array<std::byte, 3>, got bytes #bytes \"AQ==\" (has 1 bytes, wants 3)");
}

// A std::reference_wrapper was a class with no handler: no_handler at run time. It is written
// as what it refers to (it is not read: a read makes objects, and a reference owns none).
TEST(TypedStd, AReferenceWrapperIsWrittenAsItsObject) {
  const std::string a = "a", b = "~b";
  const std::vector<std::reference_wrapper<const std::string>> refs{std::cref(a), std::cref(b)};
  EXPECT_EQ(transit::write(refs), "[\"a\",\"~~b\"]");
  EXPECT_EQ(transit::read<std::vector<std::string>>(transit::write(refs, Encoding::msgpack),
                                                    Encoding::msgpack),
            (std::vector<std::string>{"a", "~b"}));
  const int one = 1;
  // A key: a scalar as the object it refers to is.
  EXPECT_EQ(transit::write(std::map<std::reference_wrapper<const std::string>, std::reference_wrapper<const int>,
                                    std::less<const std::string>>{{std::cref(a), std::cref(one)}}),
            "[\"^ \",\"a\",1]");
  EXPECT_EQ(transit::write(std::cref(a)), "[\"~#'\",\"a\"]");
}

// The rest of the audit's list, which already worked: kept so, with the forms documented.
TEST(TypedStd, AuditedTypesThatAlreadyWorked) {
  using namespace std::chrono;
  EXPECT_EQ(round_trip(sys_days(year(2024) / 3 / 1)), "[\"~#'\",\"~m1709251200000\"]");
  EXPECT_EQ(round_trip(sys_days(year(1960) / 3 / 1)), "[\"~#'\",\"~m-310435200000\"]");
  EXPECT_EQ(round_trip(std::tuple<>{}), "[]");
  EXPECT_EQ(round_trip(std::map<std::pair<int, int>, int>{{{1, 2}, 3}}), "[\"~#cmap\",[[1,2],3]]");
  EXPECT_EQ(transit::write(std::map<std::string_view, int>{{"a", 1}}), "[\"^ \",\"a\",1]");
  EXPECT_EQ(round_trip(std::vector<bool>{true, false}), "[true,false]");
  const std::byte bytes[2]{std::byte{0}, std::byte{1}};
  EXPECT_EQ(transit::write(std::span<const std::byte>(bytes)), "[\"~#'\",\"~bAAE=\"]");
  // long double: the nearest double (Transit's floats are 64 bits).
  EXPECT_EQ(transit::read<long double>(transit::write(0.1L)), static_cast<long double>(0.1));
}

}  // namespace
