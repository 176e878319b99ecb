// SPDX-License-Identifier: Apache-2.0
// An order service's events, written and read typed in JSON, JSON-Verbose or MessagePack:
// each type is described once (Record), with no hand-written Value code.
//
//   order_service json|json-verbose|msgpack
//
// Prints the events as written, then checks that reading them back gives the same events and
// that writing those gives the same bytes. Exits 1 when either check fails.
#include <transit/transit.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace std::chrono;
using Time = sys_time<milliseconds>;

struct Money {
  transit::BigDecimal amount;
  std::string currency;
  bool operator==(const Money&) const = default;
};

struct Sku {
  std::string code;
  auto operator<=>(const Sku&) const = default;
};

enum class Carrier { post, courier };

template <>
struct transit::EnumNames<Carrier> {
  static constexpr std::array names{std::pair{Carrier::post, "post"},
                                    std::pair{Carrier::courier, "courier"}};
};

struct Event {
  virtual ~Event() = default;
  std::string order_id;
  Time at;
  virtual bool equals(const Event& other) const = 0;
};

struct OrderPlaced : Event {
  std::map<Sku, int> quantities;  // keyed by a struct: written as a cmap
  Money total;
  std::optional<std::string> coupon;
  bool equals(const Event& o) const override {
    auto* p = dynamic_cast<const OrderPlaced*>(&o);
    return p && order_id == p->order_id && at == p->at && quantities == p->quantities &&
           total == p->total && coupon == p->coupon;
  }
};

struct PaymentReceived : Event {
  Money amount;
  transit::Uuid payment;
  bool equals(const Event& o) const override {
    auto* p = dynamic_cast<const PaymentReceived*>(&o);
    return p && order_id == p->order_id && at == p->at && amount == p->amount &&
           payment == p->payment;
  }
};

struct OrderShipped : Event {
  Carrier carrier = Carrier::post;
  std::optional<std::string> tracking;
  bool equals(const Event& o) const override {
    auto* p = dynamic_cast<const OrderShipped*>(&o);
    return p && order_id == p->order_id && at == p->at && carrier == p->carrier &&
           tracking == p->tracking;
  }
};

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "json";
  const transit::Encoding encoding = name == "msgpack"        ? transit::Encoding::msgpack
                                     : name == "json-verbose" ? transit::Encoding::json_verbose
                                                              : transit::Encoding::json;

  // Each type once, for both directions.
  auto money = transit::Record<Money>("shop/money")
                   .field(&Money::amount, "amount")
                   .field(&Money::currency, "currency");
  auto sku = transit::Record<Sku>("shop/sku").field(&Sku::code, "code");
  auto placed = transit::Record<OrderPlaced>("shop/order-placed")
                    .field(&OrderPlaced::order_id, "order-id")
                    .field(&OrderPlaced::at, "at")
                    .field(&OrderPlaced::quantities, "quantities")
                    .field(&OrderPlaced::total, "total")
                    .field(&OrderPlaced::coupon, "coupon")
                    .derives<Event>();
  auto paid = transit::Record<PaymentReceived>("shop/payment-received")
                  .field(&PaymentReceived::order_id, "order-id")
                  .field(&PaymentReceived::at, "at")
                  .field(&PaymentReceived::amount, "amount")
                  .field(&PaymentReceived::payment, "payment")
                  .derives<Event>();
  auto shipped = transit::Record<OrderShipped>("shop/order-shipped")
                     .field(&OrderShipped::order_id, "order-id")
                     .field(&OrderShipped::at, "at")
                     .field(&OrderShipped::carrier, "carrier")
                     .field(&OrderShipped::tracking, "tracking")
                     .derives<Event>();

  transit::RegistryBuilder builder;
  builder.add(money).add(sku).add(placed).add(paid).add(shipped);
  const transit::Registry registry = std::move(builder).freeze();
  transit::ReadHandlers handlers;
  handlers.add(money).add(sku).add(placed).add(paid).add(shipped);

  std::vector<std::unique_ptr<Event>> events;
  auto p = std::make_unique<OrderPlaced>();
  p->order_id = "o-1001";
  p->at = Time(milliseconds(1767225600000));
  p->quantities = {{Sku{"TEA-01"}, 2}, {Sku{"MUG-07"}, 1}};
  p->total = Money{{"23.90"}, "EUR"};
  events.push_back(std::move(p));
  auto pay = std::make_unique<PaymentReceived>();
  pay->order_id = "o-1001";
  pay->at = Time(milliseconds(1767225660500));
  pay->amount = Money{{"23.90"}, "EUR"};
  pay->payment = transit::Uuid{0x5a2cbea3e8c6428bull, 0xb52521239370dd55ull};
  events.push_back(std::move(pay));
  auto ship = std::make_unique<OrderShipped>();
  ship->order_id = "o-1001";
  ship->at = Time(milliseconds(1767312000000));
  ship->carrier = Carrier::courier;
  ship->tracking = "TRK-889";
  events.push_back(std::move(ship));

  const std::string bytes = transit::write(events, encoding, {.registry = &registry});
  if (encoding == transit::Encoding::msgpack)
    std::printf("%zu bytes of MessagePack\n", bytes.size());
  else
    std::printf("%s\n", bytes.c_str());

  const auto back = transit::read<std::vector<std::unique_ptr<Event>>>(bytes, encoding,
                                                                        {.handlers = &handlers});
  bool same = back.size() == events.size();
  for (std::size_t i = 0; same && i < back.size(); ++i) same = events[i]->equals(*back[i]);
  const bool identical = transit::write(back, encoding, {.registry = &registry}) == bytes;
  std::printf("read back typed: %s; rewritten byte-identical: %s\n", same ? "same events" : "DIFFERENT",
              identical ? "yes" : "NO");
  return same && identical ? 0 : 1;
}
