// The log on the real file system: replay of posix files, and the writes and fsyncs a worker
// sends through its io_uring (answered from their completions; everysec fsyncs not waited for).
#include <doctest/doctest.h>

#include <filesystem>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "core/base/clock.h"
#include "core/base/fault_fs.h"
#include "core/base/fs.h"
#include "core/base/io_ring.h"
#include "core/base/temp_dir.h"
#include "wal/log.h"
#include "wal/log_impl.h"

namespace slotkv::wal {
namespace {

Record Put(uint64_t seq, std::string key, std::string value) {
  return Record{.seq = seq, .key = std::move(key), .value = std::move(value)};
}

TEST_CASE("records replay on the posix file system") {
  TempDir temp("slotkv-wal-test");
  const std::string& dir = temp.path();
  {
    std::unique_ptr<Fs> fs = NewPosixFs();
    Log::Options options;
    options.fs = fs.get();
    options.dir = dir;
    options.fsync = FsyncPolicy::kAlways;
    options.file_bytes = 300;
    std::vector<Record> replayed;
    auto visit = [&replayed](const Record& r, const LogPos&) {
      replayed.push_back(r);
      return Status::OK();
    };
    {
      auto log = Log::Open(options, visit);
      REQUIRE(log.ok());
      for (uint64_t seq = 1; seq <= 10; ++seq) {
        REQUIRE((*log)->Append(Put(seq, "key" + std::to_string(seq), std::string(50, 'p'))).ok());
        REQUIRE((*log)->Commit().ok());
      }
      CHECK((*log)->current_file_no() > 1);
    }
    // A torn tail on the real file system too.
    {
      auto names = fs->List(dir);
      REQUIRE(names.ok());
      std::sort(names->begin(), names->end());
      auto last = fs->Open(JoinPath(dir, names->back()));
      REQUIRE(last.ok());
      REQUIRE((*last)->Append("\x10\x20\x30\x40\x50").ok());
    }
    auto log = Log::Open(options, visit);
    REQUIRE_MESSAGE(log.ok(), log.status().ToString());
    CHECK(replayed.size() == 10);
    for (size_t i = 0; i < replayed.size(); ++i) CHECK(replayed[i].seq == i + 1);
    CHECK((*log)->truncated_tail_bytes() == 5);
  }
}

// The seqs of the records a reopen of the log replays.
// How many log files dir holds.
size_t LogFilesIn(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    n += entry.path().extension() == ".log" ? 1 : 0;
  }
  return n;
}

std::vector<uint64_t> ReplayedSeqs(const Log::Options& options) {
  std::vector<uint64_t> seqs;
  auto log = Log::Open(options, [&seqs](const Record& r, const LogPos&) {
    seqs.push_back(r.seq);
    return Status::OK();
  });
  REQUIRE(log.ok());
  return seqs;
}

// A log directory on the real file system and an io_uring, as a worker has (not yet current).
struct RingLogEnv {
  TempDir dir{"slotkv-wal-test"};
  std::unique_ptr<Fs> fs = NewPosixFs();
  std::unique_ptr<IoRing> ring;
  Log::Options options;

  explicit RingLogEnv(FsyncPolicy fsync) {
    std::string why;
    ring = IoRing::Create(8, &why);
    REQUIRE_MESSAGE(ring != nullptr, why);
    options.fs = fs.get();
    options.dir = dir.path();
    options.fsync = fsync;
    options.ring_writes = true;
  }
  ~RingLogEnv() { IoRing::SetCurrent(nullptr); }
};

TEST_CASE("everysec on a worker syncs through its io_uring without waiting") {
  RingLogEnv env(FsyncPolicy::kEverySec);
  {
    Log::Options& options = env.options;
    IoRing* ring = env.ring.get();
    IoRing::SetCurrent(ring);
    ManualClock clock;
    options.clock = &clock;
    auto log = Log::Open(options, [](const Record&, const LogPos&) { return Status::OK(); });
    REQUIRE(log.ok());
    REQUIRE((*log)->Append(Put(1, "a", "1")).ok());
    clock.AdvanceMs(1000);
    REQUIRE((*log)->Commit().ok());
    CHECK((*log)->stats().syncs == 1);
    CHECK(ring->inflight() == 1);  // submitted, not waited for
    // While it is in flight, a commit past the next second does not start another.
    REQUIRE((*log)->Append(Put(2, "b", "2")).ok());
    clock.AdvanceMs(1000);
    REQUIRE((*log)->Commit().ok());
    CHECK(ring->inflight() <= 1);
    ring->DrainForTest();
    CHECK(ring->inflight() == 0);
    // The bytes of seq 2 are still unsynced: the next commit syncs them.
    REQUIRE((*log)->Commit().ok());
    CHECK((*log)->stats().syncs == 2);
    ring->DrainForTest();
    IoRing::SetCurrent(nullptr);
    REQUIRE((*log)->Commit().ok());
  }
}

TEST_CASE("always commits through the ring: answered at the fsync, later ones share the next") {
  for (bool ring_writes : {false, true}) {
    CAPTURE(ring_writes);
    RingLogEnv env(FsyncPolicy::kAlways);
    Log::Options& options = env.options;
    options.ring_writes = ring_writes;
    IoRing* ring = env.ring.get();
    auto visit = [](const Record&, const LogPos&) { return Status::OK(); };
    std::vector<std::string> answers;
    auto answer = [&answers](std::string name) {
      return [&answers, name](const Status& st) { answers.push_back(name + ":" + st.ToString()); };
    };
    {
      // Without a ring on this thread the commit is answered at once.
      auto log = Log::Open(options, visit);
      REQUIRE(log.ok());
      REQUIRE((*log)->Append(Put(1, "a", "1")).ok());
      (*log)->CommitThen(answer("plain"));
      CHECK(answers == std::vector<std::string>{"plain:OK"});
    }
    answers.clear();
    IoRing::SetCurrent(ring);
    {
      auto log = Log::Open(options, visit);
      REQUIRE(log.ok());
      const uint64_t syncs = (*log)->stats().syncs;
      REQUIRE((*log)->Append(Put(2, "b", "2")).ok());
      (*log)->CommitThen(answer("first"));
      REQUIRE((*log)->Append(Put(3, "c", "3")).ok());
      (*log)->CommitThen(answer("second"));
      (*log)->CommitThen(answer("third"));  // nothing new: rides on the next fsync too
      CHECK(answers.empty());
      CHECK(ring->inflight() == 1);
      ring->DrainForTest();
      CHECK(answers == std::vector<std::string>{"first:OK", "second:OK", "third:OK"});
      CHECK((*log)->stats().syncs == syncs + 2);
      // Destroyed with a commit waiting: it is still answered, from the completion.
      REQUIRE((*log)->Append(Put(4, "d", "4")).ok());
      (*log)->CommitThen(answer("last"));
    }
    CHECK(answers.size() == 3);
    ring->DrainForTest();
    CHECK(answers.back() == "last:OK");
    IoRing::SetCurrent(nullptr);
    // Every answered record is there after a reopen.
    CHECK(ReplayedSeqs(options) == std::vector<uint64_t>{1, 2, 3, 4});
  }
}

// An answer recorder for CommitThen: answer("name") appends "name:<status>" to answers.
struct Answers {
  std::vector<std::string> got;
  std::function<void(const Status&)> operator()(std::string name) {
    return [this, name](const Status& st) { got.push_back(name + ":" + st.ToString()); };
  }
};

TEST_CASE("commits write through the ring: answered at the completion, readable meanwhile") {
  for (FsyncPolicy fsync : {FsyncPolicy::kEverySec, FsyncPolicy::kNo}) {
    RingLogEnv env(fsync);
    IoRing* ring = env.ring.get();
    IoRing::SetCurrent(ring);
    Answers answer;
    {
      auto log = Log::Open(env.options, [](const Record&, const LogPos&) { return Status::OK(); });
      REQUIRE(log.ok());
      auto first = (*log)->Append(Put(1, "a", "1"));
      REQUIRE(first.ok());
      (*log)->CommitThen(answer("first"));
      CHECK(answer.got.empty());
      CHECK(ring->inflight() == 1);
      CHECK((*log)->stats().bytes_written == 0);  // counted at the completion
      auto second = (*log)->Append(Put(2, "b", "2"));
      REQUIRE(second.ok());
      (*log)->CommitThen(answer("second"));  // waits for the next write
      CHECK(ring->inflight() == 1);
      for (const LogPos& pos : {*first, *second}) {  // from memory: in flight, then buffered
        auto back = (*log)->ReadAt(pos);
        REQUIRE(back.ok());
        CHECK(back->key == (pos.offset == 0 ? "a" : "b"));
      }
      ring->DrainForTest();
      CHECK(answer.got == std::vector<std::string>{"first:OK", "second:OK"});
      CHECK((*log)->stats().bytes_written == first->size + second->size);
      std::vector<Record> both;
      REQUIRE((*log)->ReadMany({*first, *second}, &both).ok());  // from the file now
      CHECK(both[1].value == "2");
    }
    IoRing::SetCurrent(nullptr);
    CHECK(ReplayedSeqs(env.options) == std::vector<uint64_t>{1, 2});
  }
}

TEST_CASE("synchronous paths write the ring's bytes again; a log destroyed meanwhile answers") {
  RingLogEnv env(FsyncPolicy::kEverySec);
  Log::Options& options = env.options;
  options.file_bytes = 200;
  IoRing* ring = env.ring.get();
  IoRing::SetCurrent(ring);
  Answers answer;
  {
    auto log = Log::Open(options, [](const Record&, const LogPos&) { return Status::OK(); });
    REQUIRE(log.ok());
    REQUIRE((*log)->Append(Put(1, "a", std::string(60, 'x'))).ok());
    (*log)->CommitThen(answer("ring"));
    REQUIRE((*log)->Append(Put(2, "b", std::string(60, 'y'))).ok());
    REQUIRE((*log)->Commit().ok());  // writes seq 1 again, then seq 2 behind it
    CHECK((*log)->stats().bytes_written == (*log)->total_bytes());
    // Files fill and a new one starts while the ring write is still in flight.
    for (uint64_t seq = 3; seq <= 6; ++seq) {
      REQUIRE((*log)->Append(Put(seq, "k", std::string(60, 'z'))).ok());
    }
    CHECK((*log)->current_file_no() > 1);
    (*log)->CommitThen(answer("behind"));  // in the buffer, behind the write in flight
    CHECK(answer.got.empty());
    // An outside reader finds every committed record in the files even before the ring's
    // completion (the first file was synced when the next started).
    CHECK(ReplayedSeqs(options).size() >= 2);
  }
  CHECK(answer.got.empty());
  ring->DrainForTest();
  CHECK(answer.got == std::vector<std::string>{"ring:OK", "behind:OK"});
  IoRing::SetCurrent(nullptr);
  CHECK(ReplayedSeqs(options) == std::vector<uint64_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("a failed ring write fails the log") {
  RingLogEnv env(FsyncPolicy::kNo);
  IoRing* ring = env.ring.get();
  IoRing::SetCurrent(ring);
  Answers answer;
  auto log = Log::Open(env.options, [](const Record&, const LogPos&) { return Status::OK(); });
  REQUIRE(log.ok());
  // Files of this process may not grow past 4 KiB: the write fails with EFBIG.
  rlimit saved;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  REQUIRE((*log)->Append(Put(1, "a", std::string(8192, 'x'))).ok());
  (*log)->CommitThen(answer("big"));
  ring->DrainForTest();
  REQUIRE(setrlimit(RLIMIT_FSIZE, &saved) == 0);
  std::signal(SIGXFSZ, old_handler);
  REQUIRE(answer.got.size() == 1);
  CHECK(answer.got[0].find("big:IO error: wal: write:") == 0);
  CHECK(!(*log)->failure().ok());
  CHECK(!(*log)->Append(Put(2, "b", "2")).ok());
  IoRing::SetCurrent(nullptr);
}

// FaultFs over the posix file system: its faults reach what goes through the ring.
TEST_CASE("injected faults reach the ring's writes, fsyncs and unlinks") {
  auto visit = [](const Record&, const LogPos&) { return Status::OK(); };
  struct Case {
    const char* name;
    FsyncPolicy fsync;
    std::function<void(FaultFs&)> arm;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"write", FsyncPolicy::kNo, [](FaultFs& f) { f.FailNthWrite(1); },
       "IO error: wal: write: Input/output error"},
      {"short", FsyncPolicy::kNo, [](FaultFs& f) { f.ShortNthWrite(1, 7); },
       "IO error: wal: write: Input/output error"},
      {"full", FsyncPolicy::kNo, [](FaultFs& f) { f.SetSpaceLimit(10); },
       "IO error: wal: write: No space left on device"},
      {"fsync", FsyncPolicy::kAlways, [](FaultFs& f) { f.FailNthSync(1); },
       "IO error: wal: fdatasync: Input/output error"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    RingLogEnv env(c.fsync);
    FaultFs fault(env.fs.get());
    env.options.fs = &fault;
    IoRing* ring = env.ring.get();
    IoRing::SetCurrent(ring);
    Answers answer;
    {
      auto log = Log::Open(env.options, visit);
      REQUIRE(log.ok());
      REQUIRE((*log)->Append(Put(1, "a", "1")).ok());
      (*log)->CommitThen(answer("ok"));
      ring->DrainForTest();
      c.arm(fault);
      REQUIRE((*log)->Append(Put(2, "b", std::string(100, 'x'))).ok());
      (*log)->CommitThen(answer("faulty"));
      CHECK(answer.got.size() == 1);  // answered from the ring, not at once
      ring->DrainForTest();
      REQUIRE(answer.got.size() == 2);
      CHECK(answer.got[0] == "ok:OK");
      CHECK(answer.got[1] == std::string("faulty:") + c.error);
      CHECK((*log)->failure().ToString() == c.error);
      CHECK(!(*log)->Append(Put(3, "c", "3")).ok());
    }
    ring->DrainForTest();
    fault.Clear();
    IoRing::SetCurrent(nullptr);
    const std::vector<uint64_t> seqs = ReplayedSeqs(env.options);
    CHECK(!seqs.empty());
    CHECK(seqs.front() == 1);  // a torn tail (the short write) is cut at open
  }
  // An unlink that fails leaves the file for the next open; the log goes on.
  RingLogEnv env(FsyncPolicy::kEverySec);
  FaultFs fault(env.fs.get());
  env.options.fs = &fault;
  env.options.file_bytes = 200;
  IoRing::SetCurrent(env.ring.get());
  auto log = Log::Open(env.options, visit);
  REQUIRE(log.ok());
  for (uint64_t seq = 1; seq <= 20; ++seq) {
    REQUIRE((*log)->Append(Put(seq, "k" + std::to_string(seq), std::string(60, 'x'))).ok());
    REQUIRE((*log)->Commit().ok());
  }
  REQUIRE((*log)->Sync().ok());
  const size_t before = LogFilesIn(env.options.dir);
  REQUIRE(before > 2);
  fault.FailNthRemove(1);
  REQUIRE((*log)->RemoveFilesBeforeWhenDurable((*log)->current_file_no()).ok());
  env.ring->DrainForTest();
  CHECK(LogFilesIn(env.options.dir) == 2);  // one unlink refused, the others done
  CHECK((*log)->failure().ok());
  IoRing::SetCurrent(nullptr);
}

TEST_CASE("old files go once the records after them are durable: from a ring fsync on a worker") {
  RingLogEnv env(FsyncPolicy::kEverySec);
  Log::Options& options = env.options;
  options.file_bytes = 200;
  IoRing* ring = env.ring.get();
  auto visit = [](const Record&, const LogPos&) { return Status::OK(); };
  auto fill = [](Log& log, uint64_t from) {
    for (uint64_t seq = from; seq < from + 6; ++seq) {
      REQUIRE(log.Append(Put(seq, "k" + std::to_string(seq), std::string(60, 'x'))).ok());
    }
    REQUIRE(log.current_file_no() > log.oldest_file_no());
  };
  {
    // Without a ring: synced and removed before it returns.
    auto log = Log::Open(options, visit);
    REQUIRE(log.ok());
    fill(**log, 1);
    const uint64_t syncs = (*log)->stats().syncs;
    REQUIRE((*log)->RemoveFilesBeforeWhenDurable((*log)->current_file_no()).ok());
    CHECK((*log)->oldest_file_no() == (*log)->current_file_no());
    CHECK((*log)->stats().syncs == syncs + 1);
  }
  IoRing::SetCurrent(ring);
  {
    auto log = Log::Open(options, visit);
    REQUIRE(log.ok());
    fill(**log, 100);
    ring->DrainForTest();  // the rotations' syncs
    const uint32_t current = (*log)->current_file_no();
    const size_t files_before = LogFilesIn(options.dir);
    REQUIRE(files_before > 1);
    REQUIRE((*log)->RemoveFilesBeforeWhenDurable(current).ok());
    CHECK((*log)->oldest_file_no() < current);  // the fsync is in flight
    CHECK(ring->inflight() == 1);
    ring->DrainForTest();  // the fsync, then the unlinks its completion handed to the ring
    CHECK((*log)->oldest_file_no() == current);
    CHECK(LogFilesIn(options.dir) == 1);
    // Nothing unsynced and no fsync in flight: at once.
    fill(**log, 200);
    REQUIRE((*log)->Sync().ok());
    REQUIRE((*log)->RemoveFilesBeforeWhenDurable((*log)->current_file_no()).ok());
    CHECK((*log)->oldest_file_no() == (*log)->current_file_no());
    // Destroyed before the fsync completes: the files stay for the next open.
    fill(**log, 300);
    REQUIRE((*log)->RemoveFilesBeforeWhenDurable((*log)->current_file_no()).ok());
  }
  ring->DrainForTest();
  IoRing::SetCurrent(nullptr);
  const std::vector<uint64_t> seqs = ReplayedSeqs(options);
  REQUIRE(!seqs.empty());
  CHECK(seqs.front() >= 200);  // the files removed from completions are gone
  CHECK(seqs.back() == 305);   // those of the destroyed log's last request stayed
}

// The size of the log file file_no on disk.
uint64_t FileBytes(const Log::Options& options, uint32_t file_no) {
  return std::filesystem::file_size(std::filesystem::path(options.dir) / FileName(file_no));
}

// Opens env's log with env's ring current, as on a worker.
std::unique_ptr<Log> OpenOnRing(RingLogEnv& env) {
  IoRing::SetCurrent(env.ring.get());
  auto log = Log::Open(env.options, [](const Record&, const LogPos&) { return Status::OK(); });
  REQUIRE(log.ok());
  return std::move(log).value();
}

TEST_CASE("durable_end on a worker: a ring fsync covers what was written, not what flies") {
  RingLogEnv env(FsyncPolicy::kNo);
  IoRing* ring = env.ring.get();
  Answers answer;
  {
    std::unique_ptr<Log> log = OpenOnRing(env);
    auto first = log->Append(Put(1, "a", "1"));
    REQUIRE(first.ok());
    log->CommitThen(answer("c1"));
    ring->DrainForTest();  // written
    auto second = log->Append(Put(2, "b", "2"));
    REQUIRE(second.ok());
    log->CommitThen(answer("c2"));  // its write flies
    REQUIRE(log->SyncSoon().ok());
    CHECK_FALSE(EndsBy(*first, log->durable_end()));  // not before the fsync completes
    ring->DrainForTest();
    REQUIRE(answer.got.size() == 2);
    CHECK(EndsBy(*first, log->durable_end()));
    // Its write was in flight when the fsync started.
    CHECK_FALSE(EndsBy(*second, log->durable_end()));
    REQUIRE(log->SyncSoon().ok());
    ring->DrainForTest();
    CHECK(EndsBy(*second, log->durable_end()));
    REQUIRE(log->SyncSoon().ok());  // nothing unsynced: no fsync
    CHECK(ring->inflight() == 0);
  }
  IoRing::SetCurrent(nullptr);
}

TEST_CASE("a rotation on a worker syncs through the ring; the new file takes writes meanwhile") {
  // Only commits that must be durable (always) wait for the rotation's syncs; nothing of the
  // new file counts as durable before them.
  for (FsyncPolicy policy : {FsyncPolicy::kEverySec, FsyncPolicy::kAlways}) {
    for (bool ring_writes : {false, true}) {
      CAPTURE(policy);
      CAPTURE(ring_writes);
      RingLogEnv env(policy);
      env.options.ring_writes = ring_writes;
      env.options.file_bytes = 200;
      IoRing* ring = env.ring.get();
      Answers answer;
      {
        std::unique_ptr<Log> log = OpenOnRing(env);
        for (uint64_t seq = 1; seq <= 3; ++seq) {
          REQUIRE(log->Append(Put(seq, "k", std::string(60, 'x'))).ok());
          log->CommitThen(answer("c" + std::to_string(seq)));
          ring->DrainForTest();
        }
        REQUIRE(answer.got.size() == 3);
        const uint32_t old_file = log->current_file_no();
        // The next append starts a new file: its syncs go to the ring, nothing waits here.
        auto pos = log->Append(Put(4, "k", "four"));
        REQUIRE(pos.ok());
        CHECK(pos->file_no == old_file + 1);
        CHECK(ring->inflight() >= 1);
        CHECK_FALSE(log->idle());
        CHECK(log->rotating() == (policy == FsyncPolicy::kAlways));
        log->CommitThen(answer("c4"));
        const bool waits = policy == FsyncPolicy::kAlways || ring_writes;
        CHECK(answer.got.size() == (waits ? 3 : 4));
        // (A ring write may be done before it is reaped.)
        if (policy == FsyncPolicy::kAlways) CHECK(FileBytes(env.options, pos->file_no) == 0);
        // The new file starts with kRotationPending: it took writes before those syncs.
        CHECK(pos->offset > 0);
        if (!waits) CHECK(FileBytes(env.options, pos->file_no) == pos->offset + pos->size);
        CHECK(log->durable_end().file_no == old_file);
        CHECK(log->ReadAt(*pos)->value == "four");  // readable meanwhile
        ring->DrainForTest();
        REQUIRE(answer.got.size() == 4);
        CHECK(answer.got[3] == "c4:OK");
        // The completion appended kRotationSynced: always's commit, which waited for it,
        // wrote and synced it with its record; everysec's is in the buffer.
        const uint64_t synced_mark = policy == FsyncPolicy::kAlways ? kRecordHeaderSize + 9 : 0;
        CHECK(FileBytes(env.options, pos->file_no) == pos->offset + pos->size + synced_mark);
        CHECK(log->total_bytes() > FileBytes(env.options, old_file) + pos->offset + pos->size);
        CHECK(log->idle());
        // The old file whole, by its rotation; always also synced the new one.
        CHECK(log->durable_end() ==
              LogPos{.offset = policy == FsyncPolicy::kAlways
                                   ? pos->offset + pos->size + synced_mark
                                   : 0,
                     .file_no = pos->file_no});
      }
      IoRing::SetCurrent(nullptr);
      CHECK(ReplayedSeqs(env.options) == std::vector<uint64_t>{1, 2, 3, 4});
    }
  }
}

TEST_CASE("the mark that a rotation's syncs completed waits for an open unit to close") {
  RingLogEnv env(FsyncPolicy::kEverySec);
  env.options.ring_writes = false;  // commits write in place
  env.options.file_bytes = 100;
  IoRing* ring = env.ring.get();
  Answers answer;
  {
    std::unique_ptr<Log> log = OpenOnRing(env);
    REQUIRE(log->Append(Put(1, "a", std::string(120, 'x'))).ok());
    REQUIRE(log->Commit().ok());
    REQUIRE(log->Append(Put(2, "b", "2")).ok());  // rotates: the syncs go to the ring
    log->CommitThen(answer("c2"));
    log->BeginUnit();
    REQUIRE(log->Append(Put(3, "c", "3")).ok());
    const uint64_t open = log->total_bytes();
    ring->DrainForTest();  // the syncs complete: no record may go between the unit's
    CHECK(log->total_bytes() == open);
    log->EndUnit();
    CHECK(log->total_bytes() == open + kRecordHeaderSize + 9);
    REQUIRE(log->Commit().ok());
  }
  IoRing::SetCurrent(nullptr);
  CHECK(ReplayedSeqs(env.options) == std::vector<uint64_t>{1, 2, 3});  // marks not visited
}

TEST_CASE("a rotation's syncs: done in place by a synchronous write, or when the log goes") {
  for (int way = 0; way < 2; ++way) {
    CAPTURE(way);
    RingLogEnv env(FsyncPolicy::kEverySec);
    env.options.file_bytes = 100;
    IoRing* ring = env.ring.get();
    Answers answer;
    {
      std::unique_ptr<Log> log = OpenOnRing(env);
      REQUIRE(log->Append(Put(1, "a", std::string(120, 'x'))).ok());
      REQUIRE(log->Commit().ok());
      ring->DrainForTest();
      REQUIRE(log->Append(Put(2, "b", "2")).ok());  // rotates
      log->CommitThen(answer("waiting"));
      CHECK(answer.got.empty());
      REQUIRE(log->Append(Put(3, "c", "3")).ok());
      if (way == 0) {
        const uint64_t syncs = log->stats().syncs;
        REQUIRE(log->Sync().ok());  // syncs the old file and the directory first
        CHECK(log->stats().syncs == syncs + 1);
        CHECK(answer.got.empty());  // the waiting commit is answered from the completion
        ring->DrainForTest();
        REQUIRE(answer.got.size() == 1);
        CHECK(answer.got[0] == "waiting:OK");
      }
    }
    // Destroyed first (way 1): the commit that waited is answered from the completion, with
    // what the destructor wrote (its record; seq 3 was never committed).
    ring->DrainForTest();
    REQUIRE(answer.got.size() == 1);
    CHECK(answer.got[0] == "waiting:OK");
    IoRing::SetCurrent(nullptr);
    const std::vector<uint64_t> seqs = ReplayedSeqs(env.options);
    CHECK(seqs.size() >= 2);
    CHECK(seqs[0] == 1);
    CHECK(seqs[1] == 2);
  }
}

TEST_CASE("a failed fsync of a rotation fails the log; nothing after it becomes durable") {
  RingLogEnv env(FsyncPolicy::kEverySec);
  FaultFs fault(env.fs.get());
  env.options.fs = &fault;
  env.options.file_bytes = 100;
  env.options.ring_writes = false;  // commits write in place
  IoRing* ring = env.ring.get();
  Answers answer;
  {
    std::unique_ptr<Log> log = OpenOnRing(env);
    REQUIRE(log->Append(Put(1, "a", std::string(120, 'x'))).ok());
    log->CommitThen(answer("first"));  // written, not synced (everysec, no second passed)
    const uint32_t old_file = log->current_file_no();
    fault.FailNthSync(1);
    REQUIRE(log->Append(Put(2, "b", "2")).ok());  // rotates: the old file's fsync fails
    log->CommitThen(answer("second"));            // into the new file, not waiting
    REQUIRE(answer.got.size() == 2);
    REQUIRE(log->SyncSoon().ok());  // the new file's fsync succeeds
    log->set_fsync(FsyncPolicy::kAlways);
    REQUIRE(log->Append(Put(3, "c", "3")).ok());
    log->CommitThen(answer("third"));  // waits for the rotation
    ring->DrainForTest();
    REQUIRE(answer.got.size() == 3);
    CHECK(answer.got[0] == "first:OK");
    CHECK(answer.got[2] == "third:IO error: wal: fdatasync: Input/output error");
    CHECK_FALSE(log->failure().ok());
    CHECK(log->durable_end().file_no == old_file);
    CHECK_FALSE(log->Append(Put(4, "d", "4")).ok());
  }
  IoRing::SetCurrent(nullptr);
}

TEST_CASE("a failed directory fsync of a rotation fails the log, through the ring or in place") {
  for (bool on_ring : {true, false}) {
    CAPTURE(on_ring);
    RingLogEnv env(FsyncPolicy::kEverySec);
    FaultFs fault(env.fs.get());
    env.options.fs = &fault;
    env.options.file_bytes = 100;
    Answers answer;
    {
      std::unique_ptr<Log> log = OpenOnRing(env);
      if (!on_ring) IoRing::SetCurrent(nullptr);
      REQUIRE(log->Append(Put(1, "a", std::string(120, 'x'))).ok());
      REQUIRE(log->Commit().ok());
      const uint64_t dir_syncs = fault.dir_syncs();
      fault.FailNthDirSync(1);
      const auto rotated = log->Append(Put(2, "b", "2"));
      CHECK(fault.dir_syncs() == dir_syncs + 1);
      if (on_ring) {
        REQUIRE(rotated.ok());
        log->set_fsync(FsyncPolicy::kAlways);
        log->CommitThen(answer("waits"));
        env.ring->DrainForTest();
        REQUIRE(answer.got.size() == 1);
        CHECK(answer.got[0] == "waits:IO error: wal: fdatasync: Input/output error");
      } else {
        CHECK(rotated.status().ToString() == "IO error: injected directory fsync failure");
      }
      CHECK_FALSE(log->failure().ok());
      CHECK(log->durable_end().file_no == 1);
    }
    IoRing::SetCurrent(nullptr);
  }
}

}  // namespace
}  // namespace slotkv::wal
