#include "core/txn/watched_keys.h"

#include <doctest/doctest.h>

namespace slotkv::txn {
namespace {

TEST_CASE("a write of a watched key marks its watchers, and only the key's database") {
  WatchedKeys keys(8);
  auto a = std::make_shared<Watch>();
  auto b = std::make_shared<Watch>();
  keys.Add(3, 0, "k", a);
  keys.Add(3, 1, "k", b);
  keys.Touch(3, 0, "other");
  CHECK_FALSE(a->dirty);
  keys.Touch(3, 0, "k");
  CHECK(a->dirty);
  CHECK_FALSE(b->dirty);
}

TEST_CASE("a removed watch is no longer marked") {
  WatchedKeys keys(8);
  auto a = std::make_shared<Watch>();
  keys.Add(1, 0, "k", a);
  keys.Add(1, 0, "k", a);  // twice: one entry
  keys.Remove(1, 0, "k", a.get());
  keys.Touch(1, 0, "k");
  CHECK_FALSE(a->dirty);
}

TEST_CASE("a flush marks the watchers of keys that existed") {
  WatchedKeys keys(8);
  auto there = std::make_shared<Watch>();
  auto absent = std::make_shared<Watch>();
  auto other_db = std::make_shared<Watch>();
  keys.Add(2, 0, "there", there);
  keys.Add(2, 0, "absent", absent);
  keys.Add(2, 1, "there", other_db);
  keys.TouchFlushed(2, 0, [](std::string_view k) { return k == "there"; });
  CHECK(there->dirty);
  CHECK_FALSE(absent->dirty);
  CHECK_FALSE(other_db->dirty);
}

}  // namespace
}  // namespace slotkv::txn
