// The events of a text/event-stream body.
#include "protocol/net/sse_events.hpp"

#include <gtest/gtest.h>

namespace ptc::net {
namespace {

TEST(SseEvents, JoinDataLinesAndIgnoreOtherFields) {
  auto events = sse_event_data(": hi\nevent: message\ndata: a\ndata:b\nid: 3\n\ndata: c");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "a\nb");
  EXPECT_EQ(events[1], "c");
}

TEST(SseEvents, CrLfLinesAndAnEmptyBody) {
  auto events = sse_event_data("data: one\r\n\r\ndata: two\r\n\r\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1], "two");
  EXPECT_TRUE(sse_event_data("").empty());
}

}  // namespace
}  // namespace ptc::net
