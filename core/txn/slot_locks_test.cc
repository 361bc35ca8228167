#include "core/txn/slot_locks.h"

#include <doctest/doctest.h>

#include <string>

namespace slotkv::txn {
namespace {

TEST_CASE("a free slot is taken at once and freed by its release") {
  SlotLocks locks(8, 2);
  Holder a(2);
  CHECK(locks.Free(3));
  CHECK(locks.Acquire(3, &a, [] { FAIL("granted twice"); }));
  CHECK_FALSE(locks.Free(3));
  CHECK(locks.holder(3) == &a);
  CHECK(locks.Release(3) == nullptr);
  CHECK(locks.Free(3));
  CHECK(locks.holder(3) == nullptr);
}

TEST_CASE("takers queue in order and each release hands the slot to the next") {
  SlotLocks locks(8, 2);
  Holder a(2), b(2), c(2);
  std::string granted;
  REQUIRE(locks.Acquire(1, &a, nullptr));
  CHECK_FALSE(locks.Acquire(1, &b, [&] { granted += "b"; }));
  CHECK_FALSE(locks.Acquire(1, &c, [&] { granted += "c"; }));
  auto next = locks.Release(1);
  REQUIRE(next);
  CHECK(locks.holder(1) == &b);
  next();
  next = locks.Release(1);
  REQUIRE(next);
  CHECK(locks.holder(1) == &c);
  next();
  CHECK(locks.Release(1) == nullptr);
  CHECK(granted == "bc");
}

TEST_CASE("deferred requests run at the release, in order with the takers queued around them") {
  SlotLocks locks(8, 2);
  Holder a(2), b(2);
  std::string log;
  REQUIRE(locks.Acquire(0, &a, nullptr));
  locks.Defer(0, [&] {
    log += "1";
    // A slot being handed on counts as taken: a request arriving now queues behind.
    CHECK_FALSE(locks.Free(0));
    CHECK_FALSE(locks.holder(0)->hold_units);
  });
  CHECK_FALSE(locks.Acquire(0, &b, [&] { log += "b"; }));
  locks.Defer(0, [&] { log += "2"; });
  auto next = locks.Release(0);
  CHECK(log == "1");  // the request before b ran; the one after b waits for b
  REQUIRE(next);
  next();
  CHECK(locks.holder(0) == &b);
  CHECK(locks.Release(0) == nullptr);
  CHECK(log == "1b2");
  CHECK(locks.Free(0));
}

TEST_CASE("a request deferred from inside a deferred run joins the same release") {
  SlotLocks locks(8, 2);
  Holder a(2);
  std::string log;
  REQUIRE(locks.Acquire(5, &a, nullptr));
  locks.Defer(5, [&] {
    log += "1";
    locks.Defer(5, [&] { log += "2"; });
  });
  CHECK(locks.Release(5) == nullptr);
  CHECK(log == "12");
  CHECK(locks.Free(5));
}

TEST_CASE("a taker arriving during the deferred runs waits for them") {
  SlotLocks locks(8, 2);
  Holder a(2), b(2);
  bool granted = false;
  REQUIRE(locks.Acquire(2, &a, nullptr));
  locks.Defer(2, [&] { CHECK_FALSE(locks.Acquire(2, &b, [&] { granted = true; })); });
  auto next = locks.Release(2);
  REQUIRE(next);
  CHECK(locks.holder(2) == &b);
  next();
  CHECK(granted);
}

TEST_CASE("the global order puts a worker's slots together") {
  SlotLocks locks(8, 2);
  // Worker 0 owns 0 2 4 6, worker 1 owns 1 3 5 7.
  CHECK(locks.Order(0) < locks.Order(2));
  CHECK(locks.Order(6) < locks.Order(1));
  CHECK(locks.Order(1) < locks.Order(7));
  CHECK(locks.Order(0) > 0);
  Holder h(2);
  h.slots = {2, 5};
  CHECK(h.Holds(5));
  CHECK_FALSE(h.Holds(3));
}

}  // namespace
}  // namespace slotkv::txn
