// SPDX-License-Identifier: Apache-2.0
// The user code a Decoder runs (read handlers, the default handler, map and array builders):
// each call recorded with what it returned or threw, so that a walk of the same top-level
// value again takes the results instead of running the code again (see
// Decoder::walk_value_at).
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "read/decoder.h"
#include "read/read_handlers_access.h"
#include "transit/error.h"

#ifdef __GLIBCXX__
#include <cxxabi.h>
#endif

namespace transit::detail {

namespace {

// The record keeps up to this many calls of room from one value to the next, as the value
// stack keeps its items (decoder.cpp).
constexpr std::size_t kKeptCalls = std::size_t{1} << 16;

// Runs a user's read handler or builder; what it throws becomes a transit::Error that the
// reader places in the input.
Value call_user(std::string_view what, Value (*call)(void*), void* fn) {
  try {
    return call(fn);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw_error(Errc::bad_rep, std::string(what) + " failed: " + e.what());
  }
}

}  // namespace

struct Decoder::UserCalls {
  std::size_t start = SIZE_MAX;  // the offset of the value recorded; SIZE_MAX: none
  std::size_t next = 0;          // the next call's index in `results`
  // Per call, in order: the handler or builder called (a check that the walks meet the same
  // calls) and what it returned.
  std::vector<std::pair<const void*, Value>> results;
  // What the call after the last result threw (the walk stopped there), and its callee.
  std::exception_ptr thrown;
  const void* thrown_by = nullptr;
  // The error of the first call that failed in this walk (see keep_refusal), placed as
  // `place` says; null while none failed. Every call after it is muted.
  std::exception_ptr refused;
  TokenPlace place;
  bool pass = false;  // see pass_refusals
};

void Decoder::free_user_calls() noexcept { delete user_calls_; }

void Decoder::drop_user_calls() noexcept {
  free_user_calls();
  user_calls_ = nullptr;
  pair_gate_ = 0;  // no handlers now: every pair may be read whole (see pair_gate_)
}

void Decoder::clear_user_calls() noexcept {
  UserCalls& c = *user_calls_;
  refused_ = false;
  // Cleared already: only a walk (walk_user_calls_at) sets `start`, before it records
  // anything. A value's read clears the record up to three times (its walk begins, it is
  // done, its reader is kept): the first does the work, the others return here.
  if (c.start == SIZE_MAX) return;
  c.start = SIZE_MAX;
  c.next = 0;
  c.thrown = nullptr;
  c.thrown_by = nullptr;
  c.refused = nullptr;
  // What a large value needed is given back, not held for the rest of the stream.
  if (c.results.capacity() > kKeptCalls)
    std::vector<std::pair<const void*, Value>>().swap(c.results);
  else
    c.results.clear();
}

void Decoder::walk_user_calls_at(std::size_t start, bool record) noexcept {
  walk_records_ = record;
  // Pairs held back until the handlers are asked again (pair_unhandled), once for each tag.
  pair_gate_ = kPairHeldM | kPairHeldU;
  // Made once per reader: it keeps a refusal and its place, walks that record nothing too.
  if (!user_calls_) user_calls_ = new UserCalls;
  if (user_calls_->start != start) {
    clear_user_calls();
    user_calls_->start = start;
  }
  user_calls_->next = 0;
  // A walk again meets the refusal again (the record replays it), and places it then.
  user_calls_->refused = nullptr;
  refused_ = false;
  user_calls_->place = {};
  user_calls_->pass = false;
}

void Decoder::set_pass_refusals() noexcept { user_calls_->pass = true; }

void Decoder::set_user_call_place(TokenPlace place) noexcept { user_calls_->place = place; }

void Decoder::throw_refusal() const { std::rethrow_exception(user_calls_->refused); }

void Decoder::keep_refusal(const Error* e) {
  UserCalls& c = *user_calls_;
  // Unplaced where the walk cannot place it (simdjson's document); as the reader placed it
  // when the call's error ended the read: at the token the reader is at, with the path of
  // the decoder there (and below a Record's tag, the field's: placed_path). An error that
  // says where already (a read in the user's code) stays as it is, as it did, and so does
  // what is no transit::Error (call_user makes every std::exception one): the user's own
  // exception, which the call throws as it was thrown.
  c.refused = !e || !c.place.where || e->offset() != Location::npos
                  ? std::current_exception()
                  : std::make_exception_ptr(Error(e->code(), c.place.where(c.place.reader),
                                                  placed_path(*this), e->detail()));
  refused_ = true;
}

Value Decoder::run_user_call(std::string_view what, const void* who, Value (*call)(void*),
                             void* fn) {
  // Muted: a call before it in this value failed (see walk_value_at). Null stands for what it
  // would have made; the value is not delivered.
  if (refused_) return Value();
  try {
    return recorded_user_call(what, who, call, fn);
  } catch (const Error& e) {
    return refuse(&e);
#ifdef __GLIBCXX__
  } catch (abi::__forced_unwind&) {
    // The thread is being cancelled (pthread_cancel) in the user's code: no refusal of the
    // value. glibc aborts the process if the unwinding is not rethrown, and it has no
    // exception_ptr (std::current_exception() is null) that a kept refusal could throw.
    throw;
#endif
  } catch (...) {
    return refuse(nullptr);
  }
}

Value Decoder::refuse(const Error* e) {
  // No walk announced (a Decoder driven by hand): the error ends the walk. A typed read's
  // tape keeps the refusal as next() does: its reader throws it when the walk ends.
  if (!user_calls_) throw;
  if (user_calls_->pass) {
    refused_ = true;
    throw;
  }
  keep_refusal(e);
  return Value();
}

Value Decoder::recorded_user_call(std::string_view what, const void* who, Value (*call)(void*),
                                  void* fn) {
  // No walk announced (a Decoder driven by hand): nothing to replay.
  if (!user_calls_) return call_user(what, call, fn);
  UserCalls* const c = user_calls_;
  if (c->next < c->results.size()) {
    if (c->results[c->next].first == who) return c->results[c->next++].second;
    // Not the call an earlier walk made here (which the walks' sameness rules out): the
    // record from here on is not this walk's.
    c->results.erase(c->results.begin() + static_cast<std::ptrdiff_t>(c->next), c->results.end());
    c->thrown = nullptr;
  } else if (c->thrown) {
    if (c->thrown_by == who) std::rethrow_exception(c->thrown);
    c->thrown = nullptr;
  }
  // Past the record, in the last walk of the value: nothing to keep.
  if (!walk_records_) return call_user(what, call, fn);
  Value v;
  try {
    v = call_user(what, call, fn);
#ifdef __GLIBCXX__
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread: nothing to replay (and no exception_ptr to keep)
#endif
  } catch (...) {
    c->thrown = std::current_exception();
    c->thrown_by = who;
    throw;
  }
  c->results.emplace_back(who, v);
  ++c->next;
  return v;
}

// Builders make user containers; the rep of a tagged value stays a plain array or map, since
// its tag's handler expects one. A quote's is no such rep: `["~#'", x]` is x, and no handler
// may take the quote's tag (Cursor::read_value, whose tape holds no quote, builds it too).
// Nor does a Record's rep build anything in it (in_record_rep).
// Here, beside the builders' calls, rather than in decoder.cpp: its body there changed what
// GCC made of Decoder::string() (typed twitter from MessagePack 0.1% more instructions), and
// kept_plain's too.
bool Decoder::kept_plain() const noexcept {
  if (frames_.size() >= 2) {
    const Frame& parent = frames_[frames_.size() - 2];
    if ((parent.kind == FrameKind::tagged_array || parent.kind == FrameKind::tagged_object) &&
        parent.tag.as_string() != "'")
      return true;
  }
  return in_record_rep();
}

Value Decoder::bind_record_rep(const ReadHandlerEntry& h, const Value& rep) {
  auto bind = [&]() -> Value {
    try {
      return bind_record(*h.record, rep, handlers_);
    } catch (const Error& e) {
      // bind_record says the field's path in the rep (`$[:xs][1]`); it goes below the
      // Record's tag (`<#tag>[:xs][1]`), which the reader puts after its own path
      // (placed_path). Here, in the call, so that the record keeps (and a refusal places)
      // the error as the reader sees it. The tag is read from the entry's name
      // (kTaggedHandlerName, then the tag): decode_tag passing it made GCC compile
      // decoder.cpp's hot paths otherwise (twitter's Value read 3,576 instructions more,
      // with no Record in it).
      if (!e.path().starts_with('$')) throw;
      throw Error(e.code(), Location{},
                  path_below_record(std::string_view(h.tagged_name).substr(kTaggedHandlerName.size()), e.path()),
                  e.detail());
    }
  };
  return run_user_call(h.tagged_name, &h.handler,
                       [](void* fn) -> Value { return (*static_cast<decltype(bind)*>(fn))(); }, &bind);
}

std::string placed_path(const Decoder& d) {
  std::string p = d.path();
  if (const std::exception_ptr handled = std::current_exception()) {
    try {
      std::rethrow_exception(handled);
    } catch (const Error& e) {
      if (e.path().starts_with("<#")) p.append(e.path());
    } catch (...) {
    }
  }
  return p;
}

bool Decoder::in_record_rep() const noexcept {
  for (const Frame& f : frames_)
    if (f.kind == FrameKind::tagged_array || f.kind == FrameKind::tagged_object)
      if (const ReadHandlerEntry* e = ReadHandlersAccess::find(*handlers_, f.tag.as_string()); e && e->record)
        return true;
  return false;
}

}  // namespace transit::detail
