// SPDX-License-Identifier: Apache-2.0
// The compiled half of typed reads: walking and describing tape tokens, the tag table, and
// the escape hatch back to Value. Everything here is off the per-token hot path but
// read_user's lookup.
#include "transit/typed.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <span>
#include <typeindex>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "model/edn.h"
#include "ground.h"
#include "testing.h"
#include "model/value_internal.h"
#include "read/read_handlers_access.h"

namespace transit::detail {

namespace {

// What a token is, for "expected X, got Y".
std::string describe(const Tape& tape, std::size_t index) {
  // A bounded tape may have dropped the token: its read is then done again whole, and this
  // message is not the one the user sees.
  if (index >= tape.tokens.size() || index < tape.tokens.base()) return "nothing";
  const Token& t = tape.tokens[index];
  // Shown to 40 bytes; what is cut is not printed or copied first (a key may be 16 MB).
  constexpr std::size_t kShown = 40;
  auto clip = [](std::string s) {
    if (s.size() > kShown) s = s.substr(0, kShown - 3) + "...";
    return s;
  };
  switch (t.op) {
    case Op::value: {
      if (t.kind == Kind::null) return "nil";
      std::string edn;
      (void)append_edn(tape.value_of(t), edn, kShown + 1);
      return std::string(kind_name(t.kind)) + " " + clip(std::move(edn));
    }
    case Op::text:
      return "string " + clip("\"" + std::string(tape.text_of(t).substr(0, kShown)) + "\"");
    case Op::array_begin:
      return "an array";
    case Op::map_begin:
      return "a map";
    case Op::tagged_begin:
      return "a tagged value ~#" + std::string(tape.text_of(t));
    case Op::array_end:
      return "the end of the array";
    case Op::map_end:
      return "the end of the map";
    case Op::tagged_end:
      return "the end of the tagged value";
    case Op::refill:
      break;
  }
  return "?";
}

bool is_begin(Op op) noexcept {
  return op == Op::array_begin || op == Op::map_begin || op == Op::tagged_begin;
}
bool is_end(Op op) noexcept {
  return op == Op::array_end || op == Op::map_end || op == Op::tagged_end;
}

/// Whether a writer writes map `v` as a cmap: it has a key that writes as no scalar.
bool written_as_cmap(const Value& v) noexcept {
  for (const Entry& e : v.entries())
    if (!writes_as_scalar(e.first)) return true;
  return false;
}

/// Runs `call` for the value at token `at`: a user's code named `who` + `name`, or, with `who`
/// empty, the library's decoding of a tagged value. As the decoder fails it: a transit::Error
/// is a BindFailure at `at` with its code and detail; any other std::exception from user code
/// is bad_rep "<who><name> failed: ..." (the name joined only then, so a call that succeeds
/// allocates nothing); from the library's decoding (std::bad_alloc), it goes on as it is.
/// The one conversion of a bind's failures in user code (and the decoding beside it).
template <class Call>
Value run_user(std::size_t at, std::string_view who, std::string_view name, Call call) {
  try {
    return call();
  } catch (const Error& e) {
    throw BindFailure{at, e.code(), e.detail()};
  } catch (const std::exception& e) {
    if (who.empty()) throw;
    std::string detail(who);
    detail.append(name).append(" failed: ").append(e.what());
    throw BindFailure{at, Errc::bad_rep, std::move(detail)};
  }
}

/// What the user code run for token `at` in an earlier bind of this value returned or threw
/// (see Cursor::keep_handler_calls), or null.
const HandlerCalls::Call* kept_call(const HandlerCalls* calls, std::size_t at) {
  if (!calls) return nullptr;
  const auto it = calls->by_token.find(at);
  return it == calls->by_token.end() ? nullptr : &it->second;
}

/// A kept call's result again: what it returned, or what it threw.
Value replay(const HandlerCalls::Call& call) {
  if (call.thrown) std::rethrow_exception(call.thrown);
  return call.value;
}

/// run_user of a user's code for the value whose first token is `key` (failing at token
/// `at`), kept in `calls` (if any) whatever it returns or throws, a BindFailure or anything
/// else: a bind again (a variant's next alternative, a read in batches binding its value again
/// whole after any exception) replays it (kept_call), so the code runs once per value.
template <class Call>
Value run_kept(HandlerCalls* calls, std::size_t key, std::size_t at, std::string_view who,
               std::string_view name, Call call) {
  if (!calls) return run_user(at, who, name, call);
  try {
    Value v = run_user(at, who, name, call);
    calls->by_token.insert_or_assign(key, HandlerCalls::Call{v, nullptr});
    return v;
  } catch (...) {
    calls->by_token.insert_or_assign(key, HandlerCalls::Call{Value(), std::current_exception()});
    throw;
  }
}

/// The Value::object a Record's reader `r` makes of the rep at `c`.
Value record_value(const TypedReader& r, Cursor& c) { return r.take_value(r.create(r.context.get(), c)); }

}  // namespace

void Cursor::skip() {
  // A field the binder does not know (most of a status's on twitter): see kOpDepth.
  std::ptrdiff_t depth = 0;
  do {
    if (at_->op == Op::refill) [[unlikely]]
      refill();
    depth += kOpDepth[static_cast<std::uint8_t>((at_++)->op)];
  } while (depth != 0);
}

void Cursor::refill() {
  // Kept: every pinned token, and the last few taken (last(), the token a mismatch names).
  constexpr std::size_t kKeepTaken = 8;
  const std::size_t at = position();
  const std::size_t keep = std::min(pin_, at - std::min(at, kKeepTaken));
  // A batch may show no token: the decoder holds back a token it may yet change (an array's
  // begin until its first item shows it is no tagged value), and the refill token stands
  // where it was. Taken as a token, it let skip() walk past the tape's end (the typed fuzzer,
  // batches of one token).
  do {
    testing::count_refill();
    tape_->feeder->refill(keep);
    tokens_ = tape_->tokens.data();
    at_ = tokens_ + at;
  } while (at_->op == Op::refill);
}

[[gnu::cold]] void Cursor::mismatch(const std::type_info& wanted, std::size_t token,
                                    std::string_view why) const {
  std::string detail = "expected " + type_name(wanted) + ", got " + describe(*tape_, token);
  if (!why.empty()) detail.append(" (").append(why).append(")");
  throw BindFailure{token, Errc::type_mismatch, std::move(detail)};
}

[[gnu::cold]] void Cursor::fail(std::size_t token, std::string detail) const {
  throw BindFailure{token, Errc::type_mismatch, std::move(detail)};
}

const TypedReader* Cursor::typed_for(const std::type_info& type) {
  if (!handlers_) return nullptr;
  for (const Memo& m : memo_)
    if (m.type == &type) return m.reader;
  const TypedReader* r = handlers_->typed_for(type, nullptr);
  memo_[memo_next_] = {&type, r};
  memo_next_ = (memo_next_ + 1) % memo_.size();
  return r;
}

void Cursor::read_user(const std::type_info& type, void* out) {
  const std::size_t at = position();
  const Token& t = peek();
  if (t.op == Op::tagged_begin) {
    const std::string_view got = text(t);
    const TypedReader* r = handlers_ ? handlers_->find_typed(got) : nullptr;
    if (!r) mismatch(type, at, "no typed reader for ~#" + std::string(got));
    if (*r->type != type) mismatch(type, at, "~#" + std::string(got) + " reads " + type_name(*r->type));
    ++at_;
    r->read_into(r->context.get(), *this, out);
    expect(Op::tagged_end, type);
    return;
  }
  const TypedReader* mine = typed_for(type);
  if (!mine) mismatch(type, at, "no Record for this type in the reader's handlers");
  // A record's map read plain, as JSON from a peer that does not tag it.
  if (t.op != Op::map_begin) return read_held(type, *mine, out);
  mine->read_into(mine->context.get(), *this, out);
}

void Cursor::read_held(const std::type_info& type, const TypedReader& r, void* out) {
  const std::size_t at = position();
  const Token& t = peek();
  if (t.op != Op::value || t.kind != Kind::object) mismatch(type, at);
  const Value& held = value(t);
  if (held.object_type_info() != type) mismatch(type, at);
  if (!r.copy_into)
    mismatch(type, at, "a held " + type_name(type) + " is bound only when it can be copied");
  r.copy_into(held.object_address(), out);
  ++at_;
}

namespace {

/// How a read makes a `base` of an object of `r`'s type: the nearest chain of Record
/// declarations, and the others there when the declarations reach `base` by more than one.
struct BaseConversion {
  Upcasts nearest;
  std::span<const Upcasts> others;
};

/// What the two messages below name: the tag `~#tag`, or with none (an object a Value holds,
/// bound again) the object, by its type: made only for a message.
std::string subject(const TypedReader& r, std::string_view tag) {
  return tag.empty() ? "a held " + type_name(*r.type) : "~#" + std::string(tag);
}

/// The conversion of `r`'s objects to `base`: none when they are `base`; the one their Record
/// declares; else the chains through the Records (in `handlers`) of the bases it declares, and
/// theirs (ReadHandlersAccess::chains: worked out once, not per value). A mismatch, for the
/// tag or held object (`subject`), when no chain of declarations reaches `base`.
BaseConversion upcast_to(const Cursor& c, const ReadHandlers* handlers, const TypedReader& r,
                 const std::type_info& base, const std::type_info& wanted, std::size_t at,
                 std::string_view tag) {
  BaseConversion out;
  if (*r.type == base) return out;
  const std::type_index target(base);
  // The common case, a base r's Record declares, before the chains (a hash lookup): C++
  // converted to it, so it is the type's only `base`, whatever else leads there.
  for (const auto& [type, fn] : r.upcasts)
    if (type == target) {
      out.nearest.fns[out.nearest.n++] = fn;
      return out;
    }
  if (handlers)
    for (const UpcastChain& chain : ReadHandlersAccess::chains(*handlers, r))
      if (chain.base == target) return {chain.nearest, chain.others};
  c.mismatch(wanted, at,
             subject(r, tag) + " reads " + type_name(*r.type) +
                 ", which its Record does not declare to derive from " + type_name(base));
}

/// `obj`, made by `r`, as a `base` by `upcast`; when the chains there give different objects
/// (the type holds two `base`s: a diamond without `virtual`), it is freed and the read is a
/// mismatch, as C++ refuses such a conversion: no read picks one of the two.
void* as_base(const Cursor& c, const BaseConversion& upcast, const TypedReader& r, void* obj,
              const std::type_info& base, const std::type_info& wanted, std::size_t at,
              std::string_view tag) {
  void* const nearest = upcast.nearest(obj);
  for (const Upcasts& other : upcast.others)
    if (other(obj) != nearest) {
      r.destroy(obj);
      c.mismatch(wanted, at,
                 subject(r, tag) + " reads " + type_name(*r.type) +
                     ", which holds more than one " + type_name(base) +
                     ": its Records' declarations reach it by chains that give different objects");
    }
  return nearest;
}

}  // namespace

void* Cursor::clone_held(const std::type_info& base, const std::type_info& wanted) {
  const Token& t = *at_;
  if (t.op != Op::value || t.kind != Kind::object || !handlers_) return nullptr;
  const Value& held = value(t);
  const TypedReader* r = handlers_->typed_for(held.object_type_info(), nullptr);
  if (!r || !r->clone) return nullptr;
  const std::size_t at = position();
  const BaseConversion upcast = upcast_to(*this, handlers_, *r, base, wanted, at, {});
  void* obj = r->clone(held.object_address());
  ++at_;
  return as_base(*this, upcast, *r, obj, base, wanted, at, {});
}

void* Cursor::read_derived(const std::type_info& base, const std::type_info& wanted) {
  const Token& t = peek();
  if (t.op != Op::tagged_begin || !handlers_)
    return t.op == Op::value ? clone_held(base, wanted) : nullptr;
  const std::size_t at = position();
  const std::string_view tag = text(t);
  const TypedReader* r = handlers_->find_typed(tag);
  if (!r) return nullptr;
  const BaseConversion upcast = upcast_to(*this, handlers_, *r, base, wanted, at, tag);
  ++at_;
  void* obj = r->create(r->context.get(), *this);
  try {
    expect(Op::tagged_end, wanted);
  } catch (...) {
    r->destroy(obj);
    throw;
  }
  return as_base(*this, upcast, *r, obj, base, wanted, at, tag);
}

Value Cursor::build(std::size_t at, bool map) {
  const Op end = map ? Op::map_end : Op::array_end;
  const bool cmap = map && tokens_[at].kind == Kind::map;
  // Built in an earlier bind of this value: what the builder returned (or threw) then.
  if (const HandlerCalls::Call* kept = kept_call(calls_, at)) {
    while (peek().op != end) skip();
    ++at_;
    return replay(*kept);
  }
  std::vector<Value> items;
  while (peek().op != end) items.push_back(read_value());
  ++at_;
  // A failure is placed as the decoder places it: a builder's at the container's end, in its
  // path; a cmap handler's at the tagged value.
  if (cmap) {
    const ReadHandler& h = *handlers_->find("cmap");
    return run_kept(calls_, at, at, kTaggedHandlerName, "cmap",
                    [&] { return h(Value::array(std::move(items))); });
  }
  return run_kept(calls_, at, position() - 1, map ? "map builder" : "array builder", {}, [&] {
    return map ? (*handlers_->map_builder())(items) : (*handlers_->array_builder())(items);
  });
}

bool Cursor::builds(std::size_t at, bool map) const noexcept {
  if (!handlers_) return false;
  // A map that writers write as a cmap (from_value's, see Token::kind): its read handler.
  if (map && tokens_[at].kind == Kind::map) return handlers_->find("cmap") != nullptr;
  if (!(map ? static_cast<bool>(handlers_->map_builder())
            : static_cast<bool>(handlers_->array_builder())))
    return false;
  // A tagged value's rep stays plain for its handler, as the decoder keeps it (a quote is
  // not taped: its rep is built). The token before the container was taken just before it,
  // so a bounded tape still holds it (Cursor::refill).
  return at == tape_->tokens.base() || tokens_[at - 1].op != Op::tagged_begin;
}

Value Cursor::read_value() {
  const std::size_t at = position();
  const Token& t = take();
  switch (t.op) {
    case Op::value:
      return tape_->value_of(t);
    case Op::text:
      return Value(text(t));
    case Op::array_begin: {
      if (builds(at, false)) [[unlikely]]
        return build(at, false);
      std::vector<Value> items;
      while (peek().op != Op::array_end) items.push_back(read_value());
      ++at_;
      return Value::array(std::move(items));
    }
    case Op::map_begin: {
      if (builds(at, true)) [[unlikely]]
        return build(at, true);
      std::vector<Entry> entries;
      while (peek().op != Op::map_end) {
        Value k = read_value();
        entries.emplace_back(std::move(k), read_value());
      }
      ++at_;
      return Value::map(std::move(entries));
    }
    case Op::tagged_begin: {
      const std::string tag(text(t));
      // A Record's tag binds from its rep's tokens as read<T> binds them: its C++ fields by
      // structure, its Value fields by read_value (so built), a bad field failed where it is.
      const ReadHandlerEntry* const e = handlers_ ? ReadHandlersAccess::find(*handlers_, tag) : nullptr;
      if (e && e->record) {
        Value v = record_value(*e->record, *this);
        expect(Op::tagged_end, typeid(Value));
        return v;
      }
      // A handler's result (or what it threw) in an earlier bind of this value: its rep is not
      // read again.
      const ReadHandler* const h = e ? &e->handler : nullptr;
      if (h)
        if (const HandlerCalls::Call* kept = kept_call(calls_, at)) {
          skip();
          take();  // tagged_end
          return replay(*kept);
        }
      Value rep = read_value();
      take();  // tagged_end, which may be where a bounded tape's batch ends
      if (!h) return run_user(at, {}, {}, [&] { return decode_tagged(tag, std::move(rep)); });
      return run_kept(calls_, at, at, kTaggedHandlerName, tag, [&] { return (*h)(rep); });
    }
    default:
      mismatch(typeid(Value), at);
  }
}

std::string tape_path(const Tape& tape, std::size_t index) {
  struct Level {
    Op op;
    std::size_t items;  // items complete (a nested container counts when it ends)
    std::size_t key;    // token of the last key taken
    std::string_view tag;
  };
  std::vector<Level> stack;
  for (std::size_t i = 0; i < index && i < tape.tokens.size(); ++i) {
    const Token& t = tape.tokens[i];
    if (is_end(t.op)) {
      stack.pop_back();
      if (!stack.empty()) ++stack.back().items;
      continue;
    }
    if (!stack.empty() && stack.back().op == Op::map_begin && stack.back().items % 2 == 0)
      stack.back().key = i;
    if (is_begin(t.op))
      stack.push_back({t.op, 0, 0, t.op == Op::tagged_begin ? tape.text_of(t) : ""});
    else if (!stack.empty())
      ++stack.back().items;
  }
  // At a key (or in a composite one) the path says `<key>`; at the end of a map it is the
  // map's own.
  const bool at_end = index < tape.tokens.size() && is_end(tape.tokens[index].op);
  // Built with append only: g++ 12 warns (-Wrestrict, a false positive) on operator+ chains.
  std::string p = "$";
  for (std::size_t depth = 0; depth < stack.size(); ++depth) {
    const Level& l = stack[depth];
    const bool in_key = l.items % 2 == 0 && !(at_end && depth + 1 == stack.size());
    switch (l.op) {
      case Op::array_begin:
        p.append("[").append(std::to_string(l.items)).append("]");
        // A cmap's rep alternates keys and values.
        if (in_key && depth > 0 && stack[depth - 1].tag == "cmap") p.append("<key>");
        break;
      case Op::map_begin: {
        if (l.items % 2 == 0) {
          if (in_key) p.append("<key>");
          break;
        }
        p.append("[");
        append_path_key(p, tape, tape.tokens[l.key]);
        p.append("]");
        break;
      }
      default:
        p.append("<#").append(l.tag).append(">");
        break;
    }
  }
  return p;
}

void append_path_string(std::string& p, std::string_view s) {
  p.append("\"").append(s.substr(0, utf8_floor(s, kPathKeyBytes)));
  if (s.size() > kPathKeyBytes)
    p.append("\xE2\x80\xA6\" (").append(std::to_string(s.size())).append(" bytes)");
  else
    p.append("\"");
}

void append_path_key(std::string& p, const Tape& tape, const Token& key) {
  if (key.op == Op::text)
    append_path_string(p, tape.text_of(key));
  else if (key.op == Op::value && key.kind == Kind::string)
    append_path_string(p, tape.side_value(key).as_string());
  else if (key.op == Op::value)
    append_edn(tape.value_of(key), p, kPathKeyBytes);
  else
    p.append("...");
}

namespace {

/// Whether a typed read tapes `tag` by structure (Decoder::tape_structural): the binders read
/// it, rather than a read handler decoding it first.
bool taped_by_structure(std::string_view tag, const ReadHandlers& h) noexcept {
  return tag == "set" || tag == "list" || tag == "cmap" || tag == "'" || h.find_typed(tag);
}

/// A failure in a Value that decode_handled decodes, with its path below that Value
/// (`<#pt>[0]<#inner31>[:ys]`), where a read of its bytes places it: each level of
/// decode_handled that it leaves puts its own step in front, and tape_from_value puts the
/// Value's own path before it all. (The decoder knows its path as it goes; decode_handled
/// makes it only on a failure.)
struct FailedBelow {
  Errc code;
  std::string detail;
  std::string below;
};

/// `call()` with run_user's conversions, a failure placed at the value decode_handled is at
/// (not at a token: the Value being decoded has none yet).
template <class Call>
Value run_here(std::string_view who, std::string_view name, Call call) {
  try {
    return run_user(0, who, name, call);
  } catch (BindFailure& f) {
    throw FailedBelow{f.code, std::move(f.detail), {}};
  }
}

/// Runs the read handler `h` (or the default handler `d`) of the tagged value `tag` `rep`, as
/// the decoder does: a failure is placed at the tagged value.
Value run_handler(const ReadHandler* h, const DefaultReadHandler* d, std::string_view tag,
                  const Value& rep) {
  return run_here(kTaggedHandlerName, tag, [&] { return h ? (*h)(rep) : (*d)(tag, rep); });
}

/// Runs the map (or array) builder of `h` on `items`, as the decoder does: a failure is placed
/// at the container's end (an array's `[n]`, past its items), with the decoder's code and
/// detail.
Value run_builder(const ReadHandlers& h, bool map, std::span<Value> items) {
  try {
    return run_here(map ? "map builder" : "array builder", {},
                    [&] { return map ? (*h.map_builder())(items) : (*h.array_builder())(items); });
  } catch (FailedBelow& f) {
    if (!map) f.below = "[" + std::to_string(items.size()) + "]";
    throw;
  }
}

/// The step into item `i` of `v`, which decode_handled decodes, as the decoder's path says it:
/// `[i]` of an array, `<#set>[i]` of a set or list; of a map's entry `i / 2` its key's
/// `<key>` and its value's `["k"]`, and of a map written as a cmap its rep's
/// `<#cmap>[i]<key>` and `<#cmap>[i]`.
std::string step_into(const Value& v, std::size_t i) {
  std::string step;
  switch (v.kind()) {
    case Kind::list:
    case Kind::set:
      step.append("<#").append(v.kind() == Kind::list ? "list" : "set").append(">");
      [[fallthrough]];
    case Kind::array:
      return step.append("[").append(std::to_string(i)).append("]");
    default:
      break;
  }
  if (written_as_cmap(v)) {
    step.append("<#cmap>[").append(std::to_string(i)).append("]");
    return i % 2 ? step : step.append("<key>");
  }
  if (i % 2 == 0) return "<key>";
  const Value& key = v.entries()[i / 2].first;
  step.append("[");
  if (key.kind() == Kind::string)
    append_path_string(step, key.as_string());
  else
    append_edn(key, step, kPathKeyBytes);
  return step.append("]");
}

std::optional<Value> decode_handled(const Value& v, const ReadHandlers& h, bool rep = false);

/// The `n` items (`item(i)`) of `v` decoded by decode_handled, all of them, or nullopt when
/// none changes: items are copied only from the first one that changes.
template <class Item>
std::optional<std::vector<Value>> decode_items(const Value& v, std::size_t n, Item item,
                                               const ReadHandlers& h) {
  std::vector<Value> out;
  for (std::size_t i = 0; i < n; ++i) {
    std::optional<Value> d;
    try {
      d = decode_handled(item(i), h);
    } catch (FailedBelow& f) {
      f.below.insert(0, step_into(v, i));
      throw;
    }
    if (d && out.empty()) {
      out.reserve(n);
      for (std::size_t j = 0; j < i; ++j) out.push_back(item(j));
    }
    if (!out.empty() || d) out.push_back(d ? std::move(*d) : item(i));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

/// `v` as a read into Value with `h` makes it of the bytes a writer writes for it: every tagged
/// value (a set, list or cmap too) decoded by its read handler (or the default one), innermost
/// first, and every map and array built by h's builders but the rep of a tagged value (`rep`);
/// nullopt when nothing changes, so a Value with nothing to decode is not copied.
std::optional<Value> decode_handled(const Value& v, const ReadHandlers& h, bool rep) {
  switch (v.kind()) {
    case Kind::array:
    case Kind::list:
    case Kind::set: {
      const std::span<const Value> items = v.items();
      std::optional<std::vector<Value>> d =
          decode_items(v, items.size(), [&](std::size_t i) -> const Value& { return items[i]; }, h);
      const auto all = [&] { return d ? std::move(*d) : std::vector<Value>(items.begin(), items.end()); };
      if (v.kind() == Kind::array) {
        if (rep || !h.array_builder()) return d ? std::optional(Value::array(std::move(*d))) : std::nullopt;
        std::vector<Value> built = all();
        return run_builder(h, false, built);
      }
      // ["~#set", [...]] or ["~#list", [...]]: a tagged value, whose rep stays plain.
      const std::string_view tag = v.kind() == Kind::list ? "list" : "set";
      if (const ReadHandler* handler = h.find(tag))
        return run_handler(handler, nullptr, tag, Value::array(all()));
      if (!d) return std::nullopt;
      return v.kind() == Kind::list ? Value::list(std::move(*d)) : Value::set(std::move(*d));
    }
    case Kind::map: {
      const std::span<const Entry> entries = v.entries();
      std::optional<std::vector<Value>> d = decode_items(
          v, 2 * entries.size(),
          [&](std::size_t i) -> const Value& { return i % 2 ? entries[i / 2].second : entries[i / 2].first; },
          h);
      const auto flat = [&] {
        if (d) return std::move(*d);
        std::vector<Value> out;
        out.reserve(2 * entries.size());
        for (const Entry& e : entries) out.insert(out.end(), {e.first, e.second});
        return out;
      };
      if (written_as_cmap(v)) {
        // ["~#cmap", [k, v, ...]]: a tagged value, which its handler (if any) builds, not the
        // map builder.
        if (const ReadHandler* handler = h.find("cmap"))
          return run_handler(handler, nullptr, "cmap", Value::array(flat()));
      } else if (!rep && h.map_builder()) {
        std::vector<Value> built = flat();
        return run_builder(h, true, built);
      }
      if (!d) return std::nullopt;
      std::vector<Entry> out;
      out.reserve(entries.size());
      for (std::size_t i = 0; i < d->size(); i += 2) out.emplace_back(std::move((*d)[i]), std::move((*d)[i + 1]));
      return Value::map(std::move(out));
    }
    case Kind::tagged: {
      // A Record's tag (in the rep of a tag decoded here: any other is taped by structure):
      // its rep bound as it is, which decodes what is in it as its fields need, a bad field
      // placed below the Record's tag as the decoder places it (Decoder::bind_record_rep).
      if (const ReadHandlerEntry* e = ReadHandlersAccess::find(h, v.tag()); e && e->record)
        return run_here(kTaggedHandlerName, v.tag(), [&] {
          try {
            return bind_record(*e->record, v.rep(), &h);
          } catch (const Error& failed) {
            if (!failed.path().starts_with('$')) throw;
            throw FailedBelow{failed.code(), failed.detail(), path_below_record(v.tag(), failed.path())};
          }
        });
      std::optional<Value> r;
      try {
        r = decode_handled(v.rep(), h, true);
      } catch (FailedBelow& f) {
        f.below.insert(0, "<#" + std::string(v.tag()) + ">");
        throw;
      }
      const ReadHandler* handler = h.find(v.tag());
      const DefaultReadHandler* fallback = handler ? nullptr : h.default_handler();
      if (handler || fallback) return run_handler(handler, fallback, v.tag(), r ? *r : v.rep());
      if (!r) return std::nullopt;
      return Value::tagged(v.tag(), std::move(*r));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

Value bind_record(const TypedReader& r, const Value& rep, const ReadHandlers* handlers) {
  Tape tape;
  try {
    tape_from_value(rep, tape, handlers);
    Cursor c(tape, handlers);
    HandlerCalls calls;  // a variant's alternatives run each handler once
    c.keep_handler_calls(&calls);
    return record_value(r, c);
  } catch (const BindFailure& f) {
    // With the field's path in the rep (`$[:xs][1]`), which the decoder puts after the
    // Record's (Decoder::bind_record_rep).
    throw_error(f.code, f.detail, Location{}, tape_path(tape, f.token));
  }
}

std::string path_below_record(std::string_view tag, std::string_view path) {
  std::string below = "<#";
  below.append(tag).append(">").append(path.substr(1));
  return below;
}

void tape_from_value(const Value& v, Tape& tape, const ReadHandlers* handlers) {
  // A tagged value that a read with the handlers decodes into a Value (a user tag of a read
  // handler, an unknown tag the default handler takes) is taped decoded, as the decoder tapes
  // it: from_value binds a Value read without the handlers as read<T> binds its bytes.
  if (handlers && v.kind() == Kind::tagged && !taped_by_structure(v.tag(), *handlers)) {
    std::optional<Value> d;
    try {
      d = decode_handled(v, *handlers);
    } catch (const FailedBelow& f) {
      // At the path of the token the decoded value would have been.
      throw_error(f.code, f.detail, Location{}, tape_path(tape, tape.tokens.size()).append(f.below));
    }
    if (d) {
      tape.put_value(tape.tokens.emplace_back(), *d);
      return;
    }
  }
  auto push = [&](Op op, std::string_view text = {}) {
    Token& t = tape.tokens.emplace_back();
    t.op = op;
    if (!text.empty()) {
      t.text = tape.text.size();
      t.size = static_cast<std::uint32_t>(text.size());
      tape.text.append(text);
    }
  };
  switch (v.kind()) {
    case Kind::array:
      push(Op::array_begin);
      for (const Value& item : v.items()) tape_from_value(item, tape, handlers);
      push(Op::array_end);
      break;
    case Kind::list:
    case Kind::set:
      push(Op::tagged_begin, v.kind() == Kind::list ? "list" : "set");
      push(Op::array_begin);
      for (const Value& item : v.items()) tape_from_value(item, tape, handlers);
      push(Op::array_end);
      push(Op::tagged_end);
      break;
    case Kind::map:
      push(Op::map_begin);
      // A map with a composite key is the cmap a writer writes (see Token::kind): its read
      // handler takes it in read_value, not the map builder. Taped as a map all the same, so
      // that it binds as a map does (a Record's fields).
      if (written_as_cmap(v)) tape.tokens.back().kind = Kind::map;
      for (const auto& [key, value] : v.entries()) {
        tape_from_value(key, tape, handlers);
        tape_from_value(value, tape, handlers);
      }
      push(Op::map_end);
      break;
    case Kind::tagged:
      // A quote's tag taped by structure reads as the quote (["~#'", x] is x: decode_tagged);
      // a tagged value of it (the string "~'x", which the reader keeps) stays whole, as the
      // decoder tapes it.
      if (v.tag() == "'") {
        tape.put_value(tape.tokens.emplace_back(), v);
        break;
      }
      // As the decoder records a tag with a typed reader: by structure.
      push(Op::tagged_begin, v.tag());
      tape_from_value(v.rep(), tape, handlers);
      push(Op::tagged_end);
      break;
    default:
      tape.put_value(tape.tokens.emplace_back(), v);
      break;
  }
}

namespace {

// A big integer's digits as a T, when the T holds exactly that integer: parsed (to the
// nearest T) and printed back whole, the same text. A big integer's digits are canonical
// (ValueAccess::big_integer_of: no leading zeros, no "-0"), as the printed text is.
template <class T>
std::optional<T> exact_floating(std::string_view digits, std::string_view& why) {
  T f{};
  const char* const last = digits.data() + digits.size();
  const auto [end, ec] = std::from_chars(digits.data(), last, f, std::chars_format::fixed);
  if (ec == std::errc::result_out_of_range) {
    why = "out of range";
    return std::nullopt;
  }
  why = "not exact as floating point";
  if (ec != std::errc() || end != last) return std::nullopt;
  // The longest integer a T holds: its largest finite value's digits, and a sign.
  std::array<char, std::numeric_limits<T>::max_exponent10 + 3> printed;
  const auto out =
      std::to_chars(printed.data(), printed.data() + printed.size(), f, std::chars_format::fixed, 0);
  if (out.ec != std::errc() || digits != std::string_view(printed.data(), out.ptr))
    return std::nullopt;
  return f;
}

}  // namespace

std::optional<float> big_integer_as(std::string_view digits, float*, std::string_view& why) {
  return exact_floating<float>(digits, why);
}
std::optional<double> big_integer_as(std::string_view digits, double*, std::string_view& why) {
  return exact_floating<double>(digits, why);
}
std::optional<long double> big_integer_as(std::string_view digits, long double*,
                                          std::string_view& why) {
  return exact_floating<long double>(digits, why);
}

}  // namespace transit::detail
