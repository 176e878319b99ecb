// SPDX-License-Identifier: Apache-2.0
// Typed reads of JSON: the parser instantiated with a handler that marks tokens for the tape,
// and the walk of simdjson's document that feeds the tape.
#include "json_reader.h"

namespace transit::detail::json {

#ifdef TRANSIT_HAVE_SIMDJSON
// emit() for a typed read: the same words in the same order give the same events, but through
// the decoder's tape_walk_* entries, which go straight to the tape's path while the tape is
// being written (see Decoder::tape_walk_string). Kept apart from emit() so that the untyped
// walk, the hot loop of every untyped read, is compiled exactly as before.
void emit_tape(Decoder& d, const simdjson::dom::document& doc) {
  constexpr std::uint64_t kPayload = simdjson::internal::JSON_VALUE_MASK;
  const std::uint64_t* const tape = doc.tape.get();
  const std::uint8_t* const strings = doc.string_buf.get();
  const std::size_t end = static_cast<std::size_t>(tape[0] & kPayload) - 1;
  for (std::size_t i = 1; i < end; ++i) {
    const std::uint64_t word = tape[i];
    switch (static_cast<char>(word >> 56)) {
      case '"': {
        const std::uint8_t* const s = strings + (word & kPayload);
        std::uint32_t length;
        std::memcpy(&length, s, sizeof length);
        d.tape_walk_string({reinterpret_cast<const char*>(s + sizeof length), length});
        break;
      }
      case 'l':
        d.tape_walk_integer(static_cast<std::int64_t>(tape[++i]));
        break;
      case 'u':
        d.uinteger(tape[++i]);
        break;
      case 'd': {
        double x;
        std::memcpy(&x, &tape[++i], sizeof x);
        d.floating(x);
        break;
      }
      case 'n':
        d.null();
        break;
      case 't':
        d.boolean(true);
        break;
      case 'f':
        d.boolean(false);
        break;
      case '[':
        d.tape_walk_array_begin();
        break;
      case ']':
        d.tape_walk_array_end();
        break;
      case '{':
        d.tape_walk_map_begin();
        break;
      case '}':
        d.tape_walk_map_end();
        break;
      default:
        throw_error(Errc::syntax, "unknown simdjson tape word");
    }
  }
}
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
