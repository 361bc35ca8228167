// DUMP and RESTORE: a key's value as a Redis 7.0 payload (the RDB object, then the RDB version
// and a CRC-64: core/types/rdb_value.h, core/base/rdb.h), so values move between slotkv and
// redis-server both ways (redis-cli --pipe of RESTOREs, a client copying keys).
//
// Semantics kept from Redis: DUMP of a missing key is nil. RESTORE checks its options, then
// that the key is free (BUSYKEY, unless REPLACE), then the TTL (milliseconds, 0 = none; ABSTTL:
// a Unix time in ms), then the payload's trailer, then the value; a TTL already past stores
// nothing (REPLACE still deletes the key). A paged collection is dumped whole (O(n), as Redis)
// and a large restored one is paged. IDLETIME and FREQ are checked and then ignored: slotkv
// keeps no per-key LRU or LFU data.
#include <optional>
#include <string>

#include "core/base/number.h"
#include "core/base/rdb.h"
#include "core/command/args.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/typed_read.h"
#include "core/types/rdb_value.h"

namespace slotkv::command {
namespace {

// The RDB object of stored, the value of a key of type `type`.
Result<std::string> ObjectOf(Store& store, ValueType type, std::string stored) {
  switch (type) {
    case ValueType::kString:
      return rdb::DumpString(stored);
    case ValueType::kList: {
      SLOTKV_ASSIGN_OR_RETURN(ListValue v, LoadWhole<ListValue>(store, type, std::move(stored)));
      return rdb::DumpList(v);
    }
    case ValueType::kSet: {
      SLOTKV_ASSIGN_OR_RETURN(SetValue v, LoadWhole<SetValue>(store, type, std::move(stored)));
      return rdb::DumpSet(v);
    }
    case ValueType::kHash: {
      SLOTKV_ASSIGN_OR_RETURN(HashValue v, LoadWhole<HashValue>(store, type, std::move(stored)));
      return rdb::DumpHash(v);
    }
    case ValueType::kZSet: {
      SLOTKV_ASSIGN_OR_RETURN(ZSetValue v, LoadWhole<ZSetValue>(store, type, std::move(stored)));
      return rdb::DumpZSet(v);
    }
  }
  return Status::Corruption("unknown value type");
}

// DUMP key: the payload of key's value, or nil.
void Dump(CommandContext& ctx) {
  slot::KeyMeta meta;
  Result<std::optional<std::string>> raw = ctx.store.Get(ctx.args[1], &meta);
  if (Failed(raw.status(), ctx.reply)) return;
  CountLookup(ctx.store, ctx.stats, ctx.args[1], raw->has_value());
  if (!*raw) {
    ctx.reply.Null();
    return;
  }
  Result<std::string> payload = ObjectOf(ctx.store, meta.type, std::move(**raw));
  if (Failed(payload.status(), ctx.reply)) return;
  PutRdbTrailer(&*payload);
  ctx.reply.Bulk(*payload);
}

// Stores a restored object under key (expire_at_ms 0: no TTL).
Status StoreObject(Store& store, std::string_view key, const rdb::Object& o, int64_t expire_at_ms) {
  switch (o.type) {
    case ValueType::kString:
      return store.Put(key, o.str, ValueType::kString, expire_at_ms);
    case ValueType::kList:
      return StoreCollection(store, key, o.list, o.type, expire_at_ms);
    case ValueType::kSet:
      return StoreCollection(store, key, o.set, o.type, expire_at_ms);
    case ValueType::kHash:
      return StoreCollection(store, key, o.hash, o.type, expire_at_ms);
    case ValueType::kZSet:
      return StoreCollection(store, key, o.zset, o.type, expire_at_ms);
  }
  return Status::Corruption("unknown value type");
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
void Restore(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  bool replace = false, absttl = false, idletime = false, freq = false;
  for (size_t j = 4; j < a.size(); ++j) {
    const bool more = j + 1 < a.size();
    if (Is(a[j], "REPLACE")) {
      replace = true;
    } else if (Is(a[j], "ABSTTL")) {
      absttl = true;
    } else if (Is(a[j], "IDLETIME") && more && !freq) {
      std::optional<int64_t> v = ParseInt64(a[++j]);
      if (!v) return ctx.reply.Error(kErrNotInteger);
      if (*v < 0) return ctx.reply.Error("ERR Invalid IDLETIME value, must be >= 0");
      idletime = true;
    } else if (Is(a[j], "FREQ") && more && !idletime) {
      std::optional<int64_t> v = ParseInt64(a[++j]);
      if (!v) return ctx.reply.Error(kErrNotInteger);
      if (*v < 0 || *v > 255) {
        return ctx.reply.Error("ERR Invalid FREQ value, must be >= 0 and <= 255");
      }
      freq = true;
    } else {
      return ctx.reply.Error(kErrSyntax);
    }
  }
  const std::string& key = a[1];
  if (!replace) {
    Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(key);
    if (Failed(m.status(), ctx.reply)) return;
    if (*m) return ctx.reply.Error(kErrBusyKey);
  }
  std::optional<int64_t> ttl = ParseInt64(a[2]);
  if (!ttl) return ctx.reply.Error(kErrNotInteger);
  if (*ttl < 0) return ctx.reply.Error("ERR Invalid TTL value, must be >= 0");
  std::optional<std::string_view> body = RdbPayloadBody(a[3]);
  if (!body) return ctx.reply.Error(kErrBadPayload);
  Result<rdb::Object> o = rdb::Load(*body);
  if (!o.ok()) return ctx.reply.Error(kErrBadDataFormat);
  int64_t expire_at = *ttl;
  const int64_t now = ctx.store.NowMs();
  // A relative TTL past INT64_MAX wraps to a past time in Redis: the key is not stored.
  if (expire_at != 0 && !absttl && __builtin_add_overflow(expire_at, now, &expire_at)) {
    expire_at = now;
  }
  if (expire_at != 0 && expire_at <= now) {
    if (replace && Failed(ctx.store.Delete(key).status(), ctx.reply)) return;
    return ctx.reply.Ok();
  }
  if (Failed(StoreObject(ctx.store, key, *o, expire_at), ctx.reply)) return;
  ctx.reply.Ok();
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterDumpCommands(CommandTable& t) {
  t.Add({.name = "dump",
         .arity = 2,
         .flags = kReadOnly,
         .first_key = 1,
         .last_key = 1,
         .step = 1,
         .run = Dump,
         .group = "generic",
         .summary = "Return a serialized version of the value stored at the specified key.",
         .since = "2.6.0",
         .acl = "keyspace read slow"});
  t.Add({.name = "restore",
         .arity = -4,
         .flags = kWrite | kDenyOom,
         .first_key = 1,
         .last_key = 1,
         .step = 1,
         .run = Restore,
         .group = "generic",
         .summary = "Create a key using the provided serialized value, previously obtained "
                    "using DUMP.",
         .since = "2.6.0",
         .acl = "keyspace write slow dangerous"});
}

}  // namespace slotkv::command
