// SPDX-License-Identifier: Apache-2.0
// transit-cpp: typed reads, straight from the decoder into C++ objects, and Record<T>, one
// description of a user type that gives both its write handler and its typed reader.
//
// The Decoder resolves the Transit rules (cache codes, "^ " maps, `~x` strings, tags, cmaps)
// once, for both consumers: building a Value tree, or recording a flat tape of resolved tokens
// (transit/tape.h) that Bind<T> walks to fill a T. No Value tree is built on the way.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <typeindex>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <forward_list>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <ratio>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#ifdef __GLIBCXX__
#include <cxxabi.h>
#endif

#include "transit/read_handlers.h"
#include "transit/reader.h"
#include "transit/registry.h"
#include "transit/tape.h"
#include "transit/write_handlers.h"

namespace transit {

namespace detail {

/// Why binding failed, at which token; the reader turns it into an Error placed in the input.
struct BindFailure {
  std::size_t token;
  Errc code;
  std::string detail;
};

/// What the read handlers and builders a binder ran returned (or what they threw, a
/// BindFailure or anything else), by the position of the tagged value's token or the
/// container's begin (see Cursor::keep_handler_calls).
struct HandlerCalls {
  struct Call {
    Value value;
    std::exception_ptr thrown;  // null: it returned `value`
  };
  std::map<std::size_t, Call> by_token;
};

/// The path to token `index` of `tape`, e.g. `$[3]["name"]`.
std::string tape_path(const Tape& tape, std::size_t index);
/// The most of a map key that an error's path shows, in bytes: a path through 400 maps keyed
/// by a 16 MB key stays a few KB.
inline constexpr std::size_t kPathKeyBytes = 64;
/// Appends string key `s` as a path shows it: quoted, its first kPathKeyBytes bytes (cut
/// between characters) and, when cut, an ellipsis and its length.
void append_path_string(std::string& p, std::string_view s);
/// Appends map key `key`, a token of `tape`, as a path shows it: a string by
/// append_path_string, any other value as EDN of at most kPathKeyBytes bytes and an
/// ellipsis, a container's begin as "...".
void append_path_key(std::string& p, const Tape& tape, const Token& key);
/// Records a Value as tokens, so a Value binds exactly as bytes do (from_value). With
/// `handlers`, a tagged value they decode in a read into Value (a read handler's tag, not one a
/// binder reads by structure; an unknown tag the default handler takes) is decoded by them and
/// taped as the decoder tapes it; a handler's failure is thrown as a BindFailure there.
void tape_from_value(const Value& v, Tape& tape, const ReadHandlers* handlers = nullptr);

/// A Record field's name, for an exact compare with a key's text in two loads and two
/// compares: its first and last 8 bytes (4 for a name of 4 to 7 bytes), which overlap in
/// a name shorter than 16 and cover all of it. Shorter or longer names compare bytewise.
class FieldKey {
 public:
  FieldKey() = default;
  explicit FieldKey(std::string_view name) : name_(name) {
    const std::size_t n = name.size();
    if (n >= 8 && n <= 16) {
      head_ = load<8>(name.data());
      tail_ = load<8>(name.data() + n - 8);
    } else if (n >= 4 && n < 8) {
      head_ = load<4>(name.data());
      tail_ = load<4>(name.data() + n - 4);
    }
  }
  /// Whether `text` is this name, byte for byte. Always inline: g++ 12 put it out of line in
  /// read_fields once a Record also instantiated T's copies (typed read of citm_catalog
  /// 15.11 M -> 15.42 M instructions), a call per key.
  [[gnu::always_inline]] bool names(std::string_view text) const noexcept {
    const std::size_t n = text.size();
    if (n != name_.size()) return false;
    const char* p = text.data();
    if (n >= 8) {
      if (n > 16) [[unlikely]]
        return std::memcmp(p, name_.data(), n) == 0;
      return load<8>(p) == head_ && load<8>(p + n - 8) == tail_;
    }
    if (n >= 4) return load<4>(p) == head_ && load<4>(p + n - 4) == tail_;
    for (std::size_t i = 0; i < n; ++i)
      if (p[i] != name_[i]) return false;
    return true;
  }

 private:
  template <std::size_t N>
  static std::uint64_t load(const char* p) noexcept {
    std::conditional_t<N == 8, std::uint64_t, std::uint32_t> w;
    std::memcpy(&w, p, N);
    return w;
  }
  std::string name_;
  std::uint64_t head_ = 0;
  std::uint64_t tail_ = 0;
};

/// Walks a tape for Bind<T>. Binders take exactly one value's tokens or throw.
class Cursor {
 public:
  // The tape does not change while a Cursor walks it but where the Cursor asks (refill), so
  // the Cursor keeps where its tokens are and the next one as pointers: a binder's every look
  // at a token is then one load from the Cursor, not three (the tape, its tokens, the index).
  // A bounded tape (TapeFeeder) ends its tokens so far at an Op::refill token, which peek and
  // take test on the op they load anyway.
  Cursor(const Tape& tape, const ReadHandlers* handlers) noexcept
      : tape_(&tape),
        handlers_(handlers),
        tokens_(tape.tokens.data()),
        at_(tokens_ + tape.tokens.base()) {}

  const Token& peek() {
    if (at_->op == Op::refill) [[unlikely]]
      refill();
    return *at_;
  }
  /// The next token with no refill test: it may be the Op::refill token of a bounded tape.
  /// For the library's binders, on the path where they find the op they expect (a record's
  /// key, an inline field): a refill token fails every such test, and the other path then
  /// peek()s, which meets it. A user's Bind uses peek().
  const Token& head() const noexcept { return *at_; }
  /// The token taken last (there is one).
  const Token& last() const noexcept { return at_[-1]; }
  const Token& take() {
    if (at_->op == Op::refill) [[unlikely]]
      refill();
    return *at_++;
  }
  /// take() of the token that peek() (or take()'s own test) just found, with nothing read,
  /// skipped or sought since: that test already met any Op::refill token, so this one makes
  /// none.
  const Token& take_peeked() noexcept { return *at_++; }
  std::string_view text(const Token& t) const noexcept { return tape_->text_of(t); }
  std::size_t position() const noexcept { return static_cast<std::size_t>(at_ - tokens_); }
  /// Back to a position taken while pinned (see Pin), or forward over tokens taken.
  void seek(std::size_t i) {
    // A token a bounded tape dropped (a position taken unpinned): the bind stops, and the value
    // is read again whole, rather than reading memory that no longer holds it.
    if (i < tape_->tokens.base()) [[unlikely]]
      fail(i, "a token no longer on the tape");
    at_ = tokens_ + i;
  }
  const ReadHandlers* handlers() const noexcept { return handlers_; }
  /// Keeps what the read handlers of tags read by structure (a set, list, cmap, a Record's
  /// tag), and the map and array builders, return when read_value binds a Value there, by
  /// token (the tagged value's, the container's begin), in `calls`, which the caller
  /// keeps over every bind of one value: a bind tried again (a std::variant's next
  /// alternative, a bounded read bound again whole) takes them rather than run a handler
  /// twice for one tagged value. Null (the default): none kept.
  void keep_handler_calls(HandlerCalls* calls) noexcept { calls_ = calls; }

  /// Keeps the tokens from the cursor's position on for as long as it lives, so that the
  /// binder may seek back to it: a bounded tape drops only tokens before every pin.
  class Pin {
   public:
    explicit Pin(Cursor& c) noexcept : c_(c), was_(c.pin_) {
      if (c.position() < was_) c.pin_ = c.position();
    }
    ~Pin() { c_.pin_ = was_; }
    Pin(const Pin&) = delete;
    Pin& operator=(const Pin&) = delete;

   private:
    Cursor& c_;
    std::size_t was_;
  };

  /// Skips one whole value.
  void skip();
  /// The text of a string token (plain or decoded); false for any other token.
  bool string_of(const Token& t, std::string_view& out) const noexcept {
    if (t.op == Op::text) return out = text(t), true;
    if (t.op == Op::value && t.kind == Kind::string) return out = value(t).as_string(), true;
    return false;
  }
  /// The Value of an Op::value token of a kind other than nil, boolean, integer and floating
  /// (which its token holds: Token::integer, Token::floating).
  const Value& value(const Token& t) const noexcept { return tape_->side_value(t); }
  /// Takes a token of kind `op`, or fails as not a `wanted`.
  void expect(Op op, const std::type_info& wanted) {
    // The refill test on the path where the op is not the one wanted (see head).
    if (at_->op != op) [[unlikely]]
      expect_slow(op, wanted);
    ++at_;
  }
  /// Takes the scalar at the cursor if it is of kind `kind`.
  const Token* scalar(Kind kind) {
    const Token& t = peek();
    if (t.op != Op::value || t.kind != kind) return nullptr;
    ++at_;
    return &t;
  }

  /// Fails with "expected <wanted>, got <what token `token` is>[: why]".
  [[noreturn]] void mismatch(const std::type_info& wanted, std::size_t token,
                             std::string_view why = {}) const;
  [[noreturn]] void fail(std::size_t token, std::string detail) const;
  /// expect() of a token that is not `op`: an Op::refill token, then the token after it, or a
  /// mismatch.
  [[gnu::cold, gnu::noinline]] void expect_slow(Op op, const std::type_info& wanted) {
    if (peek().op != op) mismatch(wanted, position());
  }

  /// A user type through the tag table: reads the value at the cursor (a tagged value whose
  /// tag has a typed reader for `type`, or a plain map when `type` has a typed reader) into
  /// `out`, a default-constructed object of `type`.
  void read_user(const std::type_info& type, void* out);
  /// A polymorphic read: the value at the cursor is tagged; its tag's typed reader makes the
  /// object, which must be `base` or declared to derive from it (or, binding a Value, it is a
  /// user object whose type has a typed reader, copied). Returns a `base*`; nullptr when the
  /// value is not tagged with a typed tag (the caller then reads `base` itself).
  void* read_derived(const std::type_info& base, const std::type_info& wanted);
  /// The escape hatch: the value at the cursor as a Value, decoded as an untyped read would.
  Value read_value();
  /// The typed reader of a plain map read as `type`, or nullptr (see read_user).
  const TypedReader* plain_reader(const std::type_info& type) { return typed_for(type); }

  /// The field of a Record (`owner`) that the text of `key` (an Op::text token) named earlier
  /// in this value, or -1. A cached key is taped as the same text each time it comes (see
  /// Decoder::tape_cached), so its token's text identifies it: a record of twenty fields then
  /// compares a key's name once per read, not once per object. A field of `n` (the record's
  /// field count) is a key it does not know. Only tapes that readers record remember.
  std::int64_t remembered_field(const void* owner, std::uint64_t seed,
                                const Token& key) const noexcept {
    if (!tape_->key_memo) return -1;
    const KeyMemo& m = memo_slot(seed, key);
    if (m.generation == tape_->generation && m.owner == owner && m.text == key.text &&
        m.size == key.size && m.in_input == key.in_input)
      return m.field;
    return -1;
  }
  void remember_field(const void* owner, std::uint64_t seed, const Token& key,
                      std::size_t field) const noexcept {
    if (tape_->key_memo)
      memo_slot(seed, key) = {owner, key.text, key.size, key.in_input,
                              static_cast<std::uint32_t>(field), tape_->generation};
  }

 private:
  /// The typed reader for a type, memoized: a document holds few types, many times each.
  const TypedReader* typed_for(const std::type_info& type);
  /// Whether read_value gives the map (or array) whose begin token is `at`, just taken, to the
  /// handlers' map (array) builder: there is one, and the container is no tagged value's rep.
  bool builds(std::size_t at, bool map) const noexcept;
  /// read_value of the map (array) whose begin token `at` was just taken, through the
  /// handlers' builder, once per bind of the value (see keep_handler_calls).
  [[gnu::cold, gnu::noinline]] Value build(std::size_t at, bool map);
  /// read_user of a token that is neither tagged nor a map: a Value's user object of exactly
  /// `type` (from_value of what a read into Value made) is copied into `out` through `r`,
  /// anything else is a mismatch.
  [[gnu::cold, gnu::noinline]] void read_held(const std::type_info& type, const TypedReader& r,
                                              void* out);
  /// read_derived of an untagged token: a copy of a Value's user object whose type has a typed
  /// reader and is `base` or declared to derive from it, as a `base*`; nullptr otherwise.
  [[gnu::cold, gnu::noinline]] void* clone_held(const std::type_info& base,
                                                const std::type_info& wanted);
  /// At an Op::refill token: has the feeder write the next batch, keeping the pinned tokens
  /// and the last few taken (last(), a mismatch's token), and finds the cursor's token again.
  [[gnu::cold, gnu::noinline]] void refill();

  const Tape* tape_;
  const ReadHandlers* handlers_;
  const Token* tokens_;
  const Token* at_;  // the next token
  std::size_t pin_ = SIZE_MAX;  // the first token a Pin keeps
  struct Memo {
    const std::type_info* type;
    const TypedReader* reader;
  };
  std::array<Memo, 8> memo_{};
  std::size_t memo_next_ = 0;
  HandlerCalls* calls_ = nullptr;

  /// The slot of a key's text for the record whose State::memo_seed is `seed`. Placed by
  /// offsets and a hash of the record's tag, not by addresses: with the addresses of the
  /// Record and the input, which keys collided (and so a typed read's speed) changed with
  /// where memory put them: 2% of a typed read of twitter's MessagePack (callgrind), from one
  /// build or memory layout to the next.
  KeyMemo& memo_slot(std::uint64_t seed, const Token& key) const noexcept {
    const std::uint64_t at = key.text - (key.in_input ? tape_->input_base : 0);
    const std::uint64_t h = (at ^ key.size ^ seed) * 0x9E3779B97F4A7C15ull;
    return (*tape_->key_memo)[h >> (64 - Tape::kKeyMemoBits)];
  }
};

template <class T>
T read_any(Cursor& c);

}  // namespace detail

/// How typed reads build a T. The library's specialization covers the types listed at
/// read<T>; specialize it for a type whose representation is not a record:
///   template <> struct transit::Bind<Celsius> {
///     static Celsius read(detail::Cursor& c) { return Celsius{Bind<double>::read(c)}; }
///   };
template <class T, class Enable = void>
struct Bind {
  static T read(detail::Cursor& c) { return detail::read_any<T>(c); }
  /// Marks the library's own Bind, which a user's specialization replaces: a container of
  /// user types then reads its items in place (see detail::UserItems).
  using library_bind = void;
};

namespace detail {
/// Bind<T>::read, pinning the tokens from the cursor on for a user's specialization, which may
/// seek back anywhere it has been (see Cursor::Pin).
template <class T>
T bind(Cursor& c) {
  if constexpr (requires { typename Bind<T>::library_bind; }) {
    return Bind<T>::read(c);
  } else {
    Cursor::Pin pin(c);
    return Bind<T>::read(c);
  }
}
}  // namespace detail

// ---- Record: one description, both directions -------------------------------------------------

/// A user type described once as a tag and its fields (member and keyword name). It gives the
/// write handler (`builder.add(record)`: `["~#tag", {"~:field": ...}]`, a map with keyword
/// keys as transit-clj writes records) and the typed reader (`handlers.add(record)`). Reading,
/// a missing std::optional field stays empty, another missing field is an Error naming it,
/// and unknown fields are skipped (peers add fields over time). The map is read tagged or
/// plain. T must be default-constructible; up to 64 fields.
///
///   auto money = Record<Money>("money").field(&Money::amount, "amount")
///                                       .field(&Money::currency, "currency");
template <class T>
class Record {
 public:
  explicit Record(std::string tag) : tag_(std::move(tag)), state_(std::make_shared<State>()) {
    state_->memo_seed = std::hash<std::string_view>{}(tag_);
  }

  /// A field: `member` (of T or of a base of T) written and read under the keyword `name`.
  template <class M, class C>
    requires std::is_base_of_v<C, T>
  Record& field(M C::*member, std::string name) {
    if (state_->fields.size() == 64)
      detail::throw_error(Errc::invalid_argument,
                          "Record<" + detail::type_name(typeid(T)) + ">: more than 64 fields");
    static_assert(sizeof member <= sizeof(Field::member), "Record<T>::field: member pointer too wide");
    Field& f = state_->fields.emplace_back();
    state_->field_count = state_->fields.size();
    f.name = std::move(name);
    f.key = detail::FieldKey(f.name);
    f.optional = detail::is_specialization_v<M, std::optional>;
    if (!f.optional) state_->required |= std::uint64_t{1} << (state_->fields.size() - 1);
    std::memcpy(f.member, &member, sizeof member);
    f.write = &write_member<M, C>;
    f.read = &read_member<M, C>;
    // The library's binder of a few common types runs inline in read_fields, through the
    // member as a member of T (C a virtual base of T has no such pointer: it keeps the call).
    if constexpr (std::is_convertible_v<M C::*, M T::*> &&
                  requires { typename Bind<M>::library_bind; }) {
      if constexpr (std::is_same_v<M, std::int64_t>)
        f.inline_read = InlineRead::int64;
      else if constexpr (std::is_same_v<M, bool>)
        f.inline_read = InlineRead::boolean;
      else if constexpr (std::is_same_v<M, std::string>)
        f.inline_read = InlineRead::string;
      else if constexpr (std::is_same_v<M, std::optional<std::string>>)
        f.inline_read = InlineRead::optional_string;
      else if constexpr (std::is_same_v<M, std::vector<std::int64_t>>)
        f.inline_read = InlineRead::int64_vector;
      const M T::*own = member;
      static_assert(sizeof own <= sizeof(Field::own_member));
      std::memcpy(f.own_member, &own, sizeof own);
    }
    return *this;
  }
  /// Declares T's bases, so a read into std::unique_ptr<Base> (or shared_ptr) may give a T.
  template <class... Bases>
  Record& derives() {
    static_assert((std::is_base_of_v<Bases, T> && ...),
                  "Record<T>::derives<Base...>: every Base must be a base class of T");
    (state_->upcasts.emplace_back(typeid(Bases),
                                  [](void* p) -> void* {
                                    return static_cast<Bases*>(static_cast<T*>(p));
                                  }),
     ...);
    return *this;
  }

  const std::string& tag() const noexcept { return tag_; }

  /// The write handler: the tag, and the fields as a map with keyword keys.
  detail::ErasedHandler write_handler() const {
    detail::ErasedHandler h;
    h.tag = tag_;
    h.write_rep = [s = state_](const void* p, detail::ObjectEncoder& e, bool) {
      const T& obj = *static_cast<const T*>(p);
      e.map_begin(s->fields.size(), true);
      for (const Field& f : s->fields) {
        e.keyword(f.name, true);
        f.write(f, obj, e);
      }
      e.map_end();
    };
    h.type_key = &typeid(T);
    h.rep_form = detail::RepForm::map;  // keyword keys
    return h;
  }

  /// The typed reader.
  std::shared_ptr<const detail::TypedReader> reader() const {
    auto r = std::make_shared<detail::TypedReader>();
    r->type = &typeid(T);
    r->context = state_;
    r->read_into = [](const void* s, detail::Cursor& c, void* out) {
      read_fields(*static_cast<const State*>(s), c, *static_cast<T*>(out));
    };
    r->create = [](const void* s, detail::Cursor& c) -> void* {
      auto obj = std::make_unique<T>();
      read_fields(*static_cast<const State*>(s), c, *obj);
      return obj.release();
    };
    r->take_value = [](void* created) -> Value {
      const std::unique_ptr<T> obj(static_cast<T*>(created));
      return Value::object<T>(std::move(*obj));
    };
    r->destroy = [](void* p) noexcept { delete static_cast<T*>(p); };
    if constexpr (std::is_copy_assignable_v<T>) r->copy_into = &copy_held;
    if constexpr (std::is_copy_constructible_v<T>) r->clone = &clone_held;
    r->upcasts = state_->upcasts;
    return r;
  }

 private:
  // A field's member pointer is kept as bytes, so that one Field type holds a member of any
  // type; the two thunks, instantiated for that member's type, read it back. Plain function
  // pointers: a typed read calls one per field of every object.
  //
  // A field of one of the types in InlineRead is read inline by read_fields (no call through
  // `read`), through `own_member`, the member pointer as a member of T.
  enum class InlineRead : std::uint8_t { none, int64, boolean, string, optional_string, int64_vector };
  struct Field {
    std::string name;
    detail::FieldKey key;  // `name`, for an exact compare at two loads (see read_fields)
    bool optional = false;
    InlineRead inline_read = InlineRead::none;
    alignas(std::max_align_t) unsigned char member[16];
    alignas(std::max_align_t) unsigned char own_member[16];
    void (*write)(const Field&, const T&, detail::ObjectEncoder&) = nullptr;
    void (*read)(const Field&, detail::Cursor&, T&) = nullptr;
  };
  template <class M, class C>
  static M C::*member_of(const Field& f) noexcept {
    M C::*member;
    std::memcpy(&member, f.member, sizeof member);
    return member;
  }
  /// The field's member of `obj`, for a field whose inline_read says it is an M.
  template <class M>
  static M& own_member(const Field& f, T& obj) noexcept {
    M T::*member;
    std::memcpy(&member, f.own_member, sizeof member);
    return obj.*member;
  }
  template <class M, class C>
  static void write_member(const Field& f, const T& obj, detail::ObjectEncoder& e) {
    detail::write_any(e, obj.*member_of<M, C>(f));
  }
  template <class M, class C>
  static void read_member(const Field& f, detail::Cursor& c, T& obj) {
    obj.*member_of<M, C>(f) = detail::bind<M>(c);
  }
  struct State {
    std::vector<Field> fields;
    // fields.size(), kept: a read takes it with no division (a Field is 144 bytes).
    std::size_t field_count = 0;
    std::uint64_t required = 0;  // a bit per field that is not std::optional
    std::vector<std::pair<std::type_index, void* (*)(void*)>> upcasts;
    // Places this record's keys in the cursor's key memo (Cursor::memo_slot).
    std::uint64_t memo_seed = 0;
  };

  // For from_value of a Value that holds a T (see TypedReader::copy_into, clone): cold and
  // out of line, as only from_value calls them.
  [[gnu::cold, gnu::noinline]] static void copy_held(const void* held, void* out) {
    *static_cast<T*>(out) = *static_cast<const T*>(held);
  }
  [[gnu::cold, gnu::noinline]] static void* clone_held(const void* held) {
    return new T(*static_cast<const T*>(held));
  }

  // Keys usually come in the order the fields are declared (the order a Record writes them),
  // with unknown ones between: the field after the last one read is tried first, by an exact
  // compare of its name (FieldKey::names), and any other key is looked up (find_field). The
  // guess is only ever a guess: a key that is not its name costs the lookup, nothing else.
  static void read_fields(const State& s, detail::Cursor& c, T& obj) {
    const std::size_t start = c.position();
    c.expect(detail::Op::map_begin, typeid(T));
    std::uint64_t seen = 0;
    const Field* const fields = s.fields.data();
    const std::size_t n = s.field_count;
    std::size_t next = 0;  // the expected field; 0 = n when the record has none
    for (;;) {
      // The expected key is tested first, with no refill test (Cursor::head): the map's end,
      // a refill token and any other key take the second path.
      const detail::Token& head = c.head();
      std::size_t k = next;
      if (head.op == detail::Op::text && next != n && fields[next].key.names(c.text(head)))
          [[likely]] {
        c.take_peeked();
      } else {
        if (c.peek().op == detail::Op::map_end) break;
        k = find_field(s, c, c.take_peeked(), next);
        if (k == n) {
          c.skip();  // a field this side does not know, or a key that is not a name
          continue;
        }
      }
      read_field(fields[k], c, obj);
      seen |= std::uint64_t{1} << k;
      next = k + 1 == n ? 0 : k + 1;
    }
    c.take_peeked();
    if ((seen & s.required) != s.required) [[unlikely]]
      missing_field(s, c, start, seen);
  }

  // The field a key names, or n (the field count) when it names none or is not a name: the
  // field its text named earlier in this value (Cursor::remembered_field), else by comparing
  // names, from `next` on.
  static std::size_t find_field(const State& s, detail::Cursor& c, const detail::Token& key,
                                std::size_t next) {
    const std::size_t n = s.field_count;
    std::string_view name;
    const bool text_key = key.op == detail::Op::text;
    if (text_key) {
      const std::int64_t remembered = c.remembered_field(&s, s.memo_seed, key);
      if (remembered >= 0) return static_cast<std::size_t>(remembered);
      name = c.text(key);
    } else if (key.op == detail::Op::value &&
               (key.kind == Kind::keyword || key.kind == Kind::string)) {
      name = c.value(key).as_string();
    } else {
      // A key that is a whole value (an array, a map, a tagged value: a MessagePack map or a
      // cmap read as a Value has them) names no field: all of it is skipped, not its first
      // token only, which left the cursor inside it and walked off the tape.
      if (detail::kOpDepth[static_cast<std::uint8_t>(key.op)] > 0) {
        c.seek(c.position() - 1);
        c.skip();
      }
      return n;
    }
    if (next == n) next = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = next + i < n ? next + i : next + i - n;
      if (s.fields[k].key.names(name)) {
        if (text_key) c.remember_field(&s, s.memo_seed, key, k);
        return k;
      }
    }
    if (text_key) c.remember_field(&s, s.memo_seed, key, n);
    return n;
  }

  // One field's value: the library's binder of a common type inline, any other by its call.
  // A value the inline binder does not take (a wrong shape, a decoded `~~` string ...) goes
  // to the call, which reads it or reports it exactly as before.
  static void read_field(const Field& f, detail::Cursor& c, T& obj) {
    // No refill test (Cursor::head): a refill token is none of the tokens the inline binders
    // take, and the field's call peek()s.
    const detail::Token& t = c.head();
    // Tested in turn, the commonest kinds first, not by a jump table: the table's one
    // indirect branch changed target from one field to the next.
    const InlineRead how = f.inline_read;
    if (how == InlineRead::int64) {
      if (t.op == detail::Op::value && t.kind == Kind::integer) {
        own_member<std::int64_t>(f, obj) = t.integer;
        c.take_peeked();
        return;
      }
    } else if (how == InlineRead::string) {
      if (t.op == detail::Op::text) {
        own_member<std::string>(f, obj).assign(c.text(t));
        c.take_peeked();
        return;
      }
    } else if (how == InlineRead::optional_string) {
      if (t.op == detail::Op::text) {
        auto& member = own_member<std::optional<std::string>>(f, obj);
        if (member)
          member->assign(c.text(t));
        else
          member.emplace(c.text(t));
        c.take_peeked();
        return;
      }
      if (t.op == detail::Op::value && t.kind == Kind::null) {
        own_member<std::optional<std::string>>(f, obj).reset();
        c.take_peeked();
        return;
      }
    } else if (how == InlineRead::int64_vector) {
      if (t.op == detail::Op::array_begin && read_int64_items(c, own_member<std::vector<std::int64_t>>(f, obj)))
        return;
    } else if (how == InlineRead::boolean) {
      if (t.op == detail::Op::value && t.kind == Kind::boolean) {
        own_member<bool>(f, obj) = t.integer != 0;
        c.take_peeked();
        return;
      }
    }
    f.read(f, c, obj);
  }

  // A plain array of integers into `out`, or false with the cursor where it was (an item of
  // another kind: the field's call then reads it, or reports it, from its start).
  static bool read_int64_items(detail::Cursor& c, std::vector<std::int64_t>& out) {
    // An empty array, with no pin and no loop. The begin token is followed by a token (a
    // bounded tape shows a begin token only once it is: see Decoder::tape_visible), perhaps
    // the refill token, which is not an end.
    if ((&c.head())[1].op == detail::Op::array_end) {
      out.clear();
      c.take_peeked();
      c.take_peeked();
      return true;
    }
    const detail::Cursor::Pin pin(c);  // the field's call may read it again from the start
    const std::size_t at = c.position();
    const std::uint32_t size = c.take_peeked().size;
    out.clear();
    // The items the decoder taped (see Token::size); no call when they fit.
    if (size > out.capacity()) out.reserve(size);
    for (;;) {
      // The refill test only where the token is neither an integer nor the end (see head).
      const detail::Token& t = c.head();
      if (t.op == detail::Op::value && t.kind == Kind::integer) {
        out.push_back(t.integer);
        c.take_peeked();
        continue;
      }
      if (t.op == detail::Op::array_end) {
        c.take_peeked();
        return true;
      }
      if (t.op == detail::Op::refill) [[unlikely]] {
        c.peek();
        continue;
      }
      c.seek(at);
      return false;
    }
  }

  [[noreturn, gnu::cold]] static void missing_field(const State& s, detail::Cursor& c,
                                                    std::size_t start, std::uint64_t seen) {
    std::size_t k = 0;
    while (seen >> k & 1 || !(s.required >> k & 1)) ++k;
    c.fail(start, "missing field :" + s.fields[k].name + " of " + detail::type_name(typeid(T)));
  }

  std::string tag_;
  std::shared_ptr<State> state_;
};

template <class T>
RegistryBuilder& RegistryBuilder::add(const Record<T>& record) {
  return add_erased(typeid(T), record.write_handler());
}

template <class T>
ReadHandlers& ReadHandlers::add(const Record<T>& record) {
  return add_typed(record.tag(), record.reader());
}

// ---- the binders ------------------------------------------------------------------------------

namespace detail {

template <class T>
inline constexpr bool is_library_type_v =
    std::is_same_v<T, Uuid> || std::is_same_v<T, Keyword> || std::is_same_v<T, Symbol> ||
    std::is_same_v<T, BigInteger> || std::is_same_v<T, BigDecimal> || std::is_same_v<T, Uri>;

template <class T>
concept PushBack = requires(T& t, typename T::value_type v) { t.push_back(std::move(v)); };
/// A sequence that is sized, then filled, with no push_back: std::valarray (detected by its
/// shape, so that <valarray> is not a cost of every user's build), or a user's array type. It
/// is written as an array, as any range is, and is read from one.
template <class T>
concept SizedThenFilled = std::ranges::random_access_range<T> && !PushBack<T> &&
                          std::is_default_constructible_v<T> &&
                          requires(T& t, std::size_t n) { t.resize(n); };

template <class T>
T read_integer(Cursor& c) {
  // An enum's integer may be of a character type, which std::in_range refuses.
  using Range = integer_of_t<T>;
  const std::size_t at = c.position();
  const Token& t = c.peek();
  if (t.op == Op::value && t.kind == Kind::integer) {
    const std::int64_t i = t.integer;
    if (!std::in_range<Range>(i)) c.mismatch(typeid(T), at, "out of range");
    c.take_peeked();
    return static_cast<T>(i);
  }
  if (t.op == Op::value && t.kind == Kind::big_integer) {
    // A std::uint64_t above INT64_MAX is written as one; and a peer writes one holding any
    // value (Clojure's 5N, a Java BigInteger), which reads into whatever type holds it.
    using Wide = std::conditional_t<std::is_unsigned_v<Range>, std::uint64_t, std::int64_t>;
    const std::string_view digits = c.value(t).as_string();
    Wide w = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), w);
    if (ec == std::errc() && end == digits.data() + digits.size() && std::in_range<Range>(w)) {
      c.take_peeked();
      return static_cast<T>(w);
    }
    c.mismatch(typeid(T), at, "out of range");
  }
  c.mismatch(typeid(T), at);
}

/// A character type from the `~c` it is written as; or from the integer this library wrote
/// for it before (in T's range, as before); or from a string of one code point, which is what
/// a peer with no character type (transit-js, transit-python, transit-ruby) writes back for a
/// `~c` it read. The code point must fit T: a char16_t holds no U+1F600.
template <class T>
T read_character(Cursor& c) {
  const std::size_t at = c.position();
  const Token& t = c.peek();
  char32_t cp;
  std::string_view s;
  if (t.op == Op::value && t.kind == Kind::character) {
    cp = c.value(t).as_char();
  } else if (t.op == Op::value && t.kind == Kind::integer) {
    return read_integer<T>(c);
  } else if (c.string_of(t, s)) {
    const std::optional<char32_t> one = decode_one_code_point(s);
    if (!one) c.mismatch(typeid(T), at, "not one character");
    cp = *one;
  } else {
    c.mismatch(typeid(T), at);
  }
  if (cp > static_cast<std::make_unsigned_t<T>>(std::numeric_limits<T>::max()))
    c.mismatch(typeid(T), at, "out of range");
  c.take_peeked();
  return static_cast<T>(cp);
}

/// A big integer's digits as a float, double or long double: what it is exactly, or nothing
/// with why not ("out of range", "not exact as floating point"). In typed.cpp: rare, and its
/// check prints the number.
std::optional<float> big_integer_as(std::string_view digits, float*, std::string_view& why);
std::optional<double> big_integer_as(std::string_view digits, double*, std::string_view& why);
std::optional<long double> big_integer_as(std::string_view digits, long double*,
                                          std::string_view& why);

template <class T>
T read_floating(Cursor& c) {
  const std::size_t at = c.position();
  if (const Token* t = c.scalar(Kind::floating)) {
    const double d = t->floating;
    if constexpr (std::numeric_limits<T>::max() < std::numeric_limits<double>::max()) {
      // Rounded to the nearest T, as any conversion is; but a double past T's range would
      // become an infinity, which is not near it.
      constexpr double kMax = std::numeric_limits<double>::max();
      constexpr T kTMax = std::numeric_limits<T>::max();
      const T f = static_cast<T>(d);
      if ((f > kTMax || f < -kTMax) && d <= kMax && d >= -kMax)
        c.mismatch(typeid(T), at, "out of range");
      return f;
    }
    return static_cast<T>(d);
  }
  if (const Token* t = c.scalar(Kind::integer)) {
    // Exactly: an integer whose significant bits fit T's significand (53 for a double, 24
    // for a float), whatever its magnitude (2^60 is a double).
    const std::int64_t i = t->integer;
    const std::uint64_t magnitude =
        i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    if (magnitude != 0 &&
        static_cast<int>(std::bit_width(magnitude)) - std::countr_zero(magnitude) >
            std::numeric_limits<T>::digits)
      c.mismatch(typeid(T), at, "not exact as floating point");
    return static_cast<T>(i);
  }
  const Token& t = c.peek();
  if (t.op == Op::value && t.kind == Kind::big_integer) {
    // What a peer writes for Clojure's 5N or a Java BigInteger: taken by the same rule.
    std::string_view why;
    if (const std::optional<T> f =
            big_integer_as(c.value(t).as_string(), static_cast<T*>(nullptr), why)) {
      c.take_peeked();
      return *f;
    }
    c.mismatch(typeid(T), at, why);
  }
  c.mismatch(typeid(T), at);
}

template <class T>
T read_enum(Cursor& c) {
  const std::size_t at = c.position();
  if constexpr (NamedEnum<T>) {
    const Token* t = c.scalar(Kind::keyword);
    if (!t) c.mismatch(typeid(T), at);
    const std::string_view got = c.value(*t).as_string();
    for (const auto& [value, name] : EnumNames<T>::names)
      if (got == std::string_view(name)) return value;
    c.mismatch(typeid(T), at, "no such name");
  } else {
    return static_cast<T>(read_integer<std::underlying_type_t<T>>(c));
  }
}

template <class T>
T read_library_type(Cursor& c) {
  const std::size_t at = c.position();
  if constexpr (std::is_same_v<T, Uuid>) {
    if (const Token* t = c.scalar(Kind::uuid)) return c.value(*t).as_uuid();
  } else if constexpr (std::is_same_v<T, Keyword>) {
    if (const Token* t = c.scalar(Kind::keyword)) return T{std::string(c.value(*t).as_string())};
  } else if constexpr (std::is_same_v<T, Symbol>) {
    if (const Token* t = c.scalar(Kind::symbol)) return T{std::string(c.value(*t).as_string())};
  } else if constexpr (std::is_same_v<T, BigInteger>) {
    if (const Token* t = c.scalar(Kind::big_integer)) return T{std::string(c.value(*t).as_string())};
    if (const Token* t = c.scalar(Kind::integer)) return T{std::to_string(t->integer)};
  } else if constexpr (std::is_same_v<T, BigDecimal>) {
    if (const Token* t = c.scalar(Kind::big_decimal)) return T{std::string(c.value(*t).as_string())};
  } else if constexpr (std::is_same_v<T, Uri>) {
    if (const Token* t = c.scalar(Kind::uri)) return T{std::string(c.value(*t).as_string())};
  }
  c.mismatch(typeid(T), at);
}

/// UTF-8 `s` as the text type T (a std::u8string, u16string, u32string or wstring): UTF-16
/// for 16-bit code units, UTF-32 for 32-bit ones. False when `s` is not UTF-8 (a Value's string
/// made so by hand: the decoder checks what it reads).
template <class T>
bool text_from_utf8(std::string_view s, T& out) {
  using C = typename T::value_type;
  if (!is_valid_utf8(s)) return false;
  out.clear();
  if constexpr (sizeof(C) == 1) {
    out.assign(s.begin(), s.end());
  } else {
    // Checked above, so every sequence is whole and well formed.
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
      const auto b = static_cast<unsigned char>(s[i]);
      const std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      char32_t cp = n == 1 ? b : n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
      for (std::size_t k = 1; k < n; ++k)
        cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      i += n;
      if constexpr (sizeof(C) == 2) {
        if (cp >= 0x10000) {
          out.push_back(static_cast<C>(0xD800 + ((cp - 0x10000) >> 10)));
          cp = 0xDC00 + ((cp - 0x10000) & 0x3FF);
        }
      }
      out.push_back(static_cast<C>(cp));
    }
  }
  return true;
}

template <class T>
inline constexpr bool is_string_view_v = false;
template <class C, class Traits>
inline constexpr bool is_string_view_v<std::basic_string_view<C, Traits>> = true;
/// A std::basic_string of char with another allocator or traits (std::pmr::string).
template <class T>
inline constexpr bool is_char_string_v = false;
template <class Traits, class Alloc>
inline constexpr bool is_char_string_v<std::basic_string<char, Traits, Alloc>> = true;
template <class T>
inline constexpr bool is_byte_array_v = false;
template <std::size_t N>
inline constexpr bool is_byte_array_v<std::array<std::byte, N>> = true;
template <class T>
inline constexpr bool is_span_v = false;
template <class U, std::size_t N>
inline constexpr bool is_span_v<std::span<U, N>> = true;

// A fixed number of items in an array: pairs, tuples, std::array.
template <class T, std::size_t N, class F>
T read_fixed(Cursor& c, F read_items) {
  const Cursor::Pin pin(c);  // the items are counted, then read from the first
  const std::size_t at = c.position();
  c.expect(Op::array_begin, typeid(T));
  std::size_t n = 0;
  for (; c.peek().op != Op::array_end; ++n) c.skip();
  if (n != N)
    c.mismatch(typeid(T), at, "has " + std::to_string(n) + " items, wants " + std::to_string(N));
  c.seek(at + 1);
  T out = read_items();
  c.take();
  return out;
}

template <class V, std::size_t I = 0>
V read_variant(Cursor& c, std::size_t start) {
  if constexpr (I == std::variant_size_v<V>) {
    c.mismatch(typeid(V), start, "no alternative fits");
  } else {
    try {
      return V(std::in_place_index<I>, bind<std::variant_alternative_t<I, V>>(c));
    } catch (const BindFailure&) {
      c.seek(start);
    }
    return read_variant<V, I + 1>(c, start);
  }
}

// A collection's opening: `tags` it may be tagged with (set, list, cmap), then an array (or,
// for a map, a map). Returns the op that closes it and whether a tag must be closed too.
[[gnu::noinline]] inline std::pair<Op, bool> open_tagged_collection(
    Cursor& c, const std::type_info& wanted, std::initializer_list<std::string_view> tags,
    bool map) {
  const std::size_t at = c.position();
  bool tagged = false;
  if (c.peek().op == Op::tagged_begin) {
    const std::string_view tag = c.text(c.peek());
    bool known = false;
    for (std::string_view t : tags) known |= t == tag;
    if (!known) c.mismatch(wanted, at);
    c.take_peeked();
    tagged = true;
  }
  const Op op = c.peek().op;
  if (op == Op::array_begin && (tagged || !map)) return c.take_peeked(), std::pair{Op::array_end, tagged};
  if (op == Op::map_begin && map) return c.take_peeked(), std::pair{Op::map_end, tagged};
  c.mismatch(wanted, at);
}

// The plain array (or map) that most collections are, inline; a tagged one or a wrong shape
// out of line.
inline std::pair<Op, bool> open_collection(Cursor& c, const std::type_info& wanted,
                                           std::initializer_list<std::string_view> tags,
                                           bool map) {
  if (c.peek().op == (map ? Op::map_begin : Op::array_begin)) {
    c.take_peeked();
    return {map ? Op::map_end : Op::array_end, false};
  }
  return open_tagged_collection(c, wanted, tags, map);
}

// After the loop's peek() found the end.
inline void close_collection(Cursor& c, std::pair<Op, bool> how) {
  c.take_peeked();
  if (how.second) c.take();  // the tagged value's end
}

// The types read_any reads through the tag table (its last branch), by the library's Bind.
template <class T>
inline constexpr bool is_user_type_v =
    std::is_class_v<T> && requires { typename Bind<T>::library_bind; } &&
    !std::is_same_v<T, Value> && !std::is_same_v<T, std::monostate> && !is_library_type_v<T> && !is_time_point_v<T> &&
    !is_specialization_v<T, std::optional> && !is_specialization_v<T, std::variant> &&
    !is_specialization_v<T, std::pair> && !is_specialization_v<T, std::tuple> &&
    !is_std_array_v<T> && !SmartPointer<T> && !MapLike<T> && !SetLike<T> &&
    !std::ranges::range<T>;

/// Reads items of a user type T in place, into default-constructed objects (a container's
/// new items), as read_any<T> reads one: its typed reader for plain maps is looked up once
/// per container rather than once per item, and no item is moved.
template <class T>
class UserItems {
 public:
  explicit UserItems(Cursor& c) : plain_(c.plain_reader(typeid(T))) {}
  /// Whether `t` is a plain map that this type's typed reader reads (read_plain).
  bool plain(const Token& t) const noexcept { return t.op == Op::map_begin && plain_; }
  void read_plain(Cursor& c, T& out) { plain_->read_into(plain_->context.get(), c, &out); }
  void read(Cursor& c, T& out) {
    const Token& t = c.peek();
    if (t.op == Op::map_begin && plain_) return plain_->read_into(plain_->context.get(), c, &out);
    // An object a Value read handler made for this type's tag (a move-only one is refused
    // by read_user, which says why).
    if constexpr (std::is_copy_assignable_v<T>)
      if (t.op == Op::value && t.kind == Kind::object)
        if (const T* p = c.value(t).template get_if<T>()) {
          c.take_peeked();
          out = *p;
          return;
        }
    c.read_user(typeid(T), &out);
  }

 private:
  const TypedReader* plain_;
};

template <class T>
T read_any(Cursor& c) {
  const std::size_t at = c.position();
  if constexpr (std::is_same_v<T, bool>) {
    if (const Token* t = c.scalar(Kind::boolean)) return t->integer != 0;
    c.mismatch(typeid(T), at);
  } else if constexpr (std::is_enum_v<T>) {
    return read_enum<T>(c);
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, char8_t>) {
    static_assert(!std::is_same_v<T, T>, "transit: a char is ambiguous; read a std::string or an int");
  } else if constexpr (CharacterType<T>) {
    return read_character<T>(c);
  } else if constexpr (std::is_integral_v<T>) {
    return read_integer<T>(c);
  } else if constexpr (std::is_floating_point_v<T>) {
    return read_floating<T>(c);
  } else if constexpr (is_char_string_v<T>) {
    // std::string, and a std::pmr::string alike (it was read as an array of chars, which did
    // not compile).
    std::string_view s;
    if (!c.string_of(c.peek(), s)) c.mismatch(typeid(T), at);
    c.take_peeked();
    return T(s.data(), s.size());
  } else if constexpr (is_string_view_v<T> || is_span_v<T>) {
    static_assert(!is_string_view_v<T>,
                  "transit: a string view cannot outlive the read that would fill it; read a "
                  "std::string (or std::u16string ...)");
    static_assert(!is_span_v<T>,
                  "transit: a std::span cannot outlive the read that would fill it; read a "
                  "std::vector (or std::vector<std::byte> for bytes)");
  } else if constexpr (is_specialization_v<T, std::basic_string> && WideText<T>) {
    std::string_view s;
    if (!c.string_of(c.peek(), s)) c.mismatch(typeid(T), at);
    T out;
    if (!text_from_utf8(s, out)) c.mismatch(typeid(T), at, "not valid UTF-8");
    c.take_peeked();
    return out;
  } else if constexpr (FilesystemPath<T>) {
    std::string_view s;
    if (!c.string_of(c.peek(), s)) c.mismatch(typeid(T), at);
    std::u8string text;
    if (!text_from_utf8(s, text)) c.mismatch(typeid(T), at, "not valid UTF-8");
    c.take_peeked();
    return T(std::move(text));
  } else if constexpr (std::is_same_v<T, std::nullptr_t> || std::is_same_v<T, std::monostate>) {
    if (c.scalar(Kind::null)) return T{};
    c.mismatch(typeid(T), at);
  } else if constexpr (std::is_same_v<T, Value>) {
    return c.read_value();
  } else if constexpr (is_library_type_v<T>) {
    return read_library_type<T>(c);
  } else if constexpr (is_time_point_v<T>) {
    if (const Token* t = c.scalar(Kind::instant)) {
      const std::int64_t ms = c.value(*t).as_instant();
      // A clock finer than milliseconds (system_clock counts nanoseconds on libstdc++) holds
      // about 292 years either side of 1970: a date beyond is an error, not an overflow.
      using Duration = typename T::duration;
      using Rep = typename Duration::rep;
      if constexpr (std::is_floating_point_v<Rep>) {
        return T(std::chrono::duration_cast<Duration>(std::chrono::milliseconds(ms)));
      } else if constexpr (std::ratio_less_v<typename Duration::period, std::milli>) {
        constexpr auto most = std::chrono::duration_cast<std::chrono::milliseconds>(Duration::max()).count();
        constexpr auto least = std::chrono::duration_cast<std::chrono::milliseconds>(Duration::min()).count();
        if (ms > most || ms < least) c.mismatch(typeid(T), at, "out of range");
        return T(std::chrono::duration_cast<Duration>(std::chrono::milliseconds(ms)));
      } else {
        // A millisecond or coarser (hours, days): divided, truncated toward zero as
        // duration_cast does (-1 ms is hour 0), then it must fit the count's type (a narrow or
        // unsigned one), as a finer clock's must, rather than wrap.
        using FromMillis = std::ratio_divide<std::milli, typename Duration::period>;
        std::int64_t count = 0;
        if (!scale_exact<FromMillis::num, FromMillis::den>(ms, count) || !std::in_range<Rep>(count))
          c.mismatch(typeid(T), at, "out of range");
        return T(Duration(static_cast<Rep>(count)));
      }
    }
    c.mismatch(typeid(T), at);
  } else if constexpr (ByteRange<T> && std::is_constructible_v<T, const std::byte*, const std::byte*>) {
    // std::vector<std::byte>, std::basic_string<std::byte>: what the writer writes as `~b`.
    if (const Token* t = c.scalar(Kind::bytes)) {
      const auto bytes = c.value(*t).as_bytes();
      return T(bytes.data(), bytes.data() + bytes.size());
    }
    c.mismatch(typeid(T), at);
  } else if constexpr (is_byte_array_v<T>) {
    if (const Token* t = c.scalar(Kind::bytes)) {
      const auto bytes = c.value(*t).as_bytes();
      if (bytes.size() != std::tuple_size_v<T>)
        c.mismatch(typeid(T), at, "has " + std::to_string(bytes.size()) + " bytes, wants " +
                                      std::to_string(std::tuple_size_v<T>));
      T out;
      std::copy(bytes.begin(), bytes.end(), out.begin());
      return out;
    }
    c.mismatch(typeid(T), at);
  } else if constexpr (is_specialization_v<T, std::optional>) {
    if (c.scalar(Kind::null)) return std::nullopt;
    return T(bind<typename T::value_type>(c));
  } else if constexpr (is_specialization_v<T, std::variant>) {
    const Cursor::Pin pin(c);  // each alternative is tried from the start
    return read_variant<T>(c, at);
  } else if constexpr (is_specialization_v<T, std::pair>) {
    return read_fixed<T, 2>(c, [&] {
      auto first = bind<typename T::first_type>(c);
      return T(std::move(first), bind<typename T::second_type>(c));
    });
  } else if constexpr (is_specialization_v<T, std::tuple>) {
    return read_fixed<T, std::tuple_size_v<T>>(c, [&] {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        // Braced initialization reads the items in order.
        return T{bind<std::tuple_element_t<I, T>>(c)...};
      }(std::make_index_sequence<std::tuple_size_v<T>>());
    });
  } else if constexpr (is_std_array_v<T>) {
    return read_fixed<T, std::tuple_size_v<T>>(c, [&] {
      T out;
      for (auto& item : out) item = bind<typename T::value_type>(c);
      return out;
    });
  } else if constexpr (SmartPointer<T>) {
    // shared_ptr<const B> too: the object is made as a B.
    using B = std::remove_cv_t<typename T::element_type>;
    if (c.scalar(Kind::null)) return T();
    if constexpr (std::is_class_v<B> && !is_library_type_v<B>) {
      if (void* p = c.read_derived(typeid(B), typeid(T))) return T(static_cast<B*>(p));
    }
    if constexpr (std::is_abstract_v<B>)
      c.mismatch(typeid(T), at, "an abstract type is read by a tag with a typed reader");
    else
      return T(new B(bind<B>(c)));
  } else if constexpr (MapLike<T> && MultiKeyed<T>) {
    // A map from each key to the array of its values, as write_key_runs writes it; each value
    // is inserted after the last, so a key's values keep their order.
    const auto how = open_collection(c, typeid(T), {"cmap"}, true);
    T out;
    auto last = out.end();
    while (c.peek().op != how.first) {
      auto key = bind<typename T::key_type>(c);
      const std::size_t values = c.position();
      const Op op = c.peek().op;
      if (op == how.first) c.mismatch(typeid(T), c.position(), "a key has no value");
      if (op != Op::array_begin && op != Op::tagged_begin)
        c.mismatch(typeid(T), values, "a key's values are an array");
      const auto run = open_collection(c, typeid(T), {"list"}, false);
      while (c.peek().op != run.first) {
        // An ordered container puts an item at its hint's end of its equal keys; an unordered
        // one after the hint.
        if constexpr (requires { out.key_eq(); })
          last = out.emplace_hint(last, key, bind<typename T::mapped_type>(c));
        else
          out.emplace_hint(out.end(), key, bind<typename T::mapped_type>(c));
      }
      close_collection(c, run);
    }
    close_collection(c, how);
    return out;
  } else if constexpr (MultiKeyed<T>) {
    // A multiset, from the array it is written as, or a `~#list`, or a `~#set` (whose members
    // are each there once).
    const auto how = open_collection(c, typeid(T), {"list", "set"}, false);
    T out;
    auto last = out.end();
    while (c.peek().op != how.first) {
      if constexpr (requires { out.key_eq(); })
        last = out.emplace_hint(last, bind<typename T::value_type>(c));
      else
        out.emplace_hint(out.end(), bind<typename T::value_type>(c));
    }
    close_collection(c, how);
    return out;
  } else if constexpr (MapLike<T>) {
    const auto how = open_collection(c, typeid(T), {"cmap"}, true);
    T out;
    while (c.peek().op != how.first) {
      auto key = bind<typename T::key_type>(c);
      if (c.peek().op == how.first) c.mismatch(typeid(T), c.position(), "a key has no value");
      auto value = bind<typename T::mapped_type>(c);
      if constexpr (requires { out.insert_or_assign(std::move(key), std::move(value)); })
        out.insert_or_assign(std::move(key), std::move(value));
      else
        out.emplace(std::move(key), std::move(value));
    }
    close_collection(c, how);
    return out;
  } else if constexpr (SetLike<T>) {
    // Tagged only, as transit-java and transit-js make a set of nothing else: an array read
    // into a set would lose its duplicates and its order.
    if (c.peek().op != Op::tagged_begin)
      c.mismatch(typeid(T), at, "a set is tagged ~#set; an array is not one");
    const auto how = open_collection(c, typeid(T), {"set"}, false);
    T out;
    while (c.peek().op != how.first) out.insert(bind<typename T::value_type>(c));
    close_collection(c, how);
    return out;
  } else if constexpr (is_specialization_v<T, std::forward_list>) {
    // Read as std::list is (it is written as one), appended at its tail.
    const auto how = open_collection(c, typeid(T), {"list", "set"}, false);
    T out;
    for (auto tail = out.before_begin(); c.peek().op != how.first;)
      tail = out.insert_after(tail, bind<typename T::value_type>(c));
    close_collection(c, how);
    return out;
  } else if constexpr (SizedThenFilled<T>) {
    // The items into a vector (the count is known only at the end), then moved in.
    using Item = typename T::value_type;
    const auto how = open_collection(c, typeid(T), {"list", "set"}, false);
    std::vector<Item> items;
    if (const std::uint32_t size = c.last().size; size != 0) items.reserve(size);
    while (c.peek().op != how.first) items.push_back(bind<Item>(c));
    close_collection(c, how);
    T out;
    out.resize(items.size());
    std::ranges::move(items, std::ranges::begin(out));
    return out;
  } else if constexpr (std::ranges::range<T> && PushBack<T>) {
    using Item = typename T::value_type;
    const auto how = open_collection(c, typeid(T), {"list", "set"}, false);
    T out;
    // Room for every item at once, from the count the decoder put in the array's begin token
    // (the items on the tape, so never more than the input holds).
    // No call for an empty one.
    if constexpr (requires { out.reserve(std::size_t{}); })
      if (const std::uint32_t size = c.last().size; size != 0) out.reserve(size);
    if constexpr (is_user_type_v<Item> && requires { out.emplace_back(); }) {
      UserItems<Item> items(c);
      for (;;) {
        // A plain map first, with no refill test (Cursor::head): a refill token is not one,
        // and the other path peek()s.
        if (items.plain(c.head())) {
          items.read_plain(c, out.emplace_back());
          continue;
        }
        if (c.peek().op == how.first) break;
        items.read(c, out.emplace_back());
      }
    } else {
      while (c.peek().op != how.first) out.push_back(bind<Item>(c));
    }
    close_collection(c, how);
    return out;
  } else {
    static_assert(std::is_class_v<T> && std::is_default_constructible_v<T>,
                  "transit: no way to read this type: it is not a type transit knows, and "
                  "a user type read through a Record must be default-constructible");
    // An object a Value read handler made for this type's tag (a move-only one is refused
    // by read_user, which says why).
    if constexpr (std::is_copy_constructible_v<T>) {
      const Token& t = c.peek();
      if (t.op == Op::value && t.kind == Kind::object)
        if (const T* p = c.value(t).template get_if<T>()) {
          c.take_peeked();
          return *p;
        }
    }
    T out{};
    c.read_user(typeid(T), &out);
    return out;
  }
}

}  // namespace detail

/// Binds a Value as a typed read binds bytes: `from_value<std::vector<int>>(v)`. With
/// `handlers`, a tagged value in `v` whose tag they decode into a Value (an `add_object` or
/// `add` handler's tag, not a Record's, or an unknown tag and a default handler) is decoded by
/// them first, once, as a read of the same bytes with them would, and the maps and arrays of a
/// Value bound in T go to their builders as a read's would (a map with a composite key is taken
/// for a cmap): so a Value read without the handlers binds as `read<T>` of its bytes with them. Throws Error(type_mismatch) with the
/// path (and no byte offset) when it does not fit, and a handler's failure as a read does.
template <class T>
T from_value(const Value& v, const ReadHandlers* handlers = nullptr) {
  detail::Tape tape;
  try {
    detail::tape_from_value(v, tape, handlers);
    detail::Cursor c(tape, handlers);
    detail::HandlerCalls calls;  // a variant's alternatives run each handler once
    c.keep_handler_calls(&calls);
    return Bind<T>::read(c);
  } catch (const detail::BindFailure& f) {
    detail::throw_error(f.code, f.detail, Location{}, detail::tape_path(tape, f.token));
  }
}

template <class T>
std::optional<T> Reader::next() {
  if (!next_tape()) return std::nullopt;
  // Every bind of the value (a variant's alternatives, the bind again below) runs a read
  // handler once per tagged value.
  detail::HandlerCalls calls;
  for (;;) {
    // A bounded tape (see TapeFeeder) that stops, for any reason, is read again whole: so a
    // failure, its byte offset and its path, or a lazy cache's second walk, is the whole
    // tape's, and a half-built T is dropped.
    const bool bounded = tape_->feeder != nullptr;
    detail::Cursor c(*tape_, handlers_);
    c.keep_handler_calls(&calls);
    try {
      std::optional<T> out(detail::bind<T>(c));
      // A binder takes exactly its value's tokens, the last of which ends the walk.
      if (!bounded || !tape_->feeder) [[likely]]
        return out;
    } catch (const detail::BindFailure& f) {
      if (!bounded) fail_bind(f);
#ifdef __GLIBCXX__
    } catch (abi::__forced_unwind&) {
      throw;  // the thread cancelled in user code: no bind again (glibc aborts otherwise)
#endif
    } catch (...) {
      if (!bounded) throw;
    }
    retape();
  }
}

template <class T>
T read(std::string_view input, Encoding encoding, ReadOptions options) {
  Reader reader(input, encoding, options);
  std::optional<T> v = reader.next<T>();
  detail::check_one_value(input, encoding, v.has_value(), reader.offset());
  return std::move(*v);
}

}  // namespace transit
