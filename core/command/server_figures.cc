// ServerFigures (server_family.h): gathered on every worker for INFO and MEMORY.
#include <numeric>

#include "core/command/collection_pages.h"
#include "core/command/fanout.h"
#include "core/command/server_family.h"
#include "core/script/functions.h"
#include "core/script/scripts.h"

namespace slotkv::command {

uint64_t ServerFigures::caches() const {
  return stats.value_cache_bytes + stats.bucket_cache_bytes + stats.chunk_cache_bytes;
}

uint64_t ServerFigures::key_count() const {
  return std::accumulate(keys.begin(), keys.end(), uint64_t{0});
}

uint64_t ServerFigures::overhead() const {
  return startup + clients_normal_bytes + clients_replica_bytes + scripts_bytes +
         functions_bytes + caches() + wal_maps();
}

Task GatherFigures(AsyncContext& ctx, bool count_keys, ServerFigures* out) {
  Keyspace& ks = *ctx.server.keyspace;
  const int workers = ctx.server.executor->workers();
  out->keys.assign(ks.databases(), 0);
  for (int w = 0; w < workers; ++w) {
    co_await ctx.ToWorker(w);
    for (const ClientInfo& c : ctx.server.clients->ListLocal()) {
      const uint64_t bytes = c.query_buffer + c.output_buffer;
      (c.replica ? out->clients_replica_bytes : out->clients_normal_bytes) += bytes;
      ++(c.replica ? out->replicas : out->clients);
      out->max_input_buffer = std::max(out->max_input_buffer, c.query_buffer);
      out->max_output_buffer = std::max(out->max_output_buffer, c.output_buffer);
    }
    for (uint32_t s = static_cast<uint32_t>(w); s < ks.slots();
         s += static_cast<uint32_t>(workers)) {
      for (uint32_t db = 0; db < ks.databases(); ++db) {
        if (count_keys) co_await ResolveKeyCount(ctx, s, db);
        Result<slot::Slot*> slot = ks.Get(s, db, /*create=*/false);
        if (!slot.ok()) {
          if (out->failure.ok()) out->failure = slot.status();
          continue;
        }
        if (*slot == nullptr) continue;
        out->stats.Add((*slot)->Stats());
        if (!count_keys) continue;
        Result<uint64_t> n = UserKeyCount(ks, s, db, **slot);
        if (!n.ok()) {
          if (out->failure.ok()) out->failure = n.status();
          continue;
        }
        out->keys[db] += *n;
        out->internal_keys += ks.internal_keys(s, db).value_or(0);
      }
    }
  }
  co_await ctx.ToHome();
  if (ctx.server.scripts) {
    std::tie(out->scripts, out->scripts_bytes) = ctx.server.scripts->CacheSize();
  }
  if (ctx.server.functions) {
    for (const script::Functions::Library& l : ctx.server.functions->List()) {
      ++out->libraries;
      out->functions += l.functions.size();
      out->functions_bytes += l.name.size() + l.code.size();
    }
  }
  out->startup = ctx.server.startup_allocated;
  out->process = ReadProcessMemory();
}

}  // namespace slotkv::command
