// SPDX-License-Identifier: Apache-2.0
// transit-cpp internals: hooks for the library's own tests (tests/ has src/ on its include
// path). Not part of the API, and nothing in the library depends on a test using them.
#pragma once

#include <cstddef>

namespace transit::detail::testing {

/// The batch, in tokens, that a typed read of JSON in memory uses when its
/// ReadOptions::typed_batch_tokens is ReadOptions::kLibraryDefault: 256 unless set. The
/// transit_typed_batch_tests binary sets 3 in its main, before any test runs (tests/
/// typed_batch_main.cpp), so that every typed read in it crosses batch boundaries. Set it
/// only while no reader is being made.
void set_default_typed_batch_tokens(std::size_t tokens) noexcept;
std::size_t default_typed_batch_tokens() noexcept;

/// How many times, on this thread, a bounded typed read stopped and its value was read again
/// whole (Reader::retape): a bind that failed, a user's Bind that threw, a seek to a token the
/// bounded tape had dropped (a missing Cursor::Pin).
std::size_t whole_rereads() noexcept;
/// How many batches, on this thread, bounded typed reads have taped after their first
/// (Cursor::refill).
std::size_t refills() noexcept;

/// How many bytes from a MessagePack value's start its reader looks at for a pair's start
/// (`["~#m", ms]`, `["~#u", [hi, lo]]`) to choose the parse loop that reads pairs whole:
/// 512 unless set; 0 reads every value with the plain loop, unless its reader met a pair in a
/// value before (Decoder::met_pair). Set it only while no reader is being made.
void set_msgpack_pairs_look(std::size_t bytes) noexcept;
/// How many MessagePack values, on this thread, were read with the loop that reads pairs
/// whole.
std::size_t msgpack_pairs_reads() noexcept;
/// Whether a MessagePack Reader done with, on this thread, may be kept for the next one made
/// (MsgpackReader::retire): on unless set. Off, every reader is made new, as the tests that
/// compare the two need; turning it off drops the one kept.
void set_msgpack_reader_reuse(bool on) noexcept;
/// Whether this thread holds a MessagePack reader kept for the next Reader.
bool msgpack_reader_kept() noexcept;
/// As set_msgpack_reader_reuse and msgpack_reader_kept, for readers of JSON text in memory.
void set_json_reader_reuse(bool on) noexcept;
bool json_reader_kept() noexcept;

/// How many JSON values, on this thread, a reader from a Source read in place from the chunk
/// it held (SourceInput::buffered_value), not through RapidJSON a byte at a time.
std::size_t json_buffered_reads() noexcept;
/// How many JSON values, on this thread, a reader of a text in memory holding more than one
/// value read with simdjson one at a time (JsonReader::read_with_simdjson), not through
/// RapidJSON.
std::size_t json_values_alone() noexcept;
/// How many texts in memory, on this thread, simdjson was given whole and refused (a text of
/// many values shown so, or a text of one that simdjson refuses).
std::size_t json_whole_refusals() noexcept;
/// How many of those a stream read (ValueStream: simdjson's parse_many over batches of values).
std::size_t json_values_streamed() noexcept;
/// The bytes of a ValueStream's batch, for the streams started on this thread after the call:
/// 16 KiB unless set; 0 reads each value of a text of many alone (ValueScan), as before the
/// stream. The tests set small batches, so that values cross batches' ends.
void set_json_stream_batch(std::size_t bytes) noexcept;
std::size_t json_stream_batch() noexcept;
/// Whether JSON readers from a Source on this thread read values in place (true unless set):
/// the tests compare reads with and without it.
void set_json_in_place(bool on) noexcept;
bool json_in_place() noexcept;

/// Whether JSON readers of text in memory that Reader makes on this thread read with
/// simdjson where the build has it (true unless set); false reads with RapidJSON alone, as
/// make_json_reader(..., false) does, so that tests can make typed reads that way too.
void set_json_simdjson(bool on) noexcept;
bool json_simdjson() noexcept;

/// Whether the library was built with simdjson (TRANSIT_HAVE_SIMDJSON): without it no JSON is
/// read in place from a Source's chunk and no typed read is bounded, so the tests that count
/// those skip rather than fail in such a build.
bool built_with_simdjson() noexcept;

/// Counted by the library (reader.cpp, typed.cpp, json_reader.h).
void count_whole_reread() noexcept;
void count_refill() noexcept;
void count_json_buffered_read() noexcept;
void count_json_value_alone(bool streamed) noexcept;
void count_json_whole_refusal() noexcept;

}  // namespace transit::detail::testing
