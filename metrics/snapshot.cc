#include "metrics/snapshot.h"

#include <algorithm>
#include <atomic>
#include <latch>

#include "core/command/blocking.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/replication.h"

namespace slotkv::metrics {
namespace {

// Sums slot s over its databases. REQUIRES: on s's owner.
SlotSnapshot ReadSlot(command::ServerState& state, uint32_t s, Status* failure) {
  command::Keyspace& ks = *state.keyspace;
  SlotSnapshot out;
  out.slot = s;
  out.worker = state.executor->OwnerOf(s);
  for (uint32_t db = 0; db < ks.databases(); ++db) {
    Result<slot::Slot*> slot = ks.Get(s, db, /*create=*/false);
    Result<uint64_t> keys = slot.ok() && *slot ? command::UserKeyCount(ks, s, db, **slot)
                                                   : Result<uint64_t>(0);
    if (!slot.ok() || !keys.ok()) {
      if (failure->ok()) *failure = slot.ok() ? keys.status() : slot.status();
      continue;
    }
    if (*slot == nullptr) continue;
    out.keys += *keys;
    out.stats.Add((*slot)->Stats());
  }
  return out;
}

// Runs fn(w) on every worker w and waits for all of them.
template <class Fn>
void OnEveryWorker(command::ServerState& state, Fn fn) {
  const int workers = state.executor->workers();
  std::latch done(workers);
  for (int w = 0; w < workers; ++w) {
    state.executor->Post(w, [&, w] {
      fn(w);
      done.count_down();
    });
  }
  done.wait();
}

// Resolves the slots' key counts (Slot::ResolveKeyCount) for a slice of each worker's time a
// visit, until none is left (or kKeyCountSlices visits), so that reading them does not hold a
// worker. A failure is left to the read.
void ResolveKeyCounts(command::ServerState& state) {
  command::Keyspace& ks = *state.keyspace;
  const auto workers = static_cast<uint32_t>(state.executor->workers());
  for (int visit = 0; visit < slot::Slot::kKeyCountSlices; ++visit) {
    std::atomic<bool> resolved{true};
    OnEveryWorker(state, [&](int w) {
      const int64_t until = ks.clock()->MonotonicUs() + slot::Slot::kKeyCountSliceUs;
      for (uint32_t s = static_cast<uint32_t>(w); s < ks.slots(); s += workers) {
        for (uint32_t db = 0; db < ks.databases(); ++db) {
          Result<slot::Slot*> slot = ks.Get(s, db, /*create=*/false);
          if (!slot.ok() || *slot == nullptr) continue;
          Result<bool> done = (*slot)->ResolveKeyCount(until - ks.clock()->MonotonicUs());
          if (done.ok() && !*done) resolved = false;
        }
      }
    });
    if (resolved) return;
  }
}

}  // namespace

ServerSnapshot Gather(command::ServerState& state) {
  ServerSnapshot out;
  command::Keyspace& ks = *state.keyspace;
  out.workers = state.executor->workers();
  out.databases = ks.databases();
  out.slots.resize(ks.slots());
  std::vector<Status> failures(static_cast<size_t>(out.workers));
  ResolveKeyCounts(state);
  OnEveryWorker(state, [&](int w) {
    for (uint32_t s = static_cast<uint32_t>(w); s < ks.slots();
         s += static_cast<uint32_t>(out.workers)) {
      out.slots[s] = ReadSlot(state, s, &failures[static_cast<size_t>(w)]);
    }
  });
  for (const Status& st : failures) {
    if (!st.ok() && out.failure.ok()) out.failure = st;
  }
  // Worker counters are relaxed atomics any thread may read.
  using command::WorkerStats;
  const command::CommandTable& table = *state.table;
  table.ForEachRow([&](const command::CommandSpec& spec) {
    CommandSnapshot c;
    c.name = std::string(spec.name);
    for (const auto& ws : *state.stats) {
      const command::CommandStat& cs = ws->per_command[spec.id];
      c.calls += WorkerStats::Get(cs.calls);
      c.usec += WorkerStats::Get(cs.usec);
      c.failed += WorkerStats::Get(cs.failed_calls) + WorkerStats::Get(cs.rejected_calls);
    }
    if (c.calls > 0 || c.failed > 0) out.commands.push_back(std::move(c));
  });
  for (const auto& ws : *state.stats) {
    out.commands_processed += WorkerStats::Get(ws->commands_processed);
    out.net_input_bytes += WorkerStats::Get(ws->net_input_bytes);
    out.net_output_bytes += WorkerStats::Get(ws->net_output_bytes);
    out.keyspace_hits += WorkerStats::Get(ws->keyspace_hits);
    out.keyspace_misses += WorkerStats::Get(ws->keyspace_misses);
    out.read_waits += WorkerStats::Get(ws->read_waits);
    out.async_reads += WorkerStats::Get(ws->async_reads);
    out.client_moves += WorkerStats::Get(ws->client_moves);
    out.direct_replies += WorkerStats::Get(ws->direct_replies);
    out.loop_lag_max_us = std::max(out.loop_lag_max_us, WorkerStats::Get(ws->loop_lag_max_us));
  }
  out.connected_clients = state.clients->connected();
  out.blocked_clients = state.blocking ? state.blocking->blocked_clients.load() : 0;
  out.uptime_s = static_cast<double>(ks.clock()->NowMs() - state.start_ms) / 1000.0;
  out.replication = GatherReplication(state, &out.slots);
  return out;
}

ReplicationSnapshot GatherReplication(command::ServerState& state,
                                      std::vector<SlotSnapshot>* slots) {
  ReplicationSnapshot out;
  if (state.replication == nullptr) return out;
  const command::ReplicationStatus st = state.replication->GetStatus();
  const uint32_t dbs = state.keyspace->databases();
  out.available = true;
  out.replica = st.replica;
  out.link_up = st.link_up;
  if (st.replica) out.master = st.master_host + ":" + std::to_string(st.master_port);
  out.link_down_s = st.link_down_s;
  out.replid = st.replid;
  out.cluster = st.cluster;
  for (size_t i = 0; i < st.offsets.size(); ++i) {
    out.offset += st.offsets[i];
    if (i / dbs < slots->size()) (*slots)[i / dbs].repl_offset += st.offsets[i];
  }
  for (const command::ReplicaStatus& r : st.replicas) {
    ReplicaSnapshot rs;
    rs.name = r.ip + ":" + std::to_string(r.port);
    rs.online = r.online;
    rs.lag_s = r.lag_s;
    rs.slot_lag.assign(state.keyspace->slots(), 0);
    for (size_t i = 0; i < st.offsets.size() && i < r.acked.size(); ++i) {
      const uint64_t behind = st.offsets[i] > r.acked[i] ? st.offsets[i] - r.acked[i] : 0;
      rs.offset_lag += behind;
      rs.slot_lag[i / dbs] += behind;
    }
    out.replicas.push_back(std::move(rs));
  }
  return out;
}

SlotSnapshot GatherSlot(command::ServerState& state, uint32_t s, Status* failure) {
  SlotSnapshot out;
  std::latch done(1);
  state.executor->Post(state.executor->OwnerOf(s), [&] {
    out = ReadSlot(state, s, failure);
    done.count_down();
  });
  done.wait();
  return out;
}

}  // namespace slotkv::metrics
