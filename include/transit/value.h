// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the value model, one 16-byte handle for every Transit type.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "transit/error.h"

namespace transit {

/// The semantic type of a Value: one kind per Transit ground and extension type.
enum class Kind : std::uint8_t {
  null,
  boolean,
  integer,      ///< signed 64-bit
  big_integer,  ///< arbitrary precision, kept as its decimal digits (`~n`)
  floating,     ///< IEEE double, NaN and the infinities included
  big_decimal,  ///< arbitrary precision, kept as its text (`~f`)
  string,
  bytes,
  keyword,
  symbol,
  character,  ///< one Unicode code point (`~c`)
  instant,    ///< milliseconds since the Unix epoch (`~m`, `~t`)
  uuid,
  uri,
  array,  // array through link are the containers, in one run (Value::depth relies on it)
  list,
  set,
  map,     ///< insertion-ordered, any key type
  link,    ///< a Transit link; its fields are a map (href, rel, name, prompt, render)
  tagged,  ///< a tag this reader does not know, with its representation, written back unchanged
  object,  ///< a user C++ object, written through a registered handler
};

/// The name of a kind, e.g. "big_integer".
std::string_view kind_name(Kind kind) noexcept;

/// A UUID as two 64-bit halves, most significant first.
struct Uuid {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  friend bool operator==(const Uuid&, const Uuid&) = default;
};

/// The library's own value types as C++ types, for typed reads and writes (read<Keyword>,
/// a struct field of type BigDecimal): each holds its text as on the wire.
struct Keyword {
  std::string name;  ///< without the leading ':'
  friend bool operator==(const Keyword&, const Keyword&) = default;
  friend auto operator<=>(const Keyword&, const Keyword&) = default;
};
struct Symbol {
  std::string name;
  friend bool operator==(const Symbol&, const Symbol&) = default;
  friend auto operator<=>(const Symbol&, const Symbol&) = default;
};
/// Arbitrary precision integer as decimal digits with an optional '-'.
struct BigInteger {
  std::string digits;
  friend bool operator==(const BigInteger&, const BigInteger&) = default;
};
/// Arbitrary precision decimal as its text (`12.50`), kept exactly.
struct BigDecimal {
  std::string text;
  friend bool operator==(const BigDecimal&, const BigDecimal&) = default;
};
struct Uri {
  std::string text;
  friend bool operator==(const Uri&, const Uri&) = default;
};

class Value;
class Registry;
using Entry = std::pair<Value, Value>;

namespace detail {
// A reader's arena: every node of a document read without user handlers lives in one, and
// Values referring to any of its nodes share this one count.
struct ArenaHeader {
  mutable std::atomic<std::uint32_t> refs{1};
};
void destroy_arena(ArenaHeader* arena) noexcept;

// Heap payloads are immutable once built and shared by reference count, so copying a Value is
// a pointer copy and an increment. A node in an arena counts on the arena instead.
struct Node {
  mutable std::atomic<std::uint32_t> refs{1};
  // Levels a container, link or tagged node nests (Value::depth), set once when it is built
  // and checked against Value::kMaxDepth there; 0 in text, UUID and object nodes. It fills
  // what was padding before `arena`, so it costs no memory.
  std::uint32_t height = 0;
  ArenaHeader* arena = nullptr;
};
static_assert(sizeof(Node) == 16, "the height lives in the header's padding");
void destroy_node(Kind kind, Node* node) noexcept;
struct ObjectVtable {
  void (*destroy)(void*) noexcept;
  bool (*equal)(const void*, const void*);
  std::size_t (*hash)(const void*);
};

/// The character types a Value holds as a character and the typed writer writes as Transit's
/// character (`~c`): char16_t (a UTF-16 code unit, Java's char), char32_t (a code point) and
/// wchar_t (either, by its size). char and char8_t are refused: a byte is as likely a small
/// integer as a character, and a UTF-8 code unit past ASCII is no character at all.
template <class T>
concept CharacterType =
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t> || std::is_same_v<T, wchar_t>;

/// True when `cp` is a Unicode scalar value: no surrogate, nothing past U+10FFFF.
constexpr bool is_unicode_scalar(char32_t cp) noexcept {
  return cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
}

/// Throws Error(invalid_argument): `unit`, a value of character type `type` (of 16 bits when
/// `wide16`: a UTF-16 code unit), is no Unicode scalar value.
[[noreturn, gnu::cold, gnu::noinline]] inline void not_a_character(const std::type_info& type,
                                                                   char32_t unit, bool wide16) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string hex;
  for (int shift = 28; shift >= 0; shift -= 4)
    if (const unsigned d = unit >> shift & 0xF; d != 0 || !hex.empty() || shift < 16)
      hex += kHex[d];
  const char* why = unit > 0x10FFFF ? "a code point past U+10FFFF"
                    : wide16        ? "a lone surrogate"
                                    : "a surrogate code point";
  throw_error(Errc::invalid_argument,
              type_name(type) + " 0x" + hex + " is not a Unicode character: " + why);
}

/// The code point character `c` is; Error(invalid_argument) when it is none (a surrogate,
/// alone in a char16_t, or a value past U+10FFFF), as a string of them is not text.
template <CharacterType C>
char32_t code_point_of(C c) {
  const char32_t cp = static_cast<std::make_unsigned_t<C>>(c);
  if (!is_unicode_scalar(cp)) not_a_character(typeid(C), cp, sizeof(C) == 2);
  return cp;
}

/// Whether a one-character tag can be written as a `~X` string, and so whether a `~X` string
/// read is a scalar of tag X: `#`, `~`, `^` and backquote read as a tag, an escaped string or
/// a cache code, so a writer keeps ["~#t", rep] for them.
inline bool string_tag_char(char t) noexcept {
  return t != '#' && t != '~' && t != '^' && t != '`';
}
}  // namespace detail

/// An immutable Transit value. 16 bytes; copies share the payload. Short strings, keywords and
/// symbols (up to 13 bytes) live inside the handle.
class Value {
 public:
  /// The deepest a Value nests (see depth()). Every builder (array, list, set, map, link,
  /// tagged, and the readers) throws Error(too_deep) rather than build a deeper one, so that
  /// destroying, writing, comparing, hashing and printing any Value, which recurse once per
  /// level, fit in a thread's stack: 1,000 levels take a few hundred KiB of stack in an
  /// optimized build and stay within a default 8 MiB stack under AddressSanitizer. Readers
  /// build at most ReadOptions::kMaxDepthLimit levels, which is this same number.
  static constexpr std::size_t kMaxDepth = 1'000;

  /// null. Every inline value starts from all-zero bytes, so equal inline values have equal
  /// bytes and compare and hash as two words.
  Value() noexcept : raw_{0, 0} {}
  Value(std::nullptr_t) noexcept : Value() {}
  /// Booleans, numbers, characters and text convert implicitly, so `Value v = 42;`,
  /// `Value v = U'a';` and `Value{"text"}` do what they say. Every integer type but bool and the
  /// character types becomes an integer (unsigned values above INT64_MAX become big integers).
  template <class T>
    requires std::is_same_v<T, bool>
  Value(T b) noexcept : Value() {
    wide_.kind = Kind::boolean;
    wide_.u.b = b;
  }
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
             !std::is_same_v<T, char8_t> && !detail::CharacterType<T>)
  Value(T i) : Value() {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
      if (i > static_cast<T>(INT64_MAX)) {
        *this = big_integer(std::to_string(i));
        return;
      }
    }
    wide_.kind = Kind::integer;
    wide_.u.i = static_cast<std::int64_t>(i);
  }
  /// char16_t, char32_t and wchar_t are characters, as the typed writer writes them (`~c`).
  /// Throws Error(invalid_argument) naming the type and the value when `c` is no Unicode
  /// character (a lone surrogate, a value past U+10FFFF).
  template <detail::CharacterType T>
  Value(T c) : Value() {
    wide_.kind = Kind::character;
    wide_.u.c = detail::code_point_of(c);
  }
  /// A char is ambiguous (a code point? a small integer?): say Value::character or Value(int).
  Value(char) = delete;
  /// A char8_t is a UTF-8 code unit, no character past ASCII, and as likely a small integer as
  /// a char: say Value::character or Value(int), as the typed reads and writes refuse it.
  Value(char8_t) = delete;
  Value(double d) noexcept : Value() {
    wide_.kind = Kind::floating;
    wide_.u.d = d;
  }
  Value(const char* s) : Value(std::string_view(s)) {}
  Value(const std::string& s) : Value(std::string_view(s)) {}
  Value(std::string_view s) : Value() { init_text(Kind::string, s); }

  Value(const Value& other) noexcept : raw_(words_of(other.raw_)) {
    small_.flags &= static_cast<std::uint8_t>(~kBorrowed);
    retain();
  }
  Value(Value&& other) noexcept : raw_(words_of(other.raw_)) { other.raw_ = Raw{}; }
  Value& operator=(const Value& other) noexcept {
    if (this != &other) {
      other.retain();
      release();
      raw_ = words_of(other.raw_);
      small_.flags &= static_cast<std::uint8_t>(~kBorrowed);
    }
    return *this;
  }
  [[gnu::always_inline]] Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      release();
      raw_ = words_of(other.raw_);
      other.raw_ = Raw{};
    }
    return *this;
  }
  ~Value() { release(); }

  // ---- construction of every kind -------------------------------------------------------------
  static Value boolean(bool b) noexcept { return Value(b); }
  static Value integer(std::int64_t i) noexcept { return Value(i); }
  static Value floating(double d) noexcept { return Value(d); }
  /// A big integer from decimal digits with an optional leading '-'. Throws
  /// Error(invalid_argument) on anything else. Leading zeros are dropped.
  static Value big_integer(std::string_view digits);
  /// A big decimal from its text (`-12.5`, `1E+3`); the text is kept exactly. Throws
  /// Error(invalid_argument) when it is not a decimal number.
  static Value big_decimal(std::string_view text);
  static Value string(std::string_view s) { return Value(s); }
  static Value bytes(std::span<const std::byte> data);
  static Value bytes(std::string_view data);
  /// A keyword, without the leading ':' (`keyword("a/b")` prints as `:a/b`).
  static Value keyword(std::string_view name);
  static Value symbol(std::string_view name);
  /// One Unicode code point, as `Value(c)`: throws what it throws, Error(invalid_argument)
  /// naming the value and why ("char32_t 0xD800 is not a Unicode character: a surrogate code
  /// point"; a value past U+10FFFF).
  static Value character(char32_t c);
  /// Milliseconds since 1970-01-01T00:00:00Z.
  static Value instant(std::int64_t ms) noexcept;
  static Value uuid(Uuid u);
  static Value uri(std::string_view text);
  static Value array(std::vector<Value> items);
  static Value array(std::initializer_list<Value> items) { return array(std::vector<Value>(items)); }
  static Value list(std::vector<Value> items);
  static Value list(std::initializer_list<Value> items) { return list(std::vector<Value>(items)); }
  /// A set; duplicates are dropped, first occurrence kept.
  static Value set(std::vector<Value> items);
  static Value set(std::initializer_list<Value> items) { return set(std::vector<Value>(items)); }
  /// A map in insertion order; for a repeated key the last value wins at the first position.
  static Value map(std::vector<Entry> entries);
  static Value map(std::initializer_list<Entry> entries) { return map(std::vector<Entry>(entries)); }
  /// A link. `render` is "link" or "image"; empty `name`/`prompt` are left out.
  static Value link(std::string_view href, std::string_view rel, std::string_view name = {},
                    std::string_view prompt = {}, std::string_view render = "link");
  /// A link from its field map (as read from the wire). Throws Error(invalid_argument) unless
  /// it is a map whose keys are strings.
  static Value link(Value fields);
  /// A value with a tag this library has no handler for. Tags are non-empty. Under one of the
  /// spec's tags (`i`, `u`, `set`, `link` ...) the rep must be one a reader decodes, and a tag
  /// with whitespace or a control character needs a string rep and one character; otherwise
  /// throws Error(invalid_argument): what it wrote, no reader would read.
  static Value tagged(std::string_view tag, Value rep);
  /// A user object of type T, written through the registered handler for T.
  template <class T>
  static Value object(T obj);

  // ---- inspection ------------------------------------------------------------------------------
  Kind kind() const noexcept { return small_.kind; }
  bool is_null() const noexcept { return kind() == Kind::null; }
  bool is(Kind k) const noexcept { return kind() == k; }

  /// Accessors throw Error(wrong_kind) on a value of another kind.
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_double() const;
  /// The text of a string, keyword or symbol name, URI, big integer digits, big decimal text,
  /// or a tagged value's tag.
  std::string_view as_string() const;
  std::span<const std::byte> as_bytes() const;
  char32_t as_char() const;
  std::int64_t as_instant() const;
  Uuid as_uuid() const;
  /// Elements of an array, list or set.
  std::span<const Value> items() const;
  /// Entries of a map or link, in insertion order.
  std::span<const Entry> entries() const;
  /// Number of items or entries; 0 for scalars.
  std::size_t size() const noexcept;
  /// How many levels the value nests, at most kMaxDepth: 0 for a scalar or a user object
  /// (what an object holds is not counted), 1 for an array, list, set, map or link holding
  /// only scalars (or nothing), and one more than its deepest item, key or value otherwise. A
  /// tagged value is one level around a container or another tagged value; around a scalar it
  /// is a scalar itself, as `"~qabc"` is on the wire.
  std::size_t depth() const noexcept {
    if (on_heap()) return wide_.u.node->height;
    return kind() >= Kind::array && kind() <= Kind::link ? 1 : 0;  // empty containers
  }
  /// Element `i` of an array, list or set; throws Error(invalid_argument) when out of range.
  const Value& operator[](std::size_t i) const;
  /// The value for `key` in a map or link, or nullptr. O(1) expected: maps of more than 8
  /// entries get a hash index of their keys on the first find (safe from any thread).
  const Value* find(const Value& key) const;
  /// The tag of a tagged value.
  std::string_view tag() const;
  /// The representation of a tagged value.
  const Value& rep() const;
  /// The C++ type held by an object value.
  std::type_index object_type() const;
  const std::type_info& object_type_info() const;
  /// The address of the user object held (for write handlers).
  const void* object_address() const;
  /// The user object held, if it is exactly a T; nullptr otherwise.
  template <class T>
  const T* get_if() const noexcept;
  /// The user object held; throws Error(wrong_kind) unless it is exactly a T.
  template <class T>
  const T& as() const;
  /// The user object held, moved out when this Value is its only owner and copied otherwise;
  /// throws Error(wrong_kind) unless it is exactly a T.
  template <class T>
  T take() &&;

  /// A copy that shares no memory with the document it was read from. Every Value a Reader
  /// returns lives in its document's arena, and a copy of any part of it keeps the whole
  /// document's memory alive: a 23-byte id kept from an 88 KB document holds 88 KB. Keep
  /// `detach()` of what outlives the document instead. Parts already on the heap are shared,
  /// not copied, so detaching a value that was never read costs a walk and no copy.
  Value detach() const;

  /// Structural equality: maps and sets ignore order; values of different kinds are never
  /// equal (an integer equals neither a double nor a big integer of the same value, as Java's
  /// Long, Double and BigInteger differ); NaN equals NaN.
  friend bool operator==(const Value& a, const Value& b) noexcept;
  /// A hash that agrees with ==.
  std::size_t hash() const noexcept;

 private:
  // kHeap: the payload is a node. kBorrowed: this Value sits inside a node of the arena its
  // own node lives in, and holds no count (the arena outlives it); copies of it do count.
  enum : std::uint8_t { kHeap = 1, kBorrowed = 2 };
  static constexpr std::size_t kSmallCapacity = 13;

  struct Small {
    Kind kind;
    std::uint8_t flags;
    std::uint8_t size;
    char data[kSmallCapacity];
  };
  struct Wide {
    Kind kind;
    std::uint8_t flags;
    std::uint16_t pad;
    std::uint32_t size;
    union {
      bool b;
      std::int64_t i;
      double d;
      char32_t c;
      detail::Node* node;
    } u;
  };
  struct Raw {
    std::uint64_t a, b;
  };
  union {
    Small small_;
    Wide wide_;
    Raw raw_;
  };

  /// `raw` read as two 8-byte loads. A Value is nearly always built by 8-byte stores (its
  /// kind word, then its payload) just before it is copied or moved, and compilers copy a
  /// 16-byte aggregate with one 16-byte load, which the CPU cannot forward from two pending
  /// narrower stores: it waits for them to reach the cache (a read's profile piled up on
  /// such loads; docs/performance-log.md, "JSON read: memory traffic"). The empty asm keeps the
  /// two words in general registers, so that no pass merges the loads back into one.
  static Raw words_of(const Raw& raw) noexcept {
    std::uint64_t a = raw.a, b = raw.b;
#if defined(__GNUC__) || defined(__clang__)
    asm("" : "+r"(a), "+r"(b));
#endif
    return {a, b};
  }

  bool on_heap() const noexcept { return (small_.flags & kHeap) != 0; }
  void retain() const noexcept {
    if (!on_heap()) return;
    detail::Node* n = wide_.u.node;
    (n->arena ? n->arena->refs : n->refs).fetch_add(1, std::memory_order_relaxed);
  }
  void release() noexcept {
    if ((small_.flags & (kHeap | kBorrowed)) != kHeap) return;
    detail::Node* n = wide_.u.node;
    if (n->arena) {
      if (n->arena->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        detail::destroy_arena(n->arena);
    } else if (n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      detail::destroy_node(kind(), n);
    }
  }
  void init_text(Kind kind, std::string_view s);
  void init_node(Kind kind, detail::Node* node, std::uint32_t size) noexcept;
  static Value make_object(const std::type_info& type, void* obj, const detail::ObjectVtable* vt);
  [[noreturn]] void wrong_kind(const char* wanted) const;
  [[noreturn]] void wrong_object(const std::type_info& wanted) const;
  /// The object held when nothing else shares it (so it may be moved from); else nullptr.
  void* sole_object() noexcept;

  friend struct ValueAccess;
};

static_assert(sizeof(Value) == 16, "Value is a 16-byte handle");

/// Shorthands: `kw("a")` is the keyword :a, `sym("b")` the symbol b.
inline Value kw(std::string_view name) { return Value::keyword(name); }
inline Value sym(std::string_view name) { return Value::symbol(name); }

/// Prints a value as Clojure would print it in EDN: `#{1 2}`, `(1 2)`, `:kw`, `123N`, `1.5M`,
/// `\c`, `##NaN`, `#inst "1970-01-01T00:00:00.000-00:00"`, `#uuid "..."`. Types EDN has no
/// literal for are printed as tagged literals: `#uri "..."`, `#bytes "<base64>"`, `#link {...}`,
/// and a tagged value as `#tag rep`.
std::string to_edn(const Value& v);
/// As above, but a user object prints as its write handler in `registry` writes it, read back
/// as a tag and representation (`#money "9.50"`), rather than as `#object[Money]`. Objects with
/// no handler there print as `#object[Type]`. Memory is linear in the output.
std::string to_edn(const Value& v, const Registry& registry);

// ---- user objects ------------------------------------------------------------------------------

template <class T>
Value Value::object(T obj) {
  static constexpr detail::ObjectVtable vt{
      [](void* p) noexcept { delete static_cast<T*>(p); },
      [](const void* a, const void* b) -> bool {
        if constexpr (requires(const T& x) { x == x; })
          return *static_cast<const T*>(a) == *static_cast<const T*>(b);
        else
          return a == b;
      },
      [](const void* p) -> std::size_t {
        // Equal objects hash alike: by std::hash<T> when T has one; else, when T has an
        // operator== (equal objects at two addresses), every T alike, which keeps a set or a
        // map's index right but slow over many of them; else, equal only to itself, by address.
        if constexpr (requires(const T& x) { std::hash<T>{}(x); })
          return std::hash<T>{}(*static_cast<const T*>(p));
        else if constexpr (requires(const T& x) { x == x; })
          return 0;
        else
          return std::hash<const void*>{}(p);
      },
  };
  return make_object(typeid(T), new T(std::move(obj)), &vt);
}

template <class T>
const T* Value::get_if() const noexcept {
  if (kind() != Kind::object || object_type_info() != typeid(T)) return nullptr;
  return static_cast<const T*>(object_address());
}

template <class T>
const T& Value::as() const {
  if (const T* p = get_if<T>()) return *p;
  wrong_object(typeid(T));
}

template <class T>
T Value::take() && {
  const T& held = as<T>();
  if (void* p = sole_object()) return std::move(*static_cast<T*>(p));
  return held;
}

}  // namespace transit

template <>
struct std::hash<transit::Value> {
  std::size_t operator()(const transit::Value& v) const noexcept { return v.hash(); }
};

// The library's value types as keys of unordered containers (std::unordered_map<Keyword, T>,
// which typed reads and writes take as any map): each hashes as its text, a Uuid as its two
// halves, agreeing with its ==. Not keyed against flooding, as std::hash<std::string> is not;
// a Value's hash (above) is.
namespace transit::detail {
/// std::hash of a library type that holds its text in the member `Text`.
template <class T, std::string T::*Text>
struct TextHash {
  std::size_t operator()(const T& v) const noexcept { return std::hash<std::string>{}(v.*Text); }
};
}  // namespace transit::detail

template <>
struct std::hash<transit::Keyword> : transit::detail::TextHash<transit::Keyword, &transit::Keyword::name> {};
template <>
struct std::hash<transit::Symbol> : transit::detail::TextHash<transit::Symbol, &transit::Symbol::name> {};
template <>
struct std::hash<transit::BigInteger>
    : transit::detail::TextHash<transit::BigInteger, &transit::BigInteger::digits> {};
template <>
struct std::hash<transit::BigDecimal> : transit::detail::TextHash<transit::BigDecimal, &transit::BigDecimal::text> {};
template <>
struct std::hash<transit::Uri> : transit::detail::TextHash<transit::Uri, &transit::Uri::text> {};
template <>
struct std::hash<transit::Uuid> {
  // Random UUIDs are uniform in most bits already; the multiply folds the halves so that UUIDs
  // differing only in `lo` or only in `hi` spread over the buckets alike.
  std::size_t operator()(const transit::Uuid& u) const noexcept {
    const std::uint64_t h = (u.hi ^ (u.lo * 0x9e3779b97f4a7c15ULL)) * 0xbf58476d1ce4e5b9ULL;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};
