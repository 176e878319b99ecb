// SPDX-License-Identifier: Apache-2.0
#include "rapidjson_dom.h"

#include <stdexcept>

namespace transit::bench {

// As `transit bench` parses each value (src/cli/floors.cpp): see rapidjson_dom.h.
bool rapidjson_parse(rapidjson::Document& doc, std::string_view text) {
  constexpr unsigned kFlags = rapidjson::kParseFullPrecisionFlag | rapidjson::kParseStopWhenDoneFlag;
  rapidjson::MemoryStream memory(text.data(), text.size());
  doc.ParseStream<kFlags, rapidjson::UTF8<>>(memory);
  return !doc.HasParseError() && text.find_first_not_of(" \t\r\n", memory.Tell()) == std::string_view::npos;
}

std::size_t rapidjson_dom(std::string_view text) {
  rapidjson::Document doc;
  if (!rapidjson_parse(doc, text)) throw std::runtime_error("RapidJSON cannot parse the text as one value");
  return doc.IsObject() ? doc.MemberCount() : doc.IsArray() ? doc.Size() : 1;
}

}  // namespace transit::bench
