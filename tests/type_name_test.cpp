// SPDX-License-Identifier: Apache-2.0
// The type names errors print (detail::type_name): as a user writes them, not as the demangler
// spells them out. The standard arguments a declaration defaults are dropped, a comparator or
// allocator of the user's own is kept, and function and pointer types are left as they are.
#include <gtest/gtest.h>

#include <array>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <deque>
#include <forward_list>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <stack>
#include <string>
#include <string_view>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "transit/transit.h"

namespace names_test {
struct Foo {
  int f(std::vector<int>) const;
};
struct ByName {
  bool operator()(const Foo&, const Foo&) const;
};
bool operator<(const Foo&, const Foo&);
template <bool (*F)(const Foo&, const Foo&)>
struct ByFn {};
// Not a standard template: its arguments are the user's, whatever they look like.
template <class T, class C>
struct Box {};
template <std::size_t N, int M>
struct Grid {};
template <long L>
struct Offset {};
enum class Color { red, green };
template <Color C>
struct Painted {};
struct v3ul {};  // digits and `ul` in a name, which stay
}  // namespace names_test

namespace {

struct Local {};

using transit::detail::type_name;

TEST(TypeName, ReadsAsTheUserWroteIt) {
  const std::pair<const std::type_info&, std::string_view> table[] = {
      {typeid(int), "int"},
      {typeid(std::string), "std::string"},
      {typeid(std::string_view), "std::string_view"},
      {typeid(std::u16string), "std::u16string"},
      {typeid(std::vector<int>), "std::vector<int>"},
      {typeid(std::vector<transit::Value>), "std::vector<transit::Value>"},
      {typeid(std::map<std::string, int>), "std::map<std::string, int>"},
      {typeid(std::map<std::string, std::vector<std::set<int>>>),
       "std::map<std::string, std::vector<std::set<int>>>"},
      {typeid(std::multimap<int, std::list<std::wstring>>),
       "std::multimap<int, std::list<std::wstring>>"},
      {typeid(std::unordered_map<transit::Keyword, int>),
       "std::unordered_map<transit::Keyword, int>"},
      {typeid(std::unordered_set<std::deque<std::forward_list<int>>>),
       "std::unordered_set<std::deque<std::forward_list<int>>>"},
      {typeid(std::unique_ptr<names_test::Foo>), "std::unique_ptr<names_test::Foo>"},
      {typeid(std::unique_ptr<const names_test::Foo>), "std::unique_ptr<const names_test::Foo>"},
      {typeid(std::shared_ptr<Local>), "std::shared_ptr<(anonymous namespace)::Local>"},
      {typeid(std::optional<std::variant<int, std::string>>),
       "std::optional<std::variant<int, std::string>>"},
      {typeid(std::vector<std::pair<const std::string, int>>),
       "std::vector<std::pair<const std::string, int>>"},
      // The key's const is the pair's first type's: `int* const` stays as it is.
      {typeid(std::map<int*, int>), "std::map<int*, int>"},
      {typeid(std::pair<int* const, int>), "std::pair<int* const, int>"},
      {typeid(std::priority_queue<int>), "std::priority_queue<int>"},
      {typeid(std::span<const int>), "std::span<const int>"},
      // Integer arguments as written, without the demangler's `3ul`, a sign kept; an enum's
      // value as the demangler casts it.
      {typeid(std::array<int, 3>), "std::array<int, 3>"},
      {typeid(std::bitset<8>), "std::bitset<8>"},
      {typeid(std::span<int, 4>), "std::span<int, 4>"},
      {typeid(names_test::Grid<16, -2>), "names_test::Grid<16, -2>"},
      {typeid(names_test::Offset<-7>), "names_test::Offset<-7>"},
      {typeid(std::vector<std::array<names_test::Grid<0, 5>, 12>>),
       "std::vector<std::array<names_test::Grid<0, 5>, 12>>"},
      {typeid(names_test::Box<names_test::v3ul, std::array<names_test::v3ul, 2>>),
       "names_test::Box<names_test::v3ul, std::array<names_test::v3ul, 2>>"},
      {typeid(names_test::Painted<names_test::Color::green>), "names_test::Painted<(names_test::Color)1>"},
      // What the user chose stays: a comparator, an allocator, a container.
      {typeid(std::map<int, int, std::greater<int>>), "std::map<int, int, std::greater<int>>"},
      {typeid(std::set<names_test::Foo, names_test::ByName>),
       "std::set<names_test::Foo, names_test::ByName>"},
      {typeid(std::map<std::string, int, std::less<>>),
       "std::map<std::string, int, std::less<void>>"},
      {typeid(std::pmr::vector<int>), "std::vector<int, std::pmr::polymorphic_allocator<int>>"},
      {typeid(std::stack<int, std::vector<int>>), "std::stack<int, std::vector<int>>"},
      {typeid(names_test::Box<int, std::less<int>>), "names_test::Box<int, std::less<int>>"},
      // Function, pointer and member types, and an operator as a template argument.
      {typeid(char const*), "char const*"},
      {typeid(int* const*), "int* const*"},
      {typeid(void(std::vector<int>, const std::string&)),
       "void (std::vector<int>, std::string const&)"},
      {typeid(&names_test::Foo::f), "int (names_test::Foo::*)(std::vector<int>) const"},
      {typeid(std::function<bool(std::map<int, int>)>), "std::function<bool (std::map<int, int>)>"},
      {typeid(names_test::ByFn<&names_test::operator<>), "names_test::ByFn<&names_test::operator<>"},
      {typeid(std::nullptr_t), "std::nullptr_t"},
  };
  for (const auto& [type, name] : table) EXPECT_EQ(type_name(type), name) << type.name();
}

// A time point read from the wrong value named libstdc++'s inline namespace and the
// durations' ratios: "std::chrono::time_point<std::chrono::_V2::system_clock,
// std::chrono::duration<long, std::ratio<1l, 1000000000l>>>". The standard durations go by
// the names a user writes.
TEST(TypeName, TimePointsAndDurationsByTheirStandardNames) {
  EXPECT_EQ(type_name(typeid(std::chrono::system_clock)), "std::chrono::system_clock");
  EXPECT_EQ(type_name(typeid(std::chrono::milliseconds)), "std::chrono::milliseconds");
  EXPECT_EQ(type_name(typeid(std::chrono::sys_time<std::chrono::milliseconds>)),
            "std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>");
  EXPECT_EQ(type_name(typeid(std::vector<std::chrono::sys_days>)),
            "std::vector<std::chrono::time_point<std::chrono::system_clock, std::chrono::days>>");
  EXPECT_EQ(type_name(typeid(std::chrono::hours)), "std::chrono::hours");
  EXPECT_EQ(type_name(typeid(std::chrono::seconds)), "std::chrono::seconds");
  EXPECT_EQ(type_name(typeid(std::chrono::steady_clock)), "std::chrono::steady_clock");
  try {
    (void)transit::read<std::chrono::sys_time<std::chrono::seconds>>("1");
    ADD_FAILURE() << "bound";
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: type_mismatch at byte 0 (line 1, column 1) in $: expected "
                 "std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>, got "
                 "integer 1");
  }
}

// A typed bind's error names the type as the user wrote it, and an object in the value by its
// type's short name too (the EDN printer's `#object[...]` spelled out std::__cxx11::basic_string).
TEST(TypeName, TypedBindErrorNamesTheTypeAsWritten) {
  try {
    (void)transit::from_value<std::map<std::string, int>>(transit::Value::object(std::string("x")));
    ADD_FAILURE() << "bound";
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: type_mismatch in $: expected std::map<std::string, int>, got object "
                 "#object[std::string]");
  }
  try {
    (void)transit::read<std::vector<std::unordered_map<std::string, std::set<int>>>>(R"([[1]])");
    ADD_FAILURE() << "bound";
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: type_mismatch at byte 1 (line 1, column 2) in $[0]: expected "
                 "std::unordered_map<std::string, std::set<int>>, got an array");
  }
}

}  // namespace
