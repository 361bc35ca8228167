#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

bool InfoHas(CommandFixture& f, std::string_view field) {
  return f.Run({"INFO", "persistence"}).find(std::string("\r\n") + std::string(field) +
                                             "\r\n") != std::string::npos;
}

// Waits (up to 5 s) until no background job runs and none is scheduled.
void WaitIdle(CommandFixture& f) {
  for (int i = 0; i < 5000; ++i) {
    const ServerState& s = f.state();
    if (s.background_persist == kNoPersistJob && !s.bgsave.scheduled && !s.aof_rewrite.scheduled) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL("a background persist job never ended");
}

TEST_CASE("BGSAVE replies at once and finishes in the background") {
  CommandFixture f;
  f.Run({"SET", "a", "1"});
  f.clock().AdvanceMs(3000);
  CHECK(f.Run({"BGSAVE"}) == "+Background saving started\r\n");
  WaitIdle(f);
  CHECK(f.Run({"LASTSAVE"}) == ":1700000003\r\n");
  CHECK(InfoHas(f, "rdb_changes_since_last_save:0"));
  CHECK(InfoHas(f, "rdb_last_bgsave_status:ok"));
  CHECK(InfoHas(f, "rdb_last_bgsave_time_sec:0"));
  CHECK(InfoHas(f, "rdb_current_bgsave_time_sec:-1"));
  CHECK(f.Run({"BGSAVE", "FOO"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"BGSAVE", "SCHEDULE", "x"}) == "-ERR syntax error\r\n");
}

TEST_CASE("SAVE and BGSAVE refuse to run while a BGSAVE is in progress") {
  CommandFixture f;
  f.state().background_persist = kBgSaveJob;
  f.state().bgsave.started_ms = f.clock().NowMs();
  f.clock().AdvanceMs(2500);
  CHECK(f.Run({"BGSAVE"}) == "-ERR Background save already in progress\r\n");
  CHECK(f.Run({"BGSAVE", "schedule"}) == "-ERR Background save already in progress\r\n");
  CHECK(f.Run({"SAVE"}) == "-ERR Background save already in progress\r\n");
  CHECK(InfoHas(f, "rdb_bgsave_in_progress:1"));
  CHECK(InfoHas(f, "rdb_current_bgsave_time_sec:2"));
  CHECK(InfoHas(f, "aof_rewrite_in_progress:0"));
  f.state().background_persist = kNoPersistJob;
}

TEST_CASE("BGREWRITEAOF persists the WAL as a background job") {
  CommandFixture f;
  f.Run({"SET", "a", "1"});
  CHECK(InfoHas(f, "rdb_changes_since_last_save:1"));
  CHECK(InfoHas(f, "aof_rewrites:0"));
  CHECK(InfoHas(f, "aof_last_rewrite_time_sec:-1"));
  CHECK(f.Run({"BGREWRITEAOF"}) == "+Background append only file rewriting started\r\n");
  WaitIdle(f);
  CHECK(InfoHas(f, "rdb_changes_since_last_save:0"));
  CHECK(InfoHas(f, "aof_rewrites:1"));
  CHECK(InfoHas(f, "aof_last_bgrewrite_status:ok"));
  CHECK(InfoHas(f, "aof_last_rewrite_time_sec:0"));
  CHECK(f.Run({"LASTSAVE"}) == ":0\r\n");  // a rewrite is no save
  CHECK(f.Run({"BGREWRITEAOF", "x"}) == Arity("bgrewriteaof"));
}

TEST_CASE("one background job at a time: the other kind is scheduled, then runs") {
  CommandFixture f;
  f.Run({"SET", "a", "1"});
  // A rewrite asked during a BGSAVE is scheduled; it starts when the BGSAVE ends.
  f.state().background_persist = kBgSaveJob;
  CHECK(f.Run({"BGREWRITEAOF"}) == "+Background append only file rewriting scheduled\r\n");
  CHECK(InfoHas(f, "aof_rewrite_scheduled:1"));
  f.state().background_persist = kAofRewriteJob;
  CHECK(f.Run({"BGREWRITEAOF"}) ==
        "-ERR Background append only file rewriting already in progress\r\n");
  // A BGSAVE during a rewrite: refused, or scheduled with SCHEDULE.
  CHECK(f.Run({"BGSAVE"}) ==
        "-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
        "SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n");
  CHECK(f.Run({"BGSAVE", "SCHEDULE"}) == "+Background saving scheduled\r\n");
  // Nothing runs really: the next job to end starts what is scheduled (a SAVE is no job).
  f.state().background_persist = kNoPersistJob;
  f.state().aof_rewrite.scheduled = false;
  CHECK(f.Run({"BGREWRITEAOF"}) == "+Background append only file rewriting started\r\n");
  WaitIdle(f);
  CHECK(InfoHas(f, "aof_rewrites:1"));
  CHECK(InfoHas(f, "rdb_saves:1"));  // the scheduled BGSAVE ran after the rewrite
  CHECK(InfoHas(f, "aof_rewrite_scheduled:0"));
}

TEST_CASE("inside EXEC, BGSAVE and BGREWRITEAOF are scheduled") {
  CommandFixture f;
  CHECK(f.Run({"MULTI"}) == "+OK\r\n");
  CHECK(f.Run({"BGSAVE"}) == "+QUEUED\r\n");
  CHECK(f.Run({"BGREWRITEAOF"}) == "+QUEUED\r\n");
  CHECK(f.Run({"EXEC"}) ==
        "*2\r\n+Background saving scheduled\r\n"
        "+Background append only file rewriting scheduled\r\n");
  WaitIdle(f);
  CHECK(InfoHas(f, "aof_rewrites:1"));
  CHECK(InfoHas(f, "rdb_saves:1"));
}

}  // namespace
}  // namespace slotkv::command
