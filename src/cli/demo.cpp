// SPDX-License-Identifier: Apache-2.0
#include "demo.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>
#include <variant>
#include <vector>

#include "transit/transit.h"

namespace transit::cli {

namespace {

// The object graph: a small class hierarchy. Parcel and Perishable have handlers; Fragile and
// Frozen have none of their own and are written through their nearest ancestor's, which the
// registry finds by walking once and then remembers.
struct Parcel {
  virtual ~Parcel() = default;
  std::string id;
  double kg = 0;
};
struct Fragile : Parcel {};
struct Perishable : Parcel {
  std::chrono::system_clock::time_point best_before;
};
struct Frozen : Perishable {};

using Field = std::variant<std::string_view, double, std::chrono::system_clock::time_point>;
using Key = transit::KeywordView;

Registry parcel_registry() {
  RegistryBuilder b;
  add(b, Handler<Parcel>("parcel").rep([](const Parcel& p) {
    return as_map(std::array<std::pair<Key, Field>, 2>{
        {{as_keyword("id"), p.id}, {as_keyword("kg"), p.kg}}});
  }));
  add(b, Handler<Perishable>("perishable").rep([](const Perishable& p) {
    return as_map(std::array<std::pair<Key, Field>, 3>{{{as_keyword("id"), p.id},
                                                         {as_keyword("kg"), p.kg},
                                                         {as_keyword("best-before"), p.best_before}}});
  }));
  b.derives<Fragile, Parcel>().derives<Perishable, Parcel>().derives<Frozen, Perishable>();
  return std::move(b).freeze();
}

ReadHandlers parcel_read_handlers() {
  ReadHandlers h;
  h.add_object<Parcel>("parcel", [](const Value& rep) {
    Parcel p;
    p.id = rep.find(kw("id"))->as_string();
    p.kg = rep.find(kw("kg"))->as_double();
    return p;
  });
  h.add_object<Perishable>("perishable", [](const Value& rep) {
    Perishable p;
    p.id = rep.find(kw("id"))->as_string();
    p.kg = rep.find(kw("kg"))->as_double();
    p.best_before = std::chrono::system_clock::time_point(
        std::chrono::milliseconds(rep.find(kw("best-before"))->as_instant()));
    return p;
  });
  return h;
}

std::vector<std::unique_ptr<Parcel>> parcels(int n) {
  std::vector<std::unique_ptr<Parcel>> out;
  for (int i = 0; i < n; ++i) {
    std::unique_ptr<Parcel> p;
    switch (i % 4) {
      case 0: p = std::make_unique<Parcel>(); break;
      case 1: p = std::make_unique<Fragile>(); break;
      case 2: p = std::make_unique<Perishable>(); break;
      default: p = std::make_unique<Frozen>(); break;
    }
    if (auto* q = dynamic_cast<Perishable*>(p.get()))
      q->best_before = std::chrono::system_clock::time_point(std::chrono::hours(24 * (19000 + i)));
    p->id = "P-" + std::to_string(1000 + i);
    p->kg = 0.25 * (1 + i % 20);
    out.push_back(std::move(p));
  }
  return out;
}

std::string hex_preview(const std::string& bytes, std::size_t n) {
  std::string out;
  char buf[4];
  for (std::size_t i = 0; i < bytes.size() && i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x ", static_cast<unsigned char>(bytes[i]));
    out += buf;
  }
  if (bytes.size() > n) out += "...";
  return out;
}

}  // namespace

Value demo_value() {
  auto line_item = [](std::string_view sku, int qty, double price) {
    return Value::map({{kw("sku"), sku}, {kw("quantity"), qty}, {kw("unit-price"), price}});
  };
  return Value::map({
      {kw("order/id"), Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL})},
      {kw("order/placed"), Value::instant(1396909037000)},
      {kw("order/status"), kw("shipped")},
      {kw("order/handler"), sym("orders/fulfil")},
      {kw("order/receipt"), Value::uri("https://example.com/receipts/7")},
      {kw("order/total-cents"), Value::big_integer("123456789012345678901234567890")},
      {kw("order/tax-rate"), Value::big_decimal("0.0825")},
      {kw("order/tags"), Value::set({kw("gift"), kw("express"), "fragile"})},
      {kw("order/history"), Value::list({kw("placed"), kw("paid"), kw("shipped")})},
      {kw("order/lines"), Value::array({line_item("A-100", 2, 9.5), line_item("B-200", 1, 24.25),
                                        line_item("C-300", 12, 0.1)})},
      {kw("warehouse/bins"),
       Value::map({{Value::array({3, 7}), "aisle 3, shelf 7"},
                   {Value::array({4, 1}), "aisle 4, shelf 1"}})},
      {kw("order/courier"), Value::tagged("point", Value::array({52.37, 4.89}))},
      {kw("order/grade"), Value::character(U'A')},
      {"~note", "strings that look like Transit are escaped"},
  });
}

int run_demo(std::ostream& out, bool profile) {
  const Value sample = demo_value();
  out << "value (EDN):\n  " << to_edn(sample) << "\n\n";
  bool ok = true;
  for (Encoding encoding : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    const std::string text = write(sample, encoding);
    const Value back = read(text, encoding);
    const bool same = back == sample;
    ok = ok && same;
    out << encoding_name(encoding) << " (" << text.size() << " bytes):\n  "
        << (encoding == Encoding::msgpack ? hex_preview(text, 48) : text) << "\n"
        << "  read back: " << (same ? "equal" : "DIFFERENT") << "\n\n";
  }

  // A C++ object graph, written directly through the registry and read back as user objects.
  const auto graph = parcels(200);
  const Registry registry = parcel_registry();
  const ReadHandlers handlers = parcel_read_handlers();
  LookupProfiler profiler;
  WriteOptions write_options;
  write_options.registry = &registry;
  write_options.profiler = profile ? &profiler : nullptr;
  ReadOptions read_options;
  read_options.handlers = &handlers;
  out << "object graph (" << graph.size()
      << " parcels of 4 classes, written directly through a handler registry):\n";
  for (Encoding encoding : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    const std::string bytes = write(graph, encoding, write_options);
    const Value back = read(bytes, encoding, read_options);
    // Read back as Parcel and Perishable objects; written again, they give the same bytes.
    const bool same = back.size() == graph.size() && back[2].get_if<Perishable>() != nullptr &&
                      write(back, encoding, write_options) == bytes;
    ok = ok && same;
    out << "  " << encoding_name(encoding) << ": " << bytes.size() << " bytes, read back "
        << (same ? "and rewritten identically" : "DIFFERENTLY") << "\n";
  }
  if (profile)
    out << "\nhandler lookups (all three encodings):\n"
        << profiler.table() << "\nthe same as JSON:\n" << profiler.json() << "\n";
  out << "\nround trip: " << (ok ? "ok" : "FAILED") << "\n";
  return ok ? 0 : 1;
}

}  // namespace transit::cli
