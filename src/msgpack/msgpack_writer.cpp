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
#include "out_buffer.h"

namespace transit::detail {
namespace {

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
  MsgpackEmitter(OutBuffer& out, bool float32) : out_(out), packer_(out), float32_(float32) {}

  void next_root() noexcept {}  // MessagePack values need no separator or reset

  void null() { packer_.pack_nil(); }
  void boolean(bool b) { b ? packer_.pack_true() : packer_.pack_false(); }
  void integer(std::int64_t i) { packer_.pack_int64(i); }
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

  OutBuffer& out_;
  msgpack::packer<OutBuffer> packer_;
  bool float32_;
};

}  // namespace

std::unique_ptr<Writer::Impl> make_msgpack_writer(Sink& sink, const WriteOptions& options) {
  return std::make_unique<BackendWriter<OutBuffer, MsgpackEmitter>>(sink, Mode::msgpack, options,
                                                               options.float32);
}

}  // namespace transit::detail
