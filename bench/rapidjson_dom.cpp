// SPDX-License-Identifier: Apache-2.0
#include "rapidjson_dom.h"

#include <stdexcept>

namespace transit::bench {

void rapidjson_parse(rapidjson::Document& doc, std::string_view text) {
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
}

std::size_t rapidjson_dom(std::string_view text) {
  rapidjson::Document doc;
  rapidjson_parse(doc, text);
  if (doc.HasParseError()) throw std::runtime_error("RapidJSON cannot parse the text");
  return doc.IsObject() ? doc.MemberCount() : doc.IsArray() ? doc.Size() : 1;
}

}  // namespace transit::bench
