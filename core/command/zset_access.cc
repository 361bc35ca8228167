#include "core/command/zset_access.h"

#include "core/command/zset_range.h"

namespace slotkv::command {

Result<std::optional<double>> ZSetAccess::Score(std::string_view member) {
  if (paged_) return paged_->Score(member);
  return small_ ? small_->Score(member) : std::nullopt;
}

Result<ZSetValue::Change> ZSetAccess::Set(std::string_view member, double score) {
  if (paged_) {
    SLOTKV_ASSIGN_OR_RETURN(ZSetValue::Change c, paged_->Set(member, score));
    changed_ = changed_ || c != ZSetValue::Change::kUnchanged;
    return c;
  }
  if (!small_) small_.emplace();
  const ZSetValue::Change c = small_->Set(member, score);
  changed_ = changed_ || c != ZSetValue::Change::kUnchanged;
  return c;
}

Result<bool> ZSetAccess::Remove(std::string_view member) {
  bool removed = false;
  if (paged_) {
    SLOTKV_ASSIGN_OR_RETURN(removed, paged_->Remove(member));
  } else if (small_) {
    removed = small_->Remove(member);
  }
  changed_ = changed_ || removed;
  return removed;
}

Result<std::optional<uint64_t>> ZSetAccess::Rank(std::string_view member) {
  if (paged_) return paged_->Rank(member);
  if (!small_) return std::optional<uint64_t>();
  std::optional<size_t> r = small_->Rank(member);
  return r ? std::optional<uint64_t>(*r) : std::nullopt;
}

Result<std::vector<ZSetValue::Entry>> ZSetAccess::Pop(ZEnd end, size_t count) {
  if (!paged_) {
    if (!small_) return std::vector<ZSetValue::Entry>();
    std::vector<ZSetValue::Entry> out = PopEntries(*small_, end, count);
    changed_ = changed_ || !out.empty();
    return out;
  }
  std::vector<ZSetValue::Entry> out;
  if (paged_->size() == 0 || count == 0) return out;
  const bool max = end == ZEnd::kMax;
  SLOTKV_RETURN_IF_ERROR(
      paged_->Walk(max ? paged_->size() - 1 : 0, max, [&](const ZSetValue::Entry& e) {
        out.push_back(e);
        return out.size() < count;
      }));
  for (const ZSetValue::Entry& e : out) SLOTKV_RETURN_IF_ERROR(paged_->Remove(e.member).status());
  changed_ = changed_ || !out.empty();
  return out;
}

Status ZSetAccess::ForEachScoreIn(double min, double max,
                                  const std::function<bool(const ZSetValue::Entry&)>& fn) {
  const ScoreRange range{.min = min, .max = max, .max_exclusive = true};
  if (range.AlwaysEmpty()) return Status::OK();
  if (paged_) {
    SLOTKV_ASSIGN_OR_RETURN(uint64_t first, paged_->CountBefore([&](const ZSetValue::Entry& e) {
                              return range.AboveMin(e);
                            }));
    return paged_->Walk(first, false,
                        [&](const ZSetValue::Entry& e) { return range.BelowMax(e) && fn(e); });
  }
  if (!small_) return Status::OK();
  for (auto it = FirstInRange(*small_, range); it != small_->end() && range.BelowMax(*it); ++it) {
    if (!fn(*it)) break;
  }
  return Status::OK();
}

std::vector<ZSetValue::Entry> PopEntries(ZSetValue& zset, ZEnd end, size_t count) {
  std::vector<ZSetValue::Entry> out;
  out.reserve(std::min(count, zset.size()));
  while (out.size() < count && !zset.empty()) {
    auto it = end == ZEnd::kMin ? zset.begin() : std::prev(zset.end());
    out.push_back(*it);
    zset.Erase(it);
  }
  return out;
}

void ReplyEntries(Reply& reply, const std::vector<ZSetValue::Entry>& entries, bool with_scores) {
  if (!with_scores) {
    reply.Array(entries.size());
    for (const ZSetValue::Entry& e : entries) reply.Bulk(e.member);
    return;
  }
  if (reply.protocol() == 3) {
    reply.Array(entries.size());
    for (const ZSetValue::Entry& e : entries) {
      reply.Array(2);
      reply.Bulk(e.member);
      reply.Double(e.score);
    }
    return;
  }
  reply.Array(entries.size() * 2);
  for (const ZSetValue::Entry& e : entries) {
    reply.Bulk(e.member);
    reply.Double(e.score);
  }
}

std::optional<ZMPopArgs> ParseZMPopArgs(const std::vector<std::string>& a, size_t numkeys_at,
                                        Reply& reply) {
  std::optional<int64_t> numkeys = ParseInt64(a[numkeys_at]);
  if (!numkeys || *numkeys < 1) {
    reply.Error("ERR numkeys should be greater than 0");
    return std::nullopt;
  }
  // numkeys keys, then at least MIN|MAX.
  if (static_cast<uint64_t>(*numkeys) >= a.size() - numkeys_at - 1) {
    reply.Error(kErrSyntax);
    return std::nullopt;
  }
  ZMPopArgs out;
  out.first_key = numkeys_at + 1;
  out.num_keys = static_cast<size_t>(*numkeys);
  const size_t end_pos = out.first_key + out.num_keys;
  if (Is(a[end_pos], "MIN")) {
    out.end = ZEnd::kMin;
  } else if (Is(a[end_pos], "MAX")) {
    out.end = ZEnd::kMax;
  } else {
    reply.Error(kErrSyntax);
    return std::nullopt;
  }
  bool count_seen = false;
  for (size_t i = end_pos + 1; i < a.size(); i += 2) {
    if (Is(a[i], "COUNT") && i + 1 < a.size() && !count_seen) {
      std::optional<int64_t> c = ParseInt64(a[i + 1]);
      if (!c || *c < 1) {
        reply.Error("ERR count should be greater than 0");
        return std::nullopt;
      }
      out.count = *c;
      count_seen = true;
    } else {
      reply.Error(kErrSyntax);
      return std::nullopt;
    }
  }
  return out;
}

bool ZMPopFrom(Store& store, WorkerStats& stats, std::string_view key, ZEnd end, int64_t count,
               Reply& reply) {
  ZSetAccess zset(store);
  if (!zset.Open(key, stats, Lookup::kWrite, reply)) return true;
  if (!zset.exists()) return false;
  Result<std::vector<ZSetValue::Entry>> popped = zset.Pop(end, static_cast<size_t>(count));
  if (Failed(popped.status(), reply) || Failed(zset.Write(), reply)) return true;
  reply.Array(2);
  reply.Bulk(key);
  reply.Array(popped->size());
  for (const ZSetValue::Entry& e : *popped) {
    reply.Array(2);
    reply.Bulk(e.member);
    reply.Double(e.score);
  }
  return true;
}

}  // namespace slotkv::command
