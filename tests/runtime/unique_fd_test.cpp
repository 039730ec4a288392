// UniqueFd closes what it owns exactly once: when it goes, when it is reset
// or assigned over, and never after release() or a move.
#include "runtime/unique_fd.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace ptc {
namespace {

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

TEST(UniqueFd, ClosesWhatItOwnsWhenItGoes) {
  int fd = -1;
  {
    PipeEnds pipe = open_pipe(O_CLOEXEC);
    ASSERT_TRUE(pipe.read_end && pipe.write_end);
    fd = pipe.read_end.get();
    EXPECT_TRUE(is_open(fd));
  }
  EXPECT_FALSE(is_open(fd));
}

TEST(UniqueFd, AMoveHandsTheDescriptorOnWithoutClosingIt) {
  PipeEnds pipe = open_pipe(O_CLOEXEC);
  int fd = pipe.write_end.get();
  UniqueFd moved = std::move(pipe.write_end);
  EXPECT_FALSE(pipe.write_end);
  EXPECT_EQ(moved.get(), fd);
  EXPECT_TRUE(is_open(fd));
  UniqueFd assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.get(), fd);
  EXPECT_TRUE(is_open(fd));
}

TEST(UniqueFd, AssigningOverOrResettingClosesTheOldOne) {
  PipeEnds pipe = open_pipe(O_CLOEXEC);
  int old_read = pipe.read_end.get(), old_write = pipe.write_end.get();
  pipe.read_end = std::move(pipe.write_end);
  EXPECT_FALSE(is_open(old_read));
  EXPECT_EQ(pipe.read_end.get(), old_write);
  pipe.read_end.reset();
  EXPECT_FALSE(is_open(old_write));
  EXPECT_FALSE(pipe.read_end);
}

TEST(UniqueFd, ReleaseLeavesTheDescriptorToTheCaller) {
  int fd = -1;
  {
    PipeEnds pipe = open_pipe(O_CLOEXEC);
    fd = pipe.read_end.release();
    EXPECT_FALSE(pipe.read_end);
  }
  EXPECT_TRUE(is_open(fd));
  ::close(fd);
}

TEST(UniqueFd, AFailedOpenHoldsNothing) {
  UniqueFd failed(::open("/nonexistent/unique-fd-test", O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(failed);
  EXPECT_EQ(failed.get(), -1);
}

}  // namespace
}  // namespace ptc
