#include "core/command/zset_access.h"

namespace slotkv::command {

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
  ZSetRead read = ReadZSet(store, stats, Lookup::kWrite, key);
  if (ReadFailed(read, reply)) return true;
  if (!read.value) return false;
  std::vector<ZSetValue::Entry> popped =
      PopEntries(*read.value, end, static_cast<size_t>(count));
  if (Failed(WriteZSet(store, key, *read.value, read.meta.expire_at_ms), reply)) return true;
  reply.Array(2);
  reply.Bulk(key);
  reply.Array(popped.size());
  for (const ZSetValue::Entry& e : popped) {
    reply.Array(2);
    reply.Bulk(e.member);
    reply.Double(e.score);
  }
  return true;
}

}  // namespace slotkv::command
