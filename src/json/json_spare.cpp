// SPDX-License-Identifier: Apache-2.0
// The JSON reader of a text in memory kept, per thread, for the next (see keep_json_reader).
#include "json_reader.h"

namespace transit::detail {
namespace {
// As MessagePack's (see MsgpackReader::retire): a Reader made for one small message
// (transit::read) made its JsonReader, the decoder's frames and cache slots, three
// allocations and frees and their constructors, per message. One per thread is kept, emptied
// (the decoder reset, no value and no copy of the text held), taken by the next reader of a
// text in memory with the same limits (with any handlers: it holds none of the user's while
// kept, see Decoder::let_go). A reader in use is never the one kept: a read handler's own read,
// or a second Reader alive, takes it or makes another; threads share nothing.
thread_local std::unique_ptr<Reader::Impl> spare_reader;
thread_local bool reuse_readers = true;  // testing::set_json_reader_reuse
}  // namespace

void json::keep_json_reader(std::unique_ptr<Reader::Impl>& self) noexcept {
  if (spare_reader || !reuse_readers) return;
  static_cast<JsonReader<MemoryInput>&>(*self).empty();
  // A destructor empty() ran (of a user object a handler made) may have read, and left its
  // reader here: that one stays.
  if (!spare_reader) spare_reader = std::move(self);
}

std::unique_ptr<Reader::Impl> take_json_reader(std::string_view input,
                                               const ReadOptions& options,
                                               bool use_simdjson) noexcept {
  if (!spare_reader) return nullptr;
  auto& spare = static_cast<json::JsonReader<json::MemoryInput>&>(*spare_reader);
  if (!spare.made_as(options, use_simdjson)) return nullptr;
  spare.reopen(input, options.handlers);
  return std::move(spare_reader);
}

void testing::set_json_reader_reuse(bool on) noexcept {
  reuse_readers = on;
  if (!on) spare_reader.reset();
}
bool testing::json_reader_kept() noexcept { return spare_reader != nullptr; }

}  // namespace transit::detail
