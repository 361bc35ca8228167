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
  ListAccess from(store);
  if (!from.Open(src, stats, Lookup::kWrite, ctx.reply)) return;
  if (!from.exists()) {
    *source_missing = true;
    return;
  }
  if (src == dst) {  // rotate
    Result<std::string> v = from.Pop(from_end);
    if (Failed(v.status(), ctx.reply) || Failed(from.Push(to_end, *v), ctx.reply) ||
        Failed(from.Write(), ctx.reply)) {
      return;
    }
    ctx.reply.Bulk(*v);
    return;
  }
  ListAccess to(store);
  if (!to.Open(dst, stats, Lookup::kWrite, ctx.reply)) return;
  Result<std::string> v = from.Pop(from_end);
  if (Failed(v.status(), ctx.reply) || Failed(to.Push(to_end, *v), ctx.reply) ||
      Failed(from.Write(), ctx.reply) || Failed(to.Write(), ctx.reply)) {
    return;
  }
  ctx.reply.Bulk(*v);
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
    Result<std::optional<slot::KeyMeta>> m = store.GetMeta(src);
    if (Failed(m.status(), ctx.reply)) co_return;
    if (!m->has_value()) {
      *source_missing = true;
      co_return;
    }
    if ((*m)->type != ValueType::kList) {
      ctx.reply.Error(kErrWrongType);
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
    ListAccess from(store);
    if (!from.Open(src, StatsHere(ctx.server), Lookup::kWrite, ctx.reply)) co_return;
    if (!from.exists()) {
      *source_missing = true;
      co_return;
    }
    Result<std::string> popped = from.Pop(from_end);
    if (Failed(popped.status(), ctx.reply) || Failed(from.Write(), ctx.reply)) co_return;
    v = std::move(*popped);
  }
  co_await ctx.ToSlot(dst_slot);
  bool put_back = false;
  {
    Store store = ctx.StoreOf(dst_slot);
    ListAccess to(store);
    bool wrong_type = false;
    Status st = to.Open(dst, StatsHere(ctx.server), Lookup::kWrite, &wrong_type);
    if (wrong_type) {
      ctx.reply.Error(kErrWrongType);
      put_back = true;
    } else if (!Failed(st, ctx.reply)) {
      if (Failed(to.Push(to_end, v), ctx.reply) || Failed(to.Write(), ctx.reply)) co_return;
      ctx.reply.Bulk(v);
    }
  }
  if (!put_back) co_return;
  co_await ctx.ToSlot(src_slot);
  Store store = ctx.StoreOf(src_slot);
  ListAccess back(store);
  bool wrong_type = false;
  if (!back.Open(src, StatsHere(ctx.server), Lookup::kWrite, &wrong_type).ok() || wrong_type) {
    co_return;  // the WRONGTYPE reply stands
  }
  // Best effort: the reply is already the WRONGTYPE error.
  if (back.Push(from_end, v).ok()) back.Write().PermitUnchecked();
}

}  // namespace

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
  ListAccess list(store);
  if (!list.Open(key, stats, Lookup::kWrite, reply)) return true;
  if (!list.exists()) return false;
  const uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(count), list.size());
  std::vector<std::string> popped;
  popped.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    Result<std::string> v = list.Pop(end);
    if (Failed(v.status(), reply)) return true;
    popped.push_back(std::move(*v));
  }
  if (Failed(list.Write(), reply)) return true;
  reply.Array(2);
  reply.Bulk(key);
  reply.Array(popped.size());
  for (const std::string& v : popped) reply.Bulk(v);
  return true;
}

// ---- ListAccess ---------------------------------------------------------------------------

Status ListAccess::Push(End end, std::string_view v) {
  changed_ = true;
  if (paged_) return paged_->InsertAt(end == End::kLeft ? 0 : paged_->size(), std::string(v));
  if (!small_) small_.emplace();
  if (end == End::kLeft) {
    small_->PushFront(v);
  } else {
    small_->PushBack(v);
  }
  return Status::OK();
}

Result<std::string> ListAccess::Pop(End end) {
  changed_ = true;
  if (paged_) return paged_->EraseAt(end == End::kLeft ? 0 : paged_->size() - 1);
  return end == End::kLeft ? small_->PopFront() : small_->PopBack();
}

Result<std::optional<std::string>> ListAccess::Index(int64_t i) {
  std::optional<uint64_t> pos = ListValue::PositionIn(size(), i);
  if (!pos) return std::optional<std::string>();
  if (small_) return std::optional<std::string>(small_->at(*pos));
  SLOTKV_ASSIGN_OR_RETURN(std::string v, paged_->At(*pos));
  return std::optional<std::string>(std::move(v));
}

Result<bool> ListAccess::Set(int64_t i, std::string_view v) {
  std::optional<uint64_t> pos = ListValue::PositionIn(size(), i);
  if (!pos) return false;
  changed_ = true;
  if (small_) return small_->Set(i, v);
  SLOTKV_RETURN_IF_ERROR(paged_->ReplaceAt(*pos, std::string(v)));
  return true;
}

Result<bool> ListAccess::Insert(std::string_view pivot, std::string_view v, bool after) {
  if (small_) {
    const bool inserted = small_->Insert(pivot, v, after);
    changed_ = changed_ || inserted;
    return inserted;
  }
  if (!paged_) return false;
  std::optional<uint64_t> at;
  uint64_t pos = 0;
  SLOTKV_RETURN_IF_ERROR(paged_->Walk(0, false, [&](const std::string& e) {
    if (e == pivot) {
      at = pos;
      return false;
    }
    ++pos;
    return true;
  }));
  if (!at) return false;
  changed_ = true;
  SLOTKV_RETURN_IF_ERROR(paged_->InsertAt(after ? *at + 1 : *at, std::string(v)));
  return true;
}

Result<uint64_t> ListAccess::Remove(std::string_view v, int64_t count) {
  if (small_) {
    const uint64_t removed = small_->Remove(v, count);
    changed_ = changed_ || removed > 0;
    return removed;
  }
  if (!paged_ || paged_->size() == 0) return uint64_t{0};
  const uint64_t limit = count == 0  ? UINT64_MAX
                         : count < 0 ? 0 - static_cast<uint64_t>(count)
                                     : static_cast<uint64_t>(count);
  const bool reverse = count < 0;
  std::vector<uint64_t> matches;  // in walk order
  uint64_t pos = reverse ? paged_->size() - 1 : 0;
  SLOTKV_RETURN_IF_ERROR(paged_->Walk(pos, reverse, [&](const std::string& e) {
    if (e == v) matches.push_back(pos);
    pos += reverse ? -1 : 1;
    return matches.size() < limit;
  }));
  // Erase from the highest position down, so the others stay where they were.
  if (!reverse) std::reverse(matches.begin(), matches.end());
  for (uint64_t p : matches) SLOTKV_RETURN_IF_ERROR(paged_->EraseAt(p).status());
  changed_ = changed_ || !matches.empty();
  return static_cast<uint64_t>(matches.size());
}

Result<uint64_t> ListAccess::Trim(int64_t start, int64_t stop) {
  const uint64_t before = size();
  if (small_) {
    small_->Trim(start, stop);
    changed_ = changed_ || small_->size() != before;
    return before - small_->size();
  }
  if (!paged_) return uint64_t{0};
  std::optional<std::pair<uint64_t, uint64_t>> keep = ListValue::RangeIn(before, start, stop);
  if (!keep) {
    cleared_ = changed_ = true;  // Write drops the pages whole
    return before;
  }
  for (uint64_t n = before - 1 - keep->second; n > 0; --n) {
    SLOTKV_RETURN_IF_ERROR(paged_->EraseAt(paged_->size() - 1).status());
  }
  for (uint64_t n = keep->first; n > 0; --n) SLOTKV_RETURN_IF_ERROR(paged_->EraseAt(0).status());
  changed_ = changed_ || paged_->size() != before;
  return before - paged_->size();
}

Status ListAccess::Walk(uint64_t pos, bool reverse,
                        const std::function<bool(const std::string&)>& fn) {
  if (paged_) return paged_->Walk(pos, reverse, fn);
  if (!small_ || pos >= small_->size()) return Status::OK();
  for (uint64_t i = pos;; reverse ? --i : ++i) {
    if (!fn(small_->at(i)) || (reverse ? i == 0 : i + 1 == small_->size())) break;
  }
  return Status::OK();
}

}  // namespace slotkv::command
