// Set family: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SPOP SSCAN SMOVE, as
// Redis 7.0's t_set.c (the operations over several sets: set_setops_commands.cc).
//
// Values are stored with type kSet: up to paged-collection-threshold members as one value
// encoded by SetValue (core/types/set_value.h), above as a root plus pages of members
// (collection_pages.h). SADD SREM SISMEMBER SMISMEMBER SCARD go through MemberAccess (one page
// per member on a paged set); SRANDMEMBER and SPOP draw from a paged set page by page (but
// SRANDMEMBER of a third of it or more, and SPOP of all of it); SSCAN reads a few pages per
// call; the others read and write the whole set, O(size) as before.
//
// Semantics kept from Redis: a key of another type gives WRONGTYPE; a set emptied by SREM /
// SPOP / SMOVE is deleted. Modifications keep the key's TTL (Put with the old expire_at_ms).
//
// SMOVE: when both keys are in one slot (keys sharing a hash tag are), it runs in one step on
// the slot's owner; otherwise over both owners, holding its keys (another client's command on
// either waits).
//
// Keyspace hits/misses (and "keymiss" events) count the lookups Redis counts with
// lookupKeyRead: SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SSCAN; not those of SADD SREM
// SPOP SMOVE (lookupKeyWrite).
#include <optional>
#include <random>

#include "core/base/glob.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/member_access.h"
#include "core/command/typed_read.h"
#include "core/types/set_value.h"

namespace slotkv::command {
namespace {

// Error texts only this family replies with (errors.h belongs to the framework).
constexpr std::string_view kErrMustBePositive = "ERR value is out of range, must be positive";
constexpr std::string_view kErrCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and "
    "9223372036854775807";
constexpr std::string_view kErrInvalidCursor = "ERR invalid cursor";

// The random source of SPOP and SRANDMEMBER, one per worker thread.
std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  return rng;
}

using SetRead = TypedRead<SetValue>;

SetRead ReadSetValue(Store& store, WorkerStats& stats, Lookup lookup, std::string_view key) {
  return ReadWhole<SetValue>(store, stats, lookup, key, ValueType::kSet);
}

// Reads key as a set for a one-key command. False after replying an error; otherwise
// read->value is nullopt when the key does not exist.
bool ReadSet(CommandContext& ctx, Lookup lookup, std::string_view key, SetRead* read) {
  *read = ReadSetValue(ctx.store, ctx.stats, lookup, key);
  return !ReadFailed(*read, ctx.reply);
}

// Writes set under key with expiry expire_at_ms, or deletes the key when the set is empty.
Status WriteSet(Store& store, std::string_view key, const SetValue& set, int64_t expire_at_ms) {
  return StoreCollection(store, key, set, ValueType::kSet, expire_at_ms);
}

// Opens key as a set for point operations. False after replying an error.
bool OpenSet(CommandContext& ctx, Lookup lookup, MemberAccess<SetValue>* set) {
  return OpenOrReply(*set, ctx.args[1], ctx.stats, lookup, ctx.reply);
}

// Adds (or removes) members args[2..] of the set; how many were added (removed).
void ChangeMembers(CommandContext& ctx, bool add) {
  MemberAccess<SetValue> set(ctx.store, ValueType::kSet);
  if (!OpenSet(ctx, Lookup::kWrite, &set)) return;
  int64_t changed = 0;
  for (size_t i = 2; i < ctx.args.size() && (add || set.exists()); ++i) {
    Result<bool> r = add ? set.Set(ctx.args[i], "") : set.Delete(ctx.args[i]);
    if (Failed(r.status(), ctx.reply)) return;
    changed += *r ? 1 : 0;
  }
  if (changed > 0 && Failed(set.Write(), ctx.reply)) return;
  ctx.reply.Integer(changed);
}

// ---- one key ------------------------------------------------------------------------------

// SADD key member [member ...]: how many were new. Creates the key; keeps its TTL.
void SAdd(CommandContext& ctx) { ChangeMembers(ctx, true); }

// SREM key member [member ...]: how many were removed; an emptied set is deleted.
void SRem(CommandContext& ctx) { ChangeMembers(ctx, false); }

// SCARD key: the member count (0 for a missing key), read from the header or root alone.
void SCard(CommandContext& ctx) { ReplyCollectionSize<SetValue>(ctx, ValueType::kSet); }

// Whether the set holds each of args[2..]. False after replying an error.
bool ContainsMembers(CommandContext& ctx, std::vector<bool>* out) {
  MemberAccess<SetValue> set(ctx.store, ValueType::kSet);
  if (!OpenSet(ctx, Lookup::kRead, &set)) return false;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    Result<bool> r = set.Contains(ctx.args[i]);
    if (Failed(r.status(), ctx.reply)) return false;
    out->push_back(*r);
  }
  return true;
}

// SISMEMBER key member: 1 or 0.
void SIsMember(CommandContext& ctx) {
  std::vector<bool> has;
  if (!ContainsMembers(ctx, &has)) return;
  ctx.reply.Integer(has[0] ? 1 : 0);
}

// SMISMEMBER key member [member ...]: 1 or 0 per member.
void SMIsMember(CommandContext& ctx) {
  std::vector<bool> has;
  if (!ContainsMembers(ctx, &has)) return;
  ctx.reply.Array(has.size());
  for (bool h : has) ctx.reply.Integer(h ? 1 : 0);
}

// SMEMBERS key: every member, as a set reply (empty for a missing key).
void SMembers(CommandContext& ctx) {
  SetRead read;
  if (!ReadSet(ctx, Lookup::kRead, ctx.args[1], &read)) return;
  if (!read.value) {
    ctx.reply.Set(0);
    return;
  }
  ReplyMembers(ctx.reply, *read.value);
}

// SRANDMEMBER key [count]: one random member (nil for a missing key); with count >= 0, that
// many distinct members (the whole set when count >= size); with count < 0, |count| members
// that may repeat. Count replies are arrays, as Redis's. A paged set draws its members
// (ReplyRandomPaged) unless count asks for a third of it or more.
void SRandMember(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  std::optional<int64_t> count;
  if (ctx.args.size() == 3) {
    count = IntArg(ctx.args[2], ctx.reply);
    if (!count) return;
    if (*count == INT64_MIN) {
      ctx.reply.Error(kErrCountRange);
      return;
    }
  }
  {
    MemberAccess<SetValue> access(ctx.store, ValueType::kSet);
    if (!OpenSet(ctx, Lookup::kRead, &access)) return;
    if (access.paged() &&
        ReplyRandomPaged(ctx.reply, *access.paged(), Rng(), count, false, [&](const auto& picks) {
          ctx.reply.Array(picks.size());
          for (const auto& [member, unused] : picks) ctx.reply.Bulk(member);
        })) {
      return;
    }
  }
  SetRead read;  // the lookup was counted by the open: this read counts nothing
  if (!ReadSet(ctx, Lookup::kWrite, ctx.args[1], &read)) return;
  if (!read.value) {
    if (count) {
      ctx.reply.Array(0);
    } else {
      ctx.reply.Null();
    }
    return;
  }
  const SetValue& set = *read.value;
  std::mt19937_64& rng = Rng();
  if (!count) {
    ctx.reply.Bulk(set.at(set.RandomIndex(rng)));
    return;
  }
  if (*count < 0) {
    const uint64_t n = 0 - static_cast<uint64_t>(*count);
    uint64_t bytes = 0;  // estimate the reply from the average member
    for (const std::string& m : set.members()) bytes += m.size() + 16;
    if (n > kMaxRandomReplyBytes / (bytes / set.size() + 1)) {
      ctx.reply.Error(kErrReplyTooBig);
      return;
    }
    ctx.reply.Array(n);
    for (uint64_t i = 0; i < n; ++i) ctx.reply.Bulk(set.at(set.RandomIndex(rng)));
    return;
  }
  if (static_cast<uint64_t>(*count) >= set.size()) {
    ctx.reply.Array(set.size());
    for (const std::string& m : set.members()) ctx.reply.Bulk(m);
    return;
  }
  std::vector<size_t> picks = set.RandomDistinct(static_cast<size_t>(*count), rng);
  ctx.reply.Array(picks.size());
  for (size_t i : picks) ctx.reply.Bulk(set.at(i));
}

// SPOP of a paged set, below its size: each member drawn (MemberPages::Random) and removed, a
// page or so each.
void SPopPaged(CommandContext& ctx, MemberAccess<SetValue>& set, std::optional<int64_t> count) {
  std::vector<std::string> popped;
  for (int64_t i = 0; i < count.value_or(1); ++i) {
    Result<std::optional<std::pair<std::string, std::string>>> pick =
        set.paged()->Random(Rng());
    if (Failed(pick.status(), ctx.reply)) return;
    if (Failed(set.Delete((*pick)->first).status(), ctx.reply)) return;
    popped.push_back(std::move((*pick)->first));
  }
  if (Failed(set.Write(), ctx.reply)) return;
  if (!count) {
    ctx.reply.Bulk(popped[0]);
    return;
  }
  ctx.reply.Set(popped.size());
  for (const std::string& m : popped) ctx.reply.Bulk(m);
}

// SPOP key [count]: removes and replies one random member (nil for a missing key), or up to
// count distinct members as a set reply. An emptied set is deleted; the TTL is kept otherwise.
// A paged set pops member by member (SPopPaged) unless count takes it all.
void SPop(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.reply.Error(kErrSyntax);
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
  {
    MemberAccess<SetValue> access(ctx.store, ValueType::kSet);
    if (!OpenSet(ctx, Lookup::kWrite, &access)) return;
    if (access.paged() && (!count || (*count > 0 && static_cast<uint64_t>(*count) <
                                                         access.paged()->size()))) {
      SPopPaged(ctx, access, count);
      return;
    }
  }
  SetRead read;
  if (!ReadSet(ctx, Lookup::kWrite, key, &read)) return;
  if (!read.value || (count && *count == 0)) {
    if (count) {
      ctx.reply.Set(0);
    } else {
      ctx.reply.Null();
    }
    return;
  }
  SetValue& set = *read.value;
  std::mt19937_64& rng = Rng();
  if (!count) {
    std::string member = set.Pop(rng);
    if (Failed(WriteSet(ctx.store, key, set, read.meta.expire_at_ms), ctx.reply)) return;
    ctx.reply.Bulk(member);
    return;
  }
  if (static_cast<uint64_t>(*count) >= set.size()) {
    if (Failed(ctx.store.Delete(key).status(), ctx.reply)) return;
    ReplyMembers(ctx.reply, set);
    return;
  }
  std::vector<std::string> popped;
  popped.reserve(static_cast<size_t>(*count));
  for (int64_t i = 0; i < *count; ++i) popped.push_back(set.Pop(rng));
  if (Failed(WriteSet(ctx.store, key, set, read.meta.expire_at_ms), ctx.reply)) return;
  ctx.reply.Set(popped.size());
  for (const std::string& m : popped) ctx.reply.Bulk(m);
}


// SSCAN key cursor [MATCH pattern] [COUNT count]
// A one-value set replies every (matching) member with cursor 0 in one call, whatever the
// cursor and COUNT, as Redis does for its small (intset) sets; a paged set replies whole pages
// from the cursor (a page index) until COUNT members were looked at (ScanPages). Order as Redis:
// the cursor, the key (a missing key replies an empty scan without reading the options), then
// the options.
void SScan(CommandContext& ctx) {
  const auto& a = ctx.args;
  std::optional<uint64_t> cursor = ParseScanCursor(a[2]);
  if (!cursor) {
    ctx.reply.Error(kErrInvalidCursor);
    return;
  }
  MemberAccess<SetValue> set(ctx.store, ValueType::kSet);
  if (!OpenSet(ctx, Lookup::kRead, &set)) return;
  if (!set.exists()) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("0");
    ctx.reply.Array(0);
    return;
  }
  std::optional<std::string_view> pattern;
  int64_t count = 0;
  if (!ParseCollectionScanOptions(a, 3, ctx.reply, &pattern, &count)) return;
  std::vector<std::string> out;
  auto add = [&](std::string_view m, std::string_view = {}) {
    if (!pattern || GlobMatch(*pattern, m)) out.emplace_back(m);
  };
  uint64_t next = 0;
  if (set.small()) {
    for (const std::string& m : set.small()->members()) add(m);
  } else {
    Result<uint64_t> r = ScanPages(*set.paged(), *cursor, static_cast<uint64_t>(count), add);
    if (Failed(r.status(), ctx.reply)) return;
    next = *r;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(FormatInt64(static_cast<int64_t>(next)));
  ctx.reply.Array(out.size());
  for (const std::string& m : out) ctx.reply.Bulk(m);
}

// The SMOVE work when source and destination share a slot: one step, atomic. Point
// operations on both sets (a page each when paged), never their whole members.
void MoveInSlot(AsyncContext& ctx, Store& store) {
  const std::string& src = ctx.args[1];
  const std::string& dst = ctx.args[2];
  const std::string& member = ctx.args[3];
  WorkerStats& stats = StatsHere(ctx.server);
  MemberAccess<SetValue> from(store, ValueType::kSet);
  if (!from.Open(src, stats, Lookup::kWrite, ctx.reply)) return;
  if (!from.exists()) {
    ctx.reply.Integer(0);
    return;
  }
  if (src == dst) {
    Result<bool> has = from.Contains(member);
    if (!Failed(has.status(), ctx.reply)) ctx.reply.Integer(*has ? 1 : 0);
    return;
  }
  MemberAccess<SetValue> to(store, ValueType::kSet);
  if (!to.Open(dst, stats, Lookup::kWrite, ctx.reply)) return;
  Result<bool> removed = from.Delete(member);
  if (Failed(removed.status(), ctx.reply)) return;
  if (!*removed) {
    ctx.reply.Integer(0);
    return;
  }
  if (Failed(from.Write(), ctx.reply)) return;
  if (Failed(to.Set(member, "").status(), ctx.reply) || Failed(to.Write(), ctx.reply)) return;
  ctx.reply.Integer(1);
}

// The steps of SMOVE across slots; ends on any worker. Checks as Redis (a missing source is 0
// even when the destination has another type), then removes the member from the source and
// adds it to the destination, each on its owner, holding both keys (another client's command
// on either waits). Should the destination be of another type by then (an expiry and a
// write in between), the member is put back into the source and the reply is WRONGTYPE.
Task MoveAcrossSlots(AsyncContext& ctx) {
  const std::string& src = ctx.args[1];
  const std::string& dst = ctx.args[2];
  const std::string& member = ctx.args[3];
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(src);
  const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(dst);

  co_await ctx.ToSlot(src_slot);
  {
    Store store = ctx.StoreOf(src_slot);
    MemberAccess<SetValue> from(store, ValueType::kSet);
    if (!from.Open(src, StatsHere(ctx.server), Lookup::kWrite, ctx.reply)) co_return;
    if (!from.exists()) {
      ctx.reply.Integer(0);
      co_return;
    }
  }
  co_await ctx.ToSlot(dst_slot);
  {
    Store store = ctx.StoreOf(dst_slot);
    Result<std::optional<slot::KeyMeta>> m = store.GetMeta(dst);
    if (Failed(m.status(), ctx.reply)) co_return;
    if (m->has_value() && (*m)->type != ValueType::kSet) {
      ctx.reply.Error(kErrWrongType);
      co_return;
    }
  }
  co_await ctx.ToSlot(src_slot);
  {
    Store store = ctx.StoreOf(src_slot);
    MemberAccess<SetValue> from(store, ValueType::kSet);
    if (!from.Open(src, StatsHere(ctx.server), Lookup::kWrite, ctx.reply)) co_return;
    Result<bool> removed = from.exists() ? from.Delete(member) : false;
    if (Failed(removed.status(), ctx.reply)) co_return;
    if (!*removed) {
      ctx.reply.Integer(0);
      co_return;
    }
    if (Failed(from.Write(), ctx.reply)) co_return;
  }
  co_await ctx.ToSlot(dst_slot);
  {
    Store store = ctx.StoreOf(dst_slot);
    MemberAccess<SetValue> to(store, ValueType::kSet);
    bool wrong_type = false;
    Status st = to.Open(dst, StatsHere(ctx.server), Lookup::kWrite, &wrong_type);
    if (st.ok() && !wrong_type) {
      if (!Failed(to.Set(member, "").status(), ctx.reply) && !Failed(to.Write(), ctx.reply)) {
        ctx.reply.Integer(1);
      }
      co_return;
    }
    if (Failed(st, ctx.reply)) co_return;
    ctx.reply.Error(kErrWrongType);
  }
  co_await ctx.ToSlot(src_slot);
  Store store = ctx.StoreOf(src_slot);
  MemberAccess<SetValue> back(store, ValueType::kSet);
  bool wrong_type = false;
  // Best effort: the reply is already the WRONGTYPE error.
  if (!back.Open(src, StatsHere(ctx.server), Lookup::kWrite, &wrong_type).ok() || wrong_type ||
      !back.Set(member, "").ok()) {
    co_return;
  }
  back.Write().PermitUnchecked();
}

// SMOVE source destination member: 1 when moved, 0 when the source lacks it.
Task SMove(AsyncContext& ctx) {
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(ctx.args[1]);
  if (src_slot == ctx.server.keyspace->SlotOfKey(ctx.args[2])) {
    co_await ctx.ToSlot(src_slot);
    Store store = ctx.StoreOf(src_slot);
    MoveInSlot(ctx, store);
  } else {
    co_await MoveAcrossSlots(ctx);
  }
  co_await ctx.ToHome();
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS. SINTERCARD's keys follow numkeys (Redis's "movablekeys", a flag slotkv's
// table does not have): its row names no key positions, as Redis's (0 0 0).
void RegisterSetCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "sadd", .arity = -3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = SAdd, .group = "set",
         .summary = "Add one or more members to a set", .since = "1.0.0",
         .acl = "write set fast", .key_specs = "RW insert"});
  t.Add({.name = "scard", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = SCard, .group = "set", .summary = "Get the number of members in a set",
         .since = "1.0.0", .acl = "read set fast", .key_specs = "RO"});
  t.Add({.name = "sismember", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = SIsMember, .group = "set",
         .summary = "Determine if a given value is a member of a set", .since = "1.0.0",
         .acl = "read set fast", .key_specs = "RO"});
  t.Add({.name = "smembers", .arity = 2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = SMembers, .group = "set", .summary = "Get all the members in a set",
         .since = "1.0.0", .acl = "read set slow", .key_specs = "RO access"});
  t.Add({.name = "smismember", .arity = -3, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = SMIsMember, .group = "set",
         .summary = "Returns the membership associated with the given elements for a set",
         .since = "6.2.0", .acl = "read set fast", .key_specs = "RO access"});
  t.Add({.name = "smove", .arity = 4, .flags = kWrite | kFast, .first_key = 1, .last_key = 2,
         .step = 1, .run_async = SMove, .group = "set",
         .summary = "Move a member from one set to another", .since = "1.0.0",
         .acl = "write set fast", .key_specs = "RW access delete|RW insert"});
  t.Add({.name = "spop", .arity = -2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = SPop, .group = "set",
         .summary = "Remove and return one or multiple random members from a set",
         .since = "1.0.0", .acl = "write set fast", .key_specs = "RW access delete"});
  t.Add({.name = "srandmember", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = SRandMember, .group = "set",
         .summary = "Get one or multiple random members from a set", .since = "1.0.0",
         .acl = "read set slow", .key_specs = "RO access"});
  t.Add({.name = "srem", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = SRem, .group = "set",
         .summary = "Remove one or more members from a set", .since = "1.0.0",
         .acl = "write set fast", .key_specs = "RW delete"});
  t.Add({.name = "sscan", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = SScan, .group = "set", .summary = "Incrementally iterate Set elements",
         .since = "2.8.0", .acl = "read set slow", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
