#include "net/remote_batch.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "core/command/execute.h"

namespace slotkv::net {
namespace {

void SleepPastTurn() {
  std::this_thread::sleep_for(std::chrono::microseconds(kTurnUs + 500));
}

TEST_CASE("a turn starts at its first call and ends once kTurnUs passed") {
  Turn turn;
  CHECK_FALSE(turn.over());  // the first call starts it
  CHECK_FALSE(turn.over());
  SleepPastTurn();
  // With no command's clock read in between, every 8th call reads the clock:
  // the turn is seen over within 8 calls, never before the time.
  int calls = 1;
  while (!turn.over()) {
    ++calls;
    REQUIRE(calls <= 8);
  }
}

TEST_CASE("a turn takes the time a command read since, without reading the clock") {
  Turn turn;
  CHECK_FALSE(turn.over());
  SleepPastTurn();
  command::NowUs();  // as Run reads it after a command
  CHECK(turn.over());
}

TEST_CASE("a command's reading before the turn's end leaves it going") {
  Turn turn;
  CHECK_FALSE(turn.over());
  command::NowUs();
  CHECK_FALSE(turn.over());
  CHECK(command::LastNowUs() > 0);
}

}  // namespace
}  // namespace slotkv::net
