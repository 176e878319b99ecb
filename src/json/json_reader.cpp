// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose input on RapidJSON's SAX Reader: events go straight to the decoder,
// with no DOM in between (see json_reader.h).
#include "json_reader.h"

namespace transit::detail {

std::unique_ptr<Reader::Impl> make_json_reader(std::string_view input, const ReadOptions& options,
                                               bool use_simdjson) {
  return std::make_unique<json::JsonReader<json::MemoryInput>>(options, use_simdjson, input);
}

std::unique_ptr<Reader::Impl> make_json_reader(Source& source, const ReadOptions& options) {
  return std::make_unique<json::JsonReader<json::SourceInput>>(options, false, source, options.chunk_size);
}

bool testing::built_with_simdjson() noexcept {
#ifdef TRANSIT_HAVE_SIMDJSON
  return true;
#else
  return false;
#endif
}

}  // namespace transit::detail
