// SPDX-License-Identifier: Apache-2.0
#include "transit/read_handlers.h"

#include <array>
#include <unordered_map>

#include "read/read_handlers_access.h"
#include "transit/error.h"

namespace transit {

struct ReadHandlers::Impl {
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  // Each handler with the names its errors use, made when it is added (read_handlers_access.h).
  std::unordered_map<std::string, detail::ReadHandlerEntry, Hash, std::equal_to<>> by_tag;
  std::array<bool, 256> chars{};
  DefaultReadHandler fallback;
  MapBuilder map_builder;
  ArrayBuilder array_builder;
  std::unordered_map<std::string, std::shared_ptr<const detail::TypedReader>, Hash, std::equal_to<>>
      typed_by_tag;
  std::unordered_map<std::type_index, std::pair<std::string, std::shared_ptr<const detail::TypedReader>>>
      typed_by_type;
};

ReadHandlers::ReadHandlers() : impl_(std::make_unique<Impl>()) {}
ReadHandlers::~ReadHandlers() = default;
ReadHandlers::ReadHandlers(ReadHandlers&&) noexcept = default;
ReadHandlers& ReadHandlers::operator=(ReadHandlers&&) noexcept = default;

bool ReadHandlers::is_ground(std::string_view tag) noexcept {
  for (std::string_view g : {"_", "s", "?", "i", "d", "b", "'", "array", "map"})
    if (tag == g) return true;
  return false;
}

ReadHandlers& ReadHandlers::add(std::string tag, ReadHandler handler) {
  if (tag.empty()) detail::throw_error(Errc::invalid_argument, "a read handler needs a tag");
  if (is_ground(tag))
    detail::throw_error(Errc::invalid_argument,
                        "the ground tag \"" + tag + "\" cannot have a custom read handler");
  detail::ReadHandlerEntry entry{std::move(handler), detail::kTaggedHandlerName.data() + tag, {}};
  if (tag.size() == 1) {
    impl_->chars[static_cast<unsigned char>(tag[0])] = true;
    entry.scalar_name = "read handler for ~" + tag;
  }
  impl_->by_tag.insert_or_assign(std::move(tag), std::move(entry));
  return *this;
}

ReadHandlers& ReadHandlers::add_typed(std::string tag,
                                      std::shared_ptr<const detail::TypedReader> reader) {
  if (tag.empty()) detail::throw_error(Errc::invalid_argument, "a read handler needs a tag");
  if (tag.size() == 1 || tag == "array" || tag == "map")
    detail::throw_error(Errc::invalid_argument,
                        "the tag \"" + tag + "\" is the spec's: a record needs a tag of its own");
  impl_->typed_by_type.insert_or_assign(std::type_index(*reader->type), std::pair{tag, reader});
  // Its handler for reads into Value, for a caller of find(), which has no handlers to bind
  // with; the library's reads take `record` (ReadHandlerEntry) and bind with theirs.
  const detail::TypedReader* r = reader.get();
  detail::ReadHandlerEntry entry{
      [reader](const Value& rep) { return detail::bind_record(*reader, rep, nullptr); },
      detail::kTaggedHandlerName.data() + tag, {}, r};
  impl_->by_tag.insert_or_assign(tag, std::move(entry));
  impl_->typed_by_tag.insert_or_assign(std::move(tag), std::move(reader));
  return *this;
}

const detail::TypedReader* ReadHandlers::find_typed(std::string_view tag) const noexcept {
  if (impl_->typed_by_tag.empty()) return nullptr;
  auto it = impl_->typed_by_tag.find(tag);
  return it == impl_->typed_by_tag.end() ? nullptr : it->second.get();
}

const detail::TypedReader* ReadHandlers::typed_for(std::type_index type,
                                                   std::string_view* tag) const noexcept {
  auto it = impl_->typed_by_type.find(type);
  if (it == impl_->typed_by_type.end()) return nullptr;
  if (tag) *tag = it->second.first;
  return it->second.second.get();
}

ReadHandlers& ReadHandlers::set_default(DefaultReadHandler handler) {
  impl_->fallback = std::move(handler);
  return *this;
}

ReadHandlers& ReadHandlers::set_map_builder(MapBuilder builder) {
  impl_->map_builder = std::move(builder);
  return *this;
}

ReadHandlers& ReadHandlers::set_array_builder(ArrayBuilder builder) {
  impl_->array_builder = std::move(builder);
  return *this;
}

const ReadHandler* ReadHandlers::find(std::string_view tag) const noexcept {
  const detail::ReadHandlerEntry* e = detail::ReadHandlersAccess::find(*this, tag);
  return e ? &e->handler : nullptr;
}

bool ReadHandlers::has_char(char tag) const noexcept {
  return impl_->chars[static_cast<unsigned char>(tag)];
}

const DefaultReadHandler* ReadHandlers::default_handler() const noexcept {
  return impl_->fallback ? &impl_->fallback : nullptr;
}

const MapBuilder* ReadHandlers::map_builder() const noexcept {
  return impl_->map_builder ? &impl_->map_builder : nullptr;
}

const ArrayBuilder* ReadHandlers::array_builder() const noexcept {
  return impl_->array_builder ? &impl_->array_builder : nullptr;
}

namespace detail {

const ReadHandlerEntry* ReadHandlersAccess::find(const ReadHandlers& handlers,
                                                std::string_view tag) noexcept {
  const auto& by_tag = handlers.impl_->by_tag;
  if (by_tag.empty()) return nullptr;
  auto it = by_tag.find(tag);
  return it == by_tag.end() ? nullptr : &it->second;
}

}  // namespace detail

}  // namespace transit
