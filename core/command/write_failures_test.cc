#include "core/command/write_failures.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "core/base/fault_fs.h"
#include "core/base/mem_fs.h"
#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const slot::Slot* Fake(uintptr_t n) { return reinterpret_cast<const slot::Slot*>(n * 64); }

TEST_CASE("a trace learns the failures of its own slots after its mark, and only those") {
  WriteFailures failures;
  WriteTrace early{failures.Mark(), {Fake(1), Fake(2)}};
  failures.Record(Fake(3), Status::IOError("disk B"));
  CHECK(failures.Outcome(early).ok());  // another slot failed
  WriteTrace later{failures.Mark(), {Fake(1)}};
  failures.Record(Fake(2), Status::IOError("wal: write: No space left on device"));
  const Status st = failures.Outcome(early);
  CHECK(st.IsUnavailable());
  CHECK(st.message() == "IO error: wal: write: No space left on device");
  CHECK(failures.Outcome(later).ok());  // slot 2 is not among its slots
  WriteTrace none{0, {}};
  CHECK(failures.Outcome(none).ok());   // wrote nothing
  CHECK(failures.count() == 2);
}

TEST_CASE("a trace older than every failure kept is answered with an error, never OK") {
  WriteFailures failures;
  WriteTrace old{failures.Mark(), {Fake(1)}};
  for (int i = 0; i < 2000; ++i) failures.Record(Fake(9), Status::IOError("x"));
  CHECK(failures.Outcome(old).IsUnavailable());
  WriteTrace recent{failures.Mark() - 5, {Fake(1)}};
  CHECK(failures.Outcome(recent).ok());
}

// The key of the given slot: "k<n>" for the first n that lands there.
std::string KeyIn(Keyspace& ks, uint32_t slot, int skip = 0) {
  for (int n = 0;; ++n) {
    std::string key = "k" + std::to_string(n);
    if (ks.SlotOfKey(key) == slot && skip-- == 0) return key;
  }
}

TEST_CASE("a failing slot refuses its writes with MISCONF; the worker's other slots go on") {
  MemFs base;
  FaultFs fs(&base);
  CommandFixture f(/*workers=*/1, /*slots=*/8, &fs);
  Keyspace& ks = *f.state().keyspace;
  const std::string bad = KeyIn(ks, 3), bad2 = KeyIn(ks, 3, 1), good = KeyIn(ks, 5);
  REQUIRE(f.Run({"SET", bad, "1"}) == "+OK\r\n");
  REQUIRE(f.Run({"SET", good, "1"}) == "+OK\r\n");
  fs.OnlyPaths("slot-0003/");
  fs.FailNthWrite(1);
  const std::string failed = f.Run({"SET", bad, "2"});
  CHECK(failed.rfind("-MISCONF Errors writing to disk: IO error", 0) == 0);
  CHECK(failed.find("\r\n") == failed.size() - 2);
  CHECK(f.Run({"SET", good, "2"}) == "+OK\r\n");
  CHECK(f.Run({"SET", bad2, "x"}).rfind("-MISCONF Errors writing to disk: ", 0) == 0);
  CHECK(f.Run({"INCR", good}) == ":3\r\n");
  // A multi-key write that reaches the failed slot is refused before it runs: nothing of it
  // is applied to the healthy slot. In MULTI too (EXEC aborts). Reads go on.
  CHECK(f.Run({"MSET", good, "4", bad2, "4"}).rfind("-MISCONF Errors writing to disk: IO", 0) ==
        0);
  CHECK(f.Run({"GET", good}) == "$1\r\n3\r\n");
  CHECK(f.Run({"MULTI"}) == "+OK\r\n");
  CHECK(f.Run({"SET", good, "5"}) == "+QUEUED\r\n");
  CHECK(f.Run({"SET", bad2, "5"}).rfind("-MISCONF ", 0) == 0);
  CHECK(f.Run({"EXEC"}).rfind("-EXECABORT ", 0) == 0);
  CHECK(f.Run({"GET", good}) == "$1\r\n3\r\n");
  CHECK(f.Run({"GET", bad2}) == "$-1\r\n");
  const std::string got = f.Run({"GET", bad});
  CHECK((got == "$1\r\n1\r\n" || got == "$1\r\n2\r\n"));
  CHECK(f.Run({"DEL", good}) == ":1\r\n");
  CHECK(f.Run({"EXISTS", good}) == ":0\r\n");
  // FLUSHALL drops the failed slot's files: its new slot takes writes.
  fs.Clear();
  CHECK(f.Run({"FLUSHALL"}) == "+OK\r\n");
  CHECK(f.Run({"SET", bad2, "6"}) == "+OK\r\n");
  CHECK(f.Run({"MSET", good, "6", bad2, "7"}) == "+OK\r\n");
}

TEST_CASE("a task waits for each worker's group commit: MSET replies a commit failure there") {
  MemFs base;
  FaultFs fs(&base);
  CommandFixture f(/*workers=*/2, /*slots=*/8, &fs);
  Keyspace& ks = *f.state().keyspace;
  // The client lives on worker 0; slot 3 is worker 1's, slot 4 worker 0's.
  const std::string away = KeyIn(ks, 3), here = KeyIn(ks, 4);
  REQUIRE(f.Run({"MSET", away, "1", here, "1"}) == "+OK\r\n");
  fs.OnlyPaths("slot-0003/");
  fs.FailNthWrite(1);  // the log write of worker 1's group commit, which the task waits for
  CHECK(f.Run({"MSET", away, "2", here, "2"}).rfind("-MISCONF Errors writing to disk: ", 0) ==
        0);
  CHECK(f.Run({"GET", here}) == "$1\r\n2\r\n");
  CHECK(f.Run({"SET", away, "3"}).rfind("-MISCONF ", 0) == 0);
  fs.Clear();
  CHECK(f.Run({"MSET", here, "4", KeyIn(ks, 5), "4"}) == "+OK\r\n");
}

}  // namespace
}  // namespace slotkv::command
