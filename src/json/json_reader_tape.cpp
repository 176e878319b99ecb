// SPDX-License-Identifier: Apache-2.0
// Typed reads of JSON: the parser instantiated with a handler that marks tokens for the tape,
// and the walk of simdjson's document that feeds the tape.
#include "json_reader.h"

namespace transit::detail::json {

#ifdef TRANSIT_HAVE_SIMDJSON
// The typed instantiation of the walk of simdjson's document, compiled here, apart from the
// untyped one (see emit).
void emit_tape(Decoder& d, const simdjson::dom::document& doc) { emit<true>(d, doc); }
#endif

template <class Input>
bool JsonReader<Input>::next_tape(Tape& tape) {
  decoder_.set_tape(&tape);
  struct Unset {
    Decoder& d;
    ~Unset() { d.set_tape(nullptr); }
  } unset{decoder_};
  if (!parse_next<true>()) return false;
  (void)decoder_.take();
  return true;
}

template bool JsonReader<MemoryInput>::next_tape(Tape&);
template bool JsonReader<SourceInput>::next_tape(Tape&);

}  // namespace transit::detail::json
