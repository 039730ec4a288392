#include "runtime/scratch.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace ptc {
namespace {

// A vector given back keeps its storage for the next borrower, cleared.
TEST(ScratchVector, NextBorrowerGetsTheStorageCleared) {
  const int* storage = nullptr;
  {
    ScratchVector<int> v;
    for (int i = 0; i < 100; ++i)
      v->push_back(i);
    storage = v->data();
  }
  ScratchVector<int> again;
  EXPECT_TRUE(again->empty());
  EXPECT_GE(again->capacity(), 100u);
  EXPECT_EQ(again->data(), storage);
}

// Borrowing nests: an inner borrower never gets the outer one's vector.
TEST(ScratchVector, NestedBorrowersHaveTheirOwn) {
  ScratchVector<int> outer;
  outer->push_back(1);
  {
    ScratchVector<int> inner;
    EXPECT_TRUE(inner->empty());
    inner->push_back(2);
    EXPECT_NE(inner->data(), outer->data());
  }
  ASSERT_EQ(outer->size(), 1u);
  EXPECT_EQ((*outer)[0], 1);
}

// One grown past what the pool keeps goes back to the allocator.
TEST(ScratchVector, HugeVectorsAreNotKept) {
  {
    ScratchVector<long> v;
    v->resize(1 << 20);
  }
  ScratchVector<long> next;
  EXPECT_LT(next->capacity(), size_t{1} << 20);
}

// Each thread has its own pool.
TEST(ScratchVector, ThreadsDoNotShare) {
  const char* here = nullptr;
  {
    ScratchVector<char> v;
    v->resize(10);
    here = v->data();
  }
  const char* there = nullptr;
  std::thread t([&] {
    ScratchVector<char> v;
    EXPECT_EQ(v->capacity(), 0u);
    v->resize(10);
    there = v->data();
  });
  t.join();
  ScratchVector<char> back;
  EXPECT_EQ(back->data(), here);
  EXPECT_NE(there, nullptr);
}

}  // namespace
}  // namespace ptc
