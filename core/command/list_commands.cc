// List family: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LINDEX LINSERT LPOS LRANGE LREM LSET
// LTRIM LMOVE RPOPLPUSH LMPOP, as Redis 7.0's t_list.c. The blocking variants (BLPOP & co.)
// are in blocking_commands.cc; what both use is in list_access.h.
//
// Values are stored with type kList: one ListValue (core/types/list_value.h) up to
// paged-collection-threshold elements, a paged list above (core/types/list_pages.h); commands
// reach either through ListAccess (list_access.h).
//
// Semantics kept from Redis: a key of another type gives WRONGTYPE; a list emptied by a pop,
// LREM, LTRIM or LMOVE is deleted; modifications keep the key's TTL (Put with the old
// expire_at_ms); a list created by a push has no TTL. Arguments are checked in Redis's order
// (e.g. LPOP's count before the key, LSET's key before its index).
//
// Several keys (LMOVE, RPOPLPUSH, LMPOP): when every key is in one slot (keys sharing a hash tag
// are), the command runs in one step on the slot's owner. Otherwise each key is handled on its
// own owner, one after the other, the command holding its keys throughout (RunTask's HoldKeys):
// another client's command that names one of them waits until it ends, so none sees an LMOVE'd
// element in neither list. The blocking variants hold no keys (blocking_commands.cc).
//
// Keyspace hits/misses count the lookups Redis counts with lookupKeyRead: LLEN LINDEX LRANGE
// LPOS; not those of the writing commands (lookupKeyWrite).
#include <optional>

#include "conf/config.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/list_access.h"
#include "core/command/notify.h"

namespace slotkv::command {
namespace {

// Error texts only this family replies with (errors.h belongs to the framework).
constexpr std::string_view kErrMustBePositive = "ERR value is out of range, must be positive";
constexpr std::string_view kErrIndexRange = "ERR index out of range";
constexpr std::string_view kErrRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
constexpr std::string_view kErrCountNegative = "ERR COUNT can't be negative";
constexpr std::string_view kErrMaxlenNegative = "ERR MAXLEN can't be negative";

// ---- lookups ------------------------------------------------------------------------------

// Opens key as a list for a one-key command. False after replying an error.
bool OpenList(CommandContext& ctx, Lookup lookup, std::string_view key, ListAccess* list) {
  return list->Open(key, ctx.stats, lookup, ctx.reply);
}

// ---- one key ------------------------------------------------------------------------------

// LPUSH / RPUSH / LPUSHX / RPUSHX key element [element ...]: the new length. The X forms do
// nothing (0) on a missing key.
void PushGeneric(CommandContext& ctx, End end, bool only_existing) {
  const std::string& key = ctx.args[1];
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kWrite, key, &list)) return;
  if (!list.exists() && only_existing) {
    ctx.reply.Integer(0);
    return;
  }
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (Failed(list.Push(end, ctx.args[i]), ctx.reply)) return;
  }
  if (Failed(list.Write(), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(list.size()));
}

void LPush(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, false); }
void RPush(CommandContext& ctx) { PushGeneric(ctx, End::kRight, false); }
void LPushX(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, true); }
void RPushX(CommandContext& ctx) { PushGeneric(ctx, End::kRight, true); }

// LPOP / RPOP key [count]: one element (nil for a missing key) or, with count, an array of up
// to count elements: empty for count 0 on an existing list, a null array for a missing key.
void PopGeneric(CommandContext& ctx, End end) {
  if (ctx.args.size() > 3) {
    ctx.reply.Error(WrongArgs(ctx.args[0]));
    return;
  }
  std::optional<int64_t> count;
  if (ctx.args.size() == 3) {
    count = ParseInt64(ctx.args[2]);
    if (!count || *count < 0) {
      ctx.reply.Error(kErrMustBePositive);
      return;
    }
  }
  const std::string& key = ctx.args[1];
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kWrite, key, &list)) return;
  if (!list.exists()) {
    if (count) {
      ctx.reply.NullArray();
    } else {
      ctx.reply.Null();
    }
    return;
  }
  const uint64_t n = count ? std::min<uint64_t>(static_cast<uint64_t>(*count), list.size()) : 1;
  std::vector<std::string> popped;
  popped.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    Result<std::string> v = list.Pop(end);
    if (Failed(v.status(), ctx.reply)) return;
    popped.push_back(std::move(*v));
  }
  if (Failed(list.Write(), ctx.reply)) return;
  if (!count) {
    ctx.reply.Bulk(popped[0]);
    return;
  }
  ctx.reply.Array(popped.size());
  for (const std::string& v : popped) ctx.reply.Bulk(v);
}

void LPop(CommandContext& ctx) { PopGeneric(ctx, End::kLeft); }
void RPop(CommandContext& ctx) { PopGeneric(ctx, End::kRight); }

// LLEN key: the length (0 for a missing key), read from the header alone.
void LLen(CommandContext& ctx) { ReplyCollectionSize<ListValue>(ctx, ValueType::kList); }

// LINDEX key index: the element or nil. The key is looked up before the index is parsed.
void LIndex(CommandContext& ctx) {
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kRead, ctx.args[1], &list)) return;
  if (!list.exists()) {
    ctx.reply.Null();
    return;
  }
  std::optional<int64_t> index = IntArg(ctx.args[2], ctx.reply);
  if (!index) return;
  Result<std::optional<std::string>> v = list.Index(*index);
  if (Failed(v.status(), ctx.reply)) return;
  if (!*v) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(**v);
}

// LINSERT key BEFORE|AFTER pivot element: the new length, -1 when pivot is absent, 0 for a
// missing key.
void LInsert(CommandContext& ctx) {
  const auto& a = ctx.args;
  bool after = false;
  if (Is(a[2], "AFTER")) {
    after = true;
  } else if (!Is(a[2], "BEFORE")) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kWrite, a[1], &list)) return;
  if (!list.exists()) {
    ctx.reply.Integer(0);
    return;
  }
  Result<bool> inserted = list.Insert(a[3], a[4], after);
  if (Failed(inserted.status(), ctx.reply)) return;
  if (!*inserted) {
    ctx.reply.Integer(-1);
    return;
  }
  if (Failed(list.Write(), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(list.size()));
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]: the index of a match (nil
// when none) or, with COUNT, an array of up to num-matches indexes (0 = all). RANK picks the
// rank-th match, a negative rank searching from the tail; MAXLEN bounds the elements compared
// (0 = all). Options repeat, the last one winning.
void LPos(CommandContext& ctx) {
  const auto& a = ctx.args;
  int64_t rank = 1;
  std::optional<int64_t> count;
  int64_t maxlen = 0;
  for (size_t i = 3; i < a.size(); i += 2) {
    if (i + 1 >= a.size()) {
      ctx.reply.Error(kErrSyntax);
      return;
    }
    if (Is(a[i], "RANK")) {
      std::optional<int64_t> v = IntArg(a[i + 1], ctx.reply);
      if (!v) return;
      if (*v == 0) {
        ctx.reply.Error(kErrRankZero);
        return;
      }
      rank = *v;
    } else if (Is(a[i], "COUNT")) {
      count = ParseInt64(a[i + 1]);
      if (!count || *count < 0) {
        ctx.reply.Error(kErrCountNegative);
        return;
      }
    } else if (Is(a[i], "MAXLEN")) {
      std::optional<int64_t> v = ParseInt64(a[i + 1]);
      if (!v || *v < 0) {
        ctx.reply.Error(kErrMaxlenNegative);
        return;
      }
      maxlen = *v;
    } else {
      ctx.reply.Error(kErrSyntax);
      return;
    }
  }
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kRead, a[1], &list)) return;
  std::vector<int64_t> found;
  if (list.exists()) {
    const auto n = static_cast<int64_t>(list.size());
    const bool from_tail = rank < 0;
    // Redis 7.0 negates a negative rank in place: INT64_MIN stays negative there, which acts as
    // a rank of 1 (the first match from the tail).
    const uint64_t skip = rank == INT64_MIN ? 0
                          : from_tail       ? static_cast<uint64_t>(-rank) - 1
                                            : static_cast<uint64_t>(rank) - 1;
    const uint64_t want = count && *count > 0 ? static_cast<uint64_t>(*count)
                          : count             ? UINT64_MAX
                                              : 1;
    const int64_t limit = maxlen == 0 ? n : std::min(maxlen, n);
    uint64_t matches = 0;
    int64_t k = 0;
    Status st = list.Walk(from_tail ? n - 1 : 0, from_tail, [&](const std::string& e) {
      if (k >= limit || found.size() >= want) return false;
      const int64_t pos = from_tail ? n - 1 - k : k;
      ++k;
      if (e == a[2] && ++matches > skip) found.push_back(pos);
      return true;
    });
    if (Failed(st, ctx.reply)) return;
  }
  if (count) {
    ctx.reply.Array(found.size());
    for (int64_t p : found) ctx.reply.Integer(p);
  } else if (found.empty()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Integer(found[0]);
  }
}

// LRANGE key start stop: the elements of the range, both ends included.
void LRange(CommandContext& ctx) {
  std::optional<int64_t> start = IntArg(ctx.args[2], ctx.reply);
  if (!start) return;
  std::optional<int64_t> stop = IntArg(ctx.args[3], ctx.reply);
  if (!stop) return;
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kRead, ctx.args[1], &list)) return;
  std::optional<std::pair<uint64_t, uint64_t>> r = ListValue::RangeIn(list.size(), *start, *stop);
  if (!r) {
    ctx.reply.Array(0);
    return;
  }
  // The elements go straight into the reply (collected first, each was one more allocation
  // and copy: ~5% of the server's CPU under LRANGE_100); a walk that fails takes back what it
  // wrote before the error is replied.
  const uint64_t n = r->second - r->first + 1;
  const size_t mark = ctx.reply.buffer().size();
  ctx.reply.Array(n);
  uint64_t sent = 0;
  Status st = list.Walk(r->first, false, [&](const std::string& e) {
    ctx.reply.Bulk(e);
    return ++sent < n;
  });
  if (st.ok() && sent != n) st = Status::Corruption("list: fewer elements than its length");
  if (!st.ok()) {
    ctx.reply.buffer().resize(mark);
    Failed(st, ctx.reply);
  }
}

// LREM key count element: how many were removed (see ListValue::Remove for count).
void LRem(CommandContext& ctx) {
  std::optional<int64_t> count = IntArg(ctx.args[2], ctx.reply);
  if (!count) return;
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kWrite, ctx.args[1], &list)) return;
  Result<uint64_t> removed = list.Remove(ctx.args[3], *count);
  if (Failed(removed.status(), ctx.reply) || Failed(list.Write(), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(*removed));
}

// LSET key index element: OK; "no such key" for a missing key (checked before the index).
void LSet(CommandContext& ctx) {
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kWrite, ctx.args[1], &list)) return;
  if (!list.exists()) {
    ctx.reply.Error(kErrNoSuchKey);
    return;
  }
  std::optional<int64_t> index = IntArg(ctx.args[2], ctx.reply);
  if (!index) return;
  Result<bool> set = list.Set(*index, ctx.args[3]);
  if (Failed(set.status(), ctx.reply)) return;
  if (!*set) {
    ctx.reply.Error(kErrIndexRange);
    return;
  }
  if (Failed(list.Write(), ctx.reply)) return;
  ctx.reply.Ok();
}

// LTRIM key start stop: OK; a list trimmed to nothing is deleted.
void LTrim(CommandContext& ctx) {
  std::optional<int64_t> start = IntArg(ctx.args[2], ctx.reply);
  if (!start) return;
  std::optional<int64_t> stop = IntArg(ctx.args[3], ctx.reply);
  if (!stop) return;
  ListAccess list(ctx.store);
  if (!OpenList(ctx, Lookup::kWrite, ctx.args[1], &list)) return;
  if (list.exists()) {
    Result<uint64_t> removed = list.Trim(*start, *stop);
    if (Failed(removed.status(), ctx.reply)) return;
    if (*removed == 0) {
      // Nothing to write; Redis tells "ltrim" all the same.
      Notify(ctx.server, conf::kNotifyList, "ltrim", ctx.args[1], ctx.store.db());
    } else if (Failed(list.Write(), ctx.reply)) {
      return;
    }
  }
  ctx.reply.Ok();
}

// ---- several keys -------------------------------------------------------------------------

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT: the moved element, nil for a missing source.
Task LMove(AsyncContext& ctx) {
  std::optional<End> from_end = ParseEnd(ctx.args[3]);
  std::optional<End> to_end = ParseEnd(ctx.args[4]);
  if (!from_end || !to_end) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  bool missing = false;
  co_await MoveElement(ctx, ctx.args[1], ctx.args[2], *from_end, *to_end, &missing);
  if (missing) ctx.reply.Null();
  co_await ctx.ToHome();
}

// RPOPLPUSH source destination: LMOVE source destination RIGHT LEFT.
Task RPopLPush(AsyncContext& ctx) {
  bool missing = false;
  co_await MoveElement(ctx, ctx.args[1], ctx.args[2], End::kRight, End::kLeft, &missing);
  if (missing) ctx.reply.Null();
  co_await ctx.ToHome();
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: [key, elements] from the first key
// holding a list, a null array when none does. Keys are tried in order, each on its owner
// (all in one step when they share a slot).
Task LMPop(AsyncContext& ctx) {
  const auto& a = ctx.args;
  std::optional<MPopArgs> m = ParseMPopArgs(a, 1, ctx.reply);
  if (!m) co_return;
  Keyspace& keyspace = *ctx.server.keyspace;
  const size_t end_pos = m->first_key + m->num_keys;
  const uint32_t slot = keyspace.SlotOfKey(a[m->first_key]);
  bool one_slot = true;
  for (size_t p = m->first_key; p < end_pos; ++p) {
    one_slot = one_slot && keyspace.SlotOfKey(a[p]) == slot;
  }
  bool replied = false;
  if (one_slot) {
    co_await ctx.ToSlot(slot);
    Store store = ctx.StoreOf(slot);
    for (size_t p = m->first_key; p < end_pos && !replied; ++p) {
      replied = ListMPopFrom(store, StatsHere(ctx.server), a[p], m->end, m->count, ctx.reply);
    }
  } else {
    for (size_t p = m->first_key; p < end_pos && !replied; ++p) {
      const uint32_t s = keyspace.SlotOfKey(a[p]);
      co_await ctx.ToSlot(s);
      Store store = ctx.StoreOf(s);
      replied = ListMPopFrom(store, StatsHere(ctx.server), a[p], m->end, m->count, ctx.reply);
    }
  }
  if (!replied) ctx.reply.NullArray();
  co_await ctx.ToHome();
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS. LMPOP's keys follow numkeys (Redis's "movablekeys", a flag slotkv's table
// does not have): its row names no key positions, as Redis's (0 0 0).
void RegisterListCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "lindex", .arity = 3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = LIndex, .group = "list",
         .summary = "Get an element from a list by its index", .since = "1.0.0",
         .acl = "read list slow", .key_specs = "RO access"});
  t.Add({.name = "linsert", .arity = 5, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run = LInsert, .group = "list",
         .summary = "Insert an element before or after another element in a list",
         .since = "2.2.0", .acl = "write list slow", .key_specs = "RW insert"});
  t.Add({.name = "llen", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = LLen, .group = "list", .summary = "Get the length of a list",
         .since = "1.0.0", .acl = "read list fast", .key_specs = "RO"});
  t.Add({.name = "lmove", .arity = 5, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 2, .step = 1, .run_async = LMove, .group = "list",
         .summary = "Pop an element from a list, push it to another list and return it",
         .since = "6.2.0", .acl = "write list slow", .key_specs = "RW access delete|RW insert"});
  t.Add({.name = "lmpop", .arity = -4, .flags = kWrite, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = LMPop, .keys = KeysAfterNumKeys, .group = "list",
         .summary = "Pop elements from a list", .since = "7.0.0", .acl = "write list slow", .key_specs = "RW access delete"});
  t.Add({.name = "lpop", .arity = -2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = LPop, .group = "list",
         .summary = "Remove and get the first elements in a list", .since = "1.0.0",
         .acl = "write list fast", .key_specs = "RW access delete"});
  t.Add({.name = "lpos", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = LPos, .group = "list",
         .summary = "Return the index of matching elements on a list", .since = "6.0.6",
         .acl = "read list slow", .key_specs = "RO access"});
  t.Add({.name = "lpush", .arity = -3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = LPush, .group = "list",
         .summary = "Prepend one or multiple elements to a list", .since = "1.0.0",
         .acl = "write list fast", .key_specs = "RW insert"});
  t.Add({.name = "lpushx", .arity = -3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = LPushX, .group = "list",
         .summary = "Prepend an element to a list, only if the list exists", .since = "2.2.0",
         .acl = "write list fast", .key_specs = "RW insert"});
  t.Add({.name = "lrange", .arity = 4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = LRange, .group = "list",
         .summary = "Get a range of elements from a list", .since = "1.0.0",
         .acl = "read list slow", .key_specs = "RO access"});
  t.Add({.name = "lrem", .arity = 4, .flags = kWrite, .first_key = 1, .last_key = 1,
         .step = 1, .run = LRem, .group = "list", .summary = "Remove elements from a list",
         .since = "1.0.0", .acl = "write list slow", .key_specs = "RW delete"});
  t.Add({.name = "lset", .arity = 4, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run = LSet, .group = "list",
         .summary = "Set the value of an element in a list by its index", .since = "1.0.0",
         .acl = "write list slow", .key_specs = "RW update"});
  t.Add({.name = "ltrim", .arity = 4, .flags = kWrite, .first_key = 1, .last_key = 1,
         .step = 1, .run = LTrim, .group = "list",
         .summary = "Trim a list to the specified range", .since = "1.0.0",
         .acl = "write list slow", .key_specs = "RW delete"});
  t.Add({.name = "rpop", .arity = -2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = RPop, .group = "list",
         .summary = "Remove and get the last elements in a list", .since = "1.0.0",
         .acl = "write list fast", .key_specs = "RW access delete"});
  t.Add({.name = "rpoplpush", .arity = 3, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 2, .step = 1, .run_async = RPopLPush, .group = "list",
         .summary = "Remove the last element in a list, prepend it to another list and return it",
         .since = "1.2.0", .acl = "write list slow", .key_specs = "RW access delete|RW insert"});
  t.Add({.name = "rpush", .arity = -3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = RPush, .group = "list",
         .summary = "Append one or multiple elements to a list", .since = "1.0.0",
         .acl = "write list fast", .key_specs = "RW insert"});
  t.Add({.name = "rpushx", .arity = -3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = RPushX, .group = "list",
         .summary = "Append an element to a list, only if the list exists", .since = "2.2.0",
         .acl = "write list fast", .key_specs = "RW insert"});
  // clang-format on
}

}  // namespace slotkv::command
