// SPDX-License-Identifier: Apache-2.0
// Typed reads of JSON: the parser instantiated with a handler that marks tokens for the tape,
// and the walk of simdjson's document that feeds the tape.
#include <rapidjson/memorystream.h>

#include "json_reader.h"

namespace transit::detail::json {

#ifdef TRANSIT_HAVE_SIMDJSON
// The typed instantiation of the walk of simdjson's document, compiled here, apart from the
// untyped one (see emit).
std::size_t emit_tape(Decoder& d, const simdjson::dom::document& doc, std::size_t first,
                      std::size_t stop) {
  // simdjson gives no marks (every event's is npos): with the tape's marks off for the walk,
  // each quick path's "a mark to keep?" is one test, not two. Restored however the walk ends,
  // for RapidJSON's read should it take over (see read_with_simdjson).
  struct MarksOff {
    Decoder& d;
    bool was;
    ~MarksOff() { d.set_tape_marks(was); }
  } marks_off{d, d.tape_marks()};
  d.set_tape_marks(false);
  return emit<true>(d, doc, first, stop);
}

bool SimdjsonParser::refused_by_rapidjson(std::string_view text) {
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::BaseReaderHandler<> ignore;
  rapidjson::Reader reader;
  return reader.Parse<kParseFlags>(stream, ignore).Code() == rapidjson::kParseErrorNumberTooBig;
}
#endif

template <class Input>
bool JsonReader<Input>::next_tape(Tape& tape) {
  end_walk();
  decoder_.set_tape(&tape);
  bool got;
  try {
    got = parse_next<true>();
  } catch (...) {
    decoder_.set_tape(nullptr);
    throw;
  }
  // A bounded walk (see TapeFeeder) takes the value and unsets the tape when it ends.
  if (!walking_) {
    if (got) (void)decoder_.take();
    decoder_.set_tape(nullptr);
  }
  return got;
}

template bool JsonReader<MemoryInput>::next_tape(Tape&);
template bool JsonReader<SourceInput>::next_tape(Tape&);

}  // namespace transit::detail::json
