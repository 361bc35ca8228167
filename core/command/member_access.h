// MemberAccess: point operations on one hash or set key, whatever its representation (one
// value, or a paged collection: collection_pages.h), for the commands that touch a few members
// (HSET HGET HDEL ... SADD SREM SISMEMBER ...). A paged collection costs one page (and the
// root) per member touched; a one-value collection is decoded whole as before and becomes
// paged when a write takes it past paged-collection-threshold.
//
// V is HashValue (kHash) or SetValue (kSet); a set's members have empty values.
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/command/args.h"

#include "core/command/collection_access.h"
#include "core/command/collection_pages.h"
#include "core/command/typed_read.h"
#include "core/types/hash_value.h"
#include "core/types/member_pages.h"
#include "core/types/set_value.h"

namespace slotkv::command {

template <class V>
class MemberAccess : public CollectionAccess<V, MemberPages, HashedRoot> {
  using Base = CollectionAccess<V, MemberPages, HashedRoot>;
  using Base::changed_;
  using Base::paged_;
  using Base::small_;

 public:
  MemberAccess(Store& store, ValueType type) : Base(store, type) {}

  // The value of field (hashes).
  Result<std::optional<std::string>> Get(std::string_view field) {
    if (paged_) return paged_->Get(field);
    if (!small_) return std::optional<std::string>();
    std::optional<std::string_view> v = small_->Get(field);
    return v ? std::optional<std::string>(std::string(*v)) : std::optional<std::string>();
  }
  Result<bool> Contains(std::string_view field) {
    if (paged_) return paged_->Contains(field);
    return small_ && SmallContains(*small_, field);
  }
  // true when field is new. Creates the collection when the key was missing.
  Result<bool> Set(std::string_view field, std::string_view value) {
    changed_ = true;
    if (paged_) return paged_->Set(field, value);
    if (!small_) small_.emplace();
    return SmallSet(*small_, field, value);
  }
  // true when field was there.
  Result<bool> Delete(std::string_view field) {
    if (paged_) {
      SLOTKV_ASSIGN_OR_RETURN(bool removed, paged_->Delete(field));
      changed_ = changed_ || removed;
      return removed;
    }
    if (!small_ || !SmallDelete(*small_, field)) return false;
    changed_ = true;
    return true;
  }
};

// HSCAN / SSCAN / ZSCAN of a paged collection (MemberPages or ZSetPages, whose pages are its
// member -> score index): calls fn(field, value) for the members of the pages
// from cursor (a page index) on, page by page, until count members were seen or, as Redis's
// SCAN bounds its empty buckets, 10 * count pages were visited. The next cursor, 0 once the
// last page was read. A member present for the whole scan is returned at least once (pages
// split only towards higher indexes).
template <class Pages, class Fn>
Result<uint64_t> ScanPages(Pages& pages, uint64_t cursor, uint64_t count, Fn&& fn) {
  uint64_t seen = 0;
  uint64_t visited = 0;
  SLOTKV_ASSIGN_OR_RETURN(
      uint64_t next, pages.ForEachPage(cursor, [&](uint64_t, const HashValue& page) {
        page.ForEach(fn);
        seen += page.size();
        return seen < count && ++visited < 10 * count;
      }));
  return next >= pages.page_count() ? 0 : next;
}

// Random picks of a paged hash or set (MemberPages::Random), for SRANDMEMBER, HRANDFIELD and
// SPOP with a count: n (field, value) pairs, different ones when distinct.
struct RandomPicks {
  std::vector<std::pair<std::string, std::string>> picks;
  // Repeats allowed: n picks of the size of the first ones would pass kMaxRandomReplyBytes
  // (nothing more is drawn).
  bool too_big = false;
  // distinct: n different ones did not come within 10 n + 64 draws (the caller reads the
  // collection whole instead).
  bool gave_up = false;
};
inline Result<RandomPicks> DrawRandom(MemberPages& pages, std::mt19937_64& rng, uint64_t n,
                                      bool distinct, bool with_values) {
  constexpr uint64_t kSample = 32;  // picks that estimate the reply's size
  RandomPicks out;
  std::unordered_set<std::string> seen;
  uint64_t bytes = 0;
  const uint64_t draws = distinct ? 10 * n + 64 : n;
  for (uint64_t d = 0; d < draws && out.picks.size() < n; ++d) {
    SLOTKV_ASSIGN_OR_RETURN(auto pick, pages.Random(rng));
    if (!pick) break;
    if (distinct && !seen.insert(pick->first).second) continue;
    bytes += pick->first.size() + 16 + (with_values ? pick->second.size() + 16 : 0);
    out.picks.push_back(std::move(*pick));
    const uint64_t k = out.picks.size();
    if (!distinct && k == std::min(n, kSample) && n > kMaxRandomReplyBytes / (bytes / k + 1)) {
      out.too_big = true;
      out.picks.clear();
      return out;
    }
  }
  out.gave_up = distinct && out.picks.size() < n;
  return out;
}

// A set reply ("~n" in RESP3) of the given members (SMEMBERS, SPOP, SINTER ...).
inline void ReplyMembers(Reply& reply, const SetValue& set) {
  reply.Set(set.size());
  for (const std::string& m : set.members()) reply.Bulk(m);
}

// SRANDMEMBER and HRANDFIELD of a paged set or hash, a page or so per member drawn: true after
// replying (an error too); false when the whole collection is the better read (a distinct
// count of a third of it or more, as Redis switches from drawing to copying there, or distinct
// draws that did not come). No count: one member's field; else reply_picks(picks).
template <class ReplyPicks>
bool ReplyRandomPaged(Reply& reply, MemberPages& pages, std::mt19937_64& rng,
                      std::optional<int64_t> count, bool with_values, ReplyPicks&& reply_picks) {
  if (!count) {
    Result<std::optional<std::pair<std::string, std::string>>> pick = pages.Random(rng);
    if (!Failed(pick.status(), reply)) reply.Bulk((*pick)->first);
    return true;
  }
  const bool distinct = *count >= 0;
  const uint64_t n = distinct ? static_cast<uint64_t>(*count) : 0 - static_cast<uint64_t>(*count);
  if (distinct && n * 3 > pages.size()) return false;
  Result<RandomPicks> drawn = DrawRandom(pages, rng, n, distinct, with_values);
  if (Failed(drawn.status(), reply)) return true;
  if (drawn->too_big) {
    reply.Error(kErrReplyTooBig);
    return true;
  }
  if (drawn->gave_up) return false;
  reply_picks(drawn->picks);
  return true;
}

}  // namespace slotkv::command
