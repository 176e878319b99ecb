// SPDX-License-Identifier: Apache-2.0
// The Transit read rules, independent of the backend. A backend parser turns bytes into
// events (null, boolean, integer, ..., string, array_begin/end, map_begin/end); the decoder
// resolves cache codes, "^ " map arrays, `~X` strings and tagged values, and builds Values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cache.h"
#include "transit/reader.h"
#include "transit/value.h"

namespace transit::detail {

class Decoder {
 public:
  explicit Decoder(const ReadOptions& options)
      : max_depth_(options.max_depth),
        max_items_(options.max_collection_length),
        handlers_(options.handlers) {}

  /// Starts a new top-level value: empties the cache and any partial state.
  void reset() noexcept;

  void null() { deliver(Value()); }
  void boolean(bool b) { deliver(Value(b)); }
  void integer(std::int64_t i) { deliver(Value(i)); }
  void floating(double d) { deliver(Value(d)); }
  /// An integer too large for int64, as decimal digits.
  void big_integer(std::string_view digits);
  /// A native unsigned integer (MessagePack): above INT64_MAX it is a big integer.
  void uinteger(std::uint64_t u);
  /// Raw bytes (a MessagePack bin, which Transit writers do not emit but peers may).
  void bytes(std::string_view data) { deliver(Value::bytes(data)); }
  /// Any string on the wire: values, JSON object keys, map-array keys alike.
  void string(std::string_view raw);
  void array_begin();
  void array_end();
  void map_begin();
  /// A JSON object: only JSON-Verbose has them, and JSON-Verbose has no cache codes, so the
  /// rest of this top-level value caches nothing.
  void object_begin() {
    verbose_ = true;
    map_begin();
  }
  void map_end();

  /// True when no read handler or builder is set, so building a value calls no user code.
  bool runs_no_user_code() const noexcept { return handlers_ == nullptr; }

  /// True once a complete top-level value has been read.
  bool done() const noexcept { return done_; }
  /// The top-level value; call once after done().
  Value take() {
    done_ = false;
    return std::move(result_);
  }
  /// Where in the value the reader is, e.g. `$[3]["name"]`, for error messages.
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
  struct Frame {
    FrameKind kind;
    bool has_rep = false;
    std::uint32_t start;  // index of this frame's first item in stack_
    Value tag;
  };

  void deliver(Value v);
  void begin(FrameKind kind);
  void start_tagged(std::string_view tag);
  void end_tagged(Frame& frame);
  bool at_key_position() const noexcept;

  Value decode_tag(std::string_view tag, Value rep);
  Value decode_string(std::string_view raw);
  bool parent_is_tagged() const noexcept;
  Value build_map(std::span<Value> flat);

  bool verbose_ = false;  // inside a JSON-Verbose value: no caching
  std::size_t max_depth_;
  std::size_t max_items_;  // items of an array, entries of a map
  const ReadHandlers* handlers_;
  std::vector<Frame> frames_;
  std::vector<Value> stack_;  // items of every open container, innermost last
  ReadCache cache_;
  Value result_;
  bool done_ = false;
};

}  // namespace transit::detail
