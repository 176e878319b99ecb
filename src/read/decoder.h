// SPDX-License-Identifier: Apache-2.0
// The Transit read rules, independent of the backend. A backend parser turns bytes into
// events (null, boolean, integer, ..., string, array_begin/end, map_begin/end); the decoder
// resolves cache codes, "^ " map arrays, `~X` strings and tagged values, and builds Values.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <type_traits>
#include <string_view>
#include <vector>

#include "cache.h"
#include "codec/codec.h"
#include "transit/reader.h"
#include "transit/tape.h"
#include "transit/value.h"
#include "model/value_internal.h"
#include "read/value_stack.h"

namespace transit::detail {

struct ReadHandlerEntry;
class Decoder;

/// Where a reader places an error: `d.path()`, and below it, when the error being handled
/// is the decoder's and says so, where in a tagged value's rep it is: a bad field of a Record,
/// whose rep the decoder binds at its end (Decoder::bind_record_rep), says `<#tag>[:xs][1]`,
/// so the error reads `$[0]<#tag>[:xs][1]`, as read<T> says it. Out of line and asking
/// std::current_exception, so that the readers' catch blocks, in their read loops, stay as
/// they were (passing the error itself made GCC compile keywords' JSON walk 0.3% longer).
[[gnu::cold, gnu::noinline]] std::string placed_path(const Decoder& d);

class Decoder {
 public:
  explicit Decoder(const ReadOptions& options)
      : max_depth_(options.max_depth),
        max_items_(options.max_collection_length),
        handlers_(options.handlers),
        tape_array_limit_(tape_limit(max_items_)),
        tape_map_limit_(tape_limit(max_items_ > SIZE_MAX / 2 ? SIZE_MAX : 2 * max_items_)),
        uncounted_array_until_(std::min(stack_until_for(0, false, true), SIZE_MAX - UINT32_MAX)),
        uncounted_map_until_(std::min(stack_until_for(0, true, false), SIZE_MAX - UINT32_MAX)),
        pair_rep_() {
    // A value 8 levels deep grows the frames once, not at depths 1, 2, 3 and 5: what a
    // Reader made for one small message (transit::read) pays on every message.
    frames_.reserve(8);
  }
  ~Decoder() {
    drop_frames();
    if (user_calls_) [[unlikely]]
      free_user_calls();
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  /// Thrown by string() when a value read with a lazy cache turns out to need the strings it
  /// did not cache: the reader reads the value again from its start, caching from the start.
  struct CacheNeeded {};

  /// Starts a new top-level value: empties the cache and any partial state.
  ///
  /// With `cache_lazily`, nothing is cached until the value shows that it is JSON (not
  /// JSON-Verbose) by a form only JSON writes: a `"^ "` map array or a `["~#tag", rep]` array.
  /// If a cacheable string went by before that, or a cache code comes first, string() throws
  /// CacheNeeded. A JSON-Verbose value thus costs no cache work, and every other value reads
  /// exactly as with the cache on. Only a reader that can read a value twice asks for it.
  void reset(bool cache_lazily = false) noexcept;
  /// Whether strings are being cached (always, unless reset lazily and no JSON form was seen).
  bool caching() const noexcept { return caching_; }

  /// Typed reads (read<T>): with a tape set, the decoder resolves the Transit rules as ever but
  /// records what it resolves as tokens on the tape instead of building Values; a binder then
  /// fills C++ objects from them. Tagged values a binder reads by structure (set, list, cmap,
  /// quote, tags with a typed reader) stay structure on the tape; any other tagged value is
  /// decoded here, as a Value, exactly as an untyped read decodes it. Null: build Values.
  void set_tape(Tape* tape) noexcept {
    tape_ = tape;
    tape_input_stable_ = false;
    tape_marks_ = true;
  }
  /// Whether the tape keeps each token's mark (Tape::marks). A reader that can read the value
  /// again to find them (Backend::remark) turns them off: only a failed bind needs them. Set
  /// after set_tape, which turns them on.
  void set_tape_marks(bool marks) noexcept { tape_marks_ = marks; }
  Tape* tape() const noexcept { return tape_; }
  bool tape_marks() const noexcept { return tape_marks_; }
  /// Whether the strings the backend gives (string()) stay where they are for as long as the
  /// tape is bound: the tape then refers to them rather than copying them. Only for input in
  /// memory that no parser rewrites; set after set_tape, which clears it.
  void set_tape_input_stable(bool stable) noexcept { tape_input_stable_ = stable; }
  /// Where the next event's token starts, as the backend counts (recorded on the tape only).
  void mark(std::size_t m) noexcept { mark_ = m; }

  // A typed read's string from MessagePack (checked_string), with the tape set: a cache code
  // goes straight to the tape's path while the tape is being written (no tagged value decoded
  // as a Value is open), else to string(), which does the same with its checks first. (The
  // walk of a parsed JSON document has its own, TapeWalk::string.)
  void tape_walk_string(std::string_view raw) {
    // As string() takes a cache code ("^ " is not one): tape_cached, if the code names text
    // on the tape; anything else, and every error, by string().
    if (raw.size() >= 2 && raw[0] == '^' && !(raw.size() == 2 && raw[1] == ' ') && caching_ &&
        frames_.empty() && tape_cached_inline(raw))
      return;
    string(raw);
  }
  /// A bounded tape (TapeFeeder): the tokens the binder may read now. All but the begin token
  /// of an array or map that has no item yet, which a tag or "^ " would take back or rewrite.
  std::size_t tape_visible() const noexcept {
    const std::size_t n = tape_->tokens.size();
    if (tape_frames_.empty()) return n;
    const TapeFrame& f = tape_frames_.back();
    const bool may_change = f.count == 0 && (f.kind == FrameKind::array || f.kind == FrameKind::object);
    return may_change && f.begin_token + 1 == n ? n - 1 : n;
  }
  /// A bounded tape dropped the tokens before its base: an open container whose begin token
  /// went writes its item count to the tape's scratch slot from now on.
  void tape_dropped() noexcept {
    const std::size_t base = tape_->tokens.base();
    for (TapeFrame& f : tape_frames_)
      if (f.begin_token < base) f.begin_token = static_cast<std::uint32_t>(tape_->tokens.scratch());
  }
  /// Room on the tape for `tokens` tokens, taken at once: a parsed document's walk knows
  /// at most how many it writes (a token per word of simdjson's tape at most).
  void tape_reserve(std::size_t tokens) { tape_->tokens.reserve(tokens); }
  // A typed read tapes these four straight into a token, with no Value made and read back.
  void null() {
    if (tape_ && taping()) [[unlikely]]
      return tape_scalar(Kind::null, 0);
    deliver(Value());
  }
  void boolean(bool b) {
    if (tape_ && taping()) [[unlikely]]
      return tape_scalar(Kind::boolean, b);
    deliver(Value(b));
  }
  // Inlining is left to GCC, which inlines it into MessagePack's parse loop (Parser::run)
  // and leaves it a call elsewhere (RapidJSON's number parsing; uinteger() in the walk of
  // simdjson's document, for its rare unsigned words). Forced inline everywhere (json_integer
  // merged into it), the parse loop compiled to the same bytes but the JSON walk's layout
  // moved: JSON and JSON-Verbose reads -0.13% to +0.10% instructions (round sixteen).
  // Re-count when it changes.
  void integer(std::int64_t i) { json_integer(i); }
  /// integer(), always inline: for the walk of simdjson's document, where GCC left integer()
  /// a call (about 10 instructions of the 33 an integer cost).
  [[gnu::always_inline]] void json_integer(std::int64_t i) {
    if (tape_ && taping()) [[unlikely]]
      return tape_scalar(Kind::integer, i);
    deliver(Value(i));
  }
  void floating(double d) {
    if (tape_ && taping()) [[unlikely]]
      return tape_scalar(Kind::floating, std::bit_cast<std::int64_t>(d));
    deliver(Value(d));
  }
  /// An integer too large for int64, as decimal digits.
  void big_integer(std::string_view digits);
  /// A native unsigned integer (MessagePack): above INT64_MAX it is a big integer. Inline:
  /// MessagePack writes every non-negative integer this way.
  void uinteger(std::uint64_t u) {
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) [[likely]]
      return integer(static_cast<std::int64_t>(u));
    big_uinteger(u);
  }
  /// Raw bytes (a MessagePack bin, which Transit writers do not emit but peers may).
  void bytes(std::string_view data) { deliver(Value::bytes(data)); }
  /// Any string on the wire: values, JSON object keys, map-array keys alike.
  void string(std::string_view raw);
  /// checked_string() for the strings of RapidJSON's events (a Source, or text simdjson
  /// leaves to RapidJSON), their UTF-8 checked here (Error(invalid_utf8)): text of up to 64
  /// bytes by a few overlapping word loads when it is all ASCII (is_short_ascii,
  /// is_ascii_17_to_64, as MessagePack's reader checks it), which also spares checked_string
  /// counting UTF-16 units to decide whether a map key is cached; else by is_valid_utf8. Then
  /// their cache codes, keywords, short strings and map keys take checked_string's inline
  /// paths, not string()'s tests. Out of line, in a unit of its own (src/json/json_source.cpp):
  /// inline in JSON's unit, whose walk of simdjson's document takes json_string(), it made
  /// keywords' JSON read 1.2% more instructions; in decoder.cpp, GCC compiled string()
  /// otherwise (extensions' JSON-Verbose read 0.6% more). The ASCII test is here, not in the
  /// SAX handler: inlined there, into RapidJSON's ParseString, it made citm_catalog's read
  /// without simdjson 7.5% slower for 4.2% fewer instructions.
  [[gnu::noinline]] void event_string(std::string_view raw);
  /// string() for text the backend has checked to be valid UTF-8 (MessagePack's entry),
  /// `ascii` when it also found every byte below 0x80. The common strings are resolved here,
  /// inline, before any text is built: a cache code goes straight to the read cache; a plain
  /// string of up to 3 bytes (never cacheable) skips the cache bookkeeping; a longer one is
  /// cached when it is a map key (ASCII counts one UTF-16 unit a byte, so its size decides);
  /// a `~:` keyword or `~$` symbol becomes one with no generic `~` dispatch; a tag goes to
  /// checked_tag, another `~X` scalar to json_scalar_string; a typed read's string to
  /// tape_walk_string. Everything else (`"^ "`, escapes, bad codes, user handlers, a lazy
  /// cache) goes to string(), which applies the same rules. `map_arrays` (JSON's
  /// event_string; a constant at each call): a `"^ "` that opens a map array is taken
  /// here, as json_string takes it, not by string()'s tests (44 instructions a map of
  /// keywords' read from a Source; tested before checked_string instead, each string of a
  /// JSON-Verbose read from a Source cost 6 more). MessagePack has no map arrays. (A
  /// template parameter made GCC compile MessagePack's unit otherwise: its reads moved by
  /// -0.02% to +0.09% instructions; one telling a read with handlers, keywords' 0.04% more,
  /// and this body split in two, 0.3% more.) A MessagePack read with user handlers goes to
  /// handled_checked_string, out of line.
  [[gnu::always_inline]] void checked_string(std::string_view raw, bool ascii,
                                             bool map_arrays = false) {
    if (tape_ || handlers_ || !caching_) [[unlikely]] {
      // A typed read's cache code goes to the tape as the walk of a parsed JSON document
      // sends it (tape_walk_string), with no call of string().
      if (tape_) return tape_walk_string(raw);
      // JSON's strings from a Source (map_arrays) keep string() with handlers.
      if (map_arrays) return string(raw);
      return handled_checked_string(raw);
    }
    const std::size_t n = raw.size();
    const char first = n != 0 ? raw[0] : '\0';
    if (first == '^') {
      // "^ " names no slot (a space is no digit): string() takes it as a map array's mark.
      const ReadCache::Entry* entry =
          n == 2 ? cache_.find(raw[1]) : n == 3 ? cache_.find(raw[1], raw[2]) : nullptr;
      if (!entry) [[unlikely]] {
        if (map_arrays)
          if (n == 2 && raw[1] == ' ' && at_array_start()) return open_map_array(frames_.back());
        return string(raw);  // lookup() says what is wrong with the code
      }
      if (entry->is_tag) return start_tagged(ValueAccess::text(entry->value));
      // As in string(): into a plain container of a document built in one arena, an alias.
      if (in_plain_container())
        deliver(ValueAccess::alias(entry->value), map_arrays);
      else
        deliver(entry->value, map_arrays);
      return;
    }
    if (first == '~') {
      if (n < 2) return string(raw);
      if (raw[1] == '#') return checked_tag(raw, ascii);
      if (raw[1] != ':' && raw[1] != '$') {
        // A `~X` scalar (`~n`, `~f`, `~r`, `~c` ...: 12,000 a read of extensions) as JSON's
        // walk reads it; an escape by string().
        if (!string_tag_char(raw[1])) return string(raw);
        return json_scalar_string(raw);
      }
      const Kind kind = raw[1] == ':' ? Kind::keyword : Kind::symbol;
      const std::string_view name = raw.substr(2);
      const Value& v = deliver(name.size() <= ValueAccess::kInlineText
                                   ? ValueAccess::inline_text(kind, name)
                                   : kind == Kind::keyword ? Value::keyword(name) : Value::symbol(name),
                                   map_arrays);
      if (n >= 4 && (ascii || is_cacheable(raw, false))) cache_.add(v, false);
      return;
    }
    if (n < 4) {  // too short to be cached
      deliver(ValueAccess::inline_text(Kind::string, raw), map_arrays);
      return;
    }
    const bool cacheable = at_key_position() && (ascii || is_cacheable(raw, true));
    const Value& v =
        deliver(n <= ValueAccess::kInlineText ? ValueAccess::inline_text(Kind::string, raw) : Value(raw),
                map_arrays);
    if (cacheable) cache_.add(v, false);
  }
  /// checked_string() of a `"~#tag"` string: string()'s rules for it (the tag checked, cached
  /// when long enough, the tagged value started) with none of its tests that cannot apply
  /// (a cache code, `"^ "`, a lazy cache, a tape). MessagePack writes every instant and UUID
  /// as `["~#m", ms]` and `["~#u", [hi, lo]]`, tags too short to be cached (10,500 a read of
  /// extensions).
  [[gnu::noinline]] void checked_tag(std::string_view raw, bool ascii);
  /// MessagePack's `["~#m", ms]` and `["~#u", [hi, lo]]` (10,500 a read of extensions): a
  /// 2-item array whose first item is the tag `~#m` or `~#u` is a tagged frame whose one rep
  /// goes straight into pair_rep_ (deliver's inline path, or its parent's next slot for a
  /// container), and end_pair builds the instant or UUID from it as end_tagged would, with
  /// no rep placed on the stack, no rule looked up and no tag compared. False, doing
  /// nothing, anywhere else (not an array of 2 at its start, a typed read, a handler that
  /// may act on the tag, see pair_unhandled): the reader then gives the tag as any string.
  bool start_pair(char tag);
  /// Whether MessagePack's reader may deliver a pair it read whole, `["~#m", ms]` (`frames`
  /// 1) or `["~#u", [hi, lo]]` (2), with no frame, tag or rep (instant_whole, uuid_whole):
  /// start_pair's conditions (an untyped read, no handler that may act on the tag, caching)
  /// and begin's for the arrays the general path would open (may_open). False: the reader
  /// reads the pair item by item, which reports whatever is wrong. Its tests fail with any of
  /// the conditions taken out but two that cannot be false where it is asked: caching_ (a
  /// MessagePack read always caches) and !tape_ (a tape reaches the plain loop only in the
  /// reader's fail_at, which fails alike either way). With user handlers, a tag's pairs are
  /// read whole once start_pair found that none of them may act on it (pair_gate_): the
  /// handlers asked here, even out of line, made GCC compile the loop that reads pairs whole
  /// otherwise (event.json's MessagePack read with no handlers 8 instructions more).
  bool pair_whole_allowed(std::size_t frames) const noexcept {
    return !tape_ && !(pair_gate_ & (frames == 1 ? kPairHeldM : kPairHeldU)) && caching_ &&
           may_open(frames);
  }
  /// With user handlers, whether none of them may act on a pair's tag, `m` or `u`
  /// (handled_tag_rule keeps its rule: no handler for it; a default handler never sees an
  /// instant or a UUID), so that the pair reads as with no handlers, whole or by start_pair.
  /// A handler for the tag takes it by the general path (checked_tag, end_tagged). Asked
  /// once a walk for each tag (learn_pair_rule, which lets pair_whole_allowed say yes): asked
  /// for each pair, it cost event.json's MessagePack read with a handler for `m` 5.4% more
  /// instructions.
  bool pair_unhandled(char tag) noexcept {
    const bool m = tag == 'm';
    if (!(pair_gate_ & (m ? kPairAskedM : kPairAskedU))) [[unlikely]]
      learn_pair_rule(tag);
    return !(pair_gate_ & (m ? kPairHeldM : kPairHeldU));
  }
  [[gnu::noinline]] void learn_pair_rule(char tag) noexcept;
  /// Whether `frames` (1 or more) containers may begin here, each in the one before: below
  /// max_depth, and not as a tagged value's second rep. begin()'s rules, for begin_inline,
  /// json_begin_inline and pair_whole_allowed. (`frames - 1` on the left, so that
  /// may_open(1) is `size < max_depth_`: `size + frames <=`, which GCC cannot simplify as
  /// `size + 1` may wrap, cost a JSON read 0.02-0.14% more.) sized_array_begin,
  /// sized_map_begin and empty_container_inline write the same test out: through this,
  /// MessagePack's flattened loop ran 0.55-1.03% more instructions (keywords, geojson,
  /// twitter, citm_catalog).
  bool may_open(std::size_t frames) const noexcept {
    return frames_.size() + (frames - 1) < max_depth_ &&
           (frames_.empty() || !frames_.back().has_rep);
  }
  /// Whether start_pair ever began a pair in this decoder's reads: MessagePack's reader then
  /// reads its next values with the loop that reads pairs whole, wherever their first pair is.
  bool met_pair() const noexcept { return met_pair_; }
  /// As a Decoder just made: no pair met (a MessagePack reader kept for another, see
  /// MsgpackReader::reopen).
  void forget_pairs() noexcept { met_pair_ = false; }
  /// Whether this decoder, given the handlers of `options` (rebind), reads as one made with
  /// `options` would (a reader kept for the next one on its thread, see
  /// Reader::Impl::retire). Nothing is derived from the handlers: every read asks them.
  bool made_as(const ReadOptions& options) const noexcept {
    return options.max_depth == max_depth_ && options.max_collection_length == max_items_;
  }
  /// Lets go of all the reads before held, for a reader kept for another (Reader::Impl::retire):
  /// their values (reset), the record of user calls and the handlers, so that a kept reader
  /// holds nothing of the user's (no value a handler made, no exception it threw, no pointer
  /// to a ReadHandlers that may be gone or made anew at the same address). It may run user
  /// code: the destructors of what handlers made.
  void let_go() noexcept {
    forget_user_calls();
    reset();
    handlers_ = nullptr;
    emptied_ = true;
  }
  /// Reads with `handlers` from now on, as a Decoder made with them (a reader that let_go()
  /// emptied, taken for another). Runs no user code.
  void rebind(const ReadHandlers* handlers) noexcept {
    handlers_ = handlers;
    // As a Decoder made with no handlers: no record (whose tests would cost every value).
    if (!handlers && user_calls_) [[unlikely]]
      drop_user_calls();
  }
  /// An instant or a UUID read whole (see pair_whole_allowed), delivered as end_pair would.
  void instant_whole(std::int64_t ms) { deliver(ValueAccess::instant(ms)); }
  void uuid_whole(std::uint64_t hi, std::uint64_t lo) { deliver(Value::uuid({hi, lo})); }
  /// string() of a `"~b"` string from MessagePack, whose reader leaves its UTF-8 unchecked
  /// (the base64 decode refuses any byte outside ASCII): string()'s rules for it with none of
  /// its tests that cannot apply, as checked_tag does for tags. With user handlers too: `b`
  /// is a ground tag, which no handler takes, and the default one never sees bytes.
  [[gnu::noinline]] void checked_base64(std::string_view raw);
  /// Whether a backend may hand this value's cache codes to cached_code(): no tape, the
  /// cache on (never lazy in MessagePack, so it holds for a whole value). With user handlers
  /// too: a code is no `~X` a handler may take, a cached tag starts as checked_string starts
  /// it, and no arena is open with user code (runs_no_user_code), so place_code's alias is a
  /// copy (ValueAccess::alias).
  bool codes_inline() const noexcept { return !tape_ && caching_; }
  /// checked_string()'s commonest case, for a backend that has told a cache code by its own
  /// framing (MessagePack's fixstr headers of 2 and 3 bytes, and a `^`): `digits`, the one
  /// (`two` false) or two chars after the `^`. It places the value of the slot they name, or
  /// starts a cached tag's tagged value, and returns true; false, having done nothing, when
  /// they name no slot assigned (a char that is no digit, as in `"^ "`), for checked_string()
  /// to read the text whole. Only while codes_inline(). Most strings of a cached MessagePack
  /// document are such codes (25,000 of citm_catalog's 27,000 a read): here they pay no
  /// length test, no ASCII test, and the value is copied straight into its slot, where
  /// deliver() took a Value built aside (a move, and an out-of-line move assignment for a
  /// container's first item).
  [[gnu::always_inline]] bool cached_code(const char* digits, bool two) {
    const ReadCache::Entry* entry =
        two ? cache_.find(digits[0], digits[1]) : cache_.find(digits[0]);
    if (!entry) [[unlikely]]
      return false;
    place_code(*entry);
    return true;
  }
  /// A cache code's entry, found while codes_inline(), placed as string() places it: a tag
  /// starts its tagged value; a value goes into deliver()'s inline paths as an alias (only a
  /// plain array's or map's frame opens them: place() sets them, never for a tagged value's
  /// rep), else by place_cached. With no test of a tape and of the container's kind, which
  /// deliver() and in_plain_container() would make.
  [[gnu::always_inline]] void place_code(const ReadCache::Entry& entry) {
    if (entry.is_tag) [[unlikely]]
      return start_tagged(ValueAccess::text(entry.value));
    if (!frames_.empty()) {
      // The slots first, as deliver() tests them: every MessagePack container is counted.
      Frame& f = frames_.back();
      if (f.count < f.slots_until) {
        new (f.slots.items + f.count++) Value(ValueAccess::alias(entry.value));
        return;
      }
      if (stack_.size() < f.stack_until) {
        stack_.emplace_back(ValueAccess::alias(entry.value));
        return;
      }
    }
    place_cached(entry.value);
  }
  /// cached_code()'s value where deliver() needs place(): the first item of an array, a
  /// tagged value's rep, the result.
  [[gnu::noinline]] void place_cached(const Value& v);
  /// string() for the walk of a parsed JSON document (json::emit), whose strings simdjson
  /// has checked: checked_string's inline path, and also for a value read with a lazy cache
  /// (JSON-Verbose), which has none of the cache's work to do but for noting that a string
  /// that may be cacheable went by (`missed_`, as string() notes it). A cache code, `"^ "`, a
  /// tag and the other `~` forms go to string(). `kPlain`: the caller has checked
  /// plain_walk() for the whole walk, so it is not tested again for every string.
  template <bool kPlain = false, bool kHandled = false>
  [[gnu::always_inline]] void json_string(std::string_view raw) {
    if constexpr (!kPlain && !kHandled) {
      if (tape_) [[unlikely]]
        return string(raw);
      if (handlers_) [[unlikely]]
        return handled_json_string(raw);
    }
    const std::size_t n = raw.size();
    const char first = n != 0 ? raw[0] : '\0';
    if (first == '^') {
      if (!caching_ || n < 2 || n > 3) return string(raw);
      if (raw[1] == ' ') {
        if (n != 2 || frames_.empty() || frames_.back().kind != FrameKind::array_pending)
          return string(raw);
        return open_map_array(frames_.back());
      }
      const ReadCache::Entry* entry = n == 2 ? cache_.find(raw[1]) : cache_.find(raw[1], raw[2]);
      if (!entry) [[unlikely]]
        return string(raw);  // lookup() says what is wrong with the code
      // A cached tag (a set's or list's, on every item of extensions) starts a tagged value
      // whose rep may go to pair_rep_ (start_tagged); string() would find the entry again.
      if (entry->is_tag) return json_start_cached_tag(entry->value);
      // With user code no arena is open (runs_no_user_code): a copy, as string() delivers
      // it, not place_code's alias.
      if constexpr (kHandled) {
        deliver(entry->value);
        return;
      }
      return place_code(*entry);
    }
    if (first == '~') {
      if (n < 2) return string(raw);
      if (raw[1] != ':' && raw[1] != '$') {
        if (!string_tag_char(raw[1])) return string(raw);
        if (kHandled && handler_may_take(raw[1])) return string(raw);
        return json_scalar_string(raw);
      }
      // A handler for `:` or `$` (not ground: a user may replace them) takes every keyword
      // or symbol in string() (decode_string).
      if (kHandled && handlers_->has_char(raw[1])) return string(raw);
      const Kind kind = raw[1] == ':' ? Kind::keyword : Kind::symbol;
      const std::string_view name = raw.substr(2);
      const Value& v = deliver(name.size() <= ValueAccess::kInlineText
                                   ? ValueAccess::inline_text(kind, name)
                                   : kind == Kind::keyword ? Value::keyword(name) : Value::symbol(name));
      if (n >= 4) {
        if (!caching_)
          missed_ = true;
        else if (is_cacheable(raw, false))
          cache_.add(v, false);
      }
      return;
    }
    if (n < 4) {  // too short to be cached
      deliver(ValueAccess::inline_text(Kind::string, raw));
      return;
    }
    const bool cacheable = caching_ ? at_key_position() && is_cacheable(raw, true) : (missed_ = true, false);
    const Value& v =
        deliver(n <= ValueAccess::kInlineText ? ValueAccess::inline_text(Kind::string, raw) : Value(raw));
    if (cacheable) cache_.add(v, false);
  }
  /// json_string() of a read with handlers and no tape (`kHandled`). Read handlers act on
  /// tags (start_tagged and end_tagged ask them) and on `~X` scalars with a handler for X or
  /// a default handler (string()); every other string reads as with no handlers, but for a
  /// cache code's value, delivered as a copy as string() delivers it, not place_code's alias
  /// (no arena is open with user code, see runs_no_user_code). Out of line, in decoder.cpp:
  /// its body inline in JSON's unit moved GCC's inlining there (that unit's copy of null()
  /// grew from 0xd0 to 0x152 bytes, twitter's Value read 0.13% more instructions).
  [[gnu::noinline]] void handled_json_string(std::string_view raw);
  /// checked_string() of a MessagePack read with handlers and no tape: a tag by checked_tag
  /// (start_tagged, whose end asks the handlers), any other string by the rules of JSON's
  /// read with handlers (json_string<false, true>, as handled_json_string). With no
  /// handlers, a lazy cache (which MessagePack never has): string(). Out of line, in a unit
  /// of its own
  /// (handled.cpp): in decoder.cpp, GCC took is_cacheable and at_key_position out of string()
  /// (typed twitter from MessagePack 1.7% more instructions).
  [[gnu::noinline]] void handled_checked_string(std::string_view raw);
  /// Whether a read handler may act on a `~X` scalar (not `~:`, `~$`, `~#` nor an escape):
  /// a handler for X, or the default one for what decode_scalar keeps tagged, runs in
  /// string() (decode_string); any other `~X` reads as with no handlers. With handlers only.
  bool handler_may_take(char x) const noexcept {
    return handlers_->has_char(x) || handlers_->default_handler();
  }
  /// Whether no tape is written and no user handler is registered: neither changes during
  /// a walk, so json_string<true>() may be used for all of it.
  bool plain_walk() const noexcept { return !tape_ && !handlers_; }
  /// A value of a plain walk (plain_walk()) delivered with no test for a tape: the walk's
  /// doubles (geojson's coordinates). Its integers stay on json_integer(): through here they
  /// cost keywords 0.5% more instructions (why was not looked into).
  [[gnu::always_inline]] void plain_scalar(Value v) { deliver(std::move(v)); }
  /// json_string() of a `~X` string decoded by its ground tag X (`~u`, `~m`, `~n`, ...; not
  /// `~:`, `~$`, `~#` nor an escape), with no tape and no user handler that may take it
  /// (handler_may_take): string()'s rules, with none of its tests that cannot apply.
  void json_scalar_string(std::string_view raw);
  /// An array starts. `expected` is the item count when the backend knows it (MessagePack),
  /// else 0. A plain array is then built straight in a node of that size, with no copy from
  /// the value stack, so the backend passes only a count the input can hold: one whose items,
  /// with those of every container still open, fit in the bytes left at a byte each at least.
  void array_begin(std::size_t expected = 0) { begin(FrameKind::array_pending, expected); }
  /// array_begin() and map_begin() for the walk of simdjson's document (see json_begin_inline;
  /// `kPlain` as for json_string).
  template <bool kPlain = false>
  [[gnu::always_inline]] void json_array_begin(std::size_t expected) {
    json_begin_inline<kPlain>(FrameKind::array_pending, expected);
  }
  template <bool kPlain = false>
  [[gnu::always_inline]] void json_map_begin(std::size_t expected) {
    json_begin_inline<kPlain>(FrameKind::object_pending, expected);
  }
  /// json_map_begin() of a plain walk (plain_walk()) for an object whose first key is
  /// neither a tag nor a cache code (json::is_plain_first_key), so a plain map: its node of
  /// `expected` entries reserved at once, as sized_map_begin() reserves a MessagePack map's,
  /// so that its first key, as every item after it, goes straight into it (deliver's inline
  /// path) and not through place() (JSON-Verbose: every map). Anything the checks refuse
  /// begins as json_map_begin() begins it.
  [[gnu::noinline]] void plain_object_begin(std::size_t expected) {
    // may_open itself: out of line, this is not the flattened MessagePack loop that writes
    // the test out (see may_open).
    if (expected - 1 >= max_items_ || expected > UINT32_MAX / 2 || !may_open(1) ||
        frames_.size() == frames_.capacity()) [[unlikely]]
      return begin_checked(FrameKind::object_pending, expected);
    frames_.emplace_back(static_cast<std::uint32_t>(stack_.size()), expected);
  }
  /// array_begin() for MessagePack: the frame written once by its constructor, where
  /// begin_inline's emplace_back() zeroes all of it first (a `rep stos`), as JSON's walk's
  /// json_begin_inline does. A counted array of a read with no user handlers has its node reserved
  /// here, as sized_map_begin does for maps, so that its first item, as every item after it,
  /// goes straight into it (deliver's inline path), not through place(): geojson's
  /// coordinate pairs. The frame stays pending while it holds no item; a `"^ "` or a tag as
  /// its first item gives the node up (give_up_node). The caller gives exactly `expected`
  /// items (the reader's loop parses as many as the header announces), so such a frame never
  /// reaches place() pending, which would reserve a node again.
  void sized_array_begin(std::size_t expected) {
    // may_open's test written out (see there).
    if (tape_ || frames_.size() >= max_depth_ || frames_.size() == frames_.capacity() ||
        (!frames_.empty() && frames_.back().has_rep)) [[unlikely]]
      return begin_checked(FrameKind::array_pending, expected);
    // A count of 0 (a claim not yet believed), past the limit, a user's array builder, or
    // an array at a depth where one began with a tag (tag_first_): place() decides at the
    // first item, as before.
    if (handlers_ || expected - 1 >= max_items_ || (tag_first_ >> (frames_.size() & 63) & 1))
        [[unlikely]]
      return (void)frames_.emplace_back(FrameKind::array_pending,
                                        static_cast<std::uint32_t>(stack_.size()), expected);
    frames_.emplace_back(static_cast<std::uint32_t>(stack_.size()), expected, Frame::kArrayNode);
  }
  void array_end();
  /// array_end() (`array`) or map_end() for RapidJSON's events, whose containers announce no
  /// count (every read from a Source but those read in place, and text simdjson leaves to
  /// RapidJSON): a plain array, map array or object, its items on the value stack, made a
  /// node by node_of_stack and delivered, here, with one call; anything else (a tape, user
  /// handlers or builders, a tagged value, the top-level value, an error) by array_end() and
  /// map_end(). Out of line, in json_source.cpp, out of JSON's unit (see event_string).
  /// Through array_end_frame and build_map, such a container's end was 3 calls more, with
  /// their frames, 75 instructions more a map of keywords' read from a Source.
  [[gnu::noinline]] void uncounted_end(bool array);
  /// array_begin() (`array`) or map_begin() for RapidJSON's events: the frame built by its
  /// constructor, as json_begin_inline builds it for the walk of a parsed document, where
  /// begin() zeroed its 88 bytes first (46 instructions a container, called out of line).
  /// Out of line, in json_source.cpp: inline in the SAX handler, in JSON's unit, GCC compiled
  /// the walk of simdjson's documents otherwise (in-memory reads up to 3.5% more
  /// instructions).
  [[gnu::noinline]] void uncounted_begin(bool array);
  /// array_end() (`array`) or map_end() for the walk of simdjson's document (json::emit).
  /// In a plain walk (`kPlain`, see json_string), which writes no tape, plain_array_end()
  /// and plain_map_end() take a container built in its own slots and finished into its
  /// parent's next slot (keywords: 34,349 `"^ "` map arrays a read), where array_end() and
  /// array_end_frame() were two calls and the latter saved six registers for its other paths.
  template <bool kPlain = false>
  [[gnu::always_inline]] void json_end(bool array) {
    if constexpr (kPlain)
      array ? plain_array_end() : plain_map_end();
    else
      array ? array_end() : map_end();
  }
  /// array_end() and map_end() of a plain walk (plain_walk()): no taping test; a `"^ "` map
  /// array (plain_array_end) or a JSON object (plain_map_end) in its own slots, finished
  /// into its parent's next slot, here, with one register saved; anything else by
  /// array_end_frame() and map_end_frame().
  [[gnu::noinline]] void plain_array_end();
  [[gnu::noinline]] void plain_map_end();
  /// A MessagePack map or a JSON object. A JSON object is a map wherever it stands: peers
  /// write cached JSON with objects inside (transit-python writes `{"~#cmap": [...]}`), so it
  /// changes nothing about caching (DESIGN.md, "Wire rules"). `expected`: the entries, as for
  /// array_begin; a plain map is then built straight in a node of that size, its duplicate
  /// keys removed there. (An array's count, when its first item is `"^ "`, sizes the map the
  /// same way: `(expected - 1) / 2` entries.)
  void map_begin(std::size_t expected = 0) { begin(FrameKind::object_pending, expected); }
  /// map_begin() for MessagePack, whose maps are plain maps but for a rare map-form tagged
  /// value: the node of the `expected` entries is reserved at once, so that the first key, as
  /// every item after it, goes straight into it (deliver's inline path) and not through
  /// place(). The frame stays pending until its end; a tag as its first key gives the node up
  /// (start_tagged). Not for JSON, where a JSON-Verbose object often is a tagged value.
  /// The common case (begin's, with a count to reserve) writes the frame once, with its
  /// node, where begin() zeroed all of it first and the reservation wrote its slots again;
  /// sized_map_begin_checked() does the rest, and with user handlers reserves the node as
  /// well, but for a user's map builder. Inline in the MessagePack reader's flattened loop
  /// (see Parser::run there).
  void sized_map_begin(std::size_t expected) {
    // A typed read's map goes to the tape in one call, as begin() sends it.
    if (tape_) [[unlikely]]
      return begin_checked(FrameKind::object_pending, expected);
    // may_open's test written out (see there).
    if (handlers_ || expected - 1 >= max_items_ || expected > UINT32_MAX / 2 ||
        frames_.size() >= max_depth_ || frames_.size() == frames_.capacity() ||
        (!frames_.empty() && frames_.back().has_rep)) [[unlikely]]
      return sized_map_begin_checked(expected);
    frames_.emplace_back(static_cast<std::uint32_t>(stack_.size()), expected);
  }
  [[gnu::noinline]] void sized_map_begin_checked(std::size_t expected);
  void map_end();
  /// map_end() for MessagePack: its commonest case, a plain map finished into its parent's
  /// next slot, taken here, inline in the reader's flattened loop (see Parser::run there),
  /// where map_end_frame saved six registers for its other paths. JSON keeps map_end(),
  /// whose maps take those paths more often; defined here, it leaves decoder.cpp's unit,
  /// and so JSON's code, as it was.
  void sized_map_end() {
    if (taping()) [[unlikely]]
      return tape_end(false);
    Frame& f = frames_.back();
    if ((f.kind == FrameKind::object || f.kind == FrameKind::object_pending) && f.slots.items &&
        f.count % 2 == 0) {
      if (Value* slot = next_slot_of_parent()) {
        closing_ = true;
        new (slot) Value(ValueAccess::finish_map(Kind::map, f.slots, f.count));
        return adopted_by_parent();
      }
    }
    map_end_frame();
  }
  /// array_end() for MessagePack, as sized_map_end() for maps: a plain array in its own
  /// slots finished into its parent's next slot, before array_end_frame's other paths.
  void sized_array_end() {
    if (taping()) [[unlikely]]
      return tape_end(true);
    Frame& f = frames_.back();
    // Pending still when its node was reserved as it began (sized_array_begin).
    if ((f.kind == FrameKind::array || f.kind == FrameKind::array_pending) && f.slots.items) {
      if (Value* slot = next_slot_of_parent()) {
        closing_ = true;
        new (slot) Value(ValueAccess::finish_sequence(Kind::array, f.slots, f.count));
        return adopted_by_parent();
      }
    }
    sized_array_end_frame();
  }
  /// An empty array or map (`map`), announced with a count of 0 (MessagePack), delivered
  /// whole with no frame pushed and popped, where nothing could make it other than empty: an
  /// untyped read (no tape) with no user handler or builder, below the depth limit, not a
  /// second rep. Returns false, doing nothing, anywhere else: the caller then takes the
  /// general path (array_begin/map_begin, then array_end/map_end), which checks and reports
  /// all of it. The caller skips the container's end event after a true. Always inline: in
  /// the walk of simdjson's document and in the MessagePack reader's parse loop
  /// (citm_catalog has 8,695 empty containers a read). Left to GCC (round sixteen), the
  /// parse loop ran 0.05% (geojson) to 1.05% (twitter) more instructions a MessagePack
  /// read, keywords 0.46%, citm_catalog 0.72%; JSON reads moved -0.14% to +0.12%.
  [[gnu::always_inline]] bool empty_container_inline(bool map) {
    // may_open's test written out (see there).
    if (tape_ || handlers_ || frames_.size() >= max_depth_ ||
        (!frames_.empty() && frames_.back().has_rep)) [[unlikely]]
      return false;
    deliver(ValueAccess::empty(map ? Kind::map : Kind::array));
    return true;
  }
  /// Drops the containers still open (a read that failed half-way) and what they hold. A
  /// reader that builds in an ArenaScope calls it before the scope closes.
  void drop_frames() noexcept;

  /// True when no read handler or builder is set, so building a value calls no user code.
  bool runs_no_user_code() const noexcept { return handlers_ == nullptr; }
  /// A walk of the top-level value whose first byte is at offset `start` (as its reader
  /// counts) begins, just after reset(). With user code (read handlers, builders), every call
  /// of it is recorded with what it returned or threw, and a walk of the same value again (a
  /// lazy cache's second walk, RapidJSON's read of a value simdjson's walk failed, a typed
  /// read's remark or retape, MessagePack's read again to place an error) takes the recorded
  /// results in order, and rethrows the recorded exception where the first walk threw it,
  /// instead of running the user's code again: so it runs once per tagged value (map, array)
  /// in the input. Walks of one value meet the same calls in the same order up to where one
  /// of them stopped (the same text, and a cache code resolved only once the cache is the
  /// same on both walks, see reset); a call that is not the one recorded there runs, and the
  /// rest of the record goes. A walk of any other value forgets the record. Without user
  /// code, nothing: the test is per value, not per token.
  ///
  /// `record`: whether a walk of this value may follow this one, so that the calls it makes
  /// past the record must be recorded. False for a walk that is the last its reader can make
  /// (a Source's byte-at-a-time read, a MessagePack value in memory that the limit does not
  /// cut): it replays the record, and runs and records nothing more (a call costs about 70
  /// instructions more recorded).
  ///
  /// User code that fails in a walk a reader announced does not stop the walk: its error (a
  /// transit::Error, what call_user makes of any std::exception) is kept, placed where the
  /// token the reader is at starts (place_user_calls; an Error placed already, or what is no
  /// std::exception, is kept as thrown), and every later call
  /// of user code in the value returns null without running; the walk reads the value to its
  /// end, checking all else as ever, and the reader then throws the kept error (refused,
  /// throw_refusal) without failing for good, so that its next call reads the value after
  /// it, as a typed read goes on past a value that did not bind. (MessagePack, whose parse
  /// loop gives no one its place, lets the refusal end the walk instead, placed as any error,
  /// and reads the value again with user code muted: pass_refusals, mute_user_calls.) A typed
  /// read's walk (a tape) keeps a refusal the same way, a null token standing for what the
  /// call would have made, and its reader throws the refusal when the walk ends, before a
  /// binder sees the tape: a bounded walk, before it hands over the batch that holds it. (The
  /// user code a binder runs, typed.cpp's, fails the bind instead.)
  void walk_value_at(std::size_t start, bool record) noexcept {
    if (handlers_) [[unlikely]]
      walk_user_calls_at(start, record);
  }
  /// Where a refused call is placed: `where(reader)` says where the token the reader is at
  /// starts (with the line and column, for JSON). Asked only when user code fails.
  struct TokenPlace {
    Location (*where)(const void* reader) = nullptr;
    const void* reader = nullptr;
  };
  /// Sets how the walk walk_value_at announced last places a refusal, for as long as the
  /// walk runs (`place.reader` must live that long). With none set (a walk of simdjson's
  /// document, which has no offsets), a refusal is kept unplaced: the reader then reads the
  /// value again with a parser that places it (the record replays the refusal there).
  void place_user_calls(TokenPlace place) noexcept {
    if (user_calls_) [[unlikely]]
      set_user_call_place(place);
  }
  /// In the walk walk_value_at announced last, a refusal ends the walk, as any error of the
  /// decoder does, instead of being kept (refused() says it was one): for a reader that
  /// places it so (MessagePack), then reads the value again with mute_user_calls.
  void pass_refusals() noexcept {
    if (user_calls_) [[unlikely]]
      set_pass_refusals();
  }
  /// In the walk walk_value_at announced last, no user code runs: every call makes null, as
  /// the calls after a refusal do.
  void mute_user_calls() noexcept {
    if (user_calls_) [[unlikely]]
      refused_ = true;
  }
  /// Whether user code failed in the walk of this value (see walk_value_at), or is muted.
  bool refused() const noexcept { return refused_; }
  /// Throws what the user code that failed in this walk threw, placed as place_user_calls
  /// says.
  [[noreturn]] void throw_refusal() const;
  /// Lets the record of walk_value_at go: the value was read whole, or its read failed for
  /// good. (A typed read keeps it until the next value, for Backend::remark and retape.)
  void forget_user_calls() noexcept {
    if (user_calls_) [[unlikely]]
      clear_user_calls();
  }

  /// True once a complete top-level value has been read.
  bool done() const noexcept { return done_; }
  /// The top-level value; call once after done().
  Value take() {
    done_ = false;
    return std::move(result_);
  }
  /// Where in the value the reader is, e.g. `$[3]["name"]`, for error messages; `<key>` marks
  /// a map key (`$["a"]<key>`: in a key of the map at `$["a"]`, or where it would start).
  std::string path() const;

 private:
  enum class FrameKind : std::uint8_t {
    array_pending,   // an array whose first item has not been seen: "^ " or "~#tag" may follow
    array,
    map_array,       // ["^ ", k, v, ...]
    object_pending,  // a JSON object / MessagePack map whose first key has not been seen
    object,
    tagged_array,    // ["~#tag", rep]
    tagged_object,   // {"~#tag": rep}
  };
  /// How end_tagged builds a tagged value with no user handlers, settled from its tag: a set
  /// or list from its rep's node, taken over in place (ValueAccess::sequence_in_place); a tag
  /// no ground rule reads, straight into a tagged value (ValueAccess::tagged); anything else
  /// by decode_tag; an instant (`m`) of an integer rep or a UUID (`u`) of two integers, built
  /// straight from the rep (any other rep: by decode_tag, which reports it). Not kept in the
  /// Frame: a byte more there (in its padding) made GCC lay out MessagePack's reader loop
  /// otherwise, geojson's MessagePack read 4% more instructions.
  enum class TagRule : std::uint8_t { general, set, list, plain, instant, uuid };
  static TagRule tag_rule(std::string_view tag) noexcept;
  /// tag_rule() for a read with user handlers: `general` (decode_tag, which asks them) for a
  /// tag with a handler (a Record's too), and for a tag kept tagged (`plain`) when there is a
  /// default handler; any other tag keeps its rule, whose results (a set, a list, an
  /// instant, a UUID) no handler sees. Out of line, in handled.cpp.
  [[gnu::noinline]] TagRule handled_tag_rule(std::string_view tag) const noexcept;
  /// handled_tag_rule's rule, for a tag whose rule is `rule`, `has_handler` telling whether
  /// a handler is registered for it (asked last): also learn_pair_rule's. In handled.cpp.
  template <class HasHandler>
  static TagRule handled_rule(TagRule rule, const ReadHandlers& handlers,
                              HasHandler has_handler) noexcept;
  struct Frame {
    // Built by the constructor, a new frame has its fields stored one by one; value-initialized
    // (emplace_back()), its 88 bytes are zeroed by a `rep stos` first (12 instructions in
    // callgrind's count), then kind, start and expected written again. begin_inline keeps
    // emplace_back(): with the constructor there, GCC laid out the MessagePack loop worse
    // for floats (geojson 30.86 M a read instead of 29.94 M).
    Frame() = default;
    Frame(FrameKind k, std::uint32_t s, std::size_t e) noexcept : kind(k), start(s), expected(e) {}
    /// An array_pending frame with the node of its `e` items reserved (sized_array_begin).
    enum ArrayNode { kArrayNode };
    Frame(std::uint32_t s, std::size_t e, ArrayNode)
        : kind(FrameKind::array_pending),
          start(s),
          expected(e),
          slots(ValueAccess::reserve_sequence(e)),
          slots_until(slots.capacity) {}
    /// An object_pending frame with the node of `e` entries reserved (sized_map_begin): the
    /// node is returned straight into the frame, with no copy of the slots.
    Frame(std::uint32_t s, std::size_t e)
        : kind(FrameKind::object_pending),
          start(s),
          expected(e),
          slots(ValueAccess::reserve_map(e)),
          slots_until(slots.capacity) {}
    FrameKind kind = FrameKind::array;
    bool has_rep = false;
    std::uint32_t start = 0;  // index of this frame's first item in stack_
    std::uint32_t count = 0;  // items in slots (see below)
    Value tag;
    std::size_t expected = 0;  // the items announced (see array_begin), or 0
    // A plain array or map with a known count: its items (a map's keys and values) go here
    // (`count` of them), not to stack_.
    ValueAccess::Slots slots;
    // deliver's fast path (see there): the next item goes straight onto stack_ while its size
    // is below `stack_until`, or into the slots while `count` is below `slots_until`. Both
    // are set by place() once it has checked the frame's state, and 0 (the slow path) until
    // then.
    std::size_t stack_until = 0;
    std::uint32_t slots_until = 0;
  };

  /// Places a complete value in its container (or as the result); returns where it now is.
  /// Inline, so that a scalar built by the caller reaches its slot in registers: handed over
  /// in memory, its 16 bytes were loaded whole just after being stored in parts, a stalled
  /// store-to-load forward that took half of the time of placing it.
  ///
  /// Most items go into a plain array or map already started, with room left below every
  /// limit: place() then only says "the next slot". It says so once per container, in the
  /// frame's stack_until or slots_until, and the items after it are placed here, inline,
  /// with a comparison. Always inline: left to itself, the compiler called an out-of-line
  /// copy from array_end, 40 instructions a container more than inline.
  ///
  /// `inline_push` (a constant at each call): the stack's push inlined whatever GCC decides
  /// for the caller (checked_string for RapidJSON's events, see ValueStack::push).
  [[gnu::always_inline]] const Value& deliver(Value v, bool inline_push = false) {
    if (tape_ && taping()) [[unlikely]]
      return deliver_taped(std::move(v));
    if (!frames_.empty()) {
      Frame& f = frames_.back();
      // The slots first: every container whose count is announced (MessagePack's, JSON's
      // from simdjson) is built in them, and their test is one comparison of the frame.
      if (f.count < f.slots_until) return *new (f.slots.items + f.count++) Value(std::move(v));
      if (stack_.size() < f.stack_until)
        return inline_push ? stack_.push(std::move(v)) : stack_.emplace_back(std::move(v));
    }
    Value& slot = place();
    slot = std::move(v);
    return slot;
  }
  const Value& deliver_taped(Value v);
  /// Checks the innermost container for one more item and returns the empty slot the next
  /// complete value goes to: a new item of stack_, of the array's own slots, or the result.
  /// Not for taped frames. Opens deliver's fast path for the items that follow (see Frame).
  Value& place();
  /// An array with this many items on the stack, and no count announced, moves to slots of
  /// its own (see place): below it, the stack's copy costs less than slots' allocations.
  static constexpr std::size_t kSlotsFrom = std::size_t{1} << 16;
  /// deliver's fast path onto the stack for a frame whose items start at `start` (see
  /// Frame::stack_until): a map's keys and values (`keyed`) up to the item limit, an array's
  /// up to it or to kSlotsFrom (`may_move_to_slots`), where place() checks again.
  std::size_t stack_until_for(std::size_t start, bool keyed,
                              bool may_move_to_slots) const noexcept {
    const std::size_t items_until =
        keyed ? (max_items_ > SIZE_MAX / 2 ? SIZE_MAX : 2 * max_items_)
              : std::min(max_items_, may_move_to_slots ? kSlotsFrom : SIZE_MAX);
    return items_until > SIZE_MAX - start ? SIZE_MAX : start + items_until;
  }
  [[noreturn, gnu::cold]] void too_many_items() const;
  /// place() in an array's or map's own slots (see Frame::slots).
  Value& place_in_slots(Frame& f);
  /// A plain map (`object` or `map_array`) of `entries` announced: its keys and values go
  /// into a node of that size (ValueAccess::reserve_map), or onto the stack for a map builder.
  /// Inline for a read with no user handlers; reserve_map_slots_checked does the rest.
  void reserve_map_slots(Frame& f, std::size_t entries) {
    if (handlers_ || entries > UINT32_MAX / 2) [[unlikely]]
      return reserve_map_slots_checked(f, entries);
    open_map_slots(f, entries);
  }
  void reserve_map_slots_checked(Frame& f, std::size_t entries);
  void open_map_slots(Frame& f, std::size_t entries) {
    // Returned straight into the frame: assigned, the 32 bytes went through a temporary on
    // the stack, stored field by field and loaded again by 16-byte loads that waited for
    // those stores to reach the cache (a JSON read's profile put 4% of its time on them, a
    // "^ " map array's slots on every map of citm_catalog).
    new (&f.slots) ValueAccess::Slots(ValueAccess::reserve_map(entries));
    // Up to the announced count, every key and value goes straight in (deliver), the first
    // too: place_in_slots would check nothing else before the end of the slots.
    f.slots_until = f.slots.capacity;
  }
  /// A `"^ "` makes array frame `f`, at its start, a map array: built in a node of the size
  /// announced, if any.
  /// (A MessagePack array's node, reserved as it began, is given up first: see string().)
  /// Out of line, as GCC had left it in JSON's walk until SourceInput::refill left that
  /// unit (json_source.cpp): then inlined there, keywords' in-memory JSON-Verbose read ran
  /// 0.26% more instructions.
  [[gnu::noinline]] void open_map_array(Frame& f) {
    f.kind = FrameKind::map_array;
    if (f.expected > 1 && f.expected <= max_items_) {
      // An odd count of keys and values is the error array_end reports, on the stack.
      if ((f.expected - 1) % 2 == 0)
        reserve_map_slots(f, (f.expected - 1) / 2);
      else
        reserve_stack(f.expected - 1);
    }
  }
  /// Frees the node reserved for pending frame `f`, still empty, when its first item makes it
  /// something else: a map array, or a tagged value (start_tagged).
  void give_up_node(Frame& f) noexcept {
    // An array's: the next array at this depth is likely another tagged value (a
    // MessagePack `["~#m", ms]` after another), and sized_array_begin reserves it none.
    if (f.kind == FrameKind::array_pending)
      tag_first_ |= std::uint64_t{1} << ((&f - frames_.data()) & 63);
    ValueAccess::abandon_sequence(f.slots, 0);
    f.slots_until = 0;
  }
  /// The map of a frame's map slots, once its end is read; throws Error(odd_map) on a key
  /// without a value.
  Value finish_map_slots(Frame& f) {
    if (f.count % 2 != 0) [[unlikely]]
      odd_map_slots(f);
    return ValueAccess::finish_map(Kind::map, f.slots, f.count);
  }
  /// finish_map_slots' error, out of line: array_end and map_end call ValueAccess::finish_map
  /// with no frame of their own in between (a call layer cost 24 instructions a map).
  [[noreturn, gnu::cold]] void odd_map_slots(const Frame& f) const;
  /// Where deliver() would put the value of the innermost frame, once it is finished: the
  /// next of its parent's slots, while they have room below every limit; else nullptr (the
  /// parent's stack or place() then take it, by deliver). The finished array or map is
  /// constructed there, as the finishing call returns it, with no Value moved and destroyed
  /// on the way (about 20 instructions a container); a failure to finish it leaves the slot
  /// unconstructed and uncounted.
  Value* next_slot_of_parent() noexcept {
    if (frames_.size() < 2) return nullptr;
    Frame& parent = frames_.end()[-2];
    return parent.count < parent.slots_until ? parent.slots.items + parent.count : nullptr;
  }
  /// The innermost frame's value is in the slot next_slot_of_parent() gave: counted there,
  /// and the frame closed.
  void adopted_by_parent() noexcept {
    ++frames_.end()[-2].count;
    frames_.pop_back();
    closing_ = false;
  }
  /// array_end() and map_end() for a frame of frames_ (not taped), out of line so that the
  /// taping test comes before the registers this path needs are saved.
  [[gnu::noinline]] void array_end_frame();
  /// sized_array_end()'s other paths: an instant's or a UUID's pair (see start_pair) ended
  /// here, MessagePack's alone, so that JSON's array_end_frame tests nothing more; anything
  /// else by array_end_frame.
  [[gnu::noinline]] void sized_array_end_frame();
  void end_pair(Frame& f);
  /// sized_array_end_frame() of the rep of a UUID's pair: the UUID of `[hi, lo]` into pair_rep_.
  [[gnu::noinline]] void end_uuid_halves(Frame& f);
  /// end_pair() of a rep that is not the instant's or the UUID's, or of none: the errors and
  /// decode_tag, as end_tagged reaches them.
  [[gnu::noinline]] void end_pair_otherwise(Frame& f);
  /// Whether `f` is a pair (start_pair): its slots are pair_rep_, not a node.
  bool is_pair(const Frame& f) const noexcept { return f.slots.items == &pair_rep_; }
  /// A pair's rep, taken out of pair_rep_ (left null): a cache code's value came as an
  /// alias (place_code), which holds no count, so a counted copy of it.
  Value take_pair_rep() noexcept {
    if (ValueAccess::borrowed(pair_rep_)) [[unlikely]] {
      Value rep(std::as_const(pair_rep_));
      new (&pair_rep_) Value();  // an alias: nothing to release
      return rep;
    }
    return Value(std::move(pair_rep_));
  }
  /// drop_frames() of a pair.
  void drop_pair(Frame& f) noexcept;
  [[gnu::noinline]] void map_end_frame();
  /// Opens a container's frame. Inline for the common case, a frame of an untyped read with
  /// room for it below the depth limit and in frames_, and a parent with no rep yet: it then
  /// costs the frame's stores, where the call with its error paths saved six registers and a
  /// stack frame. begin_checked() does the rest, with every check.
  void begin(FrameKind kind, std::size_t expected) { begin_inline(kind, expected); }
  /// begin(), always inline: for the walk of simdjson's document (json_array_begin,
  /// json_map_begin), where GCC made begin() a call once the walk resolved strings inline
  /// (json_string), 46 instructions a container. MessagePack's loop keeps GCC's choice:
  /// forced inline there, geojson's MessagePack read ran 2% more instructions.
  [[gnu::always_inline]] void begin_inline(FrameKind kind, std::size_t expected) {
    if (tape_ || !may_open(1) || frames_.size() == frames_.capacity()) [[unlikely]]
      return begin_checked(kind, expected);
    // Filled in place: a Frame built aside and copied in stalled on its own parts (see deliver).
    Frame& f = frames_.emplace_back();
    f.kind = kind;
    f.start = static_cast<std::uint32_t>(stack_.size());
    f.expected = expected;
  }
  /// begin_inline() for the walk of simdjson's document: the frame built by its constructor,
  /// field by field, where emplace_back() zeroes its 88 bytes first with a `rep stos`, whose
  /// start-up a JSON read's profile put 5% of its time on (citm_catalog). MessagePack's
  /// begin() keeps begin_inline (see Frame).
  /// Its checks are begin_inline's, the capacity's first: one inline predicate for all of
  /// them (and sized_array_begin) made GCC compile MessagePack's loop 0.5% longer (geojson).
  template <bool kPlain = false>
  [[gnu::always_inline]] void json_begin_inline(FrameKind kind, std::size_t expected) {
    if ((!kPlain && tape_) || frames_.size() == frames_.capacity() || !may_open(1)) [[unlikely]]
      return begin_checked(kind, expected);
    frames_.emplace_back(kind, static_cast<std::uint32_t>(stack_.size()), expected);
  }
  void begin_checked(FrameKind kind, std::size_t expected);
  /// begin_checked() for a frame of frames_ (not taped), out of line.
  [[gnu::cold, gnu::noinline]] void begin_frame_checked(FrameKind kind, std::size_t expected);
  /// Room on the value stack for `more` items, grown once rather than by doubling.
  void reserve_stack(std::size_t more) {
    if (stack_.capacity() - stack_.size() < more) grow_stack(more);
  }
  void grow_stack(std::size_t more);
  /// Whether an array is built by a user's array builder (so not straight into a node).
  bool arrays_built_by_user() const noexcept;
  /// The innermost frame, an array or object at its start, becomes tagged value `tag`.
  void start_tagged(std::string_view tag);
  /// start_tagged() in JSON's walk of simdjson's document, whose counts are exact: a tagged
  /// array of 2 items or object of 1 entry (`["~#set", [...]]`, `{"~#set": [...]}`) in a
  /// read with no tape and no user handlers takes its one rep in pair_rep_, as MessagePack's
  /// pairs do (start_pair): a scalar by deliver's inline path, a container finished straight
  /// into it (next_slot_of_parent), where place() put it on the value stack for end_tagged
  /// to take back (extensions: 9,750 sets, lists, points and cmaps a read). Such a frame
  /// ends in json_end_tagged (plain_array_end, plain_map_end: the walk is plain exactly when
  /// there is no tape and no handler). Not for MessagePack, whose end of a pair's rep makes a
  /// UUID of two integers (sized_array_end_frame): its tags go to start_tagged (checked_tag,
  /// place_code), and reach string(), which starts every `~#` tag here, only with a tape,
  /// handlers or an invalid tag. RapidJSON's frames announce no count, so never take it.
  void json_start_tagged(std::string_view tag);
  /// json_start_tagged() of a cached tag (a `^` code in JSON's walk): the frame's tag copied
  /// from the cache entry's Value, not built again from its text.
  void json_start_cached_tag(const Value& tag);
  /// The three, one body (decoder_tagged.h): MessagePack's start_tagged compiles as it did.
  /// `Tag`: the tag's text (std::string_view) or a Value of it.
  template <bool kJson, class Tag>
  void start_tagged_in(const Tag& tag);
  /// start_tagged()'s error: `tag` is not the first item of an array or object.
  [[noreturn, gnu::cold, gnu::noinline]] static void tag_not_first(std::string_view tag);
  void end_tagged(Frame& frame);
  /// end_tagged() in a plain JSON walk (plain_array_end, plain_map_end): a pair's rep
  /// (json_start_tagged) is taken from pair_rep_, any other from the stack.
  void json_end_tagged(Frame& frame);
  /// The two, one body (decoder.cpp): end_tagged compiles as it did.
  template <bool kJson>
  void end_tagged_in(Frame& frame);
  /// end_tagged_in's end in a typed read: decodes the tagged value `tag` `rep` onto the tape.
  /// Out of line: inlined, its body took two more registers in every array's end
  /// (array_end_frame), typed read or not (extensions with handlers 0.2% more instructions).
  [[gnu::noinline]] void tape_decoded_tag(const Value& tag, Value rep);
  /// A tagged value's errors: a second rep, or none.
  [[noreturn, gnu::cold, gnu::noinline]] static void second_rep(const Frame& f);
  [[noreturn, gnu::cold, gnu::noinline]] static void no_rep(const Frame& f);
  /// A JSON form showed up in a value read with a lazy cache: cache from here on, if nothing
  /// cacheable was missed before.
  void start_caching() {
    if (missed_) throw CacheNeeded{};
    caching_ = true;
  }
  bool at_array_start() const noexcept {
    // A pending array holds its items from the first in its node (reserved by
    // sized_array_begin) or, uncounted, on the stack (uncounted_begin): at its start while
    // it holds none in either.
    return frames_.empty() ? tape_ && tape_at_array_start()
                           : frames_.back().kind == FrameKind::array_pending &&
                                 frames_.back().count == 0 &&
                                 stack_.size() == frames_.back().start;
  }
  /// Whether the next value goes into an array or map being built (not a tagged value's rep,
  /// nor the result).
  bool in_plain_container() const noexcept {
    if (frames_.empty()) return false;
    const FrameKind k = frames_.back().kind;
    return k != FrameKind::tagged_array && k != FrameKind::tagged_object;
  }
  /// uinteger() above INT64_MAX.
  void big_uinteger(std::uint64_t u);
  bool at_key_position() const noexcept {
    if (frames_.empty()) return tape_ && tape_at_key_position();
    const Frame& f = frames_.back();
    const bool keyed = f.kind == FrameKind::map_array || f.kind == FrameKind::object ||
                       f.kind == FrameKind::object_pending;
    return keyed && ((f.slots.items ? f.count : stack_.size() - f.start) % 2 == 0);
  }

  // ---- typed reads: the tape ----
  // A container whose items go to the tape. The taped containers of a typed read are always
  // the outer ones: a tagged value decoded as a Value (see set_tape) moves to frames_, and
  // everything inside it is built there. So these frames are kept apart from frames_, small
  // (a container of a typed read costs a 32-byte frame, not a Frame with its slots and tag),
  // and the tape is being written exactly when frames_ is empty.
  enum class TapeTag : std::uint8_t { none, quote, cmap, other };
  struct TapeFrame {
    std::size_t mark = 0;     // where the container starts (its begin token is taped lazily)
    std::uint32_t count = 0;  // items (keys and values) seen so far
    // Below it, an item needs no more than a count (tape_item's inlined path): the items an
    // array or map may take before its limit. 0 for a tagged value (one rep), which
    // tape_item_slow checks.
    std::uint32_t limit = 0;
    // Its map_begin token (a map: a path finds its keys from there, see tape_key) or its
    // tagged_begin token (a tagged value, but a quote: its tag's name).
    std::uint32_t begin_token = 0;
    std::uint32_t rep_items = 0;  // a tagged value whose rep is a plain array: its length
    FrameKind kind = FrameKind::array_pending;
    bool has_rep = false;
    TapeTag tag = TapeTag::none;
    // A frame begun with no item (count 0, rep_items 0, no rep, no tag). Every field set by
    // its own store: value-initialized by emplace_back(), a frame was a `rep stos` of its 32
    // bytes, which the next item's load of `count` waited for (such a store is not forwarded).
    TapeFrame(std::size_t m, std::uint32_t lim, std::uint32_t begin, FrameKind k) noexcept
        : mark(m), limit(lim), begin_token(begin), kind(k) {
      // In whole 8-byte stores, as Token::set writes a token: each its own (copied from one
      // array, GCC built the array on the stack and moved it by a 16-byte load, which waits
      // for the stores it straddles).
      if constexpr (std::endian::native == std::endian::little) {
        char* const at = reinterpret_cast<char*>(this) + offsetof(TapeFrame, count);
        const std::uint64_t count_limit = std::uint64_t{lim} << 32, begin_rep = begin,
                            kind_rest = static_cast<std::uint8_t>(k);
        std::memcpy(at, &count_limit, 8);
        std::memcpy(at + 8, &begin_rep, 8);
        std::memcpy(at + 16, &kind_rest, 8);
      }
    }
  };
  // The constructor's three words are, in order: count and limit; begin_token and rep_items;
  // kind, has_rep, tag and the padding. A field moved or resized must fail here, not write
  // the wrong bytes.
  static_assert(offsetof(TapeFrame, limit) == offsetof(TapeFrame, count) + 4 &&
                offsetof(TapeFrame, begin_token) == offsetof(TapeFrame, count) + 8 &&
                offsetof(TapeFrame, rep_items) == offsetof(TapeFrame, count) + 12 &&
                offsetof(TapeFrame, kind) == offsetof(TapeFrame, count) + 16 &&
                offsetof(TapeFrame, has_rep) == offsetof(TapeFrame, count) + 17 &&
                offsetof(TapeFrame, tag) == offsetof(TapeFrame, count) + 18 &&
                sizeof(TapeFrame) == offsetof(TapeFrame, count) + 24 &&
                static_cast<int>(TapeTag::none) == 0);
  static_assert(std::is_trivially_copyable_v<TapeFrame> && std::is_trivially_destructible_v<TapeFrame>);
  // The taped frames: a vector of TapeFrames that a TapeWalk can set the end of (it pushes and
  // pops frames at a pointer it keeps in a register, and writes the end back once a batch).
  class TapeFrames {
   public:
    TapeFrames() = default;
    TapeFrames(const TapeFrames&) = delete;
    TapeFrames& operator=(const TapeFrames&) = delete;
    ~TapeFrames() { std::free(begin_); }
    bool empty() const noexcept { return end_ == begin_; }
    std::size_t size() const noexcept { return static_cast<std::size_t>(end_ - begin_); }
    std::size_t capacity() const noexcept { return static_cast<std::size_t>(cap_ - begin_); }
    TapeFrame* begin() noexcept { return begin_; }
    TapeFrame* end() noexcept { return end_; }
    const TapeFrame* begin() const noexcept { return begin_; }
    const TapeFrame* end() const noexcept { return end_; }
    TapeFrame& front() noexcept { return *begin_; }
    const TapeFrame& front() const noexcept { return *begin_; }
    TapeFrame& back() noexcept { return end_[-1]; }
    const TapeFrame& back() const noexcept { return end_[-1]; }
    void clear() noexcept { end_ = begin_; }
    void pop_back() noexcept { --end_; }
    TapeFrame& emplace_back(std::size_t mark, std::uint32_t limit, std::uint32_t begin,
                            FrameKind kind) {
      if (end_ == cap_) [[unlikely]]
        grow();
      return *new (end_++) TapeFrame(mark, limit, begin, kind);
    }
    /// The end a TapeWalk moved: between begin() and the capacity's end.
    void set_end(TapeFrame* end) noexcept { end_ = end; }

   private:
    [[gnu::cold, gnu::noinline]] void grow() {
      const std::size_t n = size(), grown = n < 16 ? 16 : 2 * n;
      if (grown > SIZE_MAX / sizeof(TapeFrame)) throw std::bad_alloc();
      void* p = std::realloc(static_cast<void*>(begin_), grown * sizeof(TapeFrame));
      if (!p) throw std::bad_alloc();
      begin_ = static_cast<TapeFrame*>(p);
      end_ = begin_ + n;
      cap_ = begin_ + grown;
    }
    TapeFrame* begin_ = nullptr;
    TapeFrame* end_ = nullptr;
    TapeFrame* cap_ = nullptr;
  };

 public:
  /// A typed read's walk of a parsed document (json::emit, for a batch of simdjson's words),
  /// with the tape set. Its events go to the tape by the quick paths of tape_begin_inline,
  /// tape_scalar_inline, tape_cached_inline, tape_empty_array_inline and tape_end_inline, with
  /// the tape's write position, its end, the innermost taped frame and its count kept here, in
  /// locals of the walk, for the whole batch: held in the Decoder, they were loaded again for
  /// every token, since a token's stores may alias them as far as the compiler knows. Every
  /// other way (a tag, a "^ " taken as a string, a lazy cache, a Value being decoded, the
  /// outermost container, limits, growth, errors) is the Decoder's own event, called with
  /// the state written back before and read again after. So the Transit rules stay the
  /// Decoder's; this only keeps its common state in registers. Constructed, it reads the
  /// state; finish() writes it back, and must be called before anything else looks at the
  /// Decoder or the tape (an exception thrown from a Decoder's event leaves the state
  /// written, as the event found it or as it left it; for the one exception to this, a
  /// plain string's text that could not grow, see tape_text_token).
  class TapeWalk {
   public:
    [[gnu::always_inline]] explicit TapeWalk(Decoder& d) noexcept : d_(d) { load(); }
    TapeWalk(const TapeWalk&) = delete;
    TapeWalk& operator=(const TapeWalk&) = delete;
    [[gnu::always_inline]] void finish() noexcept { store(); }

    /// A string: a cache code for text on the tape is a copy of its token; a plain string
    /// that is not cacheable (a value, or a key of fewer than 4 bytes) is its text; anything
    /// else, and every error, string().
    [[gnu::always_inline]] void string(std::string_view raw) {
      const bool plain = raw.empty() || (raw[0] != '^' && (raw.size() < 2 || raw[0] != '~'));
      if (plain) {
        if (out_ != room_end_ && count_ < limit_ && caching_ && (raw.size() < 4 || !at_key()))
            [[likely]] {
          ++count_;
          // Out of line, it writes the text and this token only: the walk's state stays.
          // Should the text's growth throw, the state is not written back (see
          // tape_text_token: nothing reads it). A try that wrote it back cost typed
          // citm_catalog JSON 1.4% and twitter 0.45% in instructions (GCC's code for the walk
          // moved), so there is none.
          return d_.tape_text_token(*out_++, raw);
        }
      } else if (raw.size() >= 2 && raw[0] == '^' && !(raw.size() == 2 && raw[1] == ' ')) {
        // The slot as tape_cached_inline finds it (cache_slot: a malformed code's slot is
        // kCacheSize or more, which names none).
        std::size_t slot = kCacheSize;
        if (raw.size() == 2)
          slot = cache_slot(raw[1]);
        else if (raw.size() == 3)
          slot = cache_slot(raw[1], raw[2]);
        // cache_size_ is 0 unless the cache is on and the tape is being written.
        if (slot < cache_size_ && cache_[slot].op == Op::text) {
          if (out_ != room_end_ && count_ < limit_) [[likely]] {
            ++count_;
            *out_++ = cache_[slot];  // the whole token at two loads and two stores
            return;
          }
          store();
          (void)d_.tape_cached_token(d_.tape_cache_[slot]);
          return load();
        }
      }
      store();
      d_.string(raw);
      load();
    }
    /// A scalar held in its token (tape_scalar_inline): `payload` is Token::integer, a
    /// double's bits for floating.
    [[gnu::always_inline]] void scalar(Kind kind, std::int64_t payload) {
      if (out_ != room_end_ && count_ < limit_) [[likely]] {
        ++count_;
        (out_++)->set(static_cast<std::uint64_t>(payload), 0, Op::value, kind, false);
        return;
      }
      store();
      // By the event that gives it (each call site has its kind constant).
      switch (kind) {
        case Kind::null:
          d_.null();
          break;
        case Kind::boolean:
          d_.boolean(payload != 0);
          break;
        case Kind::floating:
          d_.floating(std::bit_cast<double>(payload));
          break;
        default:
          d_.integer(payload);
          break;
      }
      load();
    }
    /// `items`: as tape_walk's begin takes them (see tape_begin_inline).
    [[gnu::always_inline]] void array_begin(std::uint32_t items) { begin<true>(items); }
    [[gnu::always_inline]] void map_begin(std::uint32_t items) { begin<false>(items); }
    /// An array whose first item is "^ ": begun as a map array, as array_begin() and
    /// string("^ ") would. False, doing nothing, unless the tape is being written and strings
    /// are cached; the caller then gives both events.
    [[gnu::always_inline]] bool map_array_begin(std::uint32_t items) {
      if (!caching_) return false;
      if (quick_begin()) {
        begin_frame(Op::map_begin, FrameKind::map_array, items);
        return true;
      }
      store();
      d_.tape_begin_slow(FrameKind::map_array, items);
      load();
      return true;
    }
    /// An empty array: its two tokens at once, with no frame pushed and popped.
    [[gnu::always_inline]] void empty_array() {
      if (room_end_ - out_ >= 2 && count_ < limit_ && top_ + 1 < frames_limit_) [[likely]] {
        ++count_;
        (out_++)->set(0, 0, Op::array_begin, Kind::null, false);  // 0 items
        (out_++)->set(0, 0, Op::array_end, Kind::null, false);
        return;
      }
      store();
      if (d_.frames_.empty()) {
        d_.tape_begin(FrameKind::array_pending);
        d_.tape_end(true);
      } else {
        d_.array_begin();
        d_.array_end();
      }
      load();
    }
    [[gnu::always_inline]] void array_end() { end(true); }
    [[gnu::always_inline]] void map_end() { end(false); }
    /// Any other event, by the Decoder's entry `event`.
    template <class Event>
    [[gnu::always_inline]] void other(Event&& event) {
      store();
      event();
      load();
    }

   private:
    // Reads the state: the quick paths are open only while the tape is being written (no
    // Value being decoded), with a taped frame open and no mark to keep; else out_ ==
    // room_end_ shuts them all, and cache_size_ 0 the cache codes'.
    // A key goes next in the innermost taped frame (tape_at_key_position).
    [[gnu::always_inline]] bool at_key() const noexcept {
      const FrameKind k = top_->kind;
      return (k == FrameKind::map_array || k == FrameKind::object ||
              k == FrameKind::object_pending) &&
             count_ % 2 == 0;
    }
    [[gnu::always_inline]] void load() noexcept {
      TokenBuffer& tokens = d_.tape_->tokens;
      data_ = tokens.mutable_data();
      out_ = tokens.write_position();
      room_end_ = tokens.room_end();
      TapeFrames& frames = d_.tape_frames_;
      floor_ = frames.begin();
      frames_limit_ = floor_ + (frames.capacity() < d_.max_depth_ ? frames.capacity() : d_.max_depth_);
      const bool quick = d_.frames_.empty() && !(d_.tape_marks_ && d_.mark_ != Location::npos) &&
                         !frames.empty();
      if (quick) {
        top_ = &frames.back();
        count_ = top_->count;
        limit_ = top_->limit;
      } else {
        top_ = nullptr;
        count_ = limit_ = 0;
        room_end_ = out_;
      }
      cache_ = d_.tape_cache_.data();
      caching_ = d_.frames_.empty() && d_.caching_;
      cache_size_ = caching_ ? d_.tape_cache_.size() : 0;
    }
    [[gnu::always_inline]] void store() noexcept {
      d_.tape_->tokens.set_write_position(out_);
      if (top_) {
        top_->count = count_;
        d_.tape_frames_.set_end(top_ + 1);
      }
    }
    // A container's begin by the quick path: inside an open array or map below its limit,
    // below the depth limit and the frames' capacity, room for its token.
    [[gnu::always_inline]] bool quick_begin() const noexcept {
      return out_ != room_end_ && count_ < limit_ && top_ + 1 < frames_limit_;
    }
    // array_begin (kArray) or map_begin.
    template <bool kArray>
    [[gnu::always_inline]] void begin(std::uint32_t items) {
      if (quick_begin())
        return begin_frame(kArray ? Op::array_begin : Op::map_begin,
                           kArray ? FrameKind::array : FrameKind::object, items);
      store();
      if (!d_.frames_.empty()) {
        if constexpr (kArray)
          d_.array_begin();
        else
          d_.map_begin();
      } else {
        d_.tape_begin_slow(kArray ? FrameKind::array_pending : FrameKind::object_pending, items);
      }
      load();
    }
    [[gnu::always_inline]] void begin_frame(Op op, FrameKind k, std::uint32_t items) noexcept {
      top_->count = count_ + 1;  // the parent's, as the walk leaves it
      const auto at = static_cast<std::uint32_t>(out_ - data_);
      (out_++)->set(0, items, op, Kind::null, false);
      limit_ = d_.tape_limit_of(k);
      count_ = 0;
      new (++top_) TapeFrame(d_.mark_, limit_, at, k);
    }
    // tape_end_inline's quick path: a plain array, or a map with a value for every key,
    // inside another taped container, room for its token.
    [[gnu::always_inline]] void end(bool array) {
      if (out_ != room_end_ && top_ > floor_) [[likely]] {
        const FrameKind kind = top_->kind;
        const bool array_ends = kind == FrameKind::array;
        const bool quick = array ? array_ends || (kind == FrameKind::map_array && count_ % 2 == 0)
                                 : kind == FrameKind::object && count_ % 2 == 0;
        if (quick) [[likely]] {
          (out_++)->set(0, 0, array_ends ? Op::array_end : Op::map_end, Kind::null, false);
          const std::uint32_t items = count_;
          data_[top_->begin_token].size = items;  // see Token::size
          --top_;
          count_ = top_->count;
          limit_ = top_->limit;
          if (array_ends && top_->kind == FrameKind::tagged_array)
            top_->rep_items = items;  // its rep's length, for a cmap
          return;
        }
      }
      store();
      if (d_.frames_.empty())
        d_.tape_end_slow(array);
      else if (array)
        d_.array_end();
      else
        d_.map_end();
      load();
    }

    Decoder& d_;
    Token* data_;       // the tape's token 0 (see TokenBuffer::data)
    Token* out_;        // where the next token goes
    Token* room_end_;   // the end of the room; out_ when the quick paths are shut
    TapeFrame* top_;    // the innermost taped frame (its count is count_), or nullptr
    TapeFrame* floor_;  // the outermost
    TapeFrame* frames_limit_;  // where a frame may not go: the capacity's or depth's end
    std::uint32_t count_;
    std::uint32_t limit_;
    const Token* cache_;
    std::size_t cache_size_;
    bool caching_;  // the cache is on, and the tape being written
  };

 private:
  bool taping() const noexcept { return tape_ && frames_.empty(); }
  // A taped array or map is open from its start (its begin token taped at once, so that its
  // first item takes tape_item's inlined path too): it is at its start while it has no item.
  bool tape_at_array_start() const noexcept {
    return !tape_frames_.empty() && tape_frames_.back().kind == FrameKind::array &&
           tape_frames_.back().count == 0;
  }
  bool tape_at_key_position() const noexcept {
    if (tape_frames_.empty()) return false;
    const TapeFrame& f = tape_frames_.back();
    const bool keyed = f.kind == FrameKind::map_array || f.kind == FrameKind::object ||
                       f.kind == FrameKind::object_pending;
    return keyed && f.count % 2 == 0;
  }
  /// begin() on the tape: the container's begin token is taped at once (see
  /// tape_at_array_start), and taken back or rewritten if a tag or "^ " comes first.
  void tape_begin(FrameKind kind);
  /// tape_begin's body, inlined into simdjson's walk (tape_walk_array_begin ...), where its
  /// call and the spills around it were about a third of a container's way; the other
  /// events call it out of line.
  [[gnu::always_inline]] void tape_begin_inline(FrameKind kind, std::uint32_t items = 0) {
    // The quick path, with no call and no register saved: a container inside an open array or
    // map below its limit, no mark to keep, room for its token and its frame.
    const std::size_t depth = tape_frames_.size();
    if (depth == 0 || depth >= max_depth_ || depth == tape_frames_.capacity() ||
        (tape_marks_ && mark_ != Location::npos) || tape_->tokens.full()) [[unlikely]]
      return tape_begin_slow(kind, items);
    TapeFrame& parent = tape_frames_.back();
    if (parent.count >= parent.limit) [[unlikely]]
      return tape_begin_slow(kind, items);
    ++parent.count;
    const bool array = kind == FrameKind::array_pending;
    const auto at = static_cast<std::uint32_t>(tape_->tokens.size());
    Token& t = tape_->tokens.append_unchecked();
    t.integer = 0;
    t.size = items;
    t.op = array ? Op::array_begin : Op::map_begin;
    t.kind = Kind::null;
    t.in_input = false;
    // A map array (tape_walk_map_array_begin) is begun as one from the start.
    const FrameKind k = array ? FrameKind::array : kind == FrameKind::map_array ? kind : FrameKind::object;
    tape_frames_.emplace_back(mark_, tape_limit_of(k), at, k);  // within capacity: no growth
  }
  /// tape_begin() by the whole path: the outermost container, a mark to keep, growth, limits.
  [[gnu::cold, gnu::noinline]] void tape_begin_slow(FrameKind kind, std::uint32_t items = 0);
  /// tape_begin() then tape_end() of an empty array, in one step where that is only two
  /// tokens and a count (see tape_walk_empty_array).
  void tape_empty_array();
  /// tape_empty_array's body, inlined into simdjson's walk (tape_walk_empty_array).
  [[gnu::always_inline]] void tape_empty_array_inline() {
    // Only inside an open array or map below its limit (so not a tagged value's rep, whose
    // length a cmap keeps), below the depth limit, with no mark to keep and room for both
    // tokens: anywhere else, the two events' whole paths.
    const std::size_t depth = tape_frames_.size();
    if (depth == 0 || depth >= max_depth_ || (tape_marks_ && mark_ != Location::npos) ||
        !tape_->tokens.has_room(2) || tape_frames_.back().count >= tape_frames_.back().limit)
        [[unlikely]] {
      tape_begin(FrameKind::array_pending);
      return tape_end(true);
    }
    ++tape_frames_.back().count;
    // Each token set whole: a copy of the first, just written, would wait for its stores.
    tape_->tokens.append_unchecked().set(0, 0, Op::array_begin, Kind::null, false);  // 0 items
    tape_->tokens.append_unchecked().set(0, 0, Op::array_end, Kind::null, false);
  }
  /// Takes back the begin token that tape_begin taped, the last token, for a tag's.
  void untape_begin_token() noexcept;
  /// start_tagged() on the tape.
  void tape_start_tagged(std::string_view tag);
  /// A "^ " makes the innermost taped array, at its start, a map.
  void tape_map_array();
  /// The name of a taped frame's tag, for messages and paths.
  std::string_view tape_tag_name(const TapeFrame& f) const noexcept;
  void tape_path(std::string& p) const;
  /// An item (a scalar, or a container starting) enters the innermost taped frame.
  void tape_item() {
    if (tape_frames_.empty()) return;
    TapeFrame& f = tape_frames_.back();
    if (f.count < f.limit) [[likely]] {
      ++f.count;
      return;
    }
    tape_item_slow(f);
  }
  /// The token of the next item, counted in its container, when that takes no more than a
  /// count and a store: an open array or map below its limit, no mark to keep, room on the
  /// tape. Else nullptr, and the caller takes its whole path (tape_item, new_token). A
  /// scalar or a cache code then runs no call, so its function saves no registers.
  Token* quick_item_token() noexcept {
    if (tape_frames_.empty() || (tape_marks_ && mark_ != Location::npos) ||
        tape_->tokens.full())
      return nullptr;
    TapeFrame& f = tape_frames_.back();
    if (f.count >= f.limit) return nullptr;
    ++f.count;
    return &tape_->tokens.append_unchecked();
  }
  /// tape_item for a frame at its limit: a tagged value's rep, or an error.
  void tape_item_slow(TapeFrame& f);
  /// Sets the limit of a frame now known to be an array or a map (see TapeFrame::limit).
  void open_tape_limit(TapeFrame& f) const noexcept { f.limit = tape_limit_of(f.kind); }
  /// TapeFrame::limit of a frame of kind `k`, an array or a map.
  std::uint32_t tape_limit_of(FrameKind k) const noexcept {
    return k == FrameKind::array ? tape_array_limit_ : tape_map_limit_;
  }
  static std::uint32_t tape_limit(std::size_t items) noexcept {
    return static_cast<std::uint32_t>(items < UINT32_MAX ? items : UINT32_MAX);
  }
  /// The token of the last key begun in taped map `f` (for a path: only errors look).
  std::size_t tape_key(const TapeFrame& f) const noexcept;
  void tape_token(Op op, std::size_t mark, std::string_view text = {});
  void tape_token(Value v);
  void tape_value(Value v);
  /// A scalar held in its token: `payload` is Token::integer (a double's bits for floating).
  void tape_scalar(Kind kind, std::int64_t payload);
  /// tape_scalar's body, inlined into simdjson's walk (tape_walk_integer); the other events
  /// call it out of line.
  [[gnu::always_inline]] void tape_scalar_inline(Kind kind, std::int64_t payload) {
    Token* t = quick_item_token();
    if (!t) [[unlikely]]
      return tape_scalar_token(kind, payload);
    // A double's bits are its payload. Two whole stores; the second a constant in the walk.
    t->set(static_cast<std::uint64_t>(payload), 0, Op::value, kind, false);
  }
  void tape_text(std::string_view raw);
  void tape_end(bool array);
  /// tape_end's body, inlined into simdjson's walk (tape_walk_array_end, tape_walk_map_end).
  [[gnu::always_inline]] void tape_end_inline(bool array) {
    // The quick path, with no call: a plain array, or a map with a value for every key, inside
    // another taped container, no mark to keep, room for its token.
    TapeFrame& f = tape_frames_.back();
    const bool array_ends = f.kind == FrameKind::array;
    const bool quick = array ? array_ends || (f.kind == FrameKind::map_array && f.count % 2 == 0)
                             : f.kind == FrameKind::object && f.count % 2 == 0;
    if (quick && tape_frames_.size() > 1 &&
        !(tape_marks_ && mark_ != Location::npos) && !tape_->tokens.full()) [[likely]] {
      tape_->tokens.append_unchecked().set(0, 0, array_ends ? Op::array_end : Op::map_end,
                                           Kind::null, false);
      const std::uint32_t items = f.count;
      tape_->tokens[f.begin_token].size = items;  // see Token::size
      tape_frames_.pop_back();
      if (array_ends && tape_frames_.back().kind == FrameKind::tagged_array)
        tape_frames_.back().rep_items = items;  // its rep's length, for a cmap
      return;
    }
    tape_end_slow(array);
  }
  /// tape_end() by the whole path: the outermost container, tagged values, marks, errors.
  [[gnu::cold, gnu::noinline]] void tape_end_slow(bool array);
  bool tape_structural(std::string_view tag) const noexcept;
  enum class TapeError : std::uint8_t {
    second_rep,
    no_rep,
    too_many_items,
    map_ends_in_array,
    array_ends_in_map,
    odd_map_array,
    odd_map,
  };
  /// Throws the error `what`, found in frame `f`.
  [[noreturn]] void tape_error(const TapeFrame& f, TapeError what) const;
  /// A new token at the end of the tape, zeroed; its mark kept when known.
  Token& new_token(std::size_t mark);
  /// Caches a value; on a tape, the slot no longer names text on the tape (see tape_cached).
  void cache_add(const Value& v, bool is_tag);
  /// Caches the plain string just taped as text, noting where its text is on the tape.
  void tape_cache_text(Value v);
  /// A cache code for a string already on the tape: a token for the same text, with no copy
  /// of the text nor of a Value, and no lookup in the cache (a cached map key costs what a
  /// short scalar does, and a Record matches it as text). False when the code's slot holds
  /// anything else or the code is malformed.
  bool tape_cached(std::string_view code);
  /// tape_cached's body, inlined into simdjson's walk (tape_walk_string), where a call with
  /// its spills cost about 10 instructions a cache code; string() calls it out of line.
  [[gnu::always_inline]] bool tape_cached_inline(std::string_view code) {
    // The slot as ReadCache::lookup finds it; a malformed code names none, and lookup
    // reports it.
    auto digit = [](char c) {
      return static_cast<std::size_t>(static_cast<unsigned char>(c) - kCacheBase);
    };
    std::size_t slot = kCacheSize;
    if (code.size() == 2 && digit(code[1]) < kCacheDigits)
      slot = digit(code[1]);
    else if (code.size() == 3 && digit(code[1]) < kCacheDigits && digit(code[2]) < kCacheDigits)
      slot = digit(code[1]) * kCacheDigits + digit(code[2]);
    if (slot >= tape_cache_.size()) return false;
    const Token& where = tape_cache_[slot];
    if (where.op != Op::text) return false;
    Token* t = quick_item_token();
    if (!t) [[unlikely]]
      return tape_cached_token(where);
    *t = where;  // the whole token at two loads and two stores
    return true;
  }
  /// tape_cached's token, by the whole path (see quick_item_token).
  bool tape_cached_token(const Token& where);
  /// tape_scalar by the whole path.
  void tape_scalar_token(Kind kind, std::int64_t payload);
  /// Makes `t`, a new token counted in its frame, the text token of plain string `raw`
  /// (tape_text's token, for a TapeWalk), writing the text onto the tape unless the input
  /// holds it. It touches no other token and no frame.
  ///
  /// Should the text's growth throw (std::bad_alloc), the walk's state is not written back:
  /// the tape's token count and taped frames are left part-way between the walk's last
  /// write-back and this token, with frames the walk pushed since written over the ones it
  /// popped. Nothing can see it. The exception ends the read (Reader::next<T>, for a bounded
  /// read, catches it and reads the value again whole: Reader::retape); every read onto a
  /// tape starts with Decoder::reset, which clears the tape and the taped frames; a tape is
  /// read after its read failed only by Reader::fail_bind, for a BindFailure, never for this;
  /// and ~Reader clears a tape it keeps. (No test: no hook can fail this one allocation.)
  void tape_text_token(Token& t, std::string_view raw);

  Value decode_tag(std::string_view tag, Value rep);
  Value decode_string(std::string_view raw);
  /// Runs `f`, a call of the user's read handler or builder `who` (`what` names it in an
  /// error), turning what it throws into a transit::Error the reader places; or, in a walk
  /// of a value walked before, takes the result or exception the same call had then (see
  /// walk_value_at).
  template <class F>
  Value user_call(std::string_view what, const void* who, F&& f);
  /// user_call's body, with `f` as `call(fn)`: in user_calls.cpp.
  Value run_user_call(std::string_view what, const void* who, Value (*call)(void*), void* fn);
  // What walk_value_at records: in user_calls.cpp, out of every reader's unit.
  struct UserCalls;
  void walk_user_calls_at(std::size_t start, bool record) noexcept;
  void clear_user_calls() noexcept;
  void free_user_calls() noexcept;
  [[gnu::cold]] void drop_user_calls() noexcept;
  /// reset() but for the cache's mode.
  [[gnu::noinline]] void empty_all() noexcept;
  void set_user_call_place(TokenPlace place) noexcept;
  void set_pass_refusals() noexcept;
  /// The body of run_user_call before a refusal: the call, its record and replay.
  Value recorded_user_call(std::string_view what, const void* who, Value (*call)(void*), void* fn);
  /// A call's refusal, the exception being handled (`e` if it is a transit::Error): rethrown
  /// (a typed read, pass_refusals), or kept (keep_refusal) and null returned for the call.
  [[gnu::cold]] Value refuse(const Error* e);
  /// Keeps the exception being handled (a call's refusal; `e` if it is a transit::Error),
  /// placed (see walk_value_at).
  [[gnu::cold]] void keep_refusal(const Error* e);
  /// Whether the innermost container, ending, stays a plain array or map, built by no
  /// builder: a tagged value's rep, or anything in a Record's rep (in_record_rep).
  bool kept_plain() const noexcept;
  /// Whether the next value is inside the rep of a Record's tagged value (a tag whose handler
  /// is a Record's, ReadHandlerEntry::record). Such a rep is read as a read without handlers
  /// reads it, no builder nor handler run in it, and the Record binds it with the handlers at
  /// its end, as from_value does (decode_tag): its C++ fields find the wire's maps and arrays,
  /// and its Value fields are built as read<T> builds them, once. Only asked before user code.
  bool in_record_rep() const noexcept;
  /// decode_tag of a Record's tag (`h`, ReadHandlerEntry::record), its rep read as
  /// in_record_rep says: bound with the handlers, a call of user code. In user_calls.cpp: in
  /// decoder.cpp, GCC compiled array_end_frame otherwise (3,576 instructions more on the Value
  /// read of twitter, which has no handlers). A bad field fails with its path below the
  /// Record (see placed_path).
  Value bind_record_rep(const ReadHandlerEntry& h, const Value& rep);
  /// The map of `flat` (keys and values), by the user's map builder if there is one for it;
  /// `moved_out` says whether `flat` was taken over (node_of_stack) or not (a user's builder
  /// may keep any of it), so that its caller may drop the items unseen.
  Value build_map(std::span<Value> flat, bool& moved_out);
  /// The array (or the map, `map`: keys and values) of `items`, the innermost container's on
  /// the value stack, which it takes over: a node reserved as a counted container's
  /// (ValueAccess::reserve_sequence, reserve_map), the items relocated into it bitwise, and
  /// finished by the counted path's finish_sequence or finish_map, so that every rule of a
  /// finished node (duplicate keys, adoption, height) has one copy. `items` is left to be
  /// dropped with no destructor run (ValueStack::forget_from).
  Value node_of_stack(std::span<Value> items, bool map);

  bool caching_ = true;
  bool missed_ = false;  // a string that may have been cacheable went by uncached
  std::size_t max_depth_;
  std::size_t max_items_;  // items of an array, entries of a map
  const ReadHandlers* handlers_;
  std::vector<Frame> frames_;
  ValueStack stack_;  // items of every open container, innermost last
  ReadCache cache_;
  Value result_;
  bool done_ = false;
  // The innermost container is being built from its items (a builder, a depth check): an
  // error then is the container's, not its next key's.
  bool closing_ = false;
  bool met_pair_ = false;  // see met_pair(); not reset per value
  // let_go() emptied the decoder, and nothing has read since: the reset() that begins the next
  // walk (a kept reader's first, once taken) has nothing to empty.
  bool emptied_ = false;
  // Bit d (of d mod 64): a MessagePack array that began at depth d (frames_.size() at its
  // start) in this value began with a tag or a "^ ", so sized_array_begin reserves the next
  // ones there no node, which a tag would make them give up: they take place() at their
  // first item, as before the reservation. Cleared by reset(), per top-level value. Only a
  // guess: either way the value read is the same.
  std::uint64_t tag_first_ = 0;
  Tape* tape_ = nullptr;
  TapeFrames tape_frames_;  // the taped containers open, outermost first
  // TapeFrame::limit of an array and of a map: the items (a map's keys and values) that
  // max_collection_length allows, at most UINT32_MAX (past it, tape_item_slow counts on).
  std::uint32_t tape_array_limit_;
  std::uint32_t tape_map_limit_;
  // stack_until_for(start, ...) less `start`, for an uncounted array and map (uncounted_begin):
  // at most SIZE_MAX - UINT32_MAX, so that a frame's start (32 bits) added never overflows.
  std::size_t uncounted_array_until_;
  std::size_t uncounted_map_until_;
  bool tape_input_stable_ = false;
  bool tape_marks_ = true;
  // Per cache slot, the Op::text token of its plain string on the tape, which a cache code
  // for it copies whole; a zeroed token (Op::value) where the slot holds anything else.
  std::vector<Token> tape_cache_;
  /// Notes what the slot the cache filled last holds: text on the tape (an Op::text token),
  /// or not (any other).
  void note_tape_text(const Token& where);
  std::size_t mark_ = 0;
  // The rep of the innermost open pair (start_pair); null while none holds one. One is
  // enough: a pair's rep is its last item, so an inner pair ends, and empties it, before its
  // outer pair's rep is placed in it. In a union, so that the Decoder's destructor runs no
  // destructor of it (null once drop_frames has run): that one more Value destroyed in every
  // unit that destroys a Decoder made GCC take Value's move assignment out of line in JSON's
  // walk (JSON-Verbose citm_catalog 1.4% more instructions).
  union {
    Value pair_rep_;
  };
  // The user code's calls in the walks of one top-level value (see walk_value_at); made by
  // the first walk a reader announces with handlers set, else null. Owned; a pointer,
  // not a member, so that a Decoder with no handlers destroys nothing more than before.
  UserCalls* user_calls_ = nullptr;
  bool walk_records_ = false;  // whether the walk walk_value_at announced last records its calls
  // User code refused the value in this walk (UserCalls::refused holds its error), or is
  // muted: a flag here, so that the reader's test of each value reads one byte.
  bool refused_ = false;
  // Which pairs pair_whole_allowed holds back (kPairHeldM, kPairHeldU) and which tags
  // pair_unhandled has asked the handlers about in this walk (kPairAskedM, kPairAskedU):
  // both held back, none asked, as each walk with user handlers begins (walk_user_calls_at,
  // which every walk with handlers announces first); learn_pair_rule lets a tag's pairs
  // through. None held back without handlers: 0 as made, and again when a kept reader
  // drops its handlers' record (drop_user_calls; only a walk with handlers sets it). Set
  // there, not in rebind and let_go, which a kept reader runs on every read (3 and 1
  // instructions a read with no handlers).
  static constexpr std::uint8_t kPairHeldM = 1, kPairHeldU = 2, kPairAskedM = 4, kPairAskedU = 8;
  std::uint8_t pair_gate_ = 0;
};

}  // namespace transit::detail
