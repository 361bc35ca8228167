// Keyspace family (COMMAND DOCS group "generic"): DEL UNLINK EXISTS TOUCH TYPE, the EXPIRE and
// TTL commands, PERSIST, RENAME RENAMENX COPY MOVE and OBJECT (KEYS SCAN RANDOMKEY: in
// scan_commands.cc).
//
// Atomicity. RENAME, RENAMENX and COPY read the source on its owner, write the destination on
// its owner, then (RENAME) delete the source there again, over several steps when the keys'
// slots differ or a paged collection is copied. They hold their keys throughout (RunTask's
// HoldKeys): another client's command that names either key waits until they end (measured:
// SCARD of the destination during a 0.7 s RENAME answered the whole set, after it).
//
// Paged collections (collection_pages.h) move by copying their pages under a new collection
// id (WriteCopy: a batch per visit of each owner), then their root; the source's pages go by
// the background reclaim after its delete. O(pages), never the whole value in memory. The
// pages of a copy that fails or that a crash cuts short are reclaimed too (BeginCopy).
#include <algorithm>
#include <climits>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/glob.h"
#include "core/types/hash_value.h"
#include "core/types/set_value.h"
#include "core/types/zset_value.h"
#include "core/command/args.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/typed_read.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

// Error texts of this family only (Redis 7.0.15), beside errors.h's shared ones.
constexpr std::string_view kErrExpireGtLt =
    "ERR GT and LT options at the same time are not compatible";
constexpr std::string_view kErrIntRange =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
constexpr std::string_view kErrNoIdleTime =
    "ERR slotkv does not track access times: OBJECT IDLETIME is not available";
constexpr std::string_view kErrNoLfu =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";

// ---- helpers --------------------------------------------------------------------------------

// Positions 1 .. argc-1: every argument after the name is a key.
std::vector<size_t> AllKeys(const AsyncContext& ctx) {
  std::vector<size_t> positions;
  for (size_t i = 1; i < ctx.args.size(); ++i) positions.push_back(i);
  return positions;
}

// A database number as Redis's getIntFromObjectOrReply reads it (MOVE, COPY ... DB), then
// checked against the database count. nullopt after replying the error.
std::optional<uint32_t> DbArg(std::string_view arg, uint32_t databases, Reply& reply) {
  std::optional<int64_t> v = IntArg(arg, reply);
  if (!v) return std::nullopt;
  if (*v < INT_MIN || *v > INT_MAX) {
    reply.Error(kErrIntRange);
    return std::nullopt;
  }
  if (*v < 0 || *v >= static_cast<int64_t>(databases)) {
    reply.Error(kErrDbIndex);
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

// ---- DEL UNLINK EXISTS TOUCH TYPE -----------------------------------------------------------

// DEL / UNLINK key [key ...]: how many existed (a key named twice is removed once).
Task Del(AsyncContext& ctx) {
  int64_t removed = 0;
  Status failure;
  co_await ForEachKeySlot(ctx, AllKeys(ctx),
                          [&](Store& store, const std::vector<size_t>& positions) {
                            for (size_t p : positions) {
                              Result<bool> r = store.Delete(ctx.args[p]);
                              if (!r.ok()) {
                                if (failure.ok()) failure = r.status();
                                return;
                              }
                              removed += *r ? 1 : 0;
                            }
                          });
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(removed);
}

// EXISTS / TOUCH key [key ...]: how many of the keys exist (a key named twice counts twice).
// slotkv keeps no access time, so TOUCH changes nothing. A slot's lookups that would wait for
// the disk are fetched while the owner serves others (ForEachKeySlotReading).
Task Exists(AsyncContext& ctx) {
  int64_t found = 0;
  Status failure;
  auto look = [&](Store& store, const std::vector<size_t>& ps) -> Status {
    std::vector<bool> present;
    present.reserve(ps.size());
    for (size_t p : ps) {
      SLOTKV_ASSIGN_OR_RETURN(std::optional<slot::KeyMeta> m, store.GetMeta(ctx.args[p]));
      present.push_back(m.has_value());
    }
    WorkerStats& stats = StatsHere(ctx.server);  // counted once the step can no longer miss
    for (size_t i = 0; i < ps.size(); ++i) {
      CountLookup(store, stats, ctx.args[ps[i]], present[i]);
      found += present[i] ? 1 : 0;
    }
    return Status::OK();
  };
  co_await ForEachKeySlotReading(ctx, AllKeys(ctx), look, &failure);
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(found);
}

// TYPE key: "string", "list" ... as a status reply; "none" when missing.
void Type(CommandContext& ctx) {
  Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(ctx.args[1]);
  if (Failed(m.status(), ctx.reply)) return;
  CountLookup(ctx.store, ctx.stats, ctx.args[1], m->has_value());
  ctx.reply.SimpleString(m->has_value() ? ValueTypeName((*m)->type) : "none");
}

// ---- EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST ----------------------------------------------

enum ExpireFlag : int { kExpireNx = 1, kExpireXx = 2, kExpireGt = 4, kExpireLt = 8 };

// Sets key's expiry to when_ms, keeping its value and type. REQUIRES: when_ms > now.
// The engine has no "change the expiry only" write yet, so the value is read and put back.
Status SetExpire(Store& store, std::string_view key, int64_t when_ms) {
  slot::KeyMeta meta;
  Result<std::optional<std::string>> v = store.Get(key, &meta);
  if (!v.ok()) return v.status();
  if (!v->has_value()) return Status::OK();  // REQUIRES of the callers: checked just before
  return store.Put(key, **v, meta.type, when_ms);
}

// key time [NX | XX | GT | LT]: `time` in seconds or ms (seconds), relative to now or absolute
// (relative). As Redis 7.0: options are checked before the time, the time (overflow included)
// before the key; a time not in the future deletes the key and replies 1.
void ExpireGeneric(CommandContext& ctx, bool seconds, bool relative) {
  const auto& a = ctx.args;
  int flags = 0;
  for (size_t i = 3; i < a.size(); ++i) {
    if (Is(a[i], "NX")) {
      flags |= kExpireNx;
    } else if (Is(a[i], "XX")) {
      flags |= kExpireXx;
    } else if (Is(a[i], "GT")) {
      flags |= kExpireGt;
    } else if (Is(a[i], "LT")) {
      flags |= kExpireLt;
    } else {
      ctx.reply.Error("ERR Unsupported option " + a[i]);
      return;
    }
  }
  if ((flags & kExpireNx) && (flags & (kExpireXx | kExpireGt | kExpireLt))) {
    ctx.reply.Error(kErrExpireOptions);
    return;
  }
  if ((flags & kExpireGt) && (flags & kExpireLt)) {
    ctx.reply.Error(kErrExpireGtLt);
    return;
  }
  std::optional<int64_t> when = IntArg(a[2], ctx.reply);
  if (!when) return;
  if (seconds) {
    if (*when > INT64_MAX / 1000 || *when < INT64_MIN / 1000) {
      ctx.reply.Error(InvalidExpire(a[0]));
      return;
    }
    *when *= 1000;
  }
  const int64_t now = ctx.store.NowMs();
  const int64_t base = relative ? now : 0;
  if (*when > INT64_MAX - base) {
    ctx.reply.Error(InvalidExpire(a[0]));
    return;
  }
  *when += base;

  const std::string& key = a[1];
  Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(key);
  if (Failed(m.status(), ctx.reply)) return;
  if (!m->has_value()) {
    ctx.reply.Integer(0);
    return;
  }
  const int64_t current = (*m)->expire_at_ms;  // 0 = none, which GT and LT take as infinite
  if (((flags & kExpireNx) && current != 0) || ((flags & kExpireXx) && current == 0) ||
      ((flags & kExpireGt) && (current == 0 || *when <= current)) ||
      ((flags & kExpireLt) && current != 0 && *when >= current)) {
    ctx.reply.Integer(0);
    return;
  }
  Status st = *when <= now ? ctx.store.Delete(key).status() : SetExpire(ctx.store, key, *when);
  if (Failed(st, ctx.reply)) return;
  ctx.reply.Integer(1);
}

void Expire(CommandContext& ctx) { ExpireGeneric(ctx, true, true); }
void PExpire(CommandContext& ctx) { ExpireGeneric(ctx, false, true); }
void ExpireAt(CommandContext& ctx) { ExpireGeneric(ctx, true, false); }
void PExpireAt(CommandContext& ctx) { ExpireGeneric(ctx, false, false); }

// PERSIST key: 1 when a TTL was removed.
void Persist(CommandContext& ctx) {
  const std::string& key = ctx.args[1];
  slot::KeyMeta meta;
  Result<std::optional<std::string>> v = ctx.store.Get(key, &meta);
  if (Failed(v.status(), ctx.reply)) return;
  if (!v->has_value() || meta.expire_at_ms == 0) {
    ctx.reply.Integer(0);
    return;
  }
  if (Failed(ctx.store.Put(key, **v, meta.type, 0), ctx.reply)) return;
  ctx.reply.Integer(1);
}

// ---- TTL PTTL EXPIRETIME PEXPIRETIME --------------------------------------------------------

// -2 when key is missing, -1 when it has no expiry, else its TTL (relative) or expiry time
// (absolute), in ms or in seconds rounded to the nearest (as Redis: (ms + 500) / 1000).
void TtlGeneric(CommandContext& ctx, bool ms, bool absolute) {
  Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(ctx.args[1]);
  if (Failed(m.status(), ctx.reply)) return;
  CountLookup(ctx.store, ctx.stats, ctx.args[1], m->has_value());
  if (!m->has_value()) {
    ctx.reply.Integer(-2);
    return;
  }
  const int64_t at = (*m)->expire_at_ms;
  if (at == 0) {
    ctx.reply.Integer(-1);
    return;
  }
  int64_t t = absolute ? at : at - ctx.store.NowMs();
  if (t < 0) t = 0;
  ctx.reply.Integer(ms ? t : (t + 500) / 1000);
}

void Ttl(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void PTtl(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void ExpireTime(CommandContext& ctx) { TtlGeneric(ctx, false, true); }
void PExpireTime(CommandContext& ctx) { TtlGeneric(ctx, true, true); }

// ---- RENAME RENAMENX COPY MOVE --------------------------------------------------------------

// A key read on its source slot, to be written elsewhere.
struct SourceKey {
  std::optional<std::string> value;  // nullopt: no such key
  slot::KeyMeta meta;
  // value is the root of a paged collection, whose pages are copied (never read whole: the
  // 1M-member sorted set took 20 s and 600 MB as one value).
  bool paged = false;
};

SourceKey SourceOf(std::optional<std::string> value, const slot::KeyMeta& meta) {
  SourceKey out;
  out.meta = meta;
  out.paged = value && IsCollection(meta.type) && IsPagedRoot(*value);
  out.value = std::move(value);
  return out;
}

// Reads args[1] on its slot's owner. False after replying a storage failure.
// Ends on the source slot's owner.
Task ReadSource(AsyncContext& ctx, uint32_t s, bool count_lookup, SourceKey* out, bool* ok) {
  co_await ctx.ToSlot(s);
  Store store = ctx.StoreOf(s);
  slot::KeyMeta meta;
  Result<std::optional<std::string>> v = store.Get(ctx.args[1], &meta);
  *ok = !Failed(v.status(), ctx.reply);
  if (!*ok) co_return;
  if (count_lookup) CountLookup(store, StatsHere(ctx.server), ctx.args[1], v->has_value());
  *out = SourceOf(std::move(*v), meta);
}

// Writes source under key in store, as the copy of its pages, once they are all there, or
// else as a value (PutWhole). Put replaces the key whole: its old TTL goes, the source's comes
// along.
Status PutCopied(Store& store, std::string_view key, const SourceKey& source, uint64_t copy_id) {
  const slot::KeyMeta& m = source.meta;
  if (!source.paged) return PutWhole(store, key, *source.value, m.type, m.expire_at_ms);
  SLOTKV_ASSIGN_OR_RETURN(std::string root, WithCollectionId(*source.value, copy_id));
  return store.Put(key, root, m.type, m.expire_at_ms);
}

// Writes the copy's root (PutCopied) after ending the copy of its pages (EndCopy), in one
// unit; a copy that fails before it is written is forgotten (ForgetCopy), for reclaim.
Status FinishCopy(Store& store, std::string_view key, const SourceKey& source,
                  uint64_t copy_id) {
  if (source.paged) {
    if (Status st = EndCopy(store, copy_id); !st.ok()) {
      ForgetCopy(store, copy_id);
      return st;
    }
  }
  return PutCopied(store, key, source, copy_id);
}

// Writes source (read from slot src_slot of database src_db) under key dst of slot dst_slot
// of database dst_db: a paged collection's pages are copied a batch (paged-copy-batch-bytes)
// per visit of each owner (or per turn of their one owner), under a new collection id
// (BeginCopy), and its root after them. False after replying a storage failure (the pages
// copied by then go to the reclaim). Ends on dst_slot's owner.
Task WriteCopy(AsyncContext& ctx, const SourceKey& source, uint32_t src_slot, uint32_t src_db,
               uint32_t dst_slot, uint32_t dst_db, const std::string& dst, bool* ok) {
  *ok = false;
  const ValueType type = source.meta.type;
  const uint64_t copy_id = NewCollectionId();
  const Executor& ex = *ctx.server.executor;
  const bool same_owner = ex.OwnerOf(src_slot) == ex.OwnerOf(dst_slot);
  if (source.paged) {
    Result<std::vector<PageRange>> ranges = PageRanges(*source.value);
    if (Failed(ranges.status(), ctx.reply)) co_return;
    co_await ctx.ToSlot(dst_slot);
    Store to = ctx.StoreOf(dst_slot, dst_db);
    if (Failed(BeginCopy(to, copy_id, *ranges), ctx.reply)) co_return;
    Status failure;
    for (const PageRange& range : *ranges) {
      for (uint64_t next = 0; next < range.count && failure.ok();) {
        PageBatch batch;
        co_await ctx.ToSlot(src_slot);
        Store from = ctx.StoreOf(src_slot, src_db);
        failure = ReadPages(from, type, range, &next, &batch);
        if (!failure.ok()) break;
        co_await ctx.ToSlot(dst_slot);
        Store to = ctx.StoreOf(dst_slot, dst_db);
        failure = WritePages(to, type, dst, copy_id, range, batch);
        // One owner for both: the hops above stayed here, so let its other clients in.
        if (same_owner) co_await ctx.Requeue();
      }
    }
    if (!failure.ok()) {
      co_await ctx.ToSlot(dst_slot);
      Store to = ctx.StoreOf(dst_slot, dst_db);
      ForgetCopy(to, copy_id);
      Failed(failure, ctx.reply);
      co_return;
    }
  }
  co_await ctx.ToSlot(dst_slot);
  Store store = ctx.StoreOf(dst_slot, dst_db);
  *ok = !Failed(FinishCopy(store, dst, source, copy_id), ctx.reply);
}

// The steps of RENAME / RENAMENX; may end on any worker.
Task RenameSteps(AsyncContext& ctx, bool nx) {
  const std::string& src = ctx.args[1];
  const std::string& dst = ctx.args[2];
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(src);
  const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(dst);
  SourceKey source;
  bool ok = false;
  co_await ReadSource(ctx, src_slot, false, &source, &ok);
  if (!ok) co_return;
  if (!source.value) {
    ctx.reply.Error(kErrNoSuchKey);
    co_return;
  }
  if (src == dst) {
    if (nx) {
      ctx.reply.Integer(0);
    } else {
      ctx.reply.Ok();
    }
    co_return;
  }

  if (nx) {
    co_await ctx.ToSlot(dst_slot);
    Store store = ctx.StoreOf(dst_slot);
    Result<std::optional<slot::KeyMeta>> m = store.GetMeta(dst);
    if (Failed(m.status(), ctx.reply)) co_return;
    if (m->has_value()) {
      ctx.reply.Integer(0);
      co_return;
    }
  }
  co_await WriteCopy(ctx, source, src_slot, ctx.db, dst_slot, ctx.db, dst, &ok);
  if (!ok) co_return;

  co_await ctx.ToSlot(src_slot);
  Store store = ctx.StoreOf(src_slot);
  // Across slots another client may have rewritten the source since it was read; that write
  // comes after the rename, so it stays. (In one slot nothing runs in between.)
  Result<std::optional<slot::KeyMeta>> m = store.GetMeta(src);
  if (Failed(m.status(), ctx.reply)) co_return;
  if (m->has_value() && (*m)->seq == source.meta.seq) {
    if (Failed(store.Delete(src).status(), ctx.reply)) co_return;
  }
  if (nx) {
    ctx.reply.Integer(1);
  } else {
    ctx.reply.Ok();
  }
}

// RENAME key newkey / RENAMENX key newkey
Task Rename(AsyncContext& ctx) {
  co_await RenameSteps(ctx, false);
  co_await ctx.ToHome();
}
Task RenameNx(AsyncContext& ctx) {
  co_await RenameSteps(ctx, true);
  co_await ctx.ToHome();
}

// The steps of COPY; may end on any worker.
Task CopySteps(AsyncContext& ctx) {
  const auto& a = ctx.args;
  bool replace = false;
  uint32_t dst_db = ctx.db;
  for (size_t i = 3; i < a.size(); ++i) {
    if (Is(a[i], "REPLACE")) {
      replace = true;
    } else if (Is(a[i], "DB") && i + 1 < a.size()) {
      std::optional<uint32_t> db = DbArg(a[i + 1], ctx.server.keyspace->databases(), ctx.reply);
      if (!db) co_return;
      dst_db = *db;
      ++i;
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  if (dst_db == ctx.db && a[1] == a[2]) {
    ctx.reply.Error(kErrSameObject);
    co_return;
  }
  SourceKey source;
  bool ok = false;
  co_await ReadSource(ctx, ctx.server.keyspace->SlotOfKey(a[1]), true, &source, &ok);
  if (!ok) co_return;
  if (!source.value) {
    ctx.reply.Integer(0);
    co_return;
  }
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(a[1]);
  const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(a[2]);
  if (!replace) {
    co_await ctx.ToSlot(dst_slot);
    Store store = ctx.StoreOf(dst_slot, dst_db);
    Result<std::optional<slot::KeyMeta>> m = store.GetMeta(a[2]);
    if (Failed(m.status(), ctx.reply)) co_return;
    if (m->has_value()) {
      ctx.reply.Integer(0);
      co_return;
    }
  }
  co_await WriteCopy(ctx, source, src_slot, ctx.db, dst_slot, dst_db, a[2], &ok);
  if (ok) ctx.reply.Integer(1);
}

// COPY source destination [DB destination-db] [REPLACE]
Task Copy(AsyncContext& ctx) {
  co_await CopySteps(ctx);
  co_await ctx.ToHome();
}

// MOVE key db: the key's slot is the same in every database, so this is one owner's step.
void Move(CommandContext& ctx) {
  const std::string& key = ctx.args[1];
  std::optional<uint32_t> db = DbArg(ctx.args[2], ctx.store.databases(), ctx.reply);
  if (!db) return;
  if (*db == ctx.store.db()) {
    ctx.reply.Error(kErrSameObject);
    return;
  }
  slot::KeyMeta meta;
  Result<std::optional<std::string>> v = ctx.store.Get(key, &meta);
  if (Failed(v.status(), ctx.reply)) return;
  if (!v->has_value()) {
    ctx.reply.Integer(0);
    return;
  }
  Store target = ctx.store.InDb(*db);
  Result<std::optional<slot::KeyMeta>> there = target.GetMeta(key);
  if (Failed(there.status(), ctx.reply)) return;
  if (there->has_value()) {
    ctx.reply.Integer(0);
    return;
  }
  const SourceKey source = SourceOf(std::move(*v), meta);
  const uint64_t copy_id = NewCollectionId();
  if (source.paged) {  // one owner has both databases: the pages go in one step
    Result<std::vector<PageRange>> ranges = PageRanges(*source.value);
    if (Failed(ranges.status(), ctx.reply)) return;
    if (Failed(BeginCopy(target, copy_id, *ranges), ctx.reply)) return;
    Status failure;
    for (const PageRange& range : *ranges) {
      for (uint64_t next = 0; next < range.count && failure.ok();) {
        PageBatch batch;
        failure = ReadPages(ctx.store, meta.type, range, &next, &batch);
        if (failure.ok()) failure = WritePages(target, meta.type, key, copy_id, range, batch);
      }
    }
    if (!failure.ok()) {
      ForgetCopy(target, copy_id);
      Failed(failure, ctx.reply);
      return;
    }
  }
  if (Failed(FinishCopy(target, key, source, copy_id), ctx.reply)) return;
  if (Failed(ctx.store.Delete(key).status(), ctx.reply)) return;
  ctx.reply.Integer(1);
}

// ---- OBJECT ---------------------------------------------------------------------------------

constexpr std::string_view kObjectHelp[] = {
    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
    "HELP",
    "    Prints this help.",
};

// The encoding Redis 7.0 would report for a value created by SET (strings) or a small value
// (other types). Redis also reports "raw" for short strings built by APPEND or SETRANGE; slotkv
// judges by the bytes alone.
std::string_view EncodingOf(ValueType type, std::string_view value) {
  switch (type) {
    case ValueType::kStream:
      return "stream";
    case ValueType::kString:
      if (value.size() <= 20 && ParseInt64(value)) return "int";
      return value.size() <= 44 ? "embstr" : "raw";
    case ValueType::kList:
      return "quicklist";
    case ValueType::kHash: {
      // Redis 7.0 keeps a hash in a listpack up to 512 fields of at most 64 bytes each (its
      // hash-max-listpack-entries and -value defaults). A larger hash is paged here (at the
      // default paged-collection-threshold, 512), and its root decodes as no hash.
      Result<HashValue> hash = HashValue::Decode(value);
      if (!hash.ok() || hash->size() > 512) return "hashtable";
      bool small = true;
      hash->ForEach([&](std::string_view f, std::string_view v) {
        small = small && f.size() <= 64 && v.size() <= 64;
      });
      return small ? "listpack" : "hashtable";
    }
    case ValueType::kZSet: {
      // Redis 7.0 keeps a sorted set in a listpack up to 128 entries of at most 64 bytes each.
      Result<ZSetValue> zset = ZSetValue::Decode(value);
      if (!zset.ok() || zset->size() > 128) return "skiplist";
      for (const ZSetValue::Entry& e : *zset) {
        if (e.member.size() > 64) return "skiplist";
      }
      return "listpack";
    }
    case ValueType::kSet: {
      // Redis 7.0: an intset while every member is an integer and there are at most 512.
      Result<SetValue> set = SetValue::Decode(value);
      if (!set.ok() || set->size() > 512) return "hashtable";
      for (const std::string& m : set->members()) {
        if (m.size() > 20 || !ParseInt64(m)) return "hashtable";
      }
      return "intset";
    }
  }
  return "raw";
}

// Redis shares the objects of the integers 0..9999 (OBJ_SHARED_INTEGERS); their refcount is
// INT_MAX. Every other value has one reference.
int64_t RefCountOf(ValueType type, std::string_view value) {
  if (type != ValueType::kString || value.size() > 4) return 1;
  std::optional<int64_t> v = ParseInt64(value);
  return v && *v >= 0 && *v < 10000 ? INT_MAX : 1;
}

// OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key, OBJECT HELP (arities: the subcommand rows').
Task ObjectSteps(AsyncContext& ctx) {
  const std::string& sub = ctx.args[1];
  if (Is(sub, "HELP")) {
    ctx.reply.Help(kObjectHelp);
    co_return;
  }
  std::string_view name;
  for (std::string_view s : {"encoding", "freq", "idletime", "refcount"}) {
    if (Is(sub, s)) name = s;
  }
  if (name.empty()) {
    ctx.reply.Error(UnknownSubcommand("object", sub));
    co_return;
  }
  const std::string& key = ctx.args[2];
  const uint32_t s = ctx.server.keyspace->SlotOfKey(key);
  co_await ctx.ToSlot(s);
  Store store = ctx.StoreOf(s);
  slot::KeyMeta meta;
  Result<std::optional<std::string>> v = store.Get(key, &meta);
  if (Failed(v.status(), ctx.reply)) co_return;
  // Counted, but no "keymiss": Redis's objectCommandLookup does not notify.
  WorkerStats& stats = StatsHere(ctx.server);
  WorkerStats::Add(v->has_value() ? stats.keyspace_hits : stats.keyspace_misses);
  if (!v->has_value()) {
    ctx.reply.Null();
  } else if (name == "encoding") {
    ctx.reply.Bulk(EncodingOf(meta.type, **v));
  } else if (name == "freq") {
    ctx.reply.Error(kErrNoLfu);  // no LFU policy exists: nothing is evicted
  } else if (name == "idletime") {
    ctx.reply.Error(kErrNoIdleTime);  // no per-key access time: an error, not a made-up 0
  } else {
    ctx.reply.Integer(RefCountOf(meta.type, **v));
  }
}

Task Object(AsyncContext& ctx) {
  co_await ObjectSteps(ctx);
  co_await ctx.ToHome();
}

}  // namespace

void RegisterKeyCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "del", .arity = -2, .flags = kOrderedVisits | kWrite, .first_key = 1,
         .last_key = -1, .step = 1,
         .run_async = Del, .group = "generic", .summary = "Delete a key", .since = "1.0.0",
         .acl = "keyspace write slow", .key_specs = "RM delete"});
  t.Add({.name = "unlink", .arity = -2, .flags = kOrderedVisits | kWrite | kFast, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = Del, .group = "generic",
         .summary = "Delete a key asynchronously in another thread. Otherwise it is just as DEL, "
         "but non blocking.", .since = "4.0.0", .acl = "keyspace write fast", .key_specs = "RM delete"});
  t.Add({.name = "exists", .arity = -2, .flags = kOrderedVisits | kReadOnly | kFast,
         .first_key = 1, .last_key = -1,
         .step = 1, .run_async = Exists, .group = "generic", .summary = "Determine if a key exists",
         .since = "1.0.0", .acl = "keyspace read fast", .key_specs = "RO"});
  t.Add({.name = "touch", .arity = -2, .flags = kOrderedVisits | kReadOnly | kFast,
         .first_key = 1, .last_key = -1,
         .step = 1, .run_async = Exists, .group = "generic",
         .summary = "Alters the last access time of a key(s). Returns the number of existing keys "
         "specified.", .since = "3.2.1", .acl = "keyspace read fast", .key_specs = "RO"});
  t.Add({.name = "type", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Type, .group = "generic", .summary = "Determine the type stored at key",
         .since = "1.0.0", .acl = "keyspace read fast", .key_specs = "RO"});
  t.Add({.name = "expire", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Expire, .group = "generic",
         .summary = "Set a key's time to live in seconds", .since = "1.0.0",
         .acl = "keyspace write fast", .key_specs = "RW update"});
  t.Add({.name = "pexpire", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = PExpire, .group = "generic",
         .summary = "Set a key's time to live in milliseconds", .since = "2.6.0",
         .acl = "keyspace write fast", .key_specs = "RW update"});
  t.Add({.name = "expireat", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ExpireAt, .group = "generic",
         .summary = "Set the expiration for a key as a UNIX timestamp", .since = "1.2.0",
         .acl = "keyspace write fast", .key_specs = "RW update"});
  t.Add({.name = "pexpireat", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = PExpireAt, .group = "generic",
         .summary = "Set the expiration for a key as a UNIX timestamp specified in milliseconds",
         .since = "2.6.0", .acl = "keyspace write fast", .key_specs = "RW update"});
  t.Add({.name = "ttl", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Ttl, .group = "generic",
         .summary = "Get the time to live for a key in seconds", .since = "1.0.0",
         .acl = "keyspace read fast", .key_specs = "RO access"});
  t.Add({.name = "pttl", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = PTtl, .group = "generic",
         .summary = "Get the time to live for a key in milliseconds", .since = "2.6.0",
         .acl = "keyspace read fast", .key_specs = "RO access"});
  t.Add({.name = "expiretime", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = ExpireTime, .group = "generic",
         .summary = "Get the expiration Unix timestamp for a key", .since = "7.0.0",
         .acl = "keyspace read fast", .key_specs = "RO access"});
  t.Add({.name = "pexpiretime", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = PExpireTime, .group = "generic",
         .summary = "Get the expiration Unix timestamp for a key in milliseconds", .since = "7.0.0",
         .acl = "keyspace read fast", .key_specs = "RO access"});
  t.Add({.name = "persist", .arity = 2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Persist, .group = "generic",
         .summary = "Remove the expiration from a key", .since = "2.2.0",
         .acl = "keyspace write fast", .key_specs = "RW update"});
  t.Add({.name = "rename", .arity = 3, .flags = kWrite, .first_key = 1, .last_key = 2, .step = 1,
         .run_async = Rename, .group = "generic", .summary = "Rename a key", .since = "1.0.0",
         .acl = "keyspace write slow", .key_specs = "RW access delete|OW update"});
  t.Add({.name = "renamenx", .arity = 3, .flags = kWrite | kFast, .first_key = 1, .last_key = 2,
         .step = 1, .run_async = RenameNx, .group = "generic",
         .summary = "Rename a key, only if the new key does not exist", .since = "1.0.0",
         .acl = "keyspace write fast", .key_specs = "RW access delete|OW insert"});
  t.Add({.name = "copy", .arity = -3, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 2,
         .step = 1, .run_async = Copy, .group = "generic", .summary = "Copy a key",
         .since = "6.2.0", .acl = "keyspace write slow", .key_specs = "RO access|OW update"});
  t.Add({.name = "move", .arity = 3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Move, .group = "generic", .summary = "Move a key to another database",
         .since = "1.0.0", .acl = "keyspace write fast", .key_specs = "RW access update"});
  // A container command as in Redis: no flags or keys of its own (its subcommands are
  // read-only, with the key at 2).
  t.Add({.name = "object", .arity = -2, .flags = 0, .run_async = Object,
         .group = "generic",
         .summary = "A container for object introspection commands", .since = "2.2.3",
         .acl = "slow",
         .subcommands = {
             Subcommand("object|encoding", 3, kReadOnly, "keyspace read slow", 2, "RO"),
             Subcommand("object|freq", 3, kReadOnly, "keyspace read slow", 2, "RO"),
             Subcommand("object|help", 2, kLoading | kStale, "keyspace slow"),
             Subcommand("object|idletime", 3, kReadOnly, "keyspace read slow", 2, "RO"),
             Subcommand("object|refcount", 3, kReadOnly, "keyspace read slow", 2, "RO"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
