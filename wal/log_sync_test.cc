// Log's fsync policies on memory files: when commits sync, failed writes and syncs, a full
// disk, and what a power cut keeps.
#include "wal/log.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/base/clock.h"
#include "core/base/coding.h"
#include "core/base/fault_fs.h"
#include "core/base/fs.h"
#include "core/base/hash.h"
#include "core/base/mem_fs.h"
#include "wal/log_test_util.h"

namespace slotkv::wal {
namespace {

TEST_CASE("everysec syncs only once a second has passed since the last sync") {
  FaultLogEnv env;
  env.options.fsync = FsyncPolicy::kEverySec;
  auto log = env.Open();
  env.Write(*log, 1, 1);
  CHECK(env.fault.syncs() == 0);
  env.clock.AdvanceMs(999);
  env.Write(*log, 2, 1);
  CHECK(env.fault.syncs() == 0);
  env.clock.AdvanceMs(1);
  env.Write(*log, 3, 1);
  CHECK(env.fault.syncs() == 1);
  CHECK(log->stats().syncs == 1);
  env.clock.AdvanceMs(500);
  env.Write(*log, 4, 1);
  CHECK(env.fault.syncs() == 1);
  // A commit with nothing new still syncs bytes left unsynced once the second is up.
  env.clock.AdvanceMs(500);
  REQUIRE(log->Commit().ok());
  CHECK(env.fault.syncs() == 2);
  env.clock.AdvanceMs(5000);
  REQUIRE(log->Commit().ok());
  CHECK(env.fault.syncs() == 2);
}

TEST_CASE("policy no never syncs on commit") {
  FaultLogEnv env;
  env.options.fsync = FsyncPolicy::kNo;
  auto log = env.Open();
  for (int i = 0; i < 5; ++i) {
    env.Write(*log, 1 + i, 1);
    env.clock.AdvanceMs(2000);
  }
  CHECK(env.fault.syncs() == 0);
  CHECK(log->Sync().ok());
  CHECK(env.fault.syncs() == 1);
}

TEST_CASE("a failed write is sticky: later appends, commits and syncs are refused") {
  FaultLogEnv env;
  auto log = env.Open();
  env.Write(*log, 1, 1);
  REQUIRE(log->Append(Put(2, "k", "v")).ok());
  env.fault.FailNthWrite(1);
  Status st = log->Commit();
  CHECK(st.IsIOError());
  CHECK(st.message() == "injected write failure");
  CHECK(!log->failure().ok());
  env.fault.Clear();
  auto pos = log->Append(Put(3, "k", "v"));
  REQUIRE_FALSE(pos.ok());
  CHECK(pos.status().message() == "injected write failure");
  CHECK(log->Commit().message() == "injected write failure");
  CHECK(log->Sync().message() == "injected write failure");
  log.reset();
  Replayed replayed;
  log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 1));
  CHECK(log->failure().ok());
}

TEST_CASE("a failed sync is sticky") {
  FaultLogEnv env;
  auto log = env.Open();
  REQUIRE(log->Append(Put(1, "k", "v")).ok());
  env.fault.FailNthSync(1);
  Status st = log->Commit();
  CHECK(st.IsIOError());
  CHECK(st.message() == "injected fsync failure");
  CHECK(!log->failure().ok());
  CHECK(log->Append(Put(2, "k", "v")).status().message() == "injected fsync failure");
  CHECK(log->Commit().IsIOError());
  CHECK(log->Sync().message() == "injected fsync failure");
  CHECK(env.fault.syncs() == 1);  // no further sync was tried
}

TEST_CASE("a short write fails and reopen truncates the torn tail") {
  FaultLogEnv env;
  uint64_t good_end = 0;
  {
    auto log = env.Open();
    env.Write(*log, 1, 5);
    good_end = log->total_bytes();
    REQUIRE(log->Append(Put(6, "k6", "value six")).ok());
    REQUIRE(log->Append(Put(7, "k7", "value seven")).ok());
    env.fault.ShortNthWrite(1, 21);
    Status st = log->Commit();
    CHECK(st.IsIOError());
    CHECK(!log->failure().ok());
    CHECK(log->Append(Put(8, "k", "v")).status().IsIOError());
  }
  env.fault.Clear();
  CHECK(env.Contents(1).size() == good_end + 21);
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 5));
  CHECK(log->truncated_tail_bytes() == 21);
  env.Write(*log, 6, 1);
}

TEST_CASE("a full disk reports No space left on device and is sticky") {
  FaultLogEnv env;
  auto log = env.Open();
  env.fault.SetSpaceLimit(100);
  env.Write(*log, 1, 1);
  for (int i = 0; i < 10; ++i) REQUIRE(log->Append(Put(2 + i, "k", "value")).ok());
  Status st = log->Commit();
  CHECK(st.IsIOError());
  CHECK(st.message().find("No space left on device") != std::string_view::npos);
  CHECK(log->Sync().message() == st.message());
}

TEST_CASE("power cut keeps every record committed under always") {
  LogEnv env;
  {
    auto log = env.Open();
    env.Write(*log, 1, 50);
    env.Write(*log, 51, 50);
    for (int i = 0; i < 10; ++i) REQUIRE(log->Append(Put(101 + i, "k", "uncommitted")).ok());
  }
  env.mem.SimulatePowerCutForTest();
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 100));
  CHECK(log->truncated_tail_bytes() == 0);
}

TEST_CASE("power cut under policy no loses unsynced records but opens cleanly") {
  LogEnv env;
  env.options.fsync = FsyncPolicy::kNo;
  {
    auto log = env.Open();
    env.Write(*log, 1, 10);
    REQUIRE(log->Sync().ok());
    env.Write(*log, 11, 10);
  }
  env.mem.SimulatePowerCutForTest();
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 10));
  env.Write(*log, 11, 1);
}

}  // namespace
}  // namespace slotkv::wal
