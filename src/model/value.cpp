// SPDX-License-Identifier: Apache-2.0
// The value model: node layouts, construction, equality and hashing.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <new>
#include <random>
#include <utility>

#include "codec/codec.h"
#include "ground.h"
#include "model/hash.h"
#include "transit/value.h"
#include "model/value_internal.h"

namespace transit {
namespace detail {
namespace {

// Text payloads (long strings, keywords, symbols, URIs, big numbers, bytes) are one block:
// header then bytes, so a string costs one allocation. The hash of the bytes is computed on
// first use and kept (in what was padding): a 16 MB keyword referred to a million times by
// cache codes, all one node, is hashed once. 0 means not computed yet.
struct TextNode : Node {
  std::uint32_t size;
  mutable std::atomic<std::uint32_t> hash{0};
  char* data() noexcept { return reinterpret_cast<char*>(this + 1); }
};
static_assert(sizeof(TextNode) == 24, "the memoized hash fits in the header's padding");

struct UuidNode : Node {
  Uuid value;
};

// Sequences and maps are one block too: header then the elements in place.
struct SeqNode : Node {
  std::uint32_t size;
  Value* items() noexcept { return reinterpret_cast<Value*>(this + 1); }
};
static_assert(sizeof(SeqNode) % alignof(Value) == 0);

// A hash index of a map's keys, built by the first find() on a map of more than
// kIndexedFrom entries. `slots` holds entry positions + 1 (0: empty), linear probing, at most
// half full. Indexes of arena maps are listed on the arena, which frees them.
struct KeyIndex {
  KeyIndex* next_in_arena;
  std::size_t mask;
  std::uint32_t* slots() noexcept { return reinterpret_cast<std::uint32_t*>(this + 1); }
};
// Up to this many entries a scan of the keys beats hashing the one looked for.
constexpr std::uint32_t kIndexedFrom = 8;

struct MapNode : Node {
  std::uint32_t size;
  Entry* entries() noexcept { return reinterpret_cast<Entry*>(this + 1); }
  // A map of more than kIndexedFrom entries has one more word after its entries: its index,
  // built on demand (maps are immutable and shared, so any thread may be the first to look).
  // Small maps, most of a document's, pay nothing for it.
  static std::size_t bytes_for(std::size_t entries) noexcept {
    return sizeof(MapNode) + entries * sizeof(Entry) +
           (entries > kIndexedFrom ? sizeof(std::atomic<KeyIndex*>) : 0);
  }
  std::atomic<KeyIndex*>* index() noexcept {
    return size > kIndexedFrom ? reinterpret_cast<std::atomic<KeyIndex*>*>(entries() + size)
                               : nullptr;
  }
};
static_assert(alignof(std::atomic<KeyIndex*>) <= alignof(Entry));
static_assert(std::is_trivially_destructible_v<std::atomic<KeyIndex*>>);
static_assert(sizeof(MapNode) % alignof(Entry) == 0);

struct TaggedNode : Node {
  Value tag;
  Value rep;
};

struct ObjectNode : Node {
  const std::type_info* type;
  void* obj;
  const ObjectVtable* vt;
};

std::uint32_t checked_size(std::size_t n) {
  if (n > UINT32_MAX) throw_error(Errc::invalid_argument, "value larger than 4 GiB");
  return static_cast<std::uint32_t>(n);
}

void* allocate(std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

// ---- the hash key ---------------------------------------------------------------------------------

const HashKey& process_hash_key() noexcept {
  // std::random_device reads the operating system's random source (getrandom on Linux).
  static const HashKey key = [] {
    HashKey k{};
    try {
      std::random_device rd;
      auto word = [&rd] { return std::uint64_t{rd()} << 32 | rd(); };
      k = {word(), word(), word(), word()};
    } catch (...) {
      // No random source: a clock and an address (ASLR) still differ from run to run.
      const auto t = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
      const auto a = reinterpret_cast<std::uintptr_t>(&k);
      k = {fold_mul(t, 0x9e3779b97f4a7c15ULL), fold_mul(a, 0xbf58476d1ce4e5b9ULL),
           fold_mul(t ^ a, 0x94d049bb133111ebULL), fold_mul(t + a, 0xff51afd7ed558ccdULL)};
    }
    // Odd multipliers keep the folded multiplies from collapsing on a zero factor.
    k.k1 |= 1;
    k.k3 |= 1;
    return k;
  }();
  return key;
}

// ---- arenas ---------------------------------------------------------------------------------------

// Blocks of arenas gone, kept on their thread for the next documents. Without them every read
// took its blocks fresh from malloc, which for a document of a megabyte or more meant growing
// the heap and trimming it again: citm_catalog.json faulted in 800 pages per read and read 6x
// slower than with the blocks kept. At most kPoolBytes are kept per thread, in at most
// kPoolBlocks blocks so that finding one stays a short scan.
//
// The list is plain data (a thread_local that is never destroyed), so an arena freed after its
// thread's destructors ran (a Value in a static) finds the pool closed and frees its blocks.
struct ArenaBlock {
  ArenaBlock* next;
  std::size_t size;
  std::size_t used;
  char* data() noexcept { return reinterpret_cast<char*>(this + 1); }
};
static_assert(sizeof(ArenaBlock) % alignof(Value) == 0);  // nodes need no more than a Value

struct BlockPool {
  ArenaBlock* head;
  std::size_t bytes;
  std::uint32_t blocks;
  bool closed;
};
constexpr std::size_t kPoolBytes = std::size_t{8} << 20;
constexpr std::uint32_t kPoolBlocks = 32;
thread_local BlockPool t_pool{nullptr, 0, 0, false};

// Frees the pool when its thread ends.
struct BlockPoolCloser {
  ~BlockPoolCloser() {
    t_pool.closed = true;
    while (t_pool.head) std::free(std::exchange(t_pool.head, t_pool.head->next));
    t_pool.bytes = 0;
    t_pool.blocks = 0;
  }
};
thread_local BlockPoolCloser t_pool_closer;

// A block with room for at least `bytes`, `wanted` bytes if it comes new from malloc.
ArenaBlock* take_block(std::size_t bytes, std::size_t wanted) {
  for (ArenaBlock** at = &t_pool.head; *at; at = &(*at)->next) {
    if ((*at)->size < bytes) continue;
    ArenaBlock* block = *at;
    *at = block->next;
    t_pool.bytes -= block->size;
    --t_pool.blocks;
    block->used = 0;
    return block;
  }
  auto* block = static_cast<ArenaBlock*>(detail::allocate(sizeof(ArenaBlock) + wanted));
  *block = {nullptr, wanted, 0};
  return block;
}

void give_back(ArenaBlock* block) noexcept {
  if (t_pool.closed || t_pool.blocks == kPoolBlocks || t_pool.bytes + block->size > kPoolBytes) {
    std::free(block);
    return;
  }
  (void)&t_pool_closer;  // the first use on a thread constructs it: the pool is freed at exit
  block->next = t_pool.head;
  t_pool.head = block;
  t_pool.bytes += block->size;
  ++t_pool.blocks;
}

// The nodes of one document: bump-allocated in blocks, freed together when the last Value that
// refers to any of them goes. Reading allocates a block now and then instead of once per
// string and container, and dropping a document frees its blocks without visiting its nodes.
struct Arena : ArenaHeader {
  explicit Arena(std::size_t first_block) : first_block_(first_block) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    // Children that are not borrowed hold counts on nodes outside the arena: give them back.
    for (const auto& [kind, node] : foreign_) {
      if (kind == Kind::map || kind == Kind::link) {
        auto* n = static_cast<MapNode*>(node);
        std::destroy_n(n->entries(), n->size);
      } else if (kind == Kind::tagged) {
        static_cast<TaggedNode*>(node)->~TaggedNode();
      } else {
        auto* n = static_cast<SeqNode*>(node);
        std::destroy_n(n->items(), n->size);
      }
    }
    while (head_) give_back(std::exchange(head_, head_->next));
    for (const auto& [block, bytes] : taken_over_) std::free(block);
    for (KeyIndex* i = indexes_.load(std::memory_order_acquire); i;)
      std::free(std::exchange(i, i->next_in_arena));
  }

  // Gives the arena an index built for one of its maps, to free with it. Any thread reading
  // the document may build one, so this is a lock-free push.
  void own(KeyIndex* index) noexcept {
    KeyIndex* head = indexes_.load(std::memory_order_relaxed);
    do {
      index->next_in_arena = head;
    } while (!indexes_.compare_exchange_weak(head, index, std::memory_order_release,
                                             std::memory_order_relaxed));
  }

  // A bump of the current block, or nullptr when it has no room (the caller then allocates).
  [[gnu::always_inline]] void* try_allocate(std::size_t bytes) noexcept {
    bytes = (bytes + 7) & ~std::size_t{7};
    if (!head_ || head_->size - head_->used < bytes) [[unlikely]]
      return nullptr;
    void* p = head_->data() + head_->used;
    head_->used += bytes;
    allocated_ += bytes;
    return p;
  }
  // Inline in every builder: a bump of the current block; the block change is out of line.
  [[gnu::always_inline]] void* allocate(std::size_t bytes) {
    if (void* p = try_allocate(bytes)) [[likely]]
      return p;
    new_block((bytes + 7) & ~std::size_t{7});
    return try_allocate(bytes);  // the new block has room
  }

  // A node of this arena holds `child`: a child from this arena is borrowed (it stops
  // counting, the arena outlives it); any other is remembered, to be released with the arena.
  void adopt(Kind parent_kind, Node* parent, Value& child, bool& parent_listed) {
    if (ValueAccess::borrow(child, this) || parent_listed) return;
    list_foreign(parent_kind, parent);
    parent_listed = true;
  }
  // Remembers a node of this arena that holds children from elsewhere (they keep their
  // counts), to release them with the arena.
  void list_foreign(Kind parent_kind, Node* parent) { foreign_.emplace_back(parent_kind, parent); }

  // Counts while the document is built. Every node is born with a count (its Value's) and
  // nearly every one gives it back when its parent borrows it: two atomic operations per node
  // for a count nobody else could see, since no other thread holds any Value of the arena
  // until its scope closes. So while the scope is open, counts born and given back go to a
  // plain integer of the building thread, and `refs` holds kOpenBias more than the scope's own
  // count, so that copies and releases (which stay atomic, Value's code does not know about
  // scopes) can never take it to zero. The scope folds the two together as it closes.
  static constexpr std::uint32_t kOpenBias = std::uint32_t{1} << 31;
  void open() noexcept { refs.store(1 + kOpenBias, std::memory_order_relaxed); }
  void count_born() noexcept { ++open_counts_; }
  void count_given_back() noexcept { --open_counts_; }
  // Counts born minus counts given back, at once: a container node's own, less those of the
  // children it borrowed.
  void count_open(std::int64_t delta) noexcept { open_counts_ += delta; }
  // Folds the open counts into `refs` and gives back the scope's own: true when nothing
  // refers to the arena any more. Unsigned arithmetic wraps, so a negative balance (copies
  // counted atomically, given back here) folds in as well.
  bool close() noexcept {
    const auto delta = static_cast<std::uint32_t>(open_counts_) - kOpenBias - 1;
    open_counts_ = 0;
    return refs.fetch_add(delta, std::memory_order_acq_rel) + delta == 0;
  }

  // Makes a node built in a block of its own on the heap (a long array's growable slots) a
  // node of this arena, freed with it. Left on the heap as a foreign child, it held a count
  // on the arena for each of its items from the arena while the arena held it: a cycle, and
  // the whole document leaked.
  void take_over(Node* node, std::size_t bytes) { taken_over_.emplace_back(node, bytes); }

  std::size_t allocated() const noexcept { return allocated_; }
  // What the arena holds of the heap: its blocks, headers included.
  std::size_t block_bytes() const noexcept {
    std::size_t bytes = 0;
    for (const ArenaBlock* b = head_; b; b = b->next) bytes += sizeof(ArenaBlock) + b->size;
    for (const auto& [block, size] : taken_over_) bytes += size;
    return bytes;
  }

 private:
  // Makes a block with room for `bytes` the current one.
  [[gnu::noinline]] void new_block(std::size_t bytes) {
    const std::size_t size = std::max(bytes, head_ ? std::min(head_->size * 2, kMaxBlock)
                                                    : first_block_);
    ArenaBlock* block = take_block(bytes, size);
    block->next = head_;
    head_ = block;
  }

  static constexpr std::size_t kMaxBlock = std::size_t{1} << 20;
  ArenaBlock* head_ = nullptr;
  std::size_t first_block_;
  std::size_t allocated_ = 0;
  std::vector<std::pair<Kind, Node*>> foreign_;
  std::vector<std::pair<Node*, std::size_t>> taken_over_;  // see take_over
  std::atomic<KeyIndex*> indexes_{nullptr};
  // Counts born minus counts given back while the scope is open (see open()); touched only by
  // the thread building the document.
  std::int64_t open_counts_ = 0;
};

void destroy_arena(ArenaHeader* arena) noexcept { delete static_cast<Arena*>(arena); }

namespace {

// Initial-exec: the library is compiled as position-independent code, where the default model
// reads a thread-local through a call of __tls_get_addr (relaxed to a load only when the
// linker puts the library in an executable), and that call made every builder that reads
// t_arena, reserve_sequence and reserve_map first of all, save registers around its bump.
// With this model the read is a load from the thread's static TLS block, which a shared
// library loaded at start-up has, and one opened later gets from glibc's reserve (these
// are 16 bytes).
[[gnu::tls_model("initial-exec")]] thread_local Arena* t_arena = nullptr;
// The size of the last document read on this thread, so a stream of small documents takes one
// right-sized block each.
[[gnu::tls_model("initial-exec")]] thread_local std::size_t t_arena_hint = 4096;

// Memory for a node: from the current arena while a reader builds a document, else the heap.
[[gnu::always_inline]] inline void* allocate_node(std::size_t bytes) {
  return t_arena ? t_arena->allocate(bytes) : allocate(bytes);
}

// Gives a new node its owner: the arena counts the Value about to refer to it (in its open
// counts: the node is new, so t_arena is open on this thread).
void attach(Node* node) noexcept {
  if (!t_arena) return;
  node->arena = t_arena;
  t_arena->count_born();
}

bool is_text_kind(Kind k) {
  switch (k) {
    case Kind::string:
    case Kind::keyword:
    case Kind::symbol:
    case Kind::uri:
    case Kind::big_integer:
    case Kind::big_decimal:
    case Kind::bytes:
      return true;
    default:
      return false;
  }
}

}  // namespace

void destroy_node(Kind kind, Node* node) noexcept {
  switch (kind) {
    case Kind::array:
    case Kind::list:
    case Kind::set: {
      auto* n = static_cast<SeqNode*>(node);
      std::destroy_n(n->items(), n->size);
      n->~SeqNode();
      break;
    }
    case Kind::map:
    case Kind::link: {
      auto* n = static_cast<MapNode*>(node);
      std::destroy_n(n->entries(), n->size);
      if (auto* index = n->index()) std::free(index->load(std::memory_order_acquire));
      n->~MapNode();
      break;
    }
    case Kind::tagged:
      static_cast<TaggedNode*>(node)->~TaggedNode();
      break;
    case Kind::object: {
      auto* n = static_cast<ObjectNode*>(node);
      n->vt->destroy(n->obj);
      delete n;
      return;
    }
    default:  // text and UUID nodes are trivially destructible
      break;
  }
  std::free(node);
}

}  // namespace detail

using detail::MapNode;
using detail::SeqNode;
using detail::TaggedNode;
using detail::TextNode;

std::string_view kind_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::null: return "null";
    case Kind::boolean: return "boolean";
    case Kind::integer: return "integer";
    case Kind::big_integer: return "big_integer";
    case Kind::floating: return "floating";
    case Kind::big_decimal: return "big_decimal";
    case Kind::string: return "string";
    case Kind::bytes: return "bytes";
    case Kind::keyword: return "keyword";
    case Kind::symbol: return "symbol";
    case Kind::character: return "character";
    case Kind::instant: return "instant";
    case Kind::uuid: return "uuid";
    case Kind::uri: return "uri";
    case Kind::array: return "array";
    case Kind::list: return "list";
    case Kind::set: return "set";
    case Kind::map: return "map";
    case Kind::link: return "link";
    case Kind::tagged: return "tagged";
    case Kind::object: return "object";
  }
  return "?";
}

// ---- construction --------------------------------------------------------------------------------

namespace {
// A text node for init_text when the arena's current block has no room, or no arena is open,
// or the text is refused (checked_size throws): out of line, so that the common case saves
// no register for this path's calls.
[[gnu::noinline]] TextNode* text_node_elsewhere(std::string_view s) {
  const std::uint32_t n = detail::checked_size(s.size());
  auto* node = new (detail::allocate_node(sizeof(TextNode) + n)) TextNode{};
  node->size = n;
  std::memcpy(node->data(), s.data(), n);
  detail::attach(node);
  return node;
}
}  // namespace

void Value::init_text(Kind kind, std::string_view s) {
  if (s.size() <= kSmallCapacity) {
    raw_ = ValueAccess::inline_text(kind, s).raw_;
    return;
  }
  detail::Arena* const arena = detail::t_arena;
  void* memory = s.size() <= UINT32_MAX && arena ? arena->try_allocate(sizeof(TextNode) + s.size())
                                                 : nullptr;
  if (!memory) [[unlikely]] {
    TextNode* node = text_node_elsewhere(s);
    init_node(kind, node, node->size);
    return;
  }
  // A bump of the arena's block, then the copy last, a tail call: nothing here lives across
  // a call (before: six registers saved and a frame, for every string on the heap).
  const auto n = static_cast<std::uint32_t>(s.size());
  auto* node = new (memory) TextNode{};
  node->size = n;
  node->arena = arena;
  arena->count_born();
  init_node(kind, node, n);
  std::memcpy(node->data(), s.data(), n);
}

inline void Value::init_node(Kind kind, detail::Node* node, std::uint32_t size) noexcept {
  if constexpr (sizeof(detail::Node*) == sizeof(std::uint64_t)) {
    raw_.a = detail::head_word(kind, kHeap, size, false);
    raw_.b = reinterpret_cast<std::uintptr_t>(node);
  } else {
    raw_ = Raw{};
    wide_.kind = kind;
    wide_.flags = kHeap;
    wide_.size = size;
    wide_.u.node = node;
  }
}

Value Value::big_integer(std::string_view digits) {
  if (!detail::is_integer_text(digits))
    detail::throw_error(Errc::invalid_argument,
                        "big integer needs decimal digits, got \"" + std::string(digits) + "\"");
  return ValueAccess::big_integer_of(digits);
}

Value ValueAccess::big_integer_of(std::string_view digits) {
  const bool negative = digits.front() == '-';
  std::string_view body = digits.substr(negative ? 1 : 0);
  if (body.front() != '0' || (body.size() == 1 && !negative)) {
    // Already canonical (as writers write it): taken as it is, with no copy made.
    Value v;
    v.init_text(Kind::big_integer, digits);
    return v;
  }
  const auto first = body.find_first_not_of('0');
  body = first == std::string_view::npos ? std::string_view("0") : body.substr(first);
  std::string text;
  if (negative && body != "0") text.push_back('-');
  text.append(body);
  Value v;
  v.init_text(Kind::big_integer, text);
  return v;
}

Value Value::big_decimal(std::string_view text) {
  if (!detail::is_decimal_text(text))
    detail::throw_error(Errc::invalid_argument,
                        "big decimal needs a decimal number, got \"" + std::string(text) + "\"");
  return ValueAccess::big_decimal_of(text);
}

Value ValueAccess::big_decimal_of(std::string_view text) {
  Value v;
  v.init_text(Kind::big_decimal, text);
  return v;
}

char* ValueAccess::init_text_to_fill(Value& v, Kind kind, std::size_t size) {
  // v is null: every byte zero, as an inline value's unused bytes must stay.
  v.small_.kind = kind;
  if (size <= Value::kSmallCapacity) {
    v.small_.size = static_cast<std::uint8_t>(size);
    return v.small_.data;
  }
  const std::uint32_t n = detail::checked_size(size);
  auto* node = new (detail::allocate_node(sizeof(TextNode) + n)) TextNode{};
  node->size = n;
  detail::attach(node);
  v.init_node(kind, node, n);
  return node->data();
}

void ValueAccess::shorten_filled_text(Value& v, std::size_t size) noexcept {
  if (!(v.small_.flags & Value::kHeap)) {
    v.small_.size = static_cast<std::uint8_t>(size);
    return;
  }
  auto* node = static_cast<TextNode*>(v.wide_.u.node);
  node->size = static_cast<std::uint32_t>(size);
  v.init_node(v.small_.kind, node, node->size);
}

Value Value::bytes(std::span<const std::byte> data) {
  return bytes(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

Value Value::bytes(std::string_view data) {
  Value v;
  v.init_text(Kind::bytes, data);
  return v;
}

Value Value::keyword(std::string_view name) {
  Value v;
  v.init_text(Kind::keyword, name);
  return v;
}

Value Value::symbol(std::string_view name) {
  Value v;
  v.init_text(Kind::symbol, name);
  return v;
}

Value Value::uri(std::string_view text) {
  Value v;
  v.init_text(Kind::uri, text);
  return v;
}

Value Value::character(char32_t c) {
  // The check and the message of Value(char32_t) and the typed writer, made before the Value:
  // with a Value alive across the call that may throw, each `~c` read saved and restored two
  // registers for its destructor.
  const char32_t cp = detail::code_point_of(c);
  Value v;
  v.wide_.kind = Kind::character;
  v.wide_.u.c = cp;
  return v;
}

Value Value::instant(std::int64_t ms) noexcept { return ValueAccess::instant(ms); }

namespace {
// A UUID's node when the arena's current block has no room or no arena is open: out of line,
// as init_text's text_node_elsewhere.
[[gnu::noinline]] detail::UuidNode* uuid_node_elsewhere(Uuid u) {
  auto* node = new (detail::allocate_node(sizeof(detail::UuidNode))) detail::UuidNode{};
  node->value = u;
  detail::attach(node);
  return node;
}
}  // namespace

Value Value::uuid(Uuid u) {
  detail::Arena* const arena = detail::t_arena;
  void* memory = arena ? arena->try_allocate(sizeof(detail::UuidNode)) : nullptr;
  if (!memory) [[unlikely]] {
    // The whole Value out of line, so that no Value is alive across a call here: with one
    // (which an exception would destroy), every UUID cleared its Value first and saved two
    // registers and a frame for this path's sake.
    return [](Uuid w) __attribute__((noinline)) {
      Value v;
      v.init_node(Kind::uuid, uuid_node_elsewhere(w), 0);
      return v;
    }(u);
  }
  Value v;
  auto* node = new (memory) detail::UuidNode{};
  node->value = u;
  node->arena = arena;
  arena->count_born();
  v.init_node(Kind::uuid, node, 0);
  return v;
}

namespace {

// Finds duplicates while a set or map is built. For short ranges a scan beats hashing; longer
// ones use an open-addressing table of (hash, index) kept per thread and reused, so building
// a container allocates nothing beyond the container itself. The table is sized for the
// distinct keys found, not for the keys given: 16M nils make a set of one, and a table for
// 16M keys cost 8x their MessagePack bytes.
class DuplicateFinder {
 public:
  explicit DuplicateFinder(std::size_t n) : use_index_(n > 8) {
    if (!use_index_) return;
    std::size_t slots = 16;
    while (slots < 2 * std::min(n, kFirstKeys)) slots *= 2;
    table().assign(slots, Slot{0, kEmpty});
    mask_ = slots - 1;
  }
  // The table is kept for the next container, but not at the size a huge one needed.
  ~DuplicateFinder() {
    if (use_index_ && table().capacity() > kKeptSlots) std::vector<Slot>().swap(table());
  }
  DuplicateFinder(const DuplicateFinder&) = delete;
  DuplicateFinder& operator=(const DuplicateFinder&) = delete;

  // The position among the `kept` distinct keys so far that equals key_of(kept), or `kept`
  // when it is new (and then remembered at that position).
  template <class KeyOf>
  std::size_t first_equal(KeyOf key_of, std::size_t kept) {
    const Value& k = key_of(kept);
    if (!use_index_) {
      // A key whose filter bit no earlier key has is new: most keys of a small map are
      // settled by that alone, with no comparison.
      const std::uint64_t bit = ValueAccess::filter_bit(k);
      if (!(seen_ & bit)) {
        seen_ |= bit;
        return kept;
      }
      for (std::size_t j = 0; j < kept; ++j)
        if (ValueAccess::same_key(key_of(j), k)) return j;
      return kept;
    }
    const std::size_t h = k.hash();
    // The slot is chosen by the low bits; the high ones tell most unequal keys apart.
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    std::vector<Slot>& t = table();
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (t[i].index == kEmpty) {
        t[i] = {tag, static_cast<std::uint32_t>(kept)};
        // At most half full: probes stay short.
        if (2 * (kept + 1) > mask_ + 1) grow(key_of, kept + 1);
        return kept;
      }
      if (t[i].tag == tag && ValueAccess::same_key(key_of(t[i].index), k)) return t[i].index;
    }
  }

 private:
  // 8 bytes: with 2 to 4 slots a key, a table of 16-byte slots cost up to 64 bytes a key,
  // more than the container it checks.
  struct Slot {
    std::uint32_t tag;
    std::uint32_t index;
  };
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  static constexpr std::size_t kKeptSlots = std::size_t{1} << 17;
  // Up to this many keys the table is sized from the start and never grows.
  static constexpr std::size_t kFirstKeys = std::size_t{1} << 12;

  // Doubles the table and places the `kept` distinct keys again.
  template <class KeyOf>
  void grow(KeyOf key_of, std::size_t kept) {
    std::vector<Slot>& t = table();
    t.assign(2 * (mask_ + 1), Slot{0, kEmpty});
    mask_ = t.size() - 1;
    for (std::size_t j = 0; j < kept; ++j) {
      const std::size_t h = key_of(j).hash();
      std::size_t i = h & mask_;
      while (t[i].index != kEmpty) i = (i + 1) & mask_;
      t[i] = {static_cast<std::uint32_t>(h >> 32), static_cast<std::uint32_t>(j)};
    }
  }
  static std::vector<Slot>& table() {
    thread_local std::vector<Slot> t;
    return t;
  }

  bool use_index_;
  std::size_t mask_ = 0;
  std::uint64_t seen_ = 0;  // the filter bits of the keys so far (scanned ranges)
};

}  // namespace

bool ValueAccess::borrow(Value& child, detail::ArenaHeader* arena) noexcept {
  if ((child.small_.flags & (Value::kHeap | Value::kBorrowed)) != Value::kHeap) return true;
  if (child.wide_.u.node->arena != arena) return false;
  // The arena keeps the child's node alive for as long as its parent: no count needed. The
  // parent is being built, so its arena's scope is open on this thread: the count goes back
  // to the open counts, with no atomic operation.
  static_cast<detail::Arena*>(arena)->count_given_back();
  child.small_.flags |= Value::kBorrowed;
  return true;
}

Value ValueAccess::alias_node(const Value& v) noexcept {
  if (!detail::t_arena || v.wide_.u.node->arena != detail::t_arena) return v;
  // The flag set in the word, not in memory afterwards: the caller's load of the Value it
  // gets could not be forwarded from a word store and a byte store (see alias).
  Value::Raw raw = Value::words_of(v.raw_);
  raw.a |= detail::head_word(Kind{}, Value::kBorrowed, 0, true);
  return from_words(raw);
}

ArenaScope::ArenaScope() : previous_(detail::t_arena) {
  auto* arena = new detail::Arena(detail::t_arena_hint);
  arena->open();
  arena_ = arena;
  detail::t_arena = arena;
}

ArenaScope::~ArenaScope() {
  auto* arena = static_cast<detail::Arena*>(arena_);
  detail::t_arena = static_cast<detail::Arena*>(previous_);
  detail::t_arena_hint = std::clamp<std::size_t>(arena->allocated() + 256, 1024, std::size_t{1} << 20);
  if (arena->close()) delete arena;
}

namespace {

// Past Value::kMaxDepth a builder refuses: every recursive walk of a Value (destroy, write,
// compare, hash, to_edn) then fits in a thread's stack, whatever a program builds.
[[noreturn, gnu::cold]] void too_deep() {
  detail::throw_error(Errc::too_deep, "value nests deeper than " +
                                          std::to_string(Value::kMaxDepth) +
                                          " levels (Value::kMaxDepth)");
}

}  // namespace

// The arena's half of finishing a container node, in one pass over its children: a child
// from the arena is borrowed (the arena keeps its node alive: the count it was born with goes
// back, summed, in one step), a child from elsewhere keeps its count (the node is then listed,
// for the arena to release it), and the deepest child gives the node its height. An inline
// child (most of a document's) costs one test of its flags and one of its kind (an empty
// container is one level deep); a child on the heap, a few loads of its node's header. Taking
// a child twice is harmless: a borrowed child is left alone (see finish_map_in_arena).
struct ValueAccess::Adoption {
  static constexpr std::uint32_t kContainerKinds =
      1U << static_cast<unsigned>(Kind::array) | 1U << static_cast<unsigned>(Kind::list) |
      1U << static_cast<unsigned>(Kind::set) | 1U << static_cast<unsigned>(Kind::map) |
      1U << static_cast<unsigned>(Kind::link);
  static_assert(static_cast<unsigned>(Kind::object) < 32);
  detail::Arena* arena;
  std::uint32_t deepest = 0;          // the greatest height of a child node
  std::uint32_t inline_kinds = 0;     // a bit for the kind of each inline child taken
  std::int64_t borrowed = 0;          // children borrowed so far, whose counts go back
  bool foreign = false;               // a child from elsewhere was taken

  [[gnu::always_inline]] void take(Value& child) noexcept {
    const std::uint8_t flags = child.small_.flags;
    if (flags & Value::kHeap) {
      const detail::Node* n = child.wide_.u.node;
      deepest = std::max(deepest, n->height);
      if (!(flags & Value::kBorrowed)) {
        if (n->arena == arena) {
          child.small_.flags = flags | Value::kBorrowed;
          ++borrowed;
        } else {
          foreign = true;
        }
      }
    } else {
      // A bit per kind, gathered: whether one was an (empty) container is asked once, in
      // finish(), where a test here of each child's kind cost two instructions more a child.
      inline_kinds |= 1U << static_cast<unsigned>(child.small_.kind);
    }
  }
  // Measures again (the children kept after a compaction), keeping what was borrowed.
  void remeasure() noexcept { deepest = inline_kinds = 0; }

  // Gives `node` (of `kind`, `size` items or entries), whose children were all taken, its
  // arena, its height and the count of the Value returned. Past Value::kMaxDepth it throws
  // Error(too_deep), and the node stays in the arena's blocks, unreferenced, as anything a
  // failed read built there.
  Value finish(Kind kind, detail::Node* node, std::uint32_t size) {
    arena->count_open(-borrowed);
    borrowed = 0;
    node->arena = arena;
    if (foreign) arena->list_foreign(kind, node);
    // An empty container, held inline, is one level deep.
    const std::uint32_t height = std::max(deepest, (inline_kinds & kContainerKinds) != 0 ? 1U : 0U);
    if (height >= Value::kMaxDepth) too_deep();
    node->height = height + 1;
    arena->count_born();
    Value v;
    v.init_node(kind, node, size);
    return v;
  }
};

// Gives a built node its height (one more than its deepest child, `children` of them) and
// its owner, and returns the Value that refers to it; a node of an arena adopts its children.
// Throws Error(too_deep) past Value::kMaxDepth, leaving nothing behind: a heap node is freed
// with its children; an arena node (what a reader builds, where this is hot) is measured in
// the pass that adopts its children, and left unreferenced in its arena.
template <class ContainerNode, class ForEachChild>
Value ValueAccess::finish_container(Kind kind, ContainerNode* node, std::uint32_t children,
                                    ForEachChild for_each_child) {
  if (detail::Arena* arena = detail::t_arena) {
    Adoption adoption{arena};
    for_each_child([&](Value& child) { adoption.take(child); });
    return adoption.finish(kind, node, children);
  }
  std::size_t deepest = 0;
  for_each_child([&](Value& child) { deepest = std::max(deepest, child.depth()); });
  if (deepest >= Value::kMaxDepth) {
    for_each_child([](Value& child) { child.~Value(); });
    std::free(node);
    too_deep();
  }
  node->height = static_cast<std::uint32_t>(deepest + 1);
  Value v;
  v.init_node(kind, node, children);
  return v;
}

Value ValueAccess::make_sequence(Kind kind, std::span<Value> items) {
  if (items.empty()) return empty(kind);
  const std::uint32_t n = detail::checked_size(items.size());
  auto* node = new (detail::allocate_node(sizeof(SeqNode) + n * sizeof(Value))) SeqNode{};
  Value* out = node->items();
  std::uint32_t kept = 0;
  if (kind == Kind::set) {
    DuplicateFinder dups(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      // Compacting in place: out[0..kept) are the distinct items so far.
      auto key_of = [&](std::size_t j) -> const Value& { return j < kept ? out[j] : items[i]; };
      if (dups.first_equal(key_of, kept) == kept) new (out + kept++) Value(std::move(items[i]));
    }
  } else {
    for (; kept < n; ++kept) new (out + kept) Value(std::move(items[kept]));
  }
  node->size = kept;
  return finish_container(kind, node, kept, [&](auto&& f) {
    for (std::uint32_t i = 0; i < kept; ++i) f(out[i]);
  });
}

namespace {
// sole_items, inline in sequence_in_place, whose common case then calls nothing.
// `counted_array`: the value is an array on the heap, not borrowed (so `node` is its node).
// `node` is cast to a SeqNode only then: for any other value the word is not a node's address
// (an integer's bits, say), and even an unused downcast of it is undefined behaviour.
[[gnu::always_inline]] inline std::span<Value> sole_items_of(bool counted_array,
                                                             detail::Node* base) noexcept {
  if (!counted_array) return {};
  auto* node = static_cast<SeqNode*>(base);
  if (node->refs.load(std::memory_order_acquire) != 1 || node->arena != detail::t_arena) return {};
  return {node->items(), node->size};
}

// A set's items made distinct where they are (as make_sequence's): returns how many are
// kept, the node's size and height set for them. Out of line: a list's rep, or a set's of
// one item, then calls nothing.
[[gnu::noinline]] std::uint32_t distinct_in_place(SeqNode* node, std::span<Value> items) {
  const auto n = static_cast<std::uint32_t>(items.size());
  // items[0..kept) are the distinct items so far.
  std::uint32_t kept = 0;
  {
    DuplicateFinder dups(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      auto key_of = [&](std::size_t j) -> const Value& { return items[j < kept ? j : i]; };
      if (dups.first_equal(key_of, kept) == kept) {
        if (i != kept) items[kept] = std::move(items[i]);
        ++kept;
      }
    }
  }
  if (kept != n) {
    // The duplicates let go of what they hold; the node is as tall as what it keeps.
    std::destroy(items.begin() + kept, items.end());
    node->size = kept;
    std::size_t deepest = 0;
    for (std::uint32_t i = 0; i < kept; ++i) deepest = std::max(deepest, items[i].depth());
    node->height = static_cast<std::uint32_t>(deepest + 1);
  }
  return kept;
}

// Whether a set's 2 to 4 items are all distinct, compared pairwise (at most 6 same_key, each
// settled inline for two inline items): false for more items or a duplicate, which
// distinct_in_place then takes. Its filter and frame cost a set of 2 or 3 keywords about
// 120 instructions (extensions: 2,100 such sets a read).
[[gnu::always_inline]] inline bool few_distinct(std::span<const Value> items) noexcept {
  if (items.size() > 4) return false;
  for (std::size_t i = 1; i < items.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (ValueAccess::same_key(items[i], items[j])) return false;
  return true;
}
}  // namespace

std::span<Value> ValueAccess::sole_items(Value& v) noexcept {
  return sole_items_of(v.kind() == Kind::array &&
                           (v.small_.flags & (Value::kHeap | Value::kBorrowed)) == Value::kHeap,
                       v.wide_.u.node);
}

bool ValueAccess::sequence_in_place(Kind kind, Value& v) {
  const std::span<Value> items = sole_items_of(
      v.kind() == Kind::array && (v.small_.flags & (Value::kHeap | Value::kBorrowed)) == Value::kHeap,
      v.wide_.u.node);
  if (items.empty()) return false;
  auto* node = static_cast<SeqNode*>(v.wide_.u.node);  // an array's own node (sole_items_of)
  if (kind == Kind::set && items.size() > 1 && !few_distinct(items)) {
    const std::uint32_t kept = distinct_in_place(node, items);
    v.init_node(Kind::set, node, kept);
    return true;
  }
  v.init_node(kind, node, static_cast<std::uint32_t>(items.size()));
  return true;
}

namespace {
/// The slots of a sequence node of `n` items to be built in `memory`.
[[gnu::always_inline]] inline ValueAccess::Slots sequence_slots_in(void* memory, std::uint32_t n,
                                                                   detail::ArenaHeader* arena) {
  auto* node = new (memory) SeqNode{};
  return {node, node->items(), n, arena};
}
// reserve_sequence when the arena's current block has no room, or no arena is open, or the
// capacity is refused (checked_size throws): out of line, as reserve_map_slowly is, so that
// the common case (a bump of the arena's block) calls nothing and saves no register.
[[gnu::noinline]] ValueAccess::Slots reserve_sequence_slowly(std::size_t capacity) {
  const std::uint32_t n = detail::checked_size(capacity);
  return sequence_slots_in(detail::allocate_node(sizeof(SeqNode) + std::size_t{n} * sizeof(Value)),
                           n, detail::t_arena);
}
}  // namespace

ValueAccess::Slots ValueAccess::reserve_sequence(std::size_t capacity) {
  detail::Arena* const arena = detail::t_arena;
  // The capacity's check is the slow path's: with checked_size's call here, every array's
  // reserve saved three registers around its bump.
  void* memory = capacity <= UINT32_MAX && arena
                     ? arena->try_allocate(sizeof(SeqNode) + capacity * sizeof(Value))
                     : nullptr;
  if (!memory) [[unlikely]]
    return reserve_sequence_slowly(capacity);
  return sequence_slots_in(memory, static_cast<std::uint32_t>(capacity), arena);
}

ValueAccess::Slots ValueAccess::reserve_growable_sequence(std::size_t capacity) {
  const std::uint32_t n = detail::checked_size(capacity);
  auto* node = new (detail::allocate(sizeof(SeqNode) + std::size_t{n} * sizeof(Value))) SeqNode{};
  return {node, node->items(), n, nullptr};
}

void ValueAccess::grow_sequence(Slots& slots, std::size_t capacity) {
  const std::uint32_t n = detail::checked_size(capacity);
  // On failure the slots stay as they were, for abandon_sequence.
  void* grown = std::realloc(static_cast<void*>(slots.node), sizeof(SeqNode) + std::size_t{n} * sizeof(Value));
  if (!grown) throw std::bad_alloc();
  auto* node = static_cast<SeqNode*>(grown);
  slots = {node, node->items(), n, nullptr};
}

Value ValueAccess::finish_sequence(Kind kind, Slots& slots, std::uint32_t size) {
  // Taken field by field, as finish_map takes them: a Slots copied whole (std::exchange)
  // went through the stack on every array.
  auto* node = static_cast<SeqNode*>(slots.node);
  auto* arena = static_cast<detail::Arena*>(slots.arena);
  if (arena && size != 0) [[likely]] {
    // Items that are all inline scalars (geojson's coordinate pairs, 2 doubles): nothing to
    // borrow, list or measure, a node one level deep. Here, with no call, so that this path
    // saves no register; anything else by finish_sequence_adopting.
    const Value* items = node->items();
    std::uint32_t i = 0;
    while (i < size && !(items[i].small_.flags & Value::kHeap) &&
           !(Adoption::kContainerKinds >> static_cast<unsigned>(items[i].small_.kind) & 1))
      ++i;
    if (i == size) {
      slots = {};
      node->size = size;
      node->arena = arena;
      node->height = 1;
      arena->count_born();
      Value v;
      v.init_node(kind, node, size);
      return v;
    }
    return finish_sequence_adopting(kind, slots, size);
  }
  return finish_sequence_elsewhere(kind, slots, size);
}

Value ValueAccess::finish_sequence_adopting(Kind kind, Slots& slots, std::uint32_t size) {
  auto* node = static_cast<SeqNode*>(slots.node);
  auto* arena = static_cast<detail::Arena*>(slots.arena);
  // Slots of the arena open (the document a reader builds) adopt their items, as
  // make_sequence's do.
  slots = {};
  node->size = size;
  Adoption adoption{arena};
  Value* items = node->items();
  for (std::uint32_t i = 0; i < size; ++i) adoption.take(items[i]);
  return adoption.finish(kind, node, size);
}

// finish_sequence for heap slots or none filled: out of line, so that the arena's case
// saves only the registers it needs (its frame had room for this path's too).
Value ValueAccess::finish_sequence_elsewhere(Kind kind, Slots& slots, std::uint32_t size) {
  auto* node = static_cast<SeqNode*>(slots.node);
  auto* arena = static_cast<detail::Arena*>(slots.arena);
  const std::uint32_t capacity = slots.capacity;
  slots = {};
  if (size == 0) {
    if (!arena) node->~SeqNode(), std::free(node);
    return empty(kind);
  }
  if (!arena && size < capacity) {
    // Heap slots grown by doubling give back the room they did not use.
    if (void* fit = std::realloc(static_cast<void*>(node), sizeof(SeqNode) + std::size_t{size} * sizeof(Value)))
      node = static_cast<SeqNode*>(fit);
  }
  if (!arena && detail::t_arena) {
    // Heap slots of a document built in an arena: the arena takes the block over, and the
    // node is one of its nodes from here on (see Arena::take_over).
    try {
      detail::t_arena->take_over(node, sizeof(SeqNode) + std::size_t{size} * sizeof(Value));
    } catch (...) {
      std::destroy_n(node->items(), size);
      std::free(node);
      throw;
    }
    arena = detail::t_arena;
  }
  node->size = size;
  // The height and the depth limit, as finish_container gives every other node: a heap node
  // is measured before it is owned, and freed with its items when it is too deep.
  std::size_t deepest = 0;
  if (!arena) {
    for (std::uint32_t i = 0; i < size; ++i) {
      Value& child = node->items()[i];
      deepest = std::max(deepest, child.depth());
      // Heap slots with no arena open: should a child have been placed as an alias (a cache
      // hit, which holds no count), nothing would keep its arena alive: it takes its count
      // now, as an ordinary copy does.
      if (child.small_.flags & Value::kBorrowed) {
        Value counted(std::as_const(child));
        child.~Value();  // a borrowed Value gives back no count
        new (&child) Value(std::move(counted));
      }
    }
    if (deepest >= Value::kMaxDepth) {
      std::destroy_n(node->items(), size);
      node->~SeqNode();
      std::free(node);
      too_deep();
    }
    node->height = static_cast<std::uint32_t>(deepest + 1);
  }
  if (arena) {
    // The arena the slots came from (open: the slots are finished while their document is
    // built) adopts the node and its items, as make_sequence's do.
    Adoption adoption{arena};
    Value* items = node->items();
    for (std::uint32_t i = 0; i < size; ++i) adoption.take(items[i]);
    return adoption.finish(kind, node, size);
  }
  Value v;
  v.init_node(kind, node, size);
  return v;
}

void ValueAccess::abandon_sequence(Slots& slots, std::uint32_t size) noexcept {
  if (!slots.items) return;
  auto* node = static_cast<SeqNode*>(slots.node);
  std::destroy_n(node->items(), size);
  // A node in an arena goes with its arena's blocks.
  if (!slots.arena) node->~SeqNode(), std::free(node);
  slots = {};
}

std::uint32_t ValueAccess::compact_entries(Value* flat, std::uint32_t entries) {
  // Entries [0, kept) are the distinct keys so far, each with the last value given for it.
  std::uint32_t kept = 0;
  {
    DuplicateFinder dups(entries);
    for (std::uint32_t i = 0; i < entries; ++i) {
      auto key_of = [&](std::size_t j) -> const Value& { return flat[2 * (j < kept ? j : i)]; };
      const std::size_t at = dups.first_equal(key_of, kept);
      if (at == kept) {
        if (i != kept) {
          flat[2 * kept] = std::move(flat[2 * i]);
          flat[2 * kept + 1] = std::move(flat[2 * i + 1]);
        }
        ++kept;
      } else {
        flat[2 * at + 1] = std::move(flat[2 * i + 1]);
        flat[2 * i] = Value();
      }
    }
  }
  // What the compaction left behind is moved from: null, nothing to release.
  std::destroy(flat + 2 * kept, flat + 2 * std::size_t{entries});
  return kept;
}

// The keys of a map of 9 to 64 entries: each key's filter_mix places it in a table of 128
// slots (at most half full), and a key is compared (same_key) only with those of the same
// 64-bit mix met on its probe. Distinct keys, the common case, need no Value::hash and
// almost never a comparison. Keys chosen to mix alike (texts with the same length and first
// and last 8 bytes, doubles, composites) each probe past those before them: at most
// entries^2/2 comparisons, as the scan of up to 8 keys costs.
bool ValueAccess::distinct_keys(const Value* flat, std::uint32_t entries) noexcept {
  constexpr std::uint32_t kSlots = 2 * kMidKeys;
  static_assert(kMidKeys <= UINT8_MAX && (kSlots & (kSlots - 1)) == 0);
  std::uint8_t table[kSlots] = {};  // 1 + the key's position, 0 for a free slot
  std::uint64_t mixes[kMidKeys];
  for (std::uint32_t i = 0; i < entries; ++i) {
    const Value& key = flat[2 * i];
    const std::uint64_t mix = filter_mix(key);
    mixes[i] = mix;
    // The top bits place the key; the multiply in filter_mix spreads every input bit there.
    std::uint32_t slot = static_cast<std::uint32_t>(mix >> 57);
    for (; table[slot] != 0; slot = (slot + 1) & (kSlots - 1)) {
      const std::uint32_t j = table[slot] - 1u;
      if (mixes[j] == mix && same_key(flat[2 * j], key)) return false;
    }
    table[slot] = static_cast<std::uint8_t>(i + 1);
  }
  return true;
}

// Up to this many entries, finish_map_in_arena looks for duplicate keys as it adopts them:
// a key whose filter bit (ValueAccess::filter_bit) no earlier key has is new with no
// comparison, and a key that shares one is compared with those before it.
constexpr std::uint32_t kKeysCheckedInPassing = 8;

// Inline in both callers: a call between them cost a reader's map about 20 instructions.
[[gnu::always_inline]] inline Value ValueAccess::finish_map_in_arena(
    detail::ArenaHeader* arena, Kind kind, detail::Node* map, Value* flat, std::uint32_t entries) {
  auto* node = static_cast<MapNode*>(map);
  Adoption adoption{static_cast<detail::Arena*>(arena)};
  // Most maps have no duplicate key: each key is checked as it is adopted, with its value,
  // in one pass, and nothing moves (a map of 9 to 64 entries has its keys checked first, by
  // distinct_keys). A duplicate (or a map of more than 64 entries) stops the pass
  // and the entries are compacted (compact_entries), then the pass runs again over those
  // kept: what it took already is borrowed and left alone, and the height is measured anew,
  // on what was kept (a value replaced by a later one for its key is gone).
  std::uint32_t i = 0;
  if (entries <= 2) {
    // One key has no duplicate, two are one comparison (the filter would cost two bits):
    // two inline keys that are not doubles (the commonest pair) are equal exactly when
    // their bits are, settled here with no call of same_key.
    const Value* a = flat;
    const Value* b = flat + 2;  // past the end of a map of one entry: not read then
    const bool plain_pair = entries == 2 &&
                            !((a->small_.flags | b->small_.flags) & Value::kHeap) &&
                            a->small_.kind != Kind::floating;
    if (entries == 1 || (plain_pair ? a->raw_.a != b->raw_.a || a->raw_.b != b->raw_.b
                                    : !same_key(*a, *b))) {
      for (; i < 2 * entries; ++i) adoption.take(flat[i]);
      i = entries;
    }
  } else if (entries <= kKeysCheckedInPassing) {
    std::uint64_t seen = 0;
    for (; i < entries; ++i) {
      Value& key = flat[2 * i];
      const std::uint64_t bit = filter_bit(key);
      if (seen & bit) {
        std::uint32_t j = 0;
        while (j < i && !same_key(flat[2 * j], key)) ++j;
        if (j < i) break;  // a duplicate
      }
      seen |= bit;
      adoption.take(key);
      adoption.take(flat[2 * i + 1]);
    }
  } else if (entries <= kMidKeys) {
    // Checked before the pass, out of line: the table would cost every small map its frame.
    if (distinct_keys(flat, entries)) {
      for (; i < 2 * entries; ++i) adoption.take(flat[i]);
      i = entries;
    }
  }
  std::uint32_t kept = entries;
  if (i < entries) {
    kept = compact_entries(flat, entries);
    adoption.remeasure();
    for (std::uint32_t j = 0; j < 2 * kept; ++j) adoption.take(flat[j]);
  }
  node->size = kept;
  if (auto* index = node->index()) new (index) std::atomic<detail::KeyIndex*>(nullptr);
  return adoption.finish(kind, node, kept);
}

Value ValueAccess::make_map(Kind kind, std::span<Value> flat) {
  if (flat.empty()) return empty(kind);
  const std::uint32_t n = detail::checked_size(flat.size() / 2);
  auto* node = new (detail::allocate_node(MapNode::bytes_for(n))) MapNode{};
  if (detail::t_arena) {
    // The entries move into the node as they are, to be checked and adopted there as a
    // reader's map slots are.
    Value* out = reinterpret_cast<Value*>(node->entries());
    for (std::uint32_t i = 0; i < 2 * n; ++i) new (out + i) Value(std::move(flat[i]));
    return finish_map_in_arena(detail::t_arena, kind, node, out, n);
  }
  Entry* out = node->entries();
  std::uint32_t kept = 0;
  DuplicateFinder dups(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto key_of = [&](std::size_t j) -> const Value& {
      return j < kept ? out[j].first : flat[2 * i];
    };
    const std::size_t at = dups.first_equal(key_of, kept);
    if (at == kept)
      new (out + kept++) Entry(std::move(flat[2 * i]), std::move(flat[2 * i + 1]));
    else {
      out[at].second = std::move(flat[2 * i + 1]);
      flat[2 * i] = Value();  // the duplicate key too: `flat` is left all moved from
    }
  }
  node->size = kept;
  if (auto* index = node->index()) new (index) std::atomic<detail::KeyIndex*>(nullptr);
  // Measured on what was kept: a value replaced by a later one for the same key is gone.
  return finish_container(kind, node, kept, [&](auto&& f) {
    for (std::uint32_t i = 0; i < kept; ++i) {
      f(out[i].first);
      f(out[i].second);
    }
  });
}

// A map node's entries, seen as a flat run of Values (key, value, ...): the slots a reader
// decodes the entries into. An Entry is exactly two Values, key first.
static_assert(sizeof(Entry) == 2 * sizeof(Value) && offsetof(Entry, second) == sizeof(Value));

namespace {
/// The slots of a map node of `entries` entries to be built in `memory`.
[[gnu::always_inline]] inline ValueAccess::Slots map_slots_in(void* memory, std::size_t entries,
                                                              detail::ArenaHeader* arena) {
  auto* node = new (memory) MapNode{};
  return {node, reinterpret_cast<Value*>(node->entries()), static_cast<std::uint32_t>(2 * entries),
          arena};
}
// reserve_map when the current block of the arena has no room, or no arena is open: out of
// line, and called only to return its result, so that the common case calls nothing and
// saves two registers (for the struct it returns), where with a call for memory in its
// middle it saved four.
[[gnu::noinline]] ValueAccess::Slots reserve_map_slowly(std::size_t entries) {
  if (entries > UINT32_MAX / 2) detail::throw_error(Errc::invalid_argument, "value larger than 4 GiB");
  return map_slots_in(detail::allocate_node(MapNode::bytes_for(entries)), entries, detail::t_arena);
}
}  // namespace

ValueAccess::Slots ValueAccess::reserve_map(std::size_t entries) {
  detail::Arena* const arena = detail::t_arena;
  // The count's check is the slow path's, as reserve_sequence's.
  void* memory = entries <= UINT32_MAX / 2 && arena ? arena->try_allocate(MapNode::bytes_for(entries))
                                                    : nullptr;
  if (!memory) [[unlikely]]
    return reserve_map_slowly(entries);
  return map_slots_in(memory, entries, arena);
}

Value ValueAccess::finish_map(Kind kind, Slots& slots, std::uint32_t size) {
  // Taken field by field: a Slots copied whole (std::exchange) went through the stack, 32
  // bytes stored and loaded again, on every map.
  auto* node = static_cast<MapNode*>(slots.node);
  Value* const flat = slots.items;
  detail::ArenaHeader* const arena = slots.arena;
  const std::uint32_t entries = size / 2;
  if (!arena || entries == 0) [[unlikely]]
    return finish_map_elsewhere(kind, slots, size);
  slots = {};
  // Slots reserved in an arena are finished while it is open (in the document it builds).
  return finish_map_in_arena(arena, kind, node, flat, entries);
}

// finish_map of heap slots, or of none filled: out of line, as finish_sequence_elsewhere.
Value ValueAccess::finish_map_elsewhere(Kind kind, Slots& slots, std::uint32_t size) {
  auto* node = static_cast<MapNode*>(slots.node);
  Value* const flat = slots.items;
  detail::ArenaHeader* const arena = slots.arena;
  slots = {};
  const std::uint32_t entries = size / 2;
  if (entries == 0) {
    if (!arena) node->~MapNode(), std::free(node);
    return empty(kind);
  }
  const std::uint32_t kept = compact_entries(flat, entries);
  node->size = kept;
  if (auto* index = node->index()) new (index) std::atomic<detail::KeyIndex*>(nullptr);
  return finish_container(kind, node, kept, [&](auto&& f) {
    for (std::uint32_t i = 0; i < 2 * kept; ++i) f(flat[i]);
  });
}

Value Value::array(std::vector<Value> items) {
  return ValueAccess::make_sequence(Kind::array, items);
}
Value Value::list(std::vector<Value> items) { return ValueAccess::make_sequence(Kind::list, items); }
Value Value::set(std::vector<Value> items) { return ValueAccess::make_sequence(Kind::set, items); }

Value Value::map(std::vector<Entry> entries) {
  std::vector<Value> flat;
  flat.reserve(entries.size() * 2);
  for (auto& [k, v] : entries) {
    flat.push_back(std::move(k));
    flat.push_back(std::move(v));
  }
  return ValueAccess::make_map(Kind::map, flat);
}

Value Value::link(std::string_view href, std::string_view rel, std::string_view name,
                  std::string_view prompt, std::string_view render) {
  if (render != "link" && render != "image")
    detail::throw_error(Errc::invalid_argument, "link render must be \"link\" or \"image\"");
  std::vector<Value> flat{"href", Value::uri(href), "rel", rel};
  if (!name.empty()) flat.insert(flat.end(), {"name", name});
  if (!prompt.empty()) flat.insert(flat.end(), {"prompt", prompt});
  flat.insert(flat.end(), {"render", render});
  return ValueAccess::make_map(Kind::link, flat);
}

Value Value::link(Value fields) {
  if (fields.kind() != Kind::map)
    detail::throw_error(Errc::invalid_argument, "a link is built from a map of its fields");
  std::vector<Value> flat;
  for (const auto& [k, v] : fields.entries()) {
    // Field names are written as map keys, which must be strings.
    if (k.kind() != Kind::string)
      detail::throw_error(Errc::invalid_argument, "a link's field names are strings");
    flat.insert(flat.end(), {k, v});
  }
  return ValueAccess::make_map(Kind::link, flat);
}

Value Value::tagged(std::string_view tag, Value rep) {
  if (tag.empty()) detail::throw_error(Errc::invalid_argument, "a tag is never empty");
  detail::check_made_tagged(tag, rep);
  return ValueAccess::tagged(Value(tag), std::move(rep));
}

namespace {
// ValueAccess::tagged's node when the arena's current block has no room or no arena is open.
[[gnu::noinline]] TaggedNode* tagged_node_elsewhere(std::uint32_t height, Value& tag, Value& rep) {
  auto* node = new (detail::allocate_node(sizeof(TaggedNode))) TaggedNode{};
  node->height = height;
  node->tag = std::move(tag);
  node->rep = std::move(rep);
  detail::attach(node);
  return node;
}
// A tagged node of `arena` whose tag or rep is from elsewhere: listed for the arena to release
// them (borrowing a child again is harmless).
[[gnu::noinline]] void adopt_tag_and_rep(detail::Arena* arena, TaggedNode* node) {
  bool listed = false;
  arena->adopt(Kind::tagged, node, node->tag, listed);
  arena->adopt(Kind::tagged, node, node->rep, listed);
}
}  // namespace

Value ValueAccess::tagged(Value tag, Value rep) {
  // Around a scalar a tagged value is a scalar (as "~qabc" is on the wire); around a
  // container or another tagged value it is one level more.
  const bool is_level = rep.depth() != 0 || rep.kind() == Kind::tagged;
  if (is_level && rep.depth() >= Value::kMaxDepth) too_deep();
  const auto height = static_cast<std::uint32_t>(is_level ? rep.depth() + 1 : 0);
  // The common case, a bump of the arena's block and two children borrowed, calls nothing:
  // the node's other sources and the listing of a child from elsewhere are out of line, so
  // that it saves one register where it saved six and set up a frame.
  detail::Arena* const arena = detail::t_arena;
  void* memory = arena ? arena->try_allocate(sizeof(TaggedNode)) : nullptr;
  TaggedNode* node;
  if (memory) [[likely]] {
    node = new (memory) TaggedNode{};
    node->height = height;
    node->tag = std::move(tag);
    node->rep = std::move(rep);
    node->arena = arena;
    arena->count_born();
  } else {
    node = tagged_node_elsewhere(height, tag, rep);
  }
  Value v;
  v.init_node(Kind::tagged, node, 0);
  if (auto* in = static_cast<detail::Arena*>(node->arena))
    if (!borrow(node->tag, in) || !borrow(node->rep, in)) [[unlikely]]
      adopt_tag_and_rep(in, node);
  return v;
}

bool ValueAccess::detach_into(const Value& v, Value& out) {
  if (!v.on_heap()) return false;
  const Kind kind = v.kind();
  const bool in_arena = v.wide_.u.node->arena != nullptr;
  // A part is copied when it or anything below it is in an arena; the rest is shared.
  auto gather = [](const Value& child, std::vector<Value>& into) {
    Value copy;
    if (!detach_into(child, copy)) {
      into.push_back(child);
      return false;
    }
    into.push_back(std::move(copy));
    return true;
  };
  switch (kind) {
    case Kind::array:
    case Kind::list:
    case Kind::set: {
      std::vector<Value> items;
      items.reserve(v.size());
      bool changed = in_arena;
      for (const Value& item : v.items()) changed |= gather(item, items);
      if (!changed) return false;
      out = make_sequence(kind, items);
      return true;
    }
    case Kind::map:
    case Kind::link: {
      std::vector<Value> flat;
      flat.reserve(2 * v.size());
      bool changed = in_arena;
      for (const auto& [key, value] : v.entries()) {
        changed |= gather(key, flat);
        changed |= gather(value, flat);
      }
      if (!changed) return false;
      out = make_map(kind, flat);
      return true;
    }
    case Kind::tagged: {
      Value rep;
      const bool rep_changed = detach_into(v.rep(), rep);
      if (!in_arena && !rep_changed) return false;
      out = Value::tagged(v.tag(), rep_changed ? std::move(rep) : v.rep());
      return true;
    }
    case Kind::uuid:
      if (!in_arena) return false;
      out = Value::uuid(v.as_uuid());
      return true;
    case Kind::object:  // never built in an arena: objects come from user read handlers
      return false;
    default: {  // text
      if (!in_arena) return false;
      const auto* node = static_cast<const TextNode*>(v.wide_.u.node);
      Value text;
      text.init_text(kind, std::string_view(const_cast<TextNode*>(node)->data(), node->size));
      out = std::move(text);
      return true;
    }
  }
}

std::size_t ValueAccess::arena_bytes(const Value& v) noexcept {
  if (!v.on_heap() || !v.wide_.u.node->arena) return 0;
  return static_cast<const detail::Arena*>(v.wide_.u.node->arena)->block_bytes();
}

std::size_t ValueAccess::arena_used_bytes(const Value& v) noexcept {
  if (!v.on_heap() || !v.wide_.u.node->arena) return 0;
  return static_cast<const detail::Arena*>(v.wide_.u.node->arena)->allocated();
}

Value Value::detach() const {
  // Inside a reader's scope (a read handler detaching what it keeps) new nodes would go to
  // the arena being built: build on the heap.
  struct OnTheHeap {
    detail::Arena* saved = std::exchange(detail::t_arena, nullptr);
    ~OnTheHeap() { detail::t_arena = saved; }
  } on_the_heap;
  Value out;
  if (!ValueAccess::detach_into(*this, out)) return *this;
  return out;
}

Value Value::make_object(const std::type_info& type, void* obj, const detail::ObjectVtable* vt) {
  auto* node = new detail::ObjectNode{{}, &type, obj, vt};
  Value v;
  v.init_node(Kind::object, node, 0);
  return v;
}

// ---- access --------------------------------------------------------------------------------------

void Value::wrong_kind(const char* wanted) const {
  detail::throw_error(Errc::wrong_kind, std::string("expected ") + wanted + ", value is " +
                                            std::string(kind_name(kind())));
}

void Value::wrong_object(const std::type_info& wanted) const {
  std::string got(kind_name(kind()));
  if (kind() == Kind::object) got.append(" of type ").append(detail::type_name(object_type_info()));
  if (kind() == Kind::tagged) got.append(" ~#").append(tag());
  detail::throw_error(Errc::wrong_kind,
                      "expected " + detail::type_name(wanted) + ", value is " + got);
}

void* Value::sole_object() noexcept {
  if (kind() != Kind::object || !on_heap() || (small_.flags & kBorrowed)) return nullptr;
  detail::Node* n = wide_.u.node;
  if (n->arena || n->refs.load(std::memory_order_acquire) != 1) return nullptr;
  return const_cast<void*>(object_address());
}

bool Value::as_bool() const {
  if (kind() != Kind::boolean) wrong_kind("boolean");
  return wide_.u.b;
}

std::int64_t Value::as_int() const {
  if (kind() != Kind::integer) wrong_kind("integer");
  return wide_.u.i;
}

double Value::as_double() const {
  if (kind() != Kind::floating) wrong_kind("floating");
  return wide_.u.d;
}

std::string_view Value::as_string() const {
  if (kind() == Kind::tagged) return static_cast<TaggedNode*>(wide_.u.node)->tag.as_string();
  if (!detail::is_text_kind(kind()) || kind() == Kind::bytes) wrong_kind("text");
  if (!on_heap()) return {small_.data, small_.size};
  auto* node = static_cast<TextNode*>(wide_.u.node);
  return {node->data(), node->size};
}

std::span<const std::byte> Value::as_bytes() const {
  if (kind() != Kind::bytes) wrong_kind("bytes");
  if (!on_heap()) return {reinterpret_cast<const std::byte*>(small_.data), small_.size};
  auto* node = static_cast<TextNode*>(wide_.u.node);
  return {reinterpret_cast<const std::byte*>(node->data()), node->size};
}

char32_t Value::as_char() const {
  if (kind() != Kind::character) wrong_kind("character");
  return wide_.u.c;
}

std::int64_t Value::as_instant() const {
  if (kind() != Kind::instant) wrong_kind("instant");
  return wide_.u.i;
}

Uuid Value::as_uuid() const {
  if (kind() != Kind::uuid) wrong_kind("uuid");
  return static_cast<detail::UuidNode*>(wide_.u.node)->value;
}

std::span<const Value> Value::items() const {
  if (kind() != Kind::array && kind() != Kind::list && kind() != Kind::set)
    wrong_kind("array, list or set");
  if (!on_heap()) return {};  // empty
  auto* node = static_cast<SeqNode*>(wide_.u.node);
  return {node->items(), node->size};
}

std::span<const Entry> Value::entries() const {
  if (kind() != Kind::map && kind() != Kind::link) wrong_kind("map or link");
  if (!on_heap()) return {};  // empty
  auto* node = static_cast<MapNode*>(wide_.u.node);
  return {node->entries(), node->size};
}

std::size_t Value::size() const noexcept {
  switch (kind()) {
    case Kind::array:
    case Kind::list:
    case Kind::set:
    case Kind::map:
    case Kind::link:
      return wide_.size;
    default:
      return 0;
  }
}

namespace {
// operator[]'s error, its message built out of line: inline, its strings gave every index a
// 0xc0-byte frame and three saved registers.
[[noreturn, gnu::cold, gnu::noinline]] void index_out_of_range(std::size_t i, std::size_t size) {
  detail::throw_error(Errc::invalid_argument, "index " + std::to_string(i) + " out of range for " +
                                                  std::to_string(size) + " items");
}
}  // namespace

const Value& Value::operator[](std::size_t i) const {
  auto all = items();
  if (i >= all.size()) [[unlikely]]
    index_out_of_range(i, all.size());
  return all[i];
}

namespace {

detail::KeyIndex* build_key_index(std::span<const Entry> entries) {
  std::size_t slots = 64;
  while (slots < 2 * entries.size()) slots *= 2;
  auto* index = static_cast<detail::KeyIndex*>(
      detail::allocate(sizeof(detail::KeyIndex) + slots * sizeof(std::uint32_t)));
  index->next_in_arena = nullptr;
  index->mask = slots - 1;
  std::uint32_t* table = index->slots();
  std::fill_n(table, slots, 0u);
  for (std::uint32_t i = 0; i < entries.size(); ++i) {
    std::size_t at = entries[i].first.hash() & index->mask;
    while (table[at] != 0) at = (at + 1) & index->mask;  // keys are distinct: no compare
    table[at] = i + 1;
  }
  return index;
}

}  // namespace

const Value* Value::find(const Value& key) const {
  const std::span<const Entry> all = entries();
  if (all.size() <= detail::kIndexedFrom) {
    for (const auto& e : all)
      if (e.first == key) return &e.second;
    return nullptr;
  }
  auto* node = static_cast<MapNode*>(wide_.u.node);
  std::atomic<detail::KeyIndex*>& slot = *node->index();
  detail::KeyIndex* index = slot.load(std::memory_order_acquire);
  if (!index) {
    detail::KeyIndex* built = build_key_index(all);
    if (slot.compare_exchange_strong(index, built, std::memory_order_acq_rel)) {
      index = built;
      if (node->arena) static_cast<detail::Arena*>(node->arena)->own(built);
    } else {
      std::free(built);  // another thread's index is in place: `index` now points to it
    }
  }
  const std::uint32_t* table = index->slots();
  for (std::size_t at = key.hash() & index->mask; table[at] != 0; at = (at + 1) & index->mask)
    if (all[table[at] - 1].first == key) return &all[table[at] - 1].second;
  return nullptr;
}

std::string_view Value::tag() const {
  if (kind() != Kind::tagged) wrong_kind("tagged");
  return static_cast<TaggedNode*>(wide_.u.node)->tag.as_string();
}

const Value& Value::rep() const {
  if (kind() != Kind::tagged) wrong_kind("tagged");
  return static_cast<TaggedNode*>(wide_.u.node)->rep;
}

std::type_index Value::object_type() const { return object_type_info(); }

const std::type_info& Value::object_type_info() const {
  if (kind() != Kind::object) wrong_kind("object");
  return *static_cast<detail::ObjectNode*>(wide_.u.node)->type;
}

const void* Value::object_address() const {
  if (kind() != Kind::object) wrong_kind("object");
  return static_cast<detail::ObjectNode*>(wide_.u.node)->obj;
}

// ---- equality and hashing -----------------------------------------------------------------------

namespace {

// Folds a hash into a running one (arrays, maps, tagged values). Its inputs are keyed hashes
// already, so it need not be keyed itself.
std::size_t combine(std::size_t seed, std::size_t h) noexcept {
  return detail::fold_mul(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)),
                          0xbf58476d1ce4e5b9ULL);
}

// Order-free equality for sets and maps: every element of `a` has an equal partner in `b`
// (sizes are equal and both sides hold distinct elements, so that is a bijection). Large ones
// index `b` in an open-addressing table of (hash, position) that is kept per thread and per
// nesting level (elements of sets are compared by this same function), so comparing allocates
// nothing once the tables have grown.
struct EqualSlot {
  std::size_t hash;
  std::uint32_t index;
};
constexpr std::uint32_t kNoSlot = UINT32_MAX;
struct EqualTables {
  std::deque<std::vector<EqualSlot>> levels;  // a deque: growing it never moves a level
  std::size_t depth = 0;
};
thread_local EqualTables t_equal_tables;

template <class T, class KeyOf, class Match>
bool unordered_equal(std::span<const T> a, std::span<const T> b, KeyOf key_of, Match match) {
  if (a.size() != b.size()) return false;
  if (a.size() <= 8) {
    for (const T& x : a) {
      bool found = false;
      for (const T& y : b)
        if (key_of(x) == key_of(y)) {
          if (!match(x, y)) return false;
          found = true;
          break;
        }
      if (!found) return false;
    }
    return true;
  }
  EqualTables& tables = t_equal_tables;
  if (tables.depth == tables.levels.size()) tables.levels.emplace_back();
  std::vector<EqualSlot>& t = tables.levels[tables.depth];
  struct Level {
    EqualTables& tables;
    explicit Level(EqualTables& e) : tables(e) { ++tables.depth; }
    ~Level() { --tables.depth; }
  } level(tables);
  std::size_t slots = 16;
  while (slots < 2 * b.size()) slots *= 2;
  t.assign(slots, EqualSlot{0, kNoSlot});
  const std::size_t mask = slots - 1;
  for (std::size_t j = 0; j < b.size(); ++j) {
    const std::size_t h = key_of(b[j]).hash();
    std::size_t i = h & mask;
    while (t[i].index != kNoSlot) i = (i + 1) & mask;
    t[i] = {h, static_cast<std::uint32_t>(j)};
  }
  for (const T& x : a) {
    const Value& k = key_of(x);
    const std::size_t h = k.hash();
    const T* partner = nullptr;
    for (std::size_t i = h & mask; t[i].index != kNoSlot; i = (i + 1) & mask) {
      if (t[i].hash == h && key_of(b[t[i].index]) == k) {
        partner = &b[t[i].index];
        break;
      }
    }
    if (!partner || !match(x, *partner)) return false;
  }
  return true;
}

}  // namespace

bool operator==(const Value& a, const Value& b) noexcept {
  // Inline values other than doubles (NaN, -0.0) are canonical: equal exactly when their bytes
  // are. Text up to 13 bytes is always inline and longer text never is, so this decides them.
  if (!a.on_heap() && !b.on_heap() && a.kind() == b.kind() && a.kind() != Kind::floating)
    return a.raw_.a == b.raw_.a && a.raw_.b == b.raw_.b;
  // Kinds never meet: an integer is not a double, nor a big integer of the same value. A peer
  // that wrote 5 and "~n5" (Java's Long and BigInteger) wrote two values, and a set or map
  // read from it must keep both.
  if (a.kind() != b.kind()) return false;
  if (a.on_heap() && b.on_heap() && a.wide_.u.node == b.wide_.u.node) return true;
  switch (a.kind()) {
    case Kind::null:
      return true;
    case Kind::boolean:
      return a.wide_.u.b == b.wide_.u.b;
    case Kind::integer:
    case Kind::instant:
      return a.wide_.u.i == b.wide_.u.i;
    case Kind::floating:
      return a.wide_.u.d == b.wide_.u.d || (std::isnan(a.wide_.u.d) && std::isnan(b.wide_.u.d));
    case Kind::character:
      return a.wide_.u.c == b.wide_.u.c;
    case Kind::bytes: {
      auto x = a.as_bytes(), y = b.as_bytes();
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
    case Kind::string:
    case Kind::keyword:
    case Kind::symbol:
    case Kind::uri:
    case Kind::big_integer:
    case Kind::big_decimal:
      return a.as_string() == b.as_string();
    case Kind::uuid:
      return a.as_uuid() == b.as_uuid();
    case Kind::array:
    case Kind::list: {
      auto x = a.items(), y = b.items();
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
    case Kind::set:
      return unordered_equal<Value>(
          a.items(), b.items(), [](const Value& v) -> const Value& { return v; },
          [](const Value&, const Value&) { return true; });
    case Kind::map:
    case Kind::link:
      return unordered_equal<Entry>(
          a.entries(), b.entries(), [](const Entry& e) -> const Value& { return e.first; },
          [](const Entry& x, const Entry& y) { return x.second == y.second; });
    case Kind::tagged:
      return a.tag() == b.tag() && a.rep() == b.rep();
    case Kind::object: {
      auto* x = static_cast<detail::ObjectNode*>(a.wide_.u.node);
      auto* y = static_cast<detail::ObjectNode*>(b.wide_.u.node);
      return *x->type == *y->type && x->vt->equal(x->obj, y->obj);
    }
  }
  return false;
}

std::size_t Value::hash() const noexcept {
  // Every hash is keyed (src/model/hash.h): a peer cannot choose values that share a bucket.
  const detail::HashKey& key = detail::process_hash_key();
  const auto k = static_cast<std::uint64_t>(kind());
  if (detail::is_text_kind(kind())) {
    // Inline text hashes its two words; equal text has equal words (see operator==). Longer
    // text is always on the heap and its node keeps the hash of its bytes.
    if (!on_heap()) return detail::keyed_pair(key, raw_.a, raw_.b);
    auto* node = static_cast<TextNode*>(wide_.u.node);
    std::uint32_t h = node->hash.load(std::memory_order_relaxed);
    if (h == 0) {
      h = static_cast<std::uint32_t>(detail::keyed_bytes(key, node->data(), node->size));
      if (h == 0) h = 1;
      node->hash.store(h, std::memory_order_relaxed);
    }
    return detail::keyed_pair(key, h, k);
  }
  switch (kind()) {
    case Kind::null:
      return detail::keyed_word(key, k << 56);
    case Kind::boolean:
      return detail::keyed_word(key, k << 56 | (wide_.u.b ? 1 : 2));
    case Kind::integer:
      return detail::keyed_word(key, static_cast<std::uint64_t>(wide_.u.i));
    case Kind::floating: {
      double d = wide_.u.d;
      if (d == 0) d = 0;  // -0.0 == 0.0, so they hash alike
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();  // NaN == NaN too
      return detail::keyed_pair(key, std::bit_cast<std::uint64_t>(d), k);
    }
    case Kind::instant:
      return detail::keyed_pair(key, static_cast<std::uint64_t>(wide_.u.i), k);
    case Kind::character:
      return detail::keyed_pair(key, wide_.u.c, k);
    case Kind::uuid: {
      const Uuid u = as_uuid();
      return detail::keyed_pair(key, u.hi, detail::keyed_pair(key, u.lo, k));
    }
    case Kind::array:
    case Kind::list: {
      std::size_t h = detail::keyed_word(key, k);
      for (const Value& v : items()) h = combine(h, v.hash());
      return h;
    }
    case Kind::set: {
      std::size_t h = 0;  // a sum does not depend on order
      for (const Value& v : items()) h += v.hash();
      return detail::keyed_pair(key, h, k);
    }
    case Kind::map:
    case Kind::link: {
      std::size_t h = 0;
      for (const auto& [kk, v] : entries()) h += combine(kk.hash(), v.hash());
      return detail::keyed_pair(key, h, k);
    }
    case Kind::tagged: {
      auto* n = static_cast<TaggedNode*>(wide_.u.node);
      return combine(detail::keyed_pair(key, n->tag.hash(), k), n->rep.hash());
    }
    case Kind::object: {
      // A user hash may be weak (std::hash<int> is the identity): keying it spreads values
      // the user hash tells apart, though it cannot separate what that hash merges.
      auto* n = static_cast<detail::ObjectNode*>(wide_.u.node);
      return detail::keyed_pair(key, n->type->hash_code(), n->vt->hash(n->obj));
    }
    default:
      break;
  }
  return 0;
}

}  // namespace transit
