// String family: GET SET and the rest of Redis's string commands. Values are stored with type
// kString; a key of another type gives WRONGTYPE.
#include "core/command/args.h"
#include "core/command/command_table.h"

namespace slotkv::command {
namespace {

// Reads key as a string. False after replying an error (storage failure or WRONGTYPE);
// *value is nullopt when the key does not exist.
bool ReadString(CommandContext& ctx, std::string_view key, std::optional<std::string>* value,
                slot::KeyMeta* meta = nullptr) {
  slot::KeyMeta m;
  Result<std::optional<std::string>> r = ctx.store.Get(key, &m);
  if (Failed(r.status(), ctx.reply)) return false;
  if (r->has_value() && m.type != ValueType::kString) {
    ctx.reply.Error(kErrWrongType);
    return false;
  }
  WorkerStats::Add(r->has_value() ? ctx.stats.keyspace_hits : ctx.stats.keyspace_misses);
  *value = std::move(*r);
  if (meta) *meta = m;
  return true;
}

void Get(CommandContext& ctx) {
  std::optional<std::string> value;
  if (!ReadString(ctx, ctx.args[1], &value)) return;
  if (value) {
    ctx.reply.Bulk(*value);
  } else {
    ctx.reply.Null();
  }
}

// SET key value [NX | XX] [GET] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL]
void Set(CommandContext& ctx) {
  auto& a = ctx.args;
  bool nx = false, xx = false, get = false, keepttl = false;
  int64_t expire_at = 0;
  bool has_expire = false;
  for (size_t i = 3; i < a.size(); ++i) {
    const bool has_next = i + 1 < a.size();
    if (Is(a[i], "NX") && !xx) {
      nx = true;
    } else if (Is(a[i], "XX") && !nx) {
      xx = true;
    } else if (Is(a[i], "GET")) {
      get = true;
    } else if (Is(a[i], "KEEPTTL") && !has_expire) {
      keepttl = true;
    } else if ((Is(a[i], "EX") || Is(a[i], "PX") || Is(a[i], "EXAT") || Is(a[i], "PXAT")) &&
               !keepttl && !has_expire && has_next) {
      std::optional<int64_t> n = IntArg(a[i + 1], ctx.reply);
      if (!n) return;
      const bool seconds = Is(a[i], "EX") || Is(a[i], "EXAT");
      const bool relative = Is(a[i], "EX") || Is(a[i], "PX");
      if (*n <= 0 || (seconds && *n > INT64_MAX / 1000)) {
        ctx.reply.Error(InvalidExpire("set"));
        return;
      }
      int64_t ms = seconds ? *n * 1000 : *n;
      if (relative) {
        if (ms > INT64_MAX - ctx.store.NowMs()) {
          ctx.reply.Error(InvalidExpire("set"));
          return;
        }
        ms += ctx.store.NowMs();
      }
      expire_at = ms;
      has_expire = true;
      ++i;
    } else {
      ctx.reply.Error(kErrSyntax);
      return;
    }
  }
  const std::string& key = a[1];
  std::optional<std::string> old;
  slot::KeyMeta meta;
  bool exists = false;
  if (get) {
    if (!ReadString(ctx, key, &old, &meta)) return;
    exists = old.has_value();
  } else if (nx || xx || keepttl) {
    Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(key);
    if (Failed(m.status(), ctx.reply)) return;
    exists = m->has_value();
    if (exists) meta = **m;
  }
  auto reply_skipped = [&] {
    if (get && old) {
      ctx.reply.Bulk(*old);
    } else {
      ctx.reply.Null();
    }
  };
  if ((nx && exists) || (xx && !exists)) {
    reply_skipped();
    return;
  }
  if (keepttl && exists) expire_at = meta.expire_at_ms;
  Status st = has_expire && expire_at <= ctx.store.NowMs()
                  ? ctx.store.Delete(key).status()
                  : ctx.store.Put(key, a[2], ValueType::kString, expire_at);
  if (Failed(st, ctx.reply)) return;
  if (get) {
    reply_skipped();
  } else {
    ctx.reply.Ok();
  }
}

}  // namespace

void RegisterStringCommands(CommandTable& t) {
  t.Add({.name = "get", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Get, .group = "string", .summary = "Returns the string value of a key.",
         .since = "1.0.0", .acl = "read string fast"});
  t.Add({.name = "set", .arity = -3, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run = Set, .group = "string",
         .summary = "Sets the string value of a key, ignoring its type. The key is created if it "
                    "doesn't exist.",
         .since = "1.0.0", .acl = "write string slow"});
}

}  // namespace slotkv::command
