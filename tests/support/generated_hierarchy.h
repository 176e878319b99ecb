// SPDX-License-Identifier: Apache-2.0
// A generated class hierarchy for registry tests and benchmarks at scale: kHandlers base
// classes, each with a handler, and kDerived classes, Derived<N> deriving from
// Base<N % kHandlers>. The types are instantiated a thousand at a time, so the header compiles in
// seconds, and their type_info objects are collected into tables at startup.
#pragma once

#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "transit/registry.h"

namespace transit::generated {

inline constexpr int kHandlers = 10000;
inline constexpr int kDerived = 100000;
inline constexpr int kChunk = 1000;

template <int M>
struct Base {};
template <int N>
struct Derived : Base<N % kHandlers> {};

/// Derived<N>'s only base is Base<N % kHandlers>, an empty non-virtual base, so a pointer to the
/// derived object is a pointer to the base (Itanium ABI: an empty base sits at offset 0).
inline const void* same_address(const void* p) { return p; }

struct Types {
  std::vector<const std::type_info*> bases;    // bases[M] is typeid(Base<M>)
  std::vector<const std::type_info*> derived;  // derived[N] is typeid(Derived<N>)
};

// Constant tables of type_info addresses, one per thousand types: data, not code.
template <template <int> class Of, int First, int... I>
const std::type_info* const* chunk(std::integer_sequence<int, I...>) {
  static constexpr const std::type_info* table[] = {&typeid(Of<First + I>)...};
  return table;
}
template <template <int> class Of, int... C>
void collect(std::vector<const std::type_info*>& out, std::integer_sequence<int, C...>) {
  const std::type_info* const* chunks[] = {
      chunk<Of, C * kChunk>(std::make_integer_sequence<int, kChunk>())...};
  for (const std::type_info* const* c : chunks) out.insert(out.end(), c, c + kChunk);
}

/// Every generated type_info, in order.
inline const Types& types() {
  static const Types all = [] {
    Types t;
    t.bases.reserve(kHandlers);
    t.derived.reserve(kDerived);
    collect<Base>(t.bases, std::make_integer_sequence<int, kHandlers / kChunk>());
    collect<Derived>(t.derived, std::make_integer_sequence<int, kDerived / kChunk>());
    return t;
  }();
  return all;
}

/// The tag of Base<M>'s handler.
inline std::string tag_of_base(int m) { return "b" + std::to_string(m); }

/// A builder with a handler (tag "b<M>") for every Base<M> and every Derived<N> declared.
inline RegistryBuilder builder() {
  const Types& t = types();
  RegistryBuilder b;
  for (int m = 0; m < kHandlers; ++m) {
    detail::ErasedHandler h;
    h.tag = tag_of_base(m);
    b.add_erased(*t.bases[static_cast<std::size_t>(m)], std::move(h));
  }
  for (int n = 0; n < kDerived; ++n) {
    const std::type_info& base = *t.bases[static_cast<std::size_t>(n % kHandlers)];
    b.add_bases(*t.derived[static_cast<std::size_t>(n)], t.derived[static_cast<std::size_t>(n)]->name(),
                {detail::BaseDecl{base, base.name(), &same_address, true}});
  }
  return b;
}

}  // namespace transit::generated
