#include "core/command/blocking.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// ---- the waiter's state word ------------------------------------------------------------------

TEST_CASE("waiter: a claim of a parked waiter hands it to the claimer") {
  auto w = std::make_shared<Waiter>(ValueType::kList, 0);
  const uint32_t gen = w->NewRound();
  CHECK(w->TryPark(gen, std::noop_coroutine()));
  CHECK(w->TryClaim(gen, 2) == Waiter::Claim::kParked);
  CHECK(w->TryClaim(gen, 1) == Waiter::Claim::kNone);  // claimed once only
  CHECK_FALSE(w->RequestStop(Waiter::Stop::kTimeout));  // no longer parked
  CHECK(w->outcome().stop == Waiter::Stop::kNone);
  CHECK(w->outcome().key == 2);
}

TEST_CASE("waiter: an early claim stops the park and names the key") {
  auto w = std::make_shared<Waiter>(ValueType::kList, 0);
  const uint32_t gen = w->NewRound();
  CHECK(w->TryClaim(gen, 1) == Waiter::Claim::kEarly);
  CHECK_FALSE(w->TryPark(gen, std::noop_coroutine()));
  CHECK(w->outcome().key == 1);
  // Ending the round reports the claim so the caller can hand it back.
  CHECK(w->EndRound(gen) == std::optional<size_t>(1));
}

TEST_CASE("waiter: entries of an old round are stale") {
  auto w = std::make_shared<Waiter>(ValueType::kZSet, 3);
  const uint32_t first = w->NewRound();
  CHECK(w->EndRound(first) == std::nullopt);
  const uint32_t second = w->NewRound();
  CHECK(w->TryClaim(first, 0) == Waiter::Claim::kNone);
  CHECK(w->TryClaim(second, 0) == Waiter::Claim::kEarly);
}

TEST_CASE("waiter: a stop takes a parked waiter out; one before the park prevents it") {
  auto w = std::make_shared<Waiter>(ValueType::kList, 0);
  uint32_t gen = w->NewRound();
  CHECK(w->TryPark(gen, std::noop_coroutine()));
  CHECK(w->RequestStop(Waiter::Stop::kTimeout));
  CHECK(w->TryClaim(gen, 0) == Waiter::Claim::kNone);
  CHECK(w->outcome().stop == Waiter::Stop::kTimeout);

  auto v = std::make_shared<Waiter>(ValueType::kList, 0);
  gen = v->NewRound();
  CHECK_FALSE(v->RequestStop(Waiter::Stop::kCancelled));  // not parked yet
  CHECK_FALSE(v->TryPark(gen, std::noop_coroutine()));    // sees the stop
  CHECK(v->outcome().stop == Waiter::Stop::kCancelled);
  CHECK_FALSE(v->RequestStop(Waiter::Stop::kTimeout));    // the first reason stays
  CHECK(v->stop() == Waiter::Stop::kCancelled);
}

// ---- commands through the fixture ----------------------------------------------------------------

// Waits until the fixture reports n blocked clients.
void WaitBlocked(CommandFixture& f, int n) {
  const std::string want = "blocked_clients:" + std::to_string(n) + "\r\n";
  for (int i = 0; i < 500; ++i) {
    if (f.Run({"INFO", "clients"}).find(want) != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  FAIL("clients never blocked: " << want);
}

TEST_CASE("blocking: data already there is served at once, in key order") {
  CommandFixture f;
  CHECK(f.Run({"RPUSH", "{b}l", "x", "y"}) == ":2\r\n");
  CHECK(f.Run({"BLPOP", "{a}l", "{b}l", "0"}) == "*2\r\n$4\r\n{b}l\r\n$1\r\nx\r\n");
  CHECK(f.Run({"BRPOP", "{b}l", "0"}) == "*2\r\n$4\r\n{b}l\r\n$1\r\ny\r\n");
  CHECK(f.Run({"EXISTS", "{b}l"}) == ":0\r\n");
  CHECK(f.Run({"ZADD", "{c}z", "1", "a", "2", "b"}) == ":2\r\n");
  CHECK(f.Run({"BZPOPMAX", "{c}z", "0"}) == "*3\r\n$4\r\n{c}z\r\n$1\r\nb\r\n$1\r\n2\r\n");
  CHECK(f.Run({"BZMPOP", "0", "1", "{c}z", "MIN", "COUNT", "5"}) ==
        "*2\r\n$4\r\n{c}z\r\n*1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n");
  CHECK(f.Run({"SET", "{a}s", "v"}) == "+OK\r\n");
  CHECK(f.Run({"BLPOP", "{b}l", "{a}s", "0"}).starts_with("-WRONGTYPE"));
}

TEST_CASE("blocking: timeouts reply a null array; bad timeouts are refused first") {
  CommandFixture f;
  const auto start = std::chrono::steady_clock::now();
  CHECK(f.Run({"BLPOP", "{a}l", "0.05"}) == "*-1\r\n");
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(45));
  CHECK(f.Run({"BLMOVE", "{a}l", "{b}l", "LEFT", "LEFT", "0.01"}) == "*-1\r\n");
  CHECK(f.Run({"BZMPOP", "0.01", "2", "{a}z", "{b}z", "MAX"}) == "*-1\r\n");
  CHECK(f.Run({"BLPOP", "{a}l", "x"}) == "-ERR timeout is not a float or out of range\r\n");
  CHECK(f.Run({"BLPOP", "{a}l", "-1"}) == "-ERR timeout is negative\r\n");
  CHECK(f.Run({"BLPOP", "{a}l", "inf"}) == "-ERR timeout is negative\r\n");
  CHECK(f.Run({"BLMPOP", "0", "0", "{a}l", "LEFT"}) ==
        "-ERR numkeys should be greater than 0\r\n");
  CHECK(f.Run({"BLMPOP", "x", "1", "{a}l", "UP"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"BZMPOP", "0", "1", "{a}z", "MIN", "COUNT", "0"}) ==
        "-ERR count should be greater than 0\r\n");
  CHECK(f.Run({"INFO", "clients"}).find("blocked_clients:0\r\n") != std::string::npos);
}

TEST_CASE("blocking: a push from another client wakes the waiter, in arrival order") {
  CommandFixture f;
  CommandFixture::PendingReply first = f.Start({"BLPOP", "{a}l", "0"});
  WaitBlocked(f, 1);
  CommandFixture::PendingReply second = f.Start({"BRPOP", "{a}l", "0"});
  WaitBlocked(f, 2);
  CHECK(f.Run({"RPUSH", "{a}l", "1", "2", "3"}) == ":3\r\n");
  CHECK(first.Get() == "*2\r\n$4\r\n{a}l\r\n$1\r\n1\r\n");
  CHECK(second.Get() == "*2\r\n$4\r\n{a}l\r\n$1\r\n3\r\n");
  CHECK(f.Run({"LRANGE", "{a}l", "0", "-1"}) == "*1\r\n$1\r\n2\r\n");
  WaitBlocked(f, 0);
}

TEST_CASE("blocking: a waiter on keys of several workers is served once") {
  CommandFixture f;
  CommandFixture::PendingReply waiting = f.Start({"BLPOP", "{a}k", "{b}k", "{c}k", "0"});
  WaitBlocked(f, 1);
  CHECK(f.Run({"LPUSH", "{c}k", "three"}) == ":1\r\n");
  CHECK(waiting.Get() == "*2\r\n$4\r\n{c}k\r\n$5\r\nthree\r\n");
  CHECK(f.Run({"LPUSH", "{a}k", "one"}) == ":1\r\n");
  CHECK(f.Run({"LLEN", "{a}k"}) == ":1\r\n");
}

TEST_CASE("blocking: a sorted-set waiter ignores a list of the same name") {
  CommandFixture f;
  CommandFixture::PendingReply waiting = f.Start({"BZPOPMIN", "{a}z", "0.3"});
  WaitBlocked(f, 1);
  CHECK(f.Run({"LPUSH", "{a}z", "v"}) == ":1\r\n");
  CHECK_FALSE(waiting.WaitFor(50));
  CHECK(f.Run({"DEL", "{a}z"}) == ":1\r\n");
  CHECK(f.Run({"ZADD", "{a}z", "5", "m"}) == ":1\r\n");
  CHECK(waiting.Get() == "*3\r\n$4\r\n{a}z\r\n$1\r\nm\r\n$1\r\n5\r\n");
}

TEST_CASE("blocking: BLMOVE across slots moves the pushed element") {
  CommandFixture f;
  CommandFixture::PendingReply waiting =
      f.Start({"BLMOVE", "{a}src", "{b}dst", "LEFT", "RIGHT", "0"});
  WaitBlocked(f, 1);
  CHECK(f.Run({"RPUSH", "{a}src", "x"}) == ":1\r\n");
  CHECK(waiting.Get() == "$1\r\nx\r\n");
  CHECK(f.Run({"LRANGE", "{b}dst", "0", "-1"}) == "*1\r\n$1\r\nx\r\n");
  CHECK(f.Run({"EXISTS", "{a}src"}) == ":0\r\n");
}

TEST_CASE("blocking: a BLMOVE into a watched key wakes that key's waiter too") {
  CommandFixture f;
  CommandFixture::PendingReply mover = f.Start({"BRPOPLPUSH", "{a}s", "{b}d", "0"});
  WaitBlocked(f, 1);
  CommandFixture::PendingReply popper = f.Start({"BLPOP", "{b}d", "0"});
  WaitBlocked(f, 2);
  CHECK(f.Run({"LPUSH", "{a}s", "e"}) == ":1\r\n");
  CHECK(mover.Get() == "$1\r\ne\r\n");
  CHECK(popper.Get() == "*2\r\n$4\r\n{b}d\r\n$1\r\ne\r\n");
  CHECK(f.Run({"EXISTS", "{a}s", "{b}d"}) == ":0\r\n");
}

}  // namespace
}  // namespace slotkv::command
