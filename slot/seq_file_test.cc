#include "slot/seq_file.h"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/base/coding.h"
#include "core/base/fault_fs.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"
#include "core/base/mem_fs.h"
#include "core/base/temp_dir.h"
#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

using Values = SeqFile::Values;
constexpr char kPath[] = "/s/slot.seq";

std::unique_ptr<SeqFile> OpenOrDie(Fs* fs, const std::string& path) {
  auto f = SeqFile::Open(fs, path);
  REQUIRE_MESSAGE(f.ok(), f.status().ToString());
  return std::move(f).value();
}

Status RaiseAndWrite(SeqFile& f, const Values& v) {
  f.Raise(v);
  return f.Write();
}

void RaiseThen(SeqFile& f, const Values& v, std::function<void(const Status&)> done) {
  f.Raise(v);
  f.WriteThen(std::move(done));
}

std::string ReadAll(Fs* fs, const std::string& path) {
  auto data = fs->ReadFile(path);
  REQUIRE(data.ok());
  return *data;
}

// The copy at offset `at` of the file's bytes, as EncodeCopy made it.
std::string CopyAt(const std::string& data, size_t at) { return data.substr(at, 32); }

TEST_CASE("a missing file is created with zeros; written values come back after a reopen") {
  MemFs fs;
  REQUIRE(fs.CreateDirs("/s").ok());
  {
    auto f = OpenOrDie(&fs, kPath);
    CHECK(f->durable() == Values{});
    CHECK(ReadAll(&fs, kPath).size() == SeqFile::kFileBytes);
    CHECK_FALSE(f->async());  // no io_uring on this thread, no descriptor in memory
    for (uint64_t i = 1; i <= 5; ++i) {
      REQUIRE(RaiseAndWrite(*f, {i * 100, i}).ok());
      CHECK(f->durable() == Values{i * 100, i});
    }
    REQUIRE(RaiseAndWrite(*f, {50, 2}).ok());  // values never go down
    CHECK(f->durable() == Values{500, 5});
  }
  auto f = OpenOrDie(&fs, kPath);
  CHECK(f->durable() == Values{500, 5});
  // Writes alternate between the copies: both are valid, the newer holds the values.
  const std::string data = ReadAll(&fs, kPath);
  CHECK(data.size() == SeqFile::kFileBytes);
  const std::string a = CopyAt(data, 0);
  const std::string b = CopyAt(data, SeqFile::kCopyOffset);
  CHECK(a.compare(0, 4, "SKQ3") == 0);
  CHECK(b.compare(0, 4, "SKQ3") == 0);
  CHECK(DecodeFixed64(a.data() + 4) != DecodeFixed64(b.data() + 4));
}

TEST_CASE("the example in the header") {
  std::string want("SKQ3", 4);
  want += std::string("\x07\0\0\0\0\0\0\0", 8);
  want += std::string("\x01\0\x10\0\0\0\0\0", 8);
  want += std::string("\x88\x13\0\0\0\0\0\0", 8);
  PutFixed32(&want, Checksum(want));
  CHECK(SeqFile::EncodeCopy(7, {1048577, 5000}) == want);
}

TEST_CASE("versions 1 and 2 are read and rewritten as version 3") {
  for (const bool with_floor : {false, true}) {
    CAPTURE(with_floor);
    MemFs fs;
    REQUIRE(fs.CreateDirs("/s").ok());
    std::string old;
    PutFixed64(&old, 5000);
    if (with_floor) PutFixed64(&old, 42);
    PutFixed32(&old, Checksum(old));
    REQUIRE(fs.WriteFileAtomic(kPath, old).ok());
    {
      auto f = OpenOrDie(&fs, kPath);
      CHECK(f->durable() == Values{5000, with_floor ? 42u : 0u});
    }
    CHECK(ReadAll(&fs, kPath).size() == SeqFile::kFileBytes);
    auto f = OpenOrDie(&fs, kPath);
    CHECK(f->durable() == Values{5000, with_floor ? 42u : 0u});
    // A damaged old file stops the open.
    old[3] ^= 1;
    REQUIRE(fs.WriteFileAtomic(kPath, old).ok());
    CHECK(SeqFile::Open(&fs, kPath).status().IsCorruption());
  }
}

TEST_CASE("a damaged copy leaves the other; both damaged, or a wrong size, is Corruption") {
  MemFs fs;
  REQUIRE(fs.CreateDirs("/s").ok());
  {
    auto f = OpenOrDie(&fs, kPath);
    REQUIRE(RaiseAndWrite(*f, {100, 1}).ok());  // copy 1 (copy 0 held the creation's zeros)
    REQUIRE(RaiseAndWrite(*f, {200, 2}).ok());  // copy 0
  }
  const std::string data = ReadAll(&fs, kPath);
  std::string torn = data;
  torn[20] ^= 1;  // inside copy 0's limit: a write a power cut spoiled
  REQUIRE(fs.WriteFileAtomic(kPath, torn).ok());
  CHECK(OpenOrDie(&fs, kPath)->durable() == Values{100, 1});
  torn[SeqFile::kCopyOffset + 30] ^= 1;  // and copy 1's checksum
  REQUIRE(fs.WriteFileAtomic(kPath, torn).ok());
  CHECK(SeqFile::Open(&fs, kPath).status().IsCorruption());
  REQUIRE(fs.WriteFileAtomic(kPath, data.substr(0, 600)).ok());
  CHECK(SeqFile::Open(&fs, kPath).status().IsCorruption());
}

// A directory on the real file system (FaultFs over it) and an io_uring, current on this
// thread as on a worker.
struct RingEnv {
  TempDir dir{"slotkv-seq-test"};
  std::unique_ptr<Fs> posix = NewPosixFs();
  FaultFs fs{posix.get()};
  ThreadRing ring;
  std::string path = dir.path() + "/slot.seq";

  uint64_t GenAt(size_t at) { return DecodeFixed64(ReadAll(&fs, path).data() + at + 4); }
};

TEST_CASE("through the io_uring: answered after the fsync, later values in the next round") {
  RingEnv env;
  auto f = OpenOrDie(&env.fs, env.path);
  REQUIRE(f->async());
  std::vector<std::string> answers;
  auto answer = [&](std::string name) {
    return [&answers, name](const Status& st) { answers.push_back(name + ":" + st.ToString()); };
  };
  RaiseThen(*f, {100, 1}, answer("first"));
  CHECK(f->busy());
  CHECK(answers.empty());
  CHECK(f->durable() == Values{});  // not before the completion
  const uint64_t in_flight_gen = env.GenAt(SeqFile::kCopyOffset);  // copy 1: 0 holds the creation
  const std::string durable_copy = CopyAt(ReadAll(&env.fs, env.path), 0);
  RaiseThen(*f, {100, 1}, answer("same"));   // what is in flight already
  RaiseThen(*f, {300, 3}, answer("later"));  // waits: the free copy is the one being synced
  CHECK(CopyAt(ReadAll(&env.fs, env.path), 0) == durable_copy);
  CHECK(env.GenAt(SeqFile::kCopyOffset) == in_flight_gen);
  for (int i = 0; i < 100 && answers.size() < 3; ++i) env.ring->DrainForTest();
  CHECK(answers == std::vector<std::string>{"first:OK", "same:OK", "later:OK"});
  CHECK_FALSE(f->busy());
  CHECK(f->durable() == Values{300, 3});
  RaiseThen(*f, {300, 2}, answer("nothing new"));  // durable already: at once
  CHECK(answers.back() == "nothing new:OK");
  f.reset();
  CHECK(OpenOrDie(&env.fs, env.path)->durable() == Values{300, 3});
}

TEST_CASE("a synchronous write while a round is in flight makes everything durable") {
  RingEnv env;
  auto f = OpenOrDie(&env.fs, env.path);
  std::vector<std::string> answers;
  RaiseThen(*f, {100, 1}, [&](const Status& st) { answers.push_back("a:" + st.ToString()); });
  RaiseThen(*f, {200, 1}, [&](const Status& st) { answers.push_back("b:" + st.ToString()); });
  REQUIRE(RaiseAndWrite(*f, {300, 3}).ok());
  CHECK(f->durable() == Values{300, 3});
  CHECK_FALSE(f->busy());
  CHECK(OpenOrDie(&env.fs, env.path)->durable() == Values{300, 3});
  env.ring->DrainForTest();
  CHECK(answers == std::vector<std::string>{"a:OK", "b:OK"});
  f.reset();
  CHECK(OpenOrDie(&env.fs, env.path)->durable() == Values{300, 3});
}

TEST_CASE("a failed fsync through the io_uring is answered, and the durable values stay") {
  RingEnv env;
  auto f = OpenOrDie(&env.fs, env.path);
  REQUIRE(RaiseAndWrite(*f, {100, 1}).ok());
  env.fs.FailNthSync(1);
  Status got = Status::OK();
  bool answered = false;
  RaiseThen(*f, {200, 2}, [&](const Status& st) {
    got = st;
    answered = true;
  });
  env.ring->DrainForTest();
  REQUIRE(answered);
  CHECK(got.IsIOError());
  CHECK(f->durable() == Values{100, 1});
  // The next write goes to the same free copy, never over the durable one.
  env.fs.Clear();
  REQUIRE(RaiseAndWrite(*f, {300, 3}).ok());
  f.reset();
  CHECK(OpenOrDie(&env.fs, env.path)->durable() == Values{300, 3});
}

TEST_CASE("a SeqFile destroyed with a round in flight never answers it") {
  RingEnv env;
  bool answered = false;
  {
    auto f = OpenOrDie(&env.fs, env.path);
    RaiseThen(*f, {100, 1}, [&](const Status&) { answered = true; });
  }
  env.ring->DrainForTest();
  CHECK_FALSE(answered);
}

}  // namespace
}  // namespace slotkv::slot
