// SPDX-License-Identifier: Apache-2.0
#include "floors.h"

#include <msgpack.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace transit::cli {
namespace {

constexpr unsigned kJsonFlags = rapidjson::kParseFullPrecisionFlag | rapidjson::kParseStopWhenDoneFlag;

bool only_space_left(std::string_view bytes, std::size_t at) {
  return bytes.find_first_not_of(" \t\r\n", at) == std::string_view::npos;
}

// Calls `each` with every JSON value of `bytes` parsed into a fresh Document.
template <class Each>
std::size_t parse_json(std::string_view bytes, Each each) {
  rapidjson::MemoryStream memory(bytes.data(), bytes.size());
  std::size_t values = 0;
  for (std::size_t at = 0; !only_space_left(bytes, at); at = memory.Tell()) {
    rapidjson::Document doc;
    doc.ParseStream<kJsonFlags, rapidjson::UTF8<>>(memory);
    if (doc.HasParseError())
      throw std::runtime_error("RapidJSON cannot parse the JSON Transit wrote, at byte " +
                               std::to_string(doc.GetErrorOffset()));
    each(std::move(doc));
    ++values;
  }
  return values;
}

}  // namespace

struct Floor::Parsed {
  std::vector<rapidjson::Document> documents;
  std::vector<msgpack::object_handle> objects;
};

Floor::Floor(std::string_view bytes, Encoding encoding)
    : bytes_(bytes), encoding_(encoding), parsed_(std::make_unique<Parsed>()) {
  if (encoding_ == Encoding::msgpack) {
    for (std::size_t offset = 0; offset < bytes_.size();)
      parsed_->objects.push_back(msgpack::unpack(bytes_.data(), bytes_.size(), offset));
  } else {
    parse_json(bytes_, [&](rapidjson::Document doc) { parsed_->documents.push_back(std::move(doc)); });
  }
}

Floor::~Floor() = default;  // here, where Parsed is complete

std::string_view Floor::library() const noexcept {
  return encoding_ == Encoding::msgpack ? "msgpack-cxx" : "RapidJSON";
}

std::size_t Floor::read() const {
  if (encoding_ != Encoding::msgpack) return parse_json(bytes_, [](rapidjson::Document&&) {});
  std::size_t values = 0;
  for (std::size_t offset = 0; offset < bytes_.size(); ++values)
    (void)msgpack::unpack(bytes_.data(), bytes_.size(), offset);
  return values;
}

std::size_t Floor::write() const {
  if (encoding_ == Encoding::msgpack) {
    msgpack::sbuffer out;
    for (const msgpack::object_handle& h : parsed_->objects) msgpack::pack(out, h.get());
    return out.size();
  }
  rapidjson::StringBuffer out;
  for (const rapidjson::Document& doc : parsed_->documents) {
    rapidjson::Writer<rapidjson::StringBuffer> writer(out);
    doc.Accept(writer);
  }
  return out.GetSize();
}

}  // namespace transit::cli
