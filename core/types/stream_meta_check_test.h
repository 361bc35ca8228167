// CheckSameMeta: the unit tests' comparison of two streams' metas in their one-value form
// (stream_value_test.cc, stream_pages_test.cc).
#pragma once

#include <doctest/doctest.h>

#include "core/types/stream_value.h"

namespace slotkv {

// a and b hold the same IDs, counters, groups, consumers and PELs.
inline void CheckSameMeta(const StreamMeta& a, const StreamMeta& b) {
  CHECK(a.last_id == b.last_id);
  CHECK(a.first_id == b.first_id);
  CHECK(a.max_deleted == b.max_deleted);
  CHECK(a.entries_added == b.entries_added);
  REQUIRE(a.groups.size() == b.groups.size());
  for (const auto& [name, g] : a.groups) {
    CAPTURE(name);
    REQUIRE(b.groups.contains(name));
    const StreamGroup& h = b.groups.at(name);
    CHECK(g.last_id == h.last_id);
    CHECK(g.entries_read == h.entries_read);
    REQUIRE(g.pel.size() == h.pel.size());
    for (const auto& [id, n] : g.pel) {
      REQUIRE(h.pel.contains(id));
      CHECK(h.pel.at(id).consumer == n.consumer);
      CHECK(h.pel.at(id).delivery_time == n.delivery_time);
      CHECK(h.pel.at(id).delivery_count == n.delivery_count);
    }
    REQUIRE(g.consumers.size() == h.consumers.size());
    for (const auto& [cname, c] : g.consumers) {
      REQUIRE(h.consumers.contains(cname));
      CHECK(h.consumers.at(cname).seen_time == c.seen_time);
      CHECK(h.consumers.at(cname).pel == c.pel);
    }
  }
}

}  // namespace slotkv
