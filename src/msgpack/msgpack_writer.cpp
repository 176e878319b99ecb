// SPDX-License-Identifier: Apache-2.0
// MessagePack output on msgpack-cxx's packer.
#include <msgpack/pack.hpp>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend.h"
#include "encoder.h"

namespace transit::detail {
namespace {

/// The packer's stream: a flat buffer that spills to the sink when full. `write` is inline and
/// not virtual, so packing a value costs a bounds check and a memcpy; the sink sees large
/// chunks.
class MsgpackOut {
 public:
  MsgpackOut(Sink& sink, std::size_t capacity)
      : sink_(sink), buf_(std::max<std::size_t>(capacity, 256)), cur_(buf_.data()) {}

  void write(const char* data, std::size_t size) {
    if (static_cast<std::size_t>(buf_.data() + buf_.size() - cur_) < size) make_room(size);
    std::memcpy(cur_, data, size);
    cur_ += size;
  }

  void spill() {
    const std::size_t used = buffered();
    if (used != 0) sink_.write(buf_.data(), used);
    cur_ = buf_.data();
  }
  void flush_sink() {
    spill();
    sink_.flush();
  }
  std::size_t buffered() const noexcept { return static_cast<std::size_t>(cur_ - buf_.data()); }
  std::size_t capacity() const noexcept { return buf_.size(); }

 private:
  void make_room(std::size_t n) {
    spill();
    if (buf_.size() < n) {
      buf_.resize(n);
      cur_ = buf_.data();
    }
  }

  Sink& sink_;
  std::vector<char> buf_;
  char* cur_;
};

/// Whether `d` survives the trip through float unchanged. NaN counts (Transit has one NaN);
/// out-of-range values are checked before the cast, which would be undefined for them.
bool fits_float32(double d) noexcept {
  if (std::isnan(d) || std::isinf(d)) return true;
  if (std::fabs(d) > FLT_MAX) return false;
  return static_cast<double>(static_cast<float>(d)) == d;
}

/// The encoder's backend for MessagePack: each call packs one item in its smallest encoding.
class MsgpackEmitter {
 public:
  MsgpackEmitter(MsgpackOut& out, bool float32) : out_(out), packer_(out), float32_(float32) {}

  void null() { packer_.pack_nil(); }
  void boolean(bool b) { b ? packer_.pack_true() : packer_.pack_false(); }
  void integer(std::int64_t i) { packer_.pack_int64(i); }
  void uinteger(std::uint64_t u) { packer_.pack_uint64(u); }
  // Not packer::pack_double/pack_float: since msgpack-cxx 4.1.2 (msgpack-c PR #1018) they pack
  // a whole-number double as an integer, and Transit tells 2.0 from 2.
  void floating(double d) {
    if (float32_ && fits_float32(d))
      put_be(0xca, std::bit_cast<std::uint32_t>(static_cast<float>(d)));
    else
      put_be(0xcb, std::bit_cast<std::uint64_t>(d));
  }
  void string(std::string_view s) {
    const std::uint32_t n = length(s.size());
    packer_.pack_str(n);
    packer_.pack_str_body(s.data(), n);
  }
  void array_begin(std::size_t n) { packer_.pack_array(length(n)); }
  void array_end() {}
  void map_begin(std::size_t n) { packer_.pack_map(length(n)); }
  void map_end() {}

 private:
  template <class U>
  void put_be(unsigned char type, U bits) {
    char buf[1 + sizeof(U)];
    buf[0] = static_cast<char>(type);
    for (std::size_t i = 0; i < sizeof(U); ++i)
      buf[1 + i] = static_cast<char>(bits >> (8 * (sizeof(U) - 1 - i)));
    out_.write(buf, sizeof buf);
  }

  static std::uint32_t length(std::size_t n) {
    if (n > UINT32_MAX)
      throw_error(Errc::invalid_argument,
                  "MessagePack cannot hold " + std::to_string(n) + " items or bytes in one value");
    return static_cast<std::uint32_t>(n);
  }

  MsgpackOut& out_;
  msgpack::packer<MsgpackOut> packer_;
  bool float32_;
};

class MsgpackWriter final : public Writer::Impl {
 public:
  MsgpackWriter(Sink& sink, const WriteOptions& options)
      : out_(sink, options.buffer_size),
        emitter_(out_, options.float32),
        encoder_(emitter_, Mode::msgpack) {}

  void write(const Value& v) override {
    encoder_.write_top(v);
    if (out_.buffered() >= out_.capacity() / 2) out_.spill();
  }
  void flush() override { out_.flush_sink(); }

 private:
  MsgpackOut out_;
  MsgpackEmitter emitter_;
  Encoder<MsgpackEmitter> encoder_;
};

}  // namespace

std::unique_ptr<Writer::Impl> make_msgpack_writer(Sink& sink, const WriteOptions& options) {
  return std::make_unique<MsgpackWriter>(sink, options);
}

}  // namespace transit::detail
