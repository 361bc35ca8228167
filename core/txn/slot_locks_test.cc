#include "core/txn/slot_locks.h"

#include <doctest/doctest.h>

#include <string>

namespace slotkv::txn {
namespace {

using Keys = std::vector<std::string>;

// Runs what a release handed over, as its caller does.
void RunAll(const std::vector<std::function<void()>>& granted) {
  for (const auto& fn : granted) fn();
}

TEST_CASE("a holder tells the workers it wrote on, by units or plain writes") {
  Holder h(3, /*hold_units=*/true);
  CHECK_FALSE(h.WroteAny());
  h.wrote[2] = 1;
  CHECK(h.WroteOn(2));
  CHECK_FALSE(h.WroteOn(0));
  CHECK(h.WroteAny());
  h.wrote[2] = 0;
  h.units[1].push_back(nullptr);  // a unit's slot (not dereferenced)
  CHECK(h.WroteOn(1));
  CHECK(h.WroteAny());
}

TEST_CASE("a free slot is taken whole at once and freed by its release") {
  SlotLocks locks(8, 2);
  Holder a(2);
  CHECK(locks.Free(3));
  CHECK(locks.Acquire(3, &a, {}, [] { FAIL("granted twice"); }));
  CHECK_FALSE(locks.Free(3));
  CHECK_FALSE(locks.Free(3, "k"));
  CHECK(locks.holder(3) == &a);
  CHECK(locks.Release(3, &a).empty());
  CHECK(locks.Free(3));
  CHECK(locks.holder(3) == nullptr);
}

TEST_CASE("whole-slot takers queue in order and each release hands the slot to the next") {
  SlotLocks locks(8, 2);
  Holder a(2), b(2), c(2);
  std::string granted;
  REQUIRE(locks.Acquire(1, &a, {}, nullptr));
  CHECK_FALSE(locks.TryAcquire(1, &b, {}));
  CHECK_FALSE(locks.Acquire(1, &b, {}, [&] { granted += "b"; }));
  CHECK_FALSE(locks.Acquire(1, &c, {}, [&] { granted += "c"; }));
  RunAll(locks.Release(1, &a));
  CHECK(locks.holder(1) == &b);
  RunAll(locks.Release(1, &b));
  CHECK(locks.holder(1) == &c);
  CHECK(locks.Release(1, &c).empty());
  CHECK(granted == "bc");
}

TEST_CASE("key takers share a slot; a request on another key runs, one on a held key waits") {
  SlotLocks locks(8, 2);
  Holder a(2, false), b(2, false), whole(2);
  REQUIRE(locks.Acquire(2, &a, Keys{"x", "y"}, nullptr));
  CHECK(locks.Acquire(2, &b, Keys{"z"}, nullptr));
  CHECK(locks.Free(2, "other"));
  CHECK_FALSE(locks.Free(2, "x"));
  CHECK_FALSE(locks.Free(2));
  CHECK(locks.holder(2) == nullptr);  // no whole-slot holder: nobody's units are held
  std::string log;
  locks.Defer(2, nullptr, [&] { log += "save"; });       // a whole-slot request
  CHECK_FALSE(locks.Free(2, "other"));                   // queued: later ones wait behind it
  CHECK(locks.Release(2, &a).empty());
  CHECK(log.empty());  // b still holds z
  CHECK(locks.Release(2, &b).empty());
  CHECK(log == "save");
  CHECK(locks.Free(2));
}

TEST_CASE("deferred requests run at the release, in order with the takers queued around them") {
  SlotLocks locks(8, 2);
  Holder a(2), b(2);
  std::string log;
  const std::string_view k = "k";
  REQUIRE(locks.Acquire(0, &a, {}, nullptr));
  locks.Defer(0, &k, [&] {
    log += "1";
    // While deferred requests run the slot counts as taken: a request arriving queues behind.
    CHECK_FALSE(locks.Free(0, "k"));
    CHECK_FALSE(locks.holder(0)->hold_units);
  });
  CHECK_FALSE(locks.Acquire(0, &b, {}, [&] { log += "b"; }));
  locks.Defer(0, &k, [&] { log += "2"; });
  auto next = locks.Release(0, &a);
  CHECK(log == "1");  // the request before b ran; the one after b waits for b
  REQUIRE(next.size() == 1);
  RunAll(next);
  CHECK(locks.holder(0) == &b);
  CHECK(locks.Release(0, &b).empty());
  CHECK(log == "1b2");
  CHECK(locks.Free(0));
}

TEST_CASE("a key taker behind a whole-slot holder waits; one for other keys than a request's "
          "goes with it") {
  SlotLocks locks(8, 2);
  Holder whole(2), a(2, false), b(2, false);
  std::string log;
  const std::string_view x = "x";
  REQUIRE(locks.Acquire(4, &whole, {}, nullptr));
  locks.Defer(4, &x, [&] { log += "req-x"; });
  CHECK_FALSE(locks.Acquire(4, &a, Keys{"y"}, [&] { log += "+a"; }));
  CHECK_FALSE(locks.Acquire(4, &b, Keys{"x"}, [&] { log += "+b"; }));
  auto next = locks.Release(4, &whole);
  RunAll(next);
  // The request on x ran; a (y) was handed y; b (x) waited for the request, then got x.
  CHECK(log == "req-x+a+b");
  CHECK_FALSE(locks.Free(4, "x"));
  CHECK_FALSE(locks.Free(4, "y"));
}

TEST_CASE("a request deferred from inside a deferred run joins the same release") {
  SlotLocks locks(8, 2);
  Holder a(2);
  std::string log;
  REQUIRE(locks.Acquire(5, &a, {}, nullptr));
  locks.Defer(5, nullptr, [&] {
    log += "1";
    locks.Defer(5, nullptr, [&] { log += "2"; });
  });
  CHECK(locks.Release(5, &a).empty());
  CHECK(log == "12");
  CHECK(locks.Free(5));
}

TEST_CASE("a taker arriving during the deferred runs waits for them") {
  SlotLocks locks(8, 2);
  Holder a(2), b(2);
  bool granted = false;
  REQUIRE(locks.Acquire(2, &a, {}, nullptr));
  locks.Defer(2, nullptr, [&] { CHECK_FALSE(locks.Acquire(2, &b, {}, [&] { granted = true; })); });
  auto next = locks.Release(2, &a);
  REQUIRE(next.size() == 1);
  CHECK(locks.holder(2) == &b);
  RunAll(next);
  CHECK(granted);
}

TEST_CASE("the global order puts a worker's slots together; a holder lists what it takes") {
  SlotLocks locks(8, 2);
  // Worker 0 owns 0 2 4 6, worker 1 owns 1 3 5 7.
  CHECK(locks.Order(0) < locks.Order(2));
  CHECK(locks.Order(6) < locks.Order(1));
  CHECK(locks.Order(1) < locks.Order(7));
  CHECK(locks.Order(0) > 0);
  Holder h(2);
  h.slots = {2, 5};
  h.keys = {{5, Keys{"a", "b"}}};
  CHECK(h.Holds(5));
  CHECK_FALSE(h.Holds(3));
  CHECK(h.KeysOf(5) == Keys{"a", "b"});
  CHECK(h.KeysOf(2).empty());
}

}  // namespace
}  // namespace slotkv::txn
