// SPDX-License-Identifier: Apache-2.0
#include "transit/reader.h"

#include "backend.h"

namespace transit {

Reader::Reader(std::string_view input, Encoding encoding, ReadOptions options) {
  switch (encoding) {
    case Encoding::json:
    case Encoding::json_verbose:
      impl_ = detail::make_json_reader(input, options);
      break;
    case Encoding::msgpack:
      detail::throw_error(Errc::invalid_argument, "this build cannot read MessagePack yet");
  }
}

Reader::Reader(Source& source, Encoding encoding, ReadOptions options) {
  switch (encoding) {
    case Encoding::json:
    case Encoding::json_verbose:
      impl_ = detail::make_json_reader(source, options);
      break;
    case Encoding::msgpack:
      detail::throw_error(Errc::invalid_argument, "this build cannot read MessagePack yet");
  }
}

Reader::~Reader() = default;

std::optional<Value> Reader::next() { return impl_->next(); }
std::size_t Reader::offset() const noexcept { return impl_->offset(); }

Value read(std::string_view input, Encoding encoding, ReadOptions options) {
  Reader reader(input, encoding, options);
  std::optional<Value> v = reader.next();
  if (!v) detail::throw_error(Errc::truncated, "no value in the input", reader.offset());
  // Checked on the bytes, so what follows is reported as trailing whatever it is.
  const std::size_t rest = encoding == Encoding::msgpack
                               ? (reader.offset() < input.size() ? reader.offset() : input.npos)
                               : input.find_first_not_of(" \t\r\n", reader.offset());
  if (rest != input.npos)
    detail::throw_error(Errc::trailing_data, "more input after the value", rest);
  return std::move(*v);
}

std::vector<Value> read_all(std::string_view input, Encoding encoding, ReadOptions options) {
  Reader reader(input, encoding, options);
  std::vector<Value> values;
  while (auto v = reader.next()) values.push_back(std::move(*v));
  return values;
}

}  // namespace transit
