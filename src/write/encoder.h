// SPDX-License-Identifier: Apache-2.0
// The Transit write rules, independent of the backend. `Out` is a backend emitter with
//   null(), boolean(b), integer(i64), floating(d), string(sv), prefixed_string(tag, body)
//   ("~" + tag + body, written from its parts), array_begin(n), array_end(), map_begin(n),
//   map_end(), next_root()
// and optionally, for output in one pass where a backend can do better than string():
//   cache_code(code), base64_string(bytes)
// The encoder is a template over it, instantiated once per backend inside the library, so
// writing a Value makes no virtual call. It also implements ObjectEncoder, the interface the
// typed templates of write_handlers.h call: one virtual call per token of a C++ object graph.
#pragma once

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "backend.h"
#include "cache.h"
#include "codec/codec.h"
#include "io/out_buffer.h"
#include "transit/error.h"
#include "transit/registry.h"
#include "transit/value.h"
#include "transit/write_handlers.h"
#include "model/value_internal.h"

namespace transit::detail {

// Largest integer JavaScript represents exactly; larger ones go as "~i" strings in JSON.
inline constexpr std::int64_t kMaxJsonInt = (std::int64_t{1} << 53) - 1;

/// Which encoding's rules apply where they differ.
enum class Mode : std::uint8_t {
  json,     ///< maps as ["^ ", ...] arrays, cache, `~m` dates, big integers as `~i`
  verbose,  ///< maps as objects, no cache, `~t` dates
  msgpack,  ///< native maps, integers and scalar keys, cache, dates as ["~#m", ms]
};

template <class Out>
class Encoder final : public ObjectEncoder {
 public:
  /// `buffer`, where `out` writes, is told the walk's progress (OutBuffer::track_begin) so that
  /// a growing string can be sized for the value; null: it is not.
  Encoder(Out& out, Mode mode, const Registry* registry = nullptr,
          LookupProfiler* profiler = nullptr, std::size_t max_depth = SIZE_MAX,
          OutBuffer* buffer = nullptr)
      : out_(out),
        buffer_(buffer),
        verbose_(mode == Mode::verbose),
        msgpack_(mode == Mode::msgpack),
        registry_(registry),
        profiler_(profiler),
        max_depth_(max_depth),
        direct_depth_{0, max_depth} {}

  /// One top-level value, with a fresh cache.
  void write_top(const Value& v) {
    const bool scalar = v.kind() == Kind::object ? object_is_scalar(v.object_type_info(), v.object_address())
                                                  : writes_as_scalar(v);
    top_begin(scalar);
    write(v, false);
    top_end(scalar);
  }

  // ---- ObjectEncoder -----------------------------------------------------------------------------

  void null(bool as_key) override {
    as_key && !msgpack_ ? emit_string("~_", true) : out_.null();
  }
  void boolean(bool b, bool as_key) override {
    as_key && !msgpack_ ? emit_string(b ? "~?t" : "~?f", true) : out_.boolean(b);
  }
  void integer(std::int64_t i, bool as_key) override { write_integer(i, as_key); }
  [[gnu::always_inline]] void write_integer(std::int64_t i, bool as_key) {
    if (msgpack_ || (!as_key && i >= -kMaxJsonInt && i <= kMaxJsonInt)) [[likely]]
      return out_.integer(i);
    write_integer_as_text(i, as_key);
  }
  void write_integer_as_text(std::int64_t i, bool as_key) {
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof buf, i).ptr;
    emit_prefixed('i', {buf, static_cast<std::size_t>(end - buf)}, as_key);
  }
  void uinteger(std::uint64_t u, bool as_key) override {
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return integer(static_cast<std::int64_t>(u), as_key);
    // A big integer in every encoding, as the reference implementations write it: transit-java
    // cannot read a MessagePack uint 64 above INT64_MAX.
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof buf, u).ptr;
    emit_prefixed('n', {buf, static_cast<std::size_t>(end - buf)}, as_key);
  }
  void floating(double d, bool as_key) override {
    if (std::isnan(d)) return emit_prefixed('z', "NaN", as_key);
    if (std::isinf(d)) return emit_prefixed('z', d > 0 ? "INF" : "-INF", as_key);
    if (!as_key || msgpack_) return out_.floating(d);
    start_scratch('d');
    format_double_json(d, scratch_);
    emit_string(scratch_, as_key);
  }
  void string(std::string_view s, bool as_key) override {
    if (needs_escape(s))
      return emit_prefixed(s[0], s.substr(1), as_key);
    emit_string(s, as_key);
  }
  void keyword(std::string_view name, bool as_key) override { emit_prefixed(':', name, as_key); }
  void symbol(std::string_view name, bool as_key) override { emit_prefixed('$', name, as_key); }
  void instant(std::int64_t ms, bool as_key) override {
    if (msgpack_ && !as_key) return write_tagged_ints('m', {ms});
    if (verbose_) {
      start_scratch('t');
      format_instant(ms, scratch_);
      return emit_string(scratch_, as_key);
    }
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof buf, ms).ptr;
    emit_prefixed('m', {buf, static_cast<std::size_t>(end - buf)}, as_key);
  }
  void bytes(std::span<const std::byte> data, bool as_key) override {
    // A `~b` base64 string in MessagePack too, not a msgpack bin: what transit-java writes and
    // every Transit MessagePack reader understands.
    if constexpr (requires { out_.base64_string(data); }) {
      if (!as_key) return out_.base64_string(data);  // never cached: encoded in place
    }
    start_scratch('b');
    base64_encode(data, scratch_);
    emit_string(scratch_, as_key);
  }
  void value(const Value& v, bool as_key) override { write(v, as_key); }

  void object(const std::type_info& type, const void* obj, bool as_key) override {
    const ErasedHandler& h = claimed_handler(type, obj);
    const std::string tag = h.tag_of ? detail::tag_of_object(h, type, obj) : h.tag;
    const bool verbose_rep = verbose_ && h.write_verbose_rep;
    if (is_direct_tag(tag)) {
      // A map key whose rep's type does not say it is a scalar (a Value ...): checked once made.
      // Unless this object is the rep of a `set` `list` `cmap` or `link` object, whose check
      // check_rep left armed for the rep this object makes.
      if (rep_check == RepCheck::none || rep_check == RepCheck::scalar) {
        rep_check = as_key && (verbose_ ? h.verbose_rep_form : h.rep_form) != RepForm::scalar
                        ? RepCheck::scalar
                        : RepCheck::none;
        if (rep_check != RepCheck::none) [[unlikely]] arm_check(h, type, tag);
      }
      return detail::write_direct_object(*this, h, type, obj, as_key, verbose_, direct_depth_);
    }
    rep_check = verbose_rep ? h.verbose_rep_check : h.rep_check;
    if (h.tag_of || rep_check != RepCheck::none) [[unlikely]]
      arm_tag_check(h, type, tag);
    if (verbose_rep) [[unlikely]]
      return detail::write_verbose_object(*this, h, tag, obj, as_key);
    if (h.write_typed_rep) [[unlikely]]
      return detail::write_typed_default_object(*this, h, type, tag, obj, as_key);
    if (tag.size() == 1 && string_tag_char(tag[0]) && h.string_rep)
      return emit_prefixed(tag[0], h.string_rep(obj), as_key);
    tagged_begin(tag);
    h.write_rep(obj, *this, false);
    tagged_end();
  }

  bool object_is_scalar(const std::type_info& type, const void* obj) override {
    const void* original = obj;
    const ErasedHandler& h = handler_for(type, obj);
    resolved_.push_back({&type, original, obj, &h});
    const std::string tag = h.tag_of ? detail::tag_of_object(h, type, obj) : h.tag;
    if (tag.size() != 1) return false;  // array, map, and ["~#tag", rep]
    // A direct tag's object is its rep: a scalar unless the rep's type says otherwise (one
    // whose type leaves it open is checked as it is written, check_rep).
    if (is_direct_tag(tag)) {
      const RepForm form = verbose_ ? h.verbose_rep_form : h.rep_form;
      return form == RepForm::scalar || form == RepForm::unknown;  // unknown: check_rep
    }
    return string_tag_char(tag[0]) && (h.string_rep || h.typed_string_rep);
  }

  RepForm object_form(const std::type_info& type, const void* obj) override {
    const ErasedHandler& h = handler_for(type, obj);
    return detail::form_of_object(h, type, obj, verbose_);
  }

  void check_rep(RepShape shape) override {
    const RepCheck check = rep_check;
    // A rep that is an object written as its own rep, whose form only that rep tells (unknown)
    // or whose type says only that it is composite: a `set` `list` `cmap` or `link` check
    // stays armed for that rep, which object() writes next. (A map key's is armed there anew.)
    if ((shape.form == RepForm::unknown || shape.form == RepForm::composite) && check != RepCheck::scalar)
      [[unlikely]] return;
    rep_check = RepCheck::none;
    detail::check_rep_shape(check, shape, *checked_type_, checked_by_default_, checked_tag_);
  }

  void array_begin(std::size_t n) override { open_array(n); }
  void array_end() override { close_array(); }

  void map_begin(std::size_t n, bool scalar_keys) override {
    map_forms_.push_back(scalar_keys);
    open_map_form(n, scalar_keys);
  }
  void map_end() override {
    const bool scalar_keys = map_forms_.back();
    map_forms_.pop_back();
    close_map_form(scalar_keys);
  }

  /// `["~#tag", rep]` (cached tag) or `{"~#tag": rep}` in verbose mode; "~#tag" is cached and
  /// written from its parts.
  void tagged_begin(std::string_view tag) override {
    if (verbose_) {
      open_map(1);
      out_.prefixed_string('#', tag);
    } else {
      open_array(2);
      emit_prefixed('#', tag, false);
    }
  }
  void tagged_end() override { verbose_ ? close_map() : close_array(); }

  void top_begin(bool scalar) override {
    out_.next_root();
    depth_ = 0;
    cache_.reset();
    map_forms_.clear();
    claim_resolved();
    if (scalar) tagged_begin("'");
  }
  void top_end(bool scalar) override {
    if (scalar) tagged_end();
    cache_.release_values();  // the next value resets the cache before any lookup
    release_resolved();
  }

  /// Forgets what a value that failed half-way left behind; called before each top-level value.
  void begin_value() noexcept {
    rep_check = RepCheck::none;  // a rep function that threw left its check armed
    resolved_.clear();
    claims_.clear();
    claim_depth_ = 0;
    unclaimed_ = 0;
  }

 private:
  const ErasedHandler& handler_for(const std::type_info& type, const void*& obj) {
    if (!registry_)
      throw_error(Errc::no_handler, "no write handler for C++ type " + type_name(type) +
                                        ": the writer has no registry (WriteOptions::registry)");
    return registry_->resolve(type, obj, profiler_);
  }

  // Each user object is looked up once. Deciding whether a map's keys (or a top-level value)
  // are scalars resolves their handlers before any is written; object_is_scalar() keeps them
  // here, the map (or top-level value) that begins next claims them, and its keys take them in
  // order. A nested map claims only what was resolved for it.
  struct Resolved {
    const std::type_info* type;
    const void* obj;       // as given
    const void* adjusted;  // converted to the handler's base
    const ErasedHandler* handler;
  };
  struct Claim {
    std::size_t begin, next, end;
    std::size_t depth;  // the claim_depth_ of the map (or top-level value) that made it
  };

  // Most maps have no user-object keys: they claim nothing and push no Claim, only count
  // themselves in claim_depth_. A Claim is the innermost map's only when it was made at the
  // current depth, so a map that claimed nothing never takes its parent's entries.
  void claim_resolved() {
    ++claim_depth_;
    if (resolved_.size() == unclaimed_) return;
    claims_.push_back({unclaimed_, unclaimed_, resolved_.size(), claim_depth_});
    unclaimed_ = resolved_.size();
  }
  // Inline for the map of plain Values (nothing claimed, nothing resolved): a count down.
  [[gnu::always_inline]] void release_resolved() {
    if (claims_.empty() && resolved_.size() == unclaimed_) [[likely]] {
      if (claim_depth_ != 0) --claim_depth_;
      return;
    }
    release_claimed();
  }
  [[gnu::noinline]] void release_claimed() {
    if (claim_depth_ == 0) return;
    if (!claims_.empty() && claims_.back().depth == claim_depth_) [[unlikely]] {
      resolved_.resize(claims_.back().begin);
      claims_.pop_back();
      unclaimed_ = resolved_.size();
    } else if (resolved_.size() != unclaimed_) [[unlikely]] {
      // Nothing claimed here; drop what was resolved inside and never claimed, as a Claim's
      // release does (unclaimed_ is back where this map found it).
      resolved_.resize(unclaimed_);
    }
    --claim_depth_;
  }
  const ErasedHandler& claimed_handler(const std::type_info& type, const void*& obj) {
    if (!claims_.empty() && claims_.back().depth == claim_depth_) {
      Claim& c = claims_.back();
      if (c.next < c.end && resolved_[c.next].type == &type && resolved_[c.next].obj == obj) {
        const Resolved& r = resolved_[c.next++];
        obj = r.adjusted;
        return *r.handler;
      }
    }
    return handler_for(type, obj);
  }

  // The object whose rep check_rep checks, for its message; `tag` outlives the check (object()).
  // The default handler (no type_key) is named as such.
  void arm_check(const ErasedHandler& h, const std::type_info& type, std::string_view tag) {
    checked_type_ = &type;
    checked_by_default_ = !h.type_key;
    checked_tag_ = tag;
  }
  // A tag decided per object is held to the rep's form here, as add_erased holds a fixed one.
  [[gnu::noinline]] void arm_tag_check(const ErasedHandler& h, const std::type_info& type,
                                       std::string_view tag) {
    if (h.tag_of)
      rep_check = detail::rep_check_for(tag, verbose_ ? h.verbose_rep_form : h.rep_form, &type, !h.type_key,
                                        Errc::bad_rep);
    arm_check(h, type, tag);
  }

  void write(const Value& v, bool as_key) {
    switch (v.kind()) {
      case Kind::null:
        return null(as_key);
      case Kind::boolean:
        return boolean(v.as_bool(), as_key);
      case Kind::integer:
        return write_integer(ValueAccess::int_bits(v), as_key);
      case Kind::big_integer:
        return emit_text(v, 'n', as_key);
      case Kind::floating:
        return floating(ValueAccess::double_bits(v), as_key);
      case Kind::big_decimal:
        return emit_text(v, 'f', as_key);
      case Kind::string:
        if (!as_key) return write_string_value(v);
        return emit_text(v, '"', as_key);
      case Kind::bytes:
        return bytes(v.as_bytes(), as_key);
      case Kind::keyword:
        return emit_text_cached(v, ':', as_key);
      case Kind::symbol:
        return emit_text(v, '$', as_key);
      case Kind::character: {
        start_scratch('c');
        append_utf8(v.as_char(), scratch_);
        return emit_string(scratch_, as_key);
      }
      case Kind::instant:
        return instant(ValueAccess::int_bits(v), as_key);
      case Kind::uuid: {
        const Uuid u = v.as_uuid();
        if (msgpack_ && !as_key)
          return write_tagged_ints('u', {static_cast<std::int64_t>(u.hi), static_cast<std::int64_t>(u.lo)});
        char text[kUuidText];
        return emit_prefixed('u', {text, static_cast<std::size_t>(format_uuid_to(u, text) - text)}, as_key);
      }
      case Kind::uri:
        return emit_text(v, 'r', as_key);
      case Kind::array:
        return write_items(v);
      case Kind::list:
        tagged_begin("list");
        write_items(v);
        return tagged_end();
      case Kind::set:
        tagged_begin("set");
        write_items(v);
        return tagged_end();
      case Kind::map:
        return write_map(v);
      case Kind::link:
        tagged_begin("link");
        write_map(v);
        return tagged_end();
      case Kind::tagged:
        if (writes_as_scalar(v)) return emit_prefixed(v.tag()[0], v.rep().as_string(), as_key);
        tagged_begin(v.tag());
        write(v.rep(), false);
        return tagged_end();
      case Kind::object:
        return object(v.object_type_info(), v.object_address(), as_key);
    }
  }

  // A string that is not a map key is never cached: out as it is unless it must be escaped
  // (a leading ~, ^ or `), with no call of emit_text (its frame and the tests for keys).
  [[gnu::always_inline]] void write_string_value(const Value& v) {
    const std::string_view text = ValueAccess::text(v);
    if (!needs_escape(text)) [[likely]]
      return out_.string(text);
    emit_prefixed(text[0], text.substr(1), false);
  }

  void write_items(const Value& v) {
    const auto items = ValueAccess::items(v);
    open_array(items.size());
    if (tracks(items.size())) [[unlikely]] {
      // The records of a tree built by Value's constructors: see ValueAccess::built_records.
      const bool prefetch = ValueAccess::built_records(v);
      buffer_->track_begin(items.data(), items.data() + items.size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (prefetch) [[unlikely]]
          ValueAccess::prefetch_records_ahead(items, i);
        buffer_->track_at(&items[i]);
        write(items[i], false);
      }
      buffer_->track_end();
    } else {
      for (const Value& item : items) write(item, false);
    }
    close_array();
  }

  // Whether the walk reports its progress through a container of n items to the buffer: the
  // first container of a value with many items (a large value is nearly always one), while no
  // other is tracked.
  bool tracks(std::size_t n) const noexcept {
    constexpr std::size_t kTrackedItems = 16;
    return n >= kTrackedItems && buffer_ != nullptr && !buffer_->tracking();
  }

  [[gnu::always_inline]] void open_map_form(std::size_t n, bool scalar_keys) {
    claim_resolved();
    if (!scalar_keys) {
      // A cmap: ["~#cmap", [k, v, ...]] with the keys written as ordinary values.
      tagged_begin("cmap");
      open_array(2 * n);
    } else if (verbose_ || msgpack_) {
      open_map(n);
    } else {
      open_array(2 * n + 1);
      emit_code("^ ");
    }
  }
  [[gnu::always_inline]] void close_map_form(bool scalar_keys) {
    release_resolved();
    if (!scalar_keys) {
      close_array();
      tagged_end();
    } else if (verbose_ || msgpack_) {
      close_map();
    } else {
      close_array();
    }
  }

  // Kinds written as one string or scalar whatever their content (writes_as_scalar), as bits.
  static constexpr std::uint32_t kAlwaysScalar = [] {
    std::uint32_t mask = 0;
    for (const Kind k : {Kind::null, Kind::boolean, Kind::integer, Kind::big_integer, Kind::floating,
                         Kind::big_decimal, Kind::string, Kind::bytes, Kind::keyword, Kind::symbol,
                         Kind::character, Kind::instant, Kind::uuid, Kind::uri})
      mask |= 1u << static_cast<unsigned>(k);
    return mask;
  }();
  // The character after `~` of a text kind that emit_text writes (string: '"'), or 0.
  static constexpr auto kTextKinds = [] {
    std::array<char, 32> t{};
    t[static_cast<unsigned>(Kind::string)] = '"';
    t[static_cast<unsigned>(Kind::keyword)] = ':';
    t[static_cast<unsigned>(Kind::symbol)] = '$';
    t[static_cast<unsigned>(Kind::big_integer)] = 'n';
    t[static_cast<unsigned>(Kind::big_decimal)] = 'f';
    t[static_cast<unsigned>(Kind::uri)] = 'r';
    return t;
  }();

  void write_map(const Value& v) {
    const auto entries = ValueAccess::entries(v);
    // A map's form (map or cmap) depends on all its keys, so it is decided before the first is
    // written; keys of a ground scalar kind, nearly all keys, are told by one bit test.
    bool scalar_keys = true;
    for (const auto& entry : entries) {
      const Value& k = entry.first;
      if ((kAlwaysScalar >> static_cast<unsigned>(k.kind())) & 1u) continue;
      if (k.kind() == Kind::object ? !object_is_scalar(k.object_type_info(), k.object_address())
                                   : !writes_as_scalar(k)) {
        scalar_keys = false;
        break;
      }
    }
    // The form is known here: no map_forms_ entry, which only the ObjectEncoder calls need.
    open_map_form(entries.size(), scalar_keys);
    if (tracks(entries.size())) [[unlikely]] {
      buffer_->track_begin(entries.data(), entries.data() + entries.size());
      for (const auto& entry : entries) {
        buffer_->track_at(&entry);
        write_entry(entry.first, entry.second, scalar_keys);
      }
      buffer_->track_end();
    } else {
      for (const auto& [key, value] : entries) write_entry(key, value, scalar_keys);
    }
    close_map_form(scalar_keys);
  }

  [[gnu::always_inline]] void write_entry(const Value& key, const Value& value, bool scalar_keys) {
    // Keys are nearly always strings or keywords: written without the dispatch on kind.
    if (const char text_kind = kTextKinds[static_cast<unsigned>(key.kind())]; text_kind != 0)
      emit_text_cached(key, text_kind, scalar_keys);
    else
      write(key, scalar_keys);
    write(value, false);
  }

  // Every array and map of the output opens here, so that nesting is counted as a reader will
  // count it: a cmap, set or tagged value takes two levels, a MessagePack date or UUID one or
  // two more than the scalar it is in JSON. Past max_depth the value is refused rather than
  // written for a reader to reject.
  // Inline wherever a container opens: left to GCC's inliner, the opening of a MessagePack
  // UUID's arrays in write() went out of line when emit_text_unseen shrank (extensions'
  // MessagePack write +0.8% instructions; docs/performance-log.md, round twenty-five).
  [[gnu::always_inline]] void open_array(std::size_t n) {
    enter();
    out_.array_begin(n);
  }
  [[gnu::always_inline]] void open_map(std::size_t n) {
    enter();
    out_.map_begin(n);
  }
  void close_array() {
    --depth_;
    out_.array_end();
  }
  void close_map() {
    --depth_;
    out_.map_end();
  }
  void enter() {
    if (depth_ == max_depth_)
      throw_error(Errc::too_deep, "value nests deeper than " + std::to_string(max_depth_) +
                                      " levels as written (WriteOptions::max_depth), which a "
                                      "reader with the same max_depth rejects");
    ++depth_;
  }

  /// MessagePack's tagged forms of dates and UUIDs: `["~#m", ms]`, `["~#u", [hi, lo]]`.
  void write_tagged_ints(char tag, std::initializer_list<std::int64_t> rep) {
    const char name[] = {'~', '#', tag};
    open_array(2);
    emit_string({name, sizeof name}, false);
    if (rep.size() == 1) {
      out_.integer(*rep.begin());
    } else {
      open_array(rep.size());
      for (const std::int64_t i : rep) out_.integer(i);
      close_array();
    }
    close_array();
  }

  void start_scratch(char tag) {
    scratch_.assign(1, '~');
    scratch_.push_back(tag);
  }

  /// "~" + tag + body, looked up in the cache and written from its parts: no such text built.
  void emit_prefixed(char tag, std::string_view body, bool as_key) {
    if (!verbose_ && is_cacheable_prefixed(tag, body, as_key)) {
      if (const std::string_view code = cache_.find_or_add('~', tag, body); !code.empty())
        return emit_code(code);
    }
    out_.prefixed_string(tag, body);
  }

  /// A text value: a string (`kind` '"') or one written as "~" + kind + text. Where it is
  /// cacheable (a map key, a keyword or a symbol) it is first looked up by identity: a keyword
  /// written again costs a lookup of two words, with no "~:name" built and no bytes hashed,
  /// and a cache reference to a 16 MB keyword no copy, hash or compare of its text. Otherwise
  /// as string() and emit_prefixed().
  ///
  /// The common case, a key or keyword written before, is found here, inline where keys and
  /// keywords are written, with no call; anything else goes on to emit_text, with the probe
  /// that missed (remember() puts the value where that probe stopped).
  [[gnu::always_inline]] void emit_text_cached(const Value& v, char kind, bool as_key) {
    // Texts under 4 bytes on the wire are never cached (an escaped string is left to
    // emit_text, which counts its `~`).
    if (!verbose_ && (as_key || kind == ':' || kind == '$') &&
        ValueAccess::text(v).size() + (kind != '"' ? 2 : 0) >= 4) {
      if (const std::string_view code = cache_.find_value(v, kind); !code.empty())
        return emit_code(code);
      if (kind == '"') return emit_text_unseen(v, as_key);
      return emit_text_cacheable(v, kind, as_key, true);
    }
    emit_text(v, kind, as_key);
  }
  /// A string key that find_value has not seen by identity, found by its bytes as it is
  /// written: a tree whose equal keys are separate nodes (read from JSON-Verbose or plain JSON,
  /// or built by the user) meets nearly every long key here, cached under another node. An
  /// escaped one goes on to emit_text_cacheable, as do keywords (written from their parts).
  [[gnu::noinline]] void emit_text_unseen(const Value& v, bool as_key) {
    const std::string_view text = ValueAccess::text(v);  // 4 bytes or more
    // needs_escape's test written out without its empty check, which is not needed here and
    // with which GCC laid the MessagePack write out longer (extensions +1.3% instructions).
    if (text[0] != '~' && text[0] != '^' && text[0] != '`' && is_cacheable(text, as_key)) {
      const WriteCache::ValueProbe probe = cache_.missed(v);  // find_value's miss: the hole
      if (const std::string_view code = cache_.find_or_add(text); !code.empty()) return emit_code(code);
      cache_.remember(v, '"', probe);
      return out_.string(text);
    }
    emit_text_cacheable(v, '"', as_key);
  }
  [[gnu::noinline]] void emit_text(const Value& v, char kind, bool as_key) {
    if (verbose_ || !(as_key || kind == ':' || kind == '$')) {
      // Never cached here (verbose, or a value that is not a keyword or symbol): a string
      // that needs no `~` escape goes straight out.
      const std::string_view text = ValueAccess::text(v);
      if (kind != '"') return emit_prefixed(kind, text, as_key);
      if (needs_escape(text))
        return emit_prefixed(text[0], text.substr(1), as_key);
      return out_.string(text);
    }
    emit_text_cacheable(v, kind, as_key);
  }
  /// A text that may be cached (not verbose; a map key, a keyword or a symbol). Probed again
  /// by identity when the caller has probed already (emit_text_cached: its hit stays as short
  /// as it can be), for the slot where remember() puts it.
  [[gnu::noinline]] void emit_text_cacheable(const Value& v, char kind, bool as_key, bool probed = false) {
    const std::string_view text = ValueAccess::text(v);
    const bool escaped = kind == '"' && needs_escape(text);
    // Fewer than 4 bytes on the wire ("id", "~:a") are never cached: no probe for them.
    if (text.size() + (kind != '"' ? 2 : escaped ? 1 : 0) < 4) {
      if (kind == '"' && !escaped) return out_.string(text);
      return emit_prefixed(kind == '"' ? text[0] : kind, kind == '"' ? text.substr(1) : text, as_key);
    }
    WriteCache::ValueProbe probe;
    if (probed) {
      probe = cache_.missed(v);
    } else {
      probe = cache_.probe_value(v, kind);
      if (!probe.code.empty()) return emit_code(probe.code);
    }
    if (kind == '"' && !escaped) {
      if (!is_cacheable(text, as_key)) return out_.string(text);
      if (const std::string_view code = cache_.find_or_add(text); !code.empty()) return emit_code(code);
      cache_.remember(v, kind, probe);
      return out_.string(text);
    }
    // "~" + kind + text (or "~" + an escaped string): probed, cached and written from its
    // parts, with no such text built.
    const char head = kind == '"' ? text[0] : kind;
    const std::string_view body = kind == '"' ? text.substr(1) : text;
    if (!is_cacheable_prefixed(head, body, as_key)) return out_.prefixed_string(head, body);
    if (const std::string_view code = cache_.find_or_add('~', head, body); !code.empty())
      return emit_code(code);
    cache_.remember(v, kind, probe);
    out_.prefixed_string(head, body);
  }

  void emit_string(std::string_view s, bool as_key) {
    if (!verbose_ && is_cacheable(s, as_key)) {
      const std::string_view code = cache_.find_or_add(s);
      if (!code.empty()) return emit_code(code);
    }
    out_.string(s);
  }

  // A cache code (from kCacheCodes) or the "^ " map marker (a literal): 2 or 3 chars of
  // printable ASCII that no backend escapes, with at least 3 readable.
  [[gnu::always_inline]] void emit_code(std::string_view code) {
    if constexpr (requires { out_.cache_code(code); })
      out_.cache_code(code);
    else
      out_.string(code);
  }

  Out& out_;
  OutBuffer* buffer_;
  bool verbose_;
  bool msgpack_;
  const Registry* registry_;
  LookupProfiler* profiler_;
  WriteCache cache_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;  // arrays and maps open in the output
  std::string scratch_;          // "~X" + text for the string being written; reused
  std::vector<bool> map_forms_;  // per open map: keys are scalars (else it is a cmap)
  std::vector<Resolved> resolved_;
  std::vector<Claim> claims_;    // per open map and top-level value that claimed anything
  std::size_t claim_depth_ = 0;  // open maps and top-level values
  std::size_t unclaimed_ = 0;    // resolved_[unclaimed_...] await the next map or top-level value
  DirectDepth direct_depth_;     // objects open in write_direct_object
  const std::type_info* checked_type_ = nullptr;  // see arm_check
  bool checked_by_default_ = false;                 // written by the default handler
  std::string_view checked_tag_;
};

/// A Writer::Impl for any backend: `Buffer` collects bytes and spills them to the sink,
/// `Emitter` turns encoder events into the backend's bytes (`Emitter::kNewlines`: whether
/// WriteOptions::newline_after_value applies to them).
template <class Buffer, class Emitter>
class BackendWriter final : public Writer::Impl {
 public:
  template <class... EmitterArgs>
  BackendWriter(Sink& sink, Mode mode, const WriteOptions& options, EmitterArgs&&... args)
      : out_(sink, options.buffer_size, options.max_output_bytes),
        emitter_(out_, std::forward<EmitterArgs>(args)...),
        encoder_(emitter_, mode, options.registry, options.profiler, options.max_depth, buffer(out_)),
        profiler_(options.profiler),
        newline_(Emitter::kNewlines && options.newline_after_value) {}

  void write(const Value& v) override {
    begin_value();
    encoder_.write_top(v);  // Writer::write abandons the value when this throws
    end_value();
  }
  ObjectEncoder& begin_value() override {
    out_.mark();
    encoder_.begin_value();
    if (profiler_) started_ = std::chrono::steady_clock::now();
    return encoder_;
  }
  void end_value() override {
    // Not a test inside end_value: in MessagePack's copy too, that tipped the compiler's
    // inlining of its encoder (0.2% to 3.4% more instructions a write).
    if (Emitter::kNewlines && newline_)
      out_.template end_value<Emitter::kNewlines>();
    else
      out_.end_value();
    if (profiler_) add_writer_time();
  }
  std::size_t abandon_value() noexcept override {
    const std::size_t in_sink = out_.rollback();
    if (profiler_) add_writer_time();
    return in_sink;
  }
  void flush() override { out_.flush_sink(); }

 private:
  static OutBuffer* buffer(Buffer& b) noexcept {
    if constexpr (std::is_same_v<Buffer, OutBuffer>)
      return &b;
    else
      return nullptr;
  }

  // The profiler's share of lookup in writing needs the time spent writing.
  void add_writer_time() noexcept {
    profiler_->add_writer_time(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - started_));
  }

  Buffer out_;
  Emitter emitter_;
  Encoder<Emitter> encoder_;
  LookupProfiler* profiler_;
  bool newline_;  // WriteOptions::newline_after_value, where the emitter writes text
  std::chrono::steady_clock::time_point started_;
};

}  // namespace transit::detail
