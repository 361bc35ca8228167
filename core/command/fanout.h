// Fan-out for commands over many keys or every slot: visit each owner once, in worker order.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <vector>

#include "core/command/context.h"
#include "core/command/execute.h"

namespace slotkv::command {

// Keys by (owner, slot), each group a list of indexes: one hop per owner, slots of an owner in
// order.
using SlotGroups = std::map<std::pair<int, uint32_t>, std::vector<size_t>>;

// The keys at args[positions] by (owner, slot); positions keep their order within a slot.
inline SlotGroups KeySlots(AsyncContext& ctx, const std::vector<size_t>& positions) {
  SlotGroups groups;
  for (size_t p : positions) {
    uint32_t s = ctx.server.keyspace->SlotOfKey(ctx.args[p]);
    groups[{ctx.server.executor->OwnerOf(s), s}].push_back(p);
  }
  return groups;
}

// Prefetches for writes of the keys of the groups from it on that share its owner
// (Keyspace::Prefetch).
template <typename It>
void PrefetchWrites(AsyncContext& ctx, It it, It end) {
  std::vector<Keyspace::KeyRef> keys;
  for (It g = it; g != end && g->first.first == it->first.first; ++g) {
    for (size_t p : g->second) keys.push_back({g->first.second, ctx.args[p], /*write=*/true});
  }
  ctx.server.keyspace->Prefetch(ctx.db, keys);
}

// Calls fn(store, positions) once per slot that holds some of the keys at args[positions],
// on the slot's owner, then returns home. Arriving at an owner, it prefetches what writing
// each of the owner's keys reads first (Keyspace::Prefetch): ten random keys of an MSET
// missed the CPU's cache one after the other.
inline Task ForEachKeySlot(AsyncContext& ctx, const std::vector<size_t>& positions,
                           std::function<void(Store&, const std::vector<size_t>&)> fn) {
  const auto groups = KeySlots(ctx, positions);
  int prefetched = -1;
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    const auto& [owner_slot, group] = *it;
    co_await ctx.ToSlot(owner_slot.second);
    if (owner_slot.first != prefetched) {
      prefetched = owner_slot.first;
      PrefetchWrites(ctx, it, groups.end());
    }
    Store store = ctx.StoreOf(owner_slot.second);
    fn(store, group);
  }
  co_await ctx.ToHome();
}

// ForEachKeySlot's walk over groups, for steps that only read. Where the worker's ring is up, a
// step runs with no-wait reads (RunWithoutWaiting); when a read would wait for the disk, the ring reads what
// it missed while the worker serves other requests, and the step runs again: kNoWaitTries
// times, then reading waiting. So a step must change nothing before a read that may miss. The
// first error ends the walk, in *failure.
inline Task ReadEachGroup(AsyncContext& ctx, const SlotGroups& groups,
                          std::function<Status(Store&, const std::vector<size_t>&)> fn,
                          Status* failure) {
  Executor& executor = *ctx.server.executor;
  for (auto& [owner_slot, group] : groups) {
    co_await ctx.ToSlot(owner_slot.second);
    for (int tries = 0;; ++tries) {
      Store store = ctx.StoreOf(owner_slot.second);
      if (tries >= kNoWaitTries || !executor.async_reads()) {
        *failure = fn(store, group);
        break;
      }
      std::vector<BlockedRead> missed;  // the no-wait scope ends before the task may move
      if (RunWithoutWaiting(ctx.server, &missed, [&] { *failure = fn(store, group); })) break;
      co_await FetchReads{&executor, &missed};
    }
    if (!failure->ok()) break;
  }
  co_await ctx.ToHome();
}

// ReadEachGroup over the keys at args[positions]; fn gets positions.
inline Task ForEachKeySlotReading(AsyncContext& ctx, const std::vector<size_t>& positions,
                                  std::function<Status(Store&, const std::vector<size_t>&)> fn,
                                  Status* failure) {
  const SlotGroups groups = KeySlots(ctx, positions);
  co_await ReadEachGroup(ctx, groups, std::move(fn), failure);
}

// ReadEachGroup over keys that no argument names (SORT's BY and GET patterns); fn gets
// indexes into keys. REQUIRES: the task holds every slot (CommandTable::AllSlots).
inline Task ForEachKeyReading(AsyncContext& ctx, const std::vector<std::string>& keys,
                              std::function<Status(Store&, const std::vector<size_t>&)> fn,
                              Status* failure) {
  SlotGroups groups;
  for (size_t i = 0; i < keys.size(); ++i) {
    uint32_t s = ctx.server.keyspace->SlotOfKey(keys[i]);
    groups[{ctx.server.executor->OwnerOf(s), s}].push_back(i);
  }
  co_await ReadEachGroup(ctx, groups, std::move(fn), failure);
}

// Calls fn(store, begin, end) on slot s's owner for the items [0, n), in runs of at most
// per_turn, letting the owner serve what waits between runs (AsyncContext::Requeue): member
// lookups in a big collection. The first error ends the walk, in *failure.
inline Task ForEachRunOnSlot(AsyncContext& ctx, uint32_t s, size_t n, size_t per_turn,
                             std::function<Status(Store&, size_t, size_t)> fn,
                             Status* failure) {
  for (size_t begin = 0; begin < n && failure->ok(); begin += per_turn) {
    if (begin > 0) co_await ctx.Requeue();
    co_await ctx.ToSlot(s);
    Store store = ctx.StoreOf(s);
    *failure = fn(store, begin, std::min(n, begin + per_turn));
  }
}

// Calls fn(store) for every slot of the client's database, on its owner, then returns home.
// fn returns false to stop early.
inline Task ForEachSlot(AsyncContext& ctx, std::function<bool(Store&)> fn, uint32_t db) {
  const int workers = ctx.server.executor->workers();
  const uint32_t slots = ctx.server.keyspace->slots();
  bool go_on = true;
  for (int w = 0; w < workers && go_on; ++w) {
    for (uint32_t s = static_cast<uint32_t>(w); s < slots && go_on;
         s += static_cast<uint32_t>(workers)) {
      co_await ctx.ToSlot(s);
      Store store = ctx.StoreOf(s, db);
      go_on = fn(store);
    }
  }
  co_await ctx.ToHome();
}

// Lets slot s of database db resolve its key count a slice at a time
// (Slot::ResolveKeyCount), the worker serving what waits between slices, so that KeyCount
// then reads (almost) nothing. A failure is left to KeyCount. REQUIRES: on s's owner; a visit
// takes its slot again after it.
inline Task ResolveKeyCount(AsyncContext& ctx, uint32_t s, uint32_t db) {
  for (int slice = 0; slice < slot::Slot::kKeyCountSlices; ++slice) {
    Result<slot::Slot*> slot = ctx.server.keyspace->Get(s, db, /*create=*/false);
    if (!slot.ok() || *slot == nullptr) co_return;
    Result<bool> done = (*slot)->ResolveKeyCount(slot::Slot::kKeyCountSliceUs);
    if (!done.ok() || *done) co_return;
    co_await ctx.Requeue();
  }
}

// The key count of every slot of database db ((*counts)[slot], as Slot::KeyCount: expired keys
// not yet reclaimed included), visiting each owner in turn, then home. *failure is the first
// error.
inline Task CountKeys(AsyncContext& ctx, uint32_t db, std::vector<uint64_t>* counts,
                      Status* failure) {
  const int workers = ctx.server.executor->workers();
  const uint32_t slots = ctx.server.keyspace->slots();
  counts->assign(slots, 0);
  for (int w = 0; w < workers && failure->ok(); ++w) {
    co_await ctx.ToWorker(w);
    for (uint32_t s = static_cast<uint32_t>(w); s < slots && failure->ok();
         s += static_cast<uint32_t>(workers)) {
      co_await ResolveKeyCount(ctx, s, db);
      co_await ctx.ToSlot(s);
      Result<uint64_t> n = ctx.StoreOf(s, db).KeyCount();
      if (n.ok()) {
        (*counts)[s] = *n;
      } else {
        *failure = n.status();
      }
    }
  }
  co_await ctx.ToHome();
}

}  // namespace slotkv::command
