#include "slot/slot_stats.h"

#include <doctest/doctest.h>

#include <set>
#include <string_view>

namespace slotkv::slot {
namespace {

TEST_CASE("slot stats: each field has one row, with unique names, and Add sums them all") {
  SlotStats a, b;
  uint64_t n = 0;
  std::set<std::string_view> keys, metrics, infos;
  for (const SlotStatRow& r : kSlotStatRows) {
    CHECK(a.*r.field == 0);  // a second row for the same field would find it set
    a.*r.field = ++n;
    b.*r.field = 1000 * n;
    CHECK_MESSAGE(keys.insert(r.key).second, r.key);
    CHECK(!r.help.empty());
    if (!r.metric.empty()) {
      CHECK_MESSAGE(metrics.insert(r.metric).second, r.metric);
      CHECK(r.metric.ends_with("_total") == (r.kind == StatKind::kCounter));
    }
    if (!r.info.empty()) CHECK_MESSAGE(infos.insert(r.info).second, r.info);
  }
  a.Add(b);
  n = 0;
  for (const SlotStatRow& r : kSlotStatRows) {
    ++n;
    CHECK(a.*r.field == 1001 * n);
  }
}

}  // namespace
}  // namespace slotkv::slot
