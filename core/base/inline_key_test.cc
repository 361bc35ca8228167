#include "core/base/inline_key.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "core/base/clock_cache.h"

namespace slotkv {
namespace {

TEST_CASE("keys up to 30 bytes stay inline, longer ones go to the heap") {
  const std::string at_limit(InlineKey::kInline, 'a');
  const std::string past_limit(InlineKey::kInline + 1, 'b');
  InlineKey empty;
  CHECK(empty.view().empty());
  InlineKey in(at_limit);
  CHECK(in.view() == at_limit);
  CHECK(InlineKey::HeapBytesFor(at_limit.size()) == 0);
  InlineKey out(past_limit);
  CHECK(out.view() == past_limit);
  CHECK(InlineKey::HeapBytesFor(past_limit.size()) >= past_limit.size());
  CHECK(InlineKey(std::string_view("k\0y", 3)).view() == std::string_view("k\0y", 3));
}

TEST_CASE("copies and moves keep the bytes; a moved-from key is empty") {
  for (const std::string& key : {std::string("short"), std::string(100, 'x')}) {
    InlineKey a(key);
    InlineKey b(a);
    CHECK(b.view() == key);
    InlineKey c(std::move(a));
    CHECK(c.view() == key);
    CHECK(a.view().empty());  // NOLINT(bugprone-use-after-move): documented state
    InlineKey d("other");
    d = b;
    CHECK(d.view() == key);
    d = InlineKey(std::string(40, 'y'));
    CHECK(d.view() == std::string(40, 'y'));
    d = std::move(c);
    CHECK(d.view() == key);
    const InlineKey& same = d;
    d = same;  // self-assignment keeps the key
    CHECK(d.view() == key);
  }
}

TEST_CASE("a ClockCache keyed by InlineKey is looked up and erased by string_view") {
  ClockCache<InlineKey, int, StringKeyHash, std::equal_to<>> cache(1000);
  const std::string long_key(64, 'L');
  cache.Insert(InlineKey("key:000000012345"), 1, 10);
  cache.Insert(InlineKey(long_key), 2, 10);
  REQUIRE(cache.Lookup(std::string_view("key:000000012345")) != nullptr);
  CHECK(*cache.Lookup(std::string_view(long_key)) == 2);
  cache.Erase(std::string_view("key:000000012345"));
  CHECK_FALSE(cache.Contains(std::string_view("key:000000012345")));
  CHECK(cache.Contains(std::string_view(long_key)));
}

}  // namespace
}  // namespace slotkv
