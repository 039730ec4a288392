#include "runtime/arena.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/interner.hpp"

namespace ptc {
namespace {

ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const LispError& e) {
    return e.error().kind;
  }
  return ErrorKind::Fail;  // "no error"
}

TEST(Arena, CountsRoundedBytes) {
  Arena a(1 << 20);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.cap(), size_t{1} << 20);
  a.alloc(1);
  EXPECT_EQ(a.used(), 16u);
  a.alloc(16);
  EXPECT_EQ(a.used(), 32u);
  a.alloc(17);
  EXPECT_EQ(a.used(), 64u);
  a.alloc(0);
  EXPECT_EQ(a.used(), 64u);
  EXPECT_EQ(a.remaining(), (size_t{1} << 20) - 64);
}

TEST(Arena, AllocationsAreAlignedAndDisjoint) {
  Arena a(64 << 20);
  std::vector<std::pair<char*, size_t>> blocks;
  for (size_t i = 0; i < 3000; ++i) {
    size_t n = 1 + (i * 37) % 700;
    if (i % 500 == 0) n = 300000;  // large objects get blocks of their own
    auto* p = static_cast<char*>(a.alloc(n));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
    std::memset(p, static_cast<int>(i & 0xFF), n);
    blocks.emplace_back(p, n);
  }
  // Every block still holds its own fill pattern: nothing overlapped.
  for (size_t i = 0; i < blocks.size(); ++i) {
    auto [p, n] = blocks[i];
    for (size_t k = 0; k < n; k += 97)
      ASSERT_EQ(static_cast<unsigned char>(p[k]), i & 0xFF) << "block " << i;
    ASSERT_EQ(static_cast<unsigned char>(p[n - 1]), i & 0xFF);
  }
}

TEST(Arena, CapIsEnforcedAndFailedBytesAreNotCounted) {
  Arena a(1024);
  a.alloc(1000);  // rounds to 1008
  EXPECT_EQ(a.used(), 1008u);
  EXPECT_EQ(kind_of([&] { a.alloc(32); }), ErrorKind::MemoryLimit);
  EXPECT_EQ(a.used(), 1008u);
  // Exactly the remainder still fits.
  a.alloc(16);
  EXPECT_EQ(a.used(), 1024u);
  EXPECT_EQ(a.remaining(), 0u);
  EXPECT_EQ(kind_of([&] { a.alloc(1); }), ErrorKind::MemoryLimit);
  EXPECT_EQ(a.used(), 1024u);
}

TEST(Arena, RoundingCountsAgainstTheCap) {
  Arena a(40);
  a.alloc(20);                                                      // 32 counted
  EXPECT_EQ(kind_of([&] { a.alloc(1); }), ErrorKind::MemoryLimit);  // 16 more > 8 left
  EXPECT_EQ(a.used(), 32u);
}

TEST(Arena, HugeRequestsDoNotWrapAround) {
  Arena a(1 << 20);
  for (size_t n : {std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max() - 7,
                   std::numeric_limits<size_t>::max() - 15, std::numeric_limits<size_t>::max() / 2,
                   size_t{1} << 40}) {
    EXPECT_EQ(kind_of([&] { a.alloc(n); }), ErrorKind::MemoryLimit) << n;
    EXPECT_EQ(a.used(), 0u);
  }
  // Element counts whose byte size overflows are refused too.
  EXPECT_EQ(kind_of([&] { a.alloc_array<uint64_t>(std::numeric_limits<size_t>::max() / 4); }),
            ErrorKind::MemoryLimit);
  EXPECT_EQ(kind_of([&] { a.alloc_array<uint64_t>((std::numeric_limits<size_t>::max() / 8) + 3); }),
            ErrorKind::MemoryLimit);
  EXPECT_EQ(a.used(), 0u);
}

// A cap of SIZE_MAX ("no limit") is held to Arena::kMaxCap: requests near
// SIZE_MAX are still refused rather than rounded to a tiny size.
TEST(Arena, AnUnboundedCapStillRefusesWrappingRequests) {
  for (size_t cap : {std::numeric_limits<size_t>::max(), Arena::kMaxCap + 1}) {
    Arena a(cap);
    EXPECT_EQ(a.cap(), Arena::kMaxCap);
    for (size_t n : {std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max() - 3,
                     std::numeric_limits<size_t>::max() - 15, Arena::kMaxCap + 1}) {
      EXPECT_EQ(kind_of([&] { a.alloc(n); }), ErrorKind::MemoryLimit) << n;
      EXPECT_EQ(a.used(), 0u);
    }
    a.alloc(100);
    EXPECT_EQ(a.used(), 112u);
    a.set_cap(std::numeric_limits<size_t>::max());
    EXPECT_EQ(a.used(), 112u);
    EXPECT_EQ(kind_of([&] { a.alloc(std::numeric_limits<size_t>::max() - 7); }),
              ErrorKind::MemoryLimit);
  }
}

TEST(Arena, MemoryLimitMessage) {
  Arena a(2 << 20);
  try {
    a.alloc(3 << 20);
    FAIL();
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::MemoryLimit);
    EXPECT_NE(e.error().message.find("2.0 MB"), std::string::npos) << e.error().message;
    EXPECT_NE(e.error().message.find("3.0 MB"), std::string::npos) << e.error().message;
    EXPECT_FALSE(e.error().hint.empty());
  }
}

TEST(Arena, ReserveCheck) {
  Arena a(1000);
  EXPECT_NO_THROW(a.reserve_check(1000));
  EXPECT_EQ(kind_of([&] { a.reserve_check(1001); }), ErrorKind::MemoryLimit);
  EXPECT_EQ(kind_of([&] { a.reserve_check(std::numeric_limits<size_t>::max()); }),
            ErrorKind::MemoryLimit);
  EXPECT_EQ(a.used(), 0u);  // reserve_check allocates nothing
  a.alloc(500);             // counted as 512
  EXPECT_NO_THROW(a.reserve_check(488));
  EXPECT_EQ(kind_of([&] { a.reserve_check(489); }), ErrorKind::MemoryLimit);
}

TEST(Arena, SetCap) {
  Arena a(1 << 20);
  a.alloc(4096);
  a.set_cap(1000);  // below what is used: nothing more fits
  EXPECT_EQ(a.remaining(), 0u);
  EXPECT_EQ(a.used(), 4096u);  // and what is used is still counted
  EXPECT_EQ(kind_of([&] { a.alloc(1); }), ErrorKind::MemoryLimit);
  a.set_cap(1 << 20);
  EXPECT_EQ(a.remaining(), (1u << 20) - 4096);
  EXPECT_NO_THROW(a.alloc(1));
  EXPECT_EQ(a.used(), 4112u);
}

TEST(Arena, LargeAllocations) {
  Arena a(64 << 20);
  auto* big = static_cast<char*>(a.alloc(20 << 20));
  std::memset(big, 0x5A, 20 << 20);
  auto* small = static_cast<char*>(a.alloc(64));
  std::memset(small, 0x11, 64);
  EXPECT_EQ(big[(20 << 20) - 1], 0x5A);
  EXPECT_EQ(a.used(), (size_t{20} << 20) + 64);
  EXPECT_EQ(kind_of([&] { a.alloc(50 << 20); }), ErrorKind::MemoryLimit);
  EXPECT_NO_THROW(a.alloc(40 << 20));
}

TEST(Arena, MakeConstructs) {
  struct Thing {
    int a = 7;
    double b = 2.5;
  };
  Arena a(4096);
  Thing* t = a.make<Thing>();
  EXPECT_EQ(t->a, 7);
  EXPECT_EQ(t->b, 2.5);
  struct Pair {
    Pair(int x, int y) : s(x + y) {}
    int s;
  };
  EXPECT_EQ(a.make<Pair>(3, 4)->s, 7);
  auto* arr = a.alloc_array<uint64_t>(0);  // zero elements still gives a valid pointer
  EXPECT_NE(arr, nullptr);
}

std::vector<int>* g_order = nullptr;

TEST(Arena, FinalizersRunOnDestructionInReverseOrder) {
  std::vector<int> order;
  g_order = &order;
  int a = 1, b = 2, c = 3;
  {
    Arena arena(1 << 16);
    auto fin = [](void* p) { g_order->push_back(*static_cast<int*>(p)); };
    arena.add_finalizer(fin, &a);
    arena.add_finalizer(fin, &b);
    arena.alloc(100);
    arena.add_finalizer(fin, &c);
    EXPECT_TRUE(order.empty());
  }
  EXPECT_EQ(order, (std::vector<int>{3, 2, 1}));
  g_order = nullptr;
}

TEST(Arena, FinalizersRunAfterAMemoryLimitError) {
  std::vector<int> order;
  g_order = &order;
  int x = 9;
  {
    Arena arena(256);
    arena.add_finalizer([](void* p) { g_order->push_back(*static_cast<int*>(p)); }, &x);
    EXPECT_EQ(kind_of([&] { arena.alloc(1000); }), ErrorKind::MemoryLimit);
  }
  EXPECT_EQ(order, std::vector<int>{9});
  g_order = nullptr;
}

TEST(Interner, InternsAndLimitsSymbols) {
  Limits lim;
  lim.max_symbols = 100;
  Ctx ctx(lim);
  const KeywordObj* a = ctx.interner.keyword("alpha");
  EXPECT_EQ(ctx.interner.keyword("alpha"), a);
  EXPECT_EQ(a->name(), "alpha");
  EXPECT_EQ(a->type, Type::Keyword);
  EXPECT_EQ(a->data()[a->len], '\0');
  const KeywordObj* s = ctx.interner.symbol("alpha");
  EXPECT_NE(s, a);
  EXPECT_EQ(s->type, Type::Symbol);
  EXPECT_EQ(ctx.interner.find_keyword("alpha"), a);
  EXPECT_EQ(ctx.interner.find_keyword("beta"), nullptr);
  EXPECT_EQ(ctx.interner.keyword("")->name(), "");
  uint32_t before = ctx.interner.count();
  // Growing the table keeps every keyword findable.
  std::vector<const KeywordObj*> made;
  for (uint32_t i = before; i < 100; ++i)
    made.push_back(ctx.interner.keyword("k" + std::to_string(i)));
  for (size_t i = 0; i < made.size(); ++i) {
    EXPECT_EQ(ctx.interner.keyword("k" + std::to_string(before + i)), made[i]);
    EXPECT_EQ(ctx.interner.find_keyword("k" + std::to_string(before + i)), made[i]);
  }
  EXPECT_EQ(ctx.interner.count(), 100u);
  EXPECT_EQ(kind_of([&] { ctx.interner.keyword("one-too-many"); }), ErrorKind::SymbolLimit);
  EXPECT_EQ(kind_of([&] { ctx.interner.symbol("one-too-many"); }), ErrorKind::SymbolLimit);
  // Existing names are still returned at the limit.
  EXPECT_EQ(ctx.interner.keyword("alpha"), a);
  EXPECT_EQ(ctx.interner.count(), 100u);
}

TEST(Interner, KeywordsCountAgainstTheArena) {
  Limits lim;
  lim.max_heap_bytes = 4096;
  Ctx ctx(lim);
  EXPECT_EQ(kind_of([&] { ctx.interner.keyword(std::string(8000, 'k')); }), ErrorKind::MemoryLimit);
  // The failed keyword was not registered.
  EXPECT_EQ(ctx.interner.find_keyword(std::string(8000, 'k')), nullptr);
  uint32_t count = ctx.interner.count();
  EXPECT_NE(ctx.interner.keyword("small"), nullptr);
  EXPECT_EQ(ctx.interner.count(), count + 1);
}

}  // namespace
}  // namespace ptc
