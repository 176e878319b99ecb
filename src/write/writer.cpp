// SPDX-License-Identifier: Apache-2.0
#include "transit/writer.h"

#include <string>

#include "backend.h"

namespace transit {

namespace {
[[noreturn, gnu::cold]] void throw_partial_output(std::size_t bytes) {
  detail::throw_error(Errc::io, "the output ends with the first " + std::to_string(bytes) +
                                    " bytes of a value that failed (a value larger than "
                                    "WriteOptions::buffer_size reaches the sink before it ends); "
                                    "no reader could find a value written after them");
}
}  // namespace

Writer::Writer(Sink& sink, Encoding encoding, WriteOptions options) {
  switch (encoding) {
    case Encoding::json:
    case Encoding::json_verbose:
      impl_ = detail::make_json_writer(sink, encoding == Encoding::json_verbose, options);
      break;
    case Encoding::msgpack:
      impl_ = detail::make_msgpack_writer(sink, options);
      break;
  }
  impl_->encoding = encoding;
}

Writer::~Writer() {
  // A safety net only: flush() is where failures are reported. Nothing may escape a
  // destructor, whatever the sink throws (std::bad_alloc from a growing string, a user sink's
  // own exception type): std::terminate would end the program.
  try {
    impl_->flush();
  } catch (...) {
  }
}

void Writer::write(const Value& v) {
  if (impl_->partial != 0) [[unlikely]]
    throw_partial_output(impl_->partial);
  try {
    impl_->write(v);
  } catch (...) {
    abandon_value();
    throw;
  }
}

detail::ObjectEncoder& Writer::begin_value() {
  if (impl_->partial != 0) [[unlikely]]
    throw_partial_output(impl_->partial);
  return impl_->begin_value();
}
void Writer::end_value() { impl_->end_value(); }
void Writer::abandon_value() noexcept {
  if (const std::size_t in_sink = impl_->abandon_value(); in_sink != 0) impl_->partial = in_sink;
}
void Writer::flush() { impl_->flush(); }
Encoding Writer::encoding() const noexcept { return impl_->encoding; }

}  // namespace transit
