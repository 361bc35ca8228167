#include "core/command/context.h"

#include "core/command/blocking.h"

namespace slotkv::command {

Status ServerState::CommitDirty() {
  std::vector<slot::Slot*>& slots = (*dirty)[static_cast<size_t>(executor->current())];
  Status first;
  std::vector<slot::Slot*> failed;
  for (slot::Slot* s : slots) {
    Status st = s->Commit();
    if (st.ok()) continue;
    // It stays dirty: its log refuses from now on, so every later commit on this worker fails
    // too and no write made before the failure is acknowledged by a later "successful" commit.
    failed.push_back(s);
    if (first.ok()) first = std::move(st);
  }
  slots = std::move(failed);
  return first;
}

void ServerState::RefreshLive() {
  auth_required = !config->Get("requirepass").empty();
  maxclients = config->GetInt("maxclients");
  proto_max_bulk_len = config->GetInt("proto-max-bulk-len");
  query_buffer_limit = config->GetInt("client-query-buffer-limit");
  output_buffer_limit = conf::NormalClientOutputLimit(config->Get("client-output-buffer-limit"));
  slowlog_slower_than = config->GetInt("slowlog-log-slower-than");
  slowlog_max_len = config->GetInt("slowlog-max-len");
  hz = config->GetInt("hz");
  keyspace->SetCacheBudget(static_cast<uint64_t>(config->GetInt("maxmemory-cache")));
  keyspace->dictionaries()->set_min_bytes(static_cast<size_t>(config->GetInt("compress-min-bytes")));
  const std::string fsync = config->Get("appendfsync");
  keyspace->SetFsync(fsync == "always" ? wal::FsyncPolicy::kAlways
                     : fsync == "no"   ? wal::FsyncPolicy::kNo
                                       : wal::FsyncPolicy::kEverySec);
}

void AsyncContext::CommitHere() {
  if (server.blocking) server.blocking->ServeReady();
  Status st = server.CommitDirty();
  if (!st.ok() && commit_status.ok()) commit_status = std::move(st);
}

}  // namespace slotkv::command
