#include "core/command/list_access.h"

#include <algorithm>

namespace slotkv::command {
namespace {

constexpr std::string_view kErrNumKeys = "ERR numkeys should be greater than 0";
constexpr std::string_view kErrCountPositive = "ERR count should be greater than 0";

// LMOVE when source and destination share a slot: one step, atomic.
void MoveInSlot(AsyncContext& ctx, Store& store, std::string_view src, std::string_view dst,
                End from_end, End to_end, bool* source_missing) {
  WorkerStats& stats = StatsHere(ctx.server);
  ListRead from = ReadListValue(store, stats, Lookup::kWrite, src);
  if (ReadFailed(from, ctx.reply)) return;
  if (!from.value) {
    *source_missing = true;
    return;
  }
  if (src == dst) {  // rotate
    std::string v = Pop(*from.value, from_end);
    Push(*from.value, to_end, v);
    if (Failed(WriteList(store, src, *from.value, from.meta.expire_at_ms), ctx.reply)) return;
    ctx.reply.Bulk(v);
    return;
  }
  ListRead to = ReadListValue(store, stats, Lookup::kWrite, dst);
  if (ReadFailed(to, ctx.reply)) return;
  std::string v = Pop(*from.value, from_end);
  ListValue target = to.value ? std::move(*to.value) : ListValue();
  Push(target, to_end, v);
  if (Failed(WriteList(store, src, *from.value, from.meta.expire_at_ms), ctx.reply)) return;
  if (Failed(WriteList(store, dst, target, to.meta.expire_at_ms), ctx.reply)) return;
  ctx.reply.Bulk(v);
}

// LMOVE across slots; ends on any worker. Checks as Redis (a missing source is nil even when
// the destination has another type), then pops from the source and pushes to the destination,
// each on its owner. Between those steps another client may see the element in neither list;
// if the destination meanwhile became another type, the element is pushed back where it came
// from and the reply is WRONGTYPE.
Task MoveAcrossSlots(AsyncContext& ctx, std::string_view src, std::string_view dst,
                     End from_end, End to_end, bool* source_missing) {
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(src);
  const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(dst);

  co_await ctx.ToSlot(src_slot);
  {
    Store store = ctx.StoreOf(src_slot);
    ListRead from = ReadListValue(store, StatsHere(ctx.server), Lookup::kWrite, src);
    if (ReadFailed(from, ctx.reply)) co_return;
    if (!from.value) {
      *source_missing = true;
      co_return;
    }
  }
  co_await ctx.ToSlot(dst_slot);
  {
    Store store = ctx.StoreOf(dst_slot);
    Result<std::optional<slot::KeyMeta>> m = store.GetMeta(dst);
    if (Failed(m.status(), ctx.reply)) co_return;
    if (m->has_value() && (*m)->type != ValueType::kList) {
      ctx.reply.Error(kErrWrongType);
      co_return;
    }
  }
  co_await ctx.ToSlot(src_slot);
  std::string v;
  {
    Store store = ctx.StoreOf(src_slot);
    ListRead from = ReadListValue(store, StatsHere(ctx.server), Lookup::kWrite, src);
    if (ReadFailed(from, ctx.reply)) co_return;
    if (!from.value) {
      *source_missing = true;
      co_return;
    }
    v = Pop(*from.value, from_end);
    if (Failed(WriteList(store, src, *from.value, from.meta.expire_at_ms), ctx.reply)) co_return;
  }
  co_await ctx.ToSlot(dst_slot);
  bool put_back = false;
  {
    Store store = ctx.StoreOf(dst_slot);
    ListRead to = ReadListValue(store, StatsHere(ctx.server), Lookup::kWrite, dst);
    if (ReadFailed(to, ctx.reply)) {
      put_back = to.wrong_type;
    } else {
      ListValue target = to.value ? std::move(*to.value) : ListValue();
      Push(target, to_end, v);
      if (Failed(WriteList(store, dst, target, to.meta.expire_at_ms), ctx.reply)) co_return;
      ctx.reply.Bulk(v);
    }
  }
  if (!put_back) co_return;
  co_await ctx.ToSlot(src_slot);
  Store store = ctx.StoreOf(src_slot);
  ListRead from = ReadListValue(store, StatsHere(ctx.server), Lookup::kWrite, src);
  if (!from.status.ok() || from.wrong_type) co_return;  // the WRONGTYPE reply stands
  ListValue back = from.value ? std::move(*from.value) : ListValue();
  Push(back, from_end, v);
  // Best effort: the reply is already the WRONGTYPE error.
  WriteList(store, src, back, from.meta.expire_at_ms).PermitUnchecked();
}

}  // namespace

std::string Pop(ListValue& list, End end) {
  return end == End::kLeft ? list.PopFront() : list.PopBack();
}

void Push(ListValue& list, End end, std::string_view v) {
  if (end == End::kLeft) {
    list.PushFront(v);
  } else {
    list.PushBack(v);
  }
}

std::optional<End> ParseEnd(std::string_view arg) {
  if (Is(arg, "LEFT")) return End::kLeft;
  if (Is(arg, "RIGHT")) return End::kRight;
  return std::nullopt;
}

Task MoveElement(AsyncContext& ctx, std::string_view src, std::string_view dst, End from_end,
                 End to_end, bool* source_missing) {
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(src);
  if (src_slot == ctx.server.keyspace->SlotOfKey(dst)) {
    co_await ctx.ToSlot(src_slot);
    Store store = ctx.StoreOf(src_slot);
    MoveInSlot(ctx, store, src, dst, from_end, to_end, source_missing);
  } else {
    co_await MoveAcrossSlots(ctx, src, dst, from_end, to_end, source_missing);
  }
}

std::optional<MPopArgs> ParseMPopArgs(const std::vector<std::string>& a, size_t numkeys_at,
                                      Reply& reply) {
  std::optional<int64_t> numkeys = ParseInt64(a[numkeys_at]);
  if (!numkeys || *numkeys < 1) {
    reply.Error(kErrNumKeys);
    return std::nullopt;
  }
  // numkeys keys, then at least the direction.
  if (static_cast<uint64_t>(*numkeys) >= a.size() - numkeys_at - 1) {
    reply.Error(kErrSyntax);
    return std::nullopt;
  }
  MPopArgs out;
  out.first_key = numkeys_at + 1;
  out.num_keys = static_cast<size_t>(*numkeys);
  const size_t end_pos = out.first_key + out.num_keys;
  std::optional<End> end = ParseEnd(a[end_pos]);
  if (!end) {
    reply.Error(kErrSyntax);
    return std::nullopt;
  }
  out.end = *end;
  bool count_seen = false;
  for (size_t i = end_pos + 1; i < a.size(); i += 2) {
    if (Is(a[i], "COUNT") && i + 1 < a.size() && !count_seen) {
      std::optional<int64_t> c = ParseInt64(a[i + 1]);
      if (!c || *c < 1) {
        reply.Error(kErrCountPositive);
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

bool ListMPopFrom(Store& store, WorkerStats& stats, std::string_view key, End end,
                  int64_t count, Reply& reply) {
  ListRead read = ReadListValue(store, stats, Lookup::kWrite, key);
  if (ReadFailed(read, reply)) return true;
  if (!read.value) return false;
  const size_t n =
      static_cast<size_t>(std::min<uint64_t>(static_cast<uint64_t>(count), read.value->size()));
  std::vector<std::string> popped;
  popped.reserve(n);
  for (size_t i = 0; i < n; ++i) popped.push_back(Pop(*read.value, end));
  if (Failed(WriteList(store, key, *read.value, read.meta.expire_at_ms), reply)) return true;
  reply.Array(2);
  reply.Bulk(key);
  reply.Array(popped.size());
  for (const std::string& v : popped) reply.Bulk(v);
  return true;
}

}  // namespace slotkv::command
