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
