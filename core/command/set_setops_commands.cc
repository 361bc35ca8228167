// Set operations over several keys: SUNION SINTER SDIFF SINTERCARD SUNIONSTORE SINTERSTORE
// SDIFFSTORE, as Redis 7.0's t_set.c (sunionDiffGenericCommand, sinterGenericCommand).
//
// Semantics kept from Redis: a missing key is an empty set; a key of another type gives
// WRONGTYPE, whichever source it is (*STORE overwrite a destination of any type); a *STORE
// with an empty result deletes the destination, and its destination has no TTL. An
// intersection is computed from its smallest source (ties: the first named), a difference from
// its first: their members come out in that source's order.
//
// Paged sources (collection_pages.h) are not read whole where a member lookup does: a first
// pass reads each source's type and size (a paged set's root only, a one-value set whole);
// then SINTER and SINTERCARD read the smallest source whole and look its members up in the
// others, smallest first, SDIFF reads the first one whole and looks its members up in the
// others; a paged source takes kLookupsPerStep lookups per turn of its owner. Memory: the
// members of that one source, not of all of them (SINTER of a 100-member set with a
// 10M-member one reads 100 members and their pages). SUNION reads every source whole.
//
// Several keys: the command holds its keys from start to end (RunTask's HoldKeys), so another
// client's command on any of them waits; visits to other owners interleave with the rest of
// their work.
//
// Keyspace hits/misses (and "keymiss" events): each source's lookup counts once, in the first
// pass (Redis uses lookupKeyRead for all of them, *STORE included).
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/member_access.h"
#include "core/command/typed_read.h"
#include "core/types/set_value.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrNumKeys = "ERR numkeys should be greater than 0";
constexpr std::string_view kErrTooManyKeys =
    "ERR Number of keys can't be greater than number of args";
constexpr std::string_view kErrLimit = "ERR LIMIT can't be negative";

// Member lookups in a paged source per turn of its owner.
constexpr size_t kLookupsPerStep = 4096;

enum class Op { kUnion, kInter, kDiff };
enum class Output { kReply, kStore, kCard };

// A source as the first pass found it.
struct Source {
  bool exists = false;
  bool paged = false;
  uint64_t size = 0;
  std::optional<SetValue> set;  // a one-value set; a paged one once read whole
};

// The sources of a set operation: args[first + i] -> sets[i].
struct Sources {
  size_t first = 0;
  std::vector<Source> sets;
  Status failure;
  bool wrong_type = false;
};

// First pass over the sources at positions ps (all in store's slot): type, size, and a
// one-value set's members; a reader's lookup each.
void ReadSources(AsyncContext& ctx, Store& store, const std::vector<size_t>& ps, Sources* src) {
  WorkerStats& stats = StatsHere(ctx.server);
  for (size_t p : ps) {
    if (!src->failure.ok() || src->wrong_type) return;
    MemberAccess<SetValue> set(store, ValueType::kSet);
    src->failure = set.Open(ctx.args[p], stats, Lookup::kRead, &src->wrong_type);
    Source& s = src->sets[p - src->first];
    s.exists = set.exists();
    s.paged = set.paged() != nullptr;
    s.size = set.size();
    if (set.small()) s.set = std::move(*set.small());
  }
}

// Replies the error of failed sources; true when there was one.
bool SourcesFailed(const Sources& src, Reply& reply) {
  if (Failed(src.failure, reply)) return true;
  if (src.wrong_type) {
    reply.Error(kErrWrongType);
    return true;
  }
  return false;
}

// Reads source i whole, on its owner, when the first pass left it paged. False after
// replying a failure.
Task ReadWholeSource(AsyncContext& ctx, Sources& src, size_t i, bool* ok) {
  *ok = true;
  Source& s = src.sets[i];
  if (!s.exists || s.set) co_return;
  const std::string& key = ctx.args[src.first + i];
  const uint32_t slot = ctx.server.keyspace->SlotOfKey(key);
  co_await ctx.ToSlot(slot);
  Store store = ctx.StoreOf(slot);
  // Lookup::kWrite: not counted again (the first pass did).
  TypedRead<SetValue> read =
      ReadWhole<SetValue>(store, StatsHere(ctx.server), Lookup::kWrite, key, ValueType::kSet);
  *ok = !ReadFailed(read, ctx.reply);
  if (*ok) s.set = std::move(read.value);
}

// Keeps the members of *members that source i holds (keep_present) or lacks (!keep_present):
// in memory for a one-value set, by lookups on its owner for a paged one. False after
// replying a failure.
Task FilterBySource(AsyncContext& ctx, const Sources& src, size_t i, bool keep_present,
                    std::vector<std::string>* members, bool* ok) {
  *ok = true;
  const Source& s = src.sets[i];
  auto keep = [&](bool present) { return present == keep_present; };
  if (!s.paged) {
    std::erase_if(*members, [&](const std::string& m) {
      return !keep(s.set && s.set->Contains(m));
    });
    co_return;
  }
  const std::string& key = ctx.args[src.first + i];
  std::vector<std::string> kept;
  auto run = [&](Store& store, size_t begin, size_t end) -> Status {
    MemberAccess<SetValue> set(store, ValueType::kSet);
    bool wrong_type = false;
    // The keys are held, but active expiry may have taken this one since: then it is empty.
    SLOTKV_RETURN_IF_ERROR(set.Open(key, StatsHere(ctx.server), Lookup::kWrite, &wrong_type));
    for (size_t at = begin; at < end; ++at) {
      bool present = false;
      if (set.exists()) {
        SLOTKV_ASSIGN_OR_RETURN(present, set.Contains((*members)[at]));
      }
      if (keep(present)) kept.push_back(std::move((*members)[at]));
    }
    return Status::OK();
  };
  Status failure;
  co_await ForEachRunOnSlot(ctx, ctx.server.keyspace->SlotOfKey(key), members->size(),
                            kLookupsPerStep, run, &failure);
  *ok = !Failed(failure, ctx.reply);
  if (*ok) *members = std::move(kept);
}

// The members of SINTER (smallest source first) or SDIFF (the first source) over the sources,
// in that source's order. False after replying a failure.
Task Members(AsyncContext& ctx, Op op, Sources& src, std::vector<std::string>* out, bool* ok) {
  *ok = true;
  std::vector<size_t> order(src.sets.size());
  std::iota(order.begin(), order.end(), 0);
  if (op == Op::kInter) {
    for (const Source& s : src.sets) {
      if (!s.exists) co_return;  // with an empty set
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return src.sets[a].size < src.sets[b].size; });
  }
  co_await ReadWholeSource(ctx, src, order[0], ok);
  if (!*ok || !src.sets[order[0]].set) co_return;
  *out = src.sets[order[0]].set->members();
  for (size_t k = 1; k < order.size() && !out->empty(); ++k) {
    co_await FilterBySource(ctx, src, order[k], op == Op::kInter, out, ok);
    if (!*ok) co_return;
  }
}

// The union of the sources (read whole). False after replying a failure.
Task Union(AsyncContext& ctx, Sources& src, SetValue* out, bool* ok) {
  for (size_t i = 0; i < src.sets.size(); ++i) {
    co_await ReadWholeSource(ctx, src, i, ok);
    if (!*ok) co_return;
    std::optional<SetValue>& s = src.sets[i].set;
    if (!s) continue;
    if (out->empty()) {
      *out = std::move(*s);
    } else {
      for (const std::string& m : s->members()) out->Add(m);
    }
    s.reset();
  }
}

// The steps of a set operation over args[first, end) (sources), writing args[1] for kStore;
// ends on any worker.
Task SetOpSteps(AsyncContext& ctx, Op op, size_t first, size_t end, Output out, int64_t limit) {
  std::vector<size_t> positions(end - first);
  std::iota(positions.begin(), positions.end(), first);
  Sources src;
  src.first = first;
  src.sets.resize(positions.size());
  co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
    ReadSources(ctx, store, ps, &src);
  });
  if (SourcesFailed(src, ctx.reply)) co_return;
  bool ok = true;
  SetValue result;
  if (op == Op::kUnion) {
    co_await Union(ctx, src, &result, &ok);
  } else {
    std::vector<std::string> members;
    co_await Members(ctx, op, src, &members, &ok);
    if (ok && out == Output::kCard) {
      const auto n = static_cast<int64_t>(members.size());
      ctx.reply.Integer(limit > 0 ? std::min(n, limit) : n);
      co_return;
    }
    for (std::string& m : members) result.Add(std::move(m));
  }
  if (!ok) co_return;
  if (out == Output::kReply) {
    ReplyMembers(ctx.reply, result);
    co_return;
  }
  const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(ctx.args[1]);
  co_await ctx.ToSlot(dst_slot);
  Store store = ctx.StoreOf(dst_slot);
  if (Failed(StoreCollection(store, ctx.args[1], result, ValueType::kSet, 0), ctx.reply)) {
    co_return;
  }
  ctx.reply.Integer(static_cast<int64_t>(result.size()));
}

Task SetOp(AsyncContext& ctx, Op op, Output out) {
  const size_t first = out == Output::kStore ? 2 : 1;
  co_await SetOpSteps(ctx, op, first, ctx.args.size(), out, 0);
  co_await ctx.ToHome();
}

// SUNION / SINTER / SDIFF key [key ...]: the result as a set reply.
Task SUnion(AsyncContext& ctx) { co_await SetOp(ctx, Op::kUnion, Output::kReply); }
Task SInter(AsyncContext& ctx) { co_await SetOp(ctx, Op::kInter, Output::kReply); }
Task SDiff(AsyncContext& ctx) { co_await SetOp(ctx, Op::kDiff, Output::kReply); }
// SUNIONSTORE / SINTERSTORE / SDIFFSTORE destination key [key ...]: the result's size.
Task SUnionStore(AsyncContext& ctx) { co_await SetOp(ctx, Op::kUnion, Output::kStore); }
Task SInterStore(AsyncContext& ctx) { co_await SetOp(ctx, Op::kInter, Output::kStore); }
Task SDiffStore(AsyncContext& ctx) { co_await SetOp(ctx, Op::kDiff, Output::kStore); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]: the intersection's size, at most limit
// (0 = no limit). Parse errors as Redis: any bad numkeys is "numkeys should be greater than
// 0", any bad limit "LIMIT can't be negative".
Task SInterCard(AsyncContext& ctx) {
  const auto& a = ctx.args;
  std::optional<int64_t> numkeys = ParseInt64(a[1]);
  if (!numkeys || *numkeys < 1) {
    ctx.reply.Error(kErrNumKeys);
    co_return;
  }
  if (static_cast<uint64_t>(*numkeys) > a.size() - 2) {
    ctx.reply.Error(kErrTooManyKeys);
    co_return;
  }
  const size_t end = 2 + static_cast<size_t>(*numkeys);
  int64_t limit = 0;
  for (size_t i = end; i < a.size(); i += 2) {
    if (Is(a[i], "LIMIT") && i + 1 < a.size()) {
      std::optional<int64_t> l = ParseInt64(a[i + 1]);
      if (!l || *l < 0) {
        ctx.reply.Error(kErrLimit);
        co_return;
      }
      limit = *l;
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  co_await SetOpSteps(ctx, Op::kInter, 2, end, Output::kCard, limit);
  co_await ctx.ToHome();
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS. SINTERCARD's keys follow numkeys (Redis's "movablekeys", a flag slotkv's
// table does not have): its row names no key positions, as Redis's (0 0 0).
void RegisterSetSetOpsCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "sdiff", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = -1,
         .step = 1, .run_async = SDiff, .group = "set", .summary = "Subtract multiple sets",
         .since = "1.0.0", .acl = "read set slow", .key_specs = "RO access"});
  t.Add({.name = "sdiffstore", .arity = -3, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = SDiffStore, .group = "set",
         .summary = "Subtract multiple sets and store the resulting set in a key",
         .since = "1.0.0", .acl = "write set slow", .key_specs = "OW update|RO access"});
  t.Add({.name = "sinter", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = -1,
         .step = 1, .run_async = SInter, .group = "set", .summary = "Intersect multiple sets",
         .since = "1.0.0", .acl = "read set slow", .key_specs = "RO access"});
  t.Add({.name = "sintercard", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = SInterCard, .keys = KeysAfterNumKeys, .group = "set",
         .summary = "Intersect multiple sets and return the cardinality of the result",
         .since = "7.0.0", .acl = "read set slow", .key_specs = "RO access"});
  t.Add({.name = "sinterstore", .arity = -3, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = SInterStore, .group = "set",
         .summary = "Intersect multiple sets and store the resulting set in a key",
         .since = "1.0.0", .acl = "write set slow", .key_specs = "RW update|RO access"});
  t.Add({.name = "sunion", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = -1,
         .step = 1, .run_async = SUnion, .group = "set", .summary = "Add multiple sets",
         .since = "1.0.0", .acl = "read set slow", .key_specs = "RO access"});
  t.Add({.name = "sunionstore", .arity = -3, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = SUnionStore, .group = "set",
         .summary = "Add multiple sets and store the resulting set in a key", .since = "1.0.0",
         .acl = "write set slow", .key_specs = "OW update|RO access"});
  // clang-format on
}

}  // namespace slotkv::command
