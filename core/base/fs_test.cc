// The same contract tests run over PosixFs (in a temp dir), MemFs and FaultFs.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "core/base/fault_fs.h"
#include "core/base/fs.h"
#include "core/base/mem_fs.h"
#include "core/base/temp_dir.h"

namespace slotkv {
namespace {

std::string ReadAll(File& file) {
  std::string out(file.Size(), '\0');
  Result<size_t> n = file.Read(0, out.size(), out.data());
  REQUIRE(n.ok());
  out.resize(*n);
  return out;
}

void CheckFileContract(Fs& fs, const std::string& dir) {
  REQUIRE(fs.CreateDirs(JoinPath(dir, "a/b")).ok());
  std::string path = JoinPath(dir, "a/b/f");
  CHECK_FALSE(fs.Exists(path));
  auto file = fs.Open(path);
  REQUIRE(file.ok());
  File& f = **file;
  CHECK(f.Append("hello").ok());
  CHECK(f.Write(8, "xy").ok());  // leaves a zero-filled gap
  CHECK(f.Size() == 10);
  CHECK(ReadAll(f) == std::string("hello\0\0\0xy", 10));
  char buf[4];
  CHECK(*f.Read(8, 4, buf) == 2);  // short at the end
  CHECK(*f.Read(20, 4, buf) == 0);
  char many[3][4] = {};
  std::vector<ReadRequest> requests = {
      {.offset = 8, .n = 2, .buf = many[0]},   // "xy"
      {.offset = 0, .n = 4, .buf = many[1]},   // "hell"
      {.offset = 9, .n = 4, .buf = many[2]}};  // short: "y"
  REQUIRE(f.ReadMany(requests).ok());
  CHECK(std::string(many[0], requests[0].done) == "xy");
  CHECK(std::string(many[1], requests[1].done) == "hell");
  CHECK(std::string(many[2], requests[2].done) == "y");
  CHECK(f.PunchHole(1, 3).ok());
  CHECK(ReadAll(f).substr(0, 5) == std::string("h\0\0\0o", 5));
  CHECK(f.Sync().ok());
  CHECK(f.Truncate(2).ok());
  CHECK(f.Size() == 2);
  CHECK(fs.Exists(path));

  CHECK(fs.WriteFileAtomic(JoinPath(dir, "a/meta"), "v1").ok());
  CHECK(fs.WriteFileAtomic(JoinPath(dir, "a/meta"), "v2").ok());
  CHECK(*fs.ReadFile(JoinPath(dir, "a/meta")) == "v2");
  CHECK(fs.ReadFile(JoinPath(dir, "a/none")).status().IsNotFound());

  auto names = fs.List(JoinPath(dir, "a"));
  REQUIRE(names.ok());
  std::sort(names->begin(), names->end());
  CHECK(*names == std::vector<std::string>{"b", "meta"});

  CHECK(fs.Rename(path, JoinPath(dir, "a/g")).ok());
  CHECK_FALSE(fs.Exists(path));
  CHECK(fs.Remove(JoinPath(dir, "a/g")).ok());
  CHECK(fs.Remove(JoinPath(dir, "a/g")).IsIOError());
  CHECK(fs.SyncDir(JoinPath(dir, "a")).ok());

  // A directory renames with what is in it, and removes once empty.
  REQUIRE(fs.CreateDirs(JoinPath(dir, "d1/sub")).ok());
  REQUIRE(fs.WriteFileAtomic(JoinPath(dir, "d1/sub/x"), "x").ok());
  CHECK(fs.Rename(JoinPath(dir, "d1"), JoinPath(dir, "d2")).ok());
  CHECK_FALSE(fs.Exists(JoinPath(dir, "d1/sub/x")));
  CHECK(*fs.ReadFile(JoinPath(dir, "d2/sub/x")) == "x");
  CHECK(fs.Remove(JoinPath(dir, "d2/sub/x")).ok());
  CHECK(fs.Remove(JoinPath(dir, "d2/sub")).ok());
  CHECK(fs.Remove(JoinPath(dir, "d2")).ok());
  CHECK_FALSE(fs.Exists(JoinPath(dir, "d2")));
}

TEST_CASE("posix fs keeps the file contract") {
  TempDir dir("slotkv-fs-test");
  auto fs = NewPosixFs();
  CheckFileContract(*fs, dir.path());
}

TEST_CASE("posix files read without updating their access time") {
  TempDir dir("slotkv-fs-test");
  auto fs = NewPosixFs();
  auto file = fs->Open(JoinPath(dir.path(), "f"));
  REQUIRE(file.ok());
  // Owned by this user, so the flag is granted (a file of another user opens without it).
  CHECK((fcntl((*file)->NativeHandle(), F_GETFL) & O_NOATIME) != 0);
}

TEST_CASE("posix ReadMany of a batch larger than the ring matches Read") {
  TempDir dir("slotkv-fs-test");
  auto fs = NewPosixFs();
  auto file = fs->Open(JoinPath(dir.path(), "f"));
  REQUIRE(file.ok());
  std::string data(1 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 % 251);
  REQUIRE((*file)->Append(data).ok());
  std::vector<std::string> bufs(1000, std::string(100, '\0'));
  std::vector<ReadRequest> requests;
  for (size_t i = 0; i < bufs.size(); ++i) {
    requests.push_back({.offset = (i * 7919) % (data.size() - 50), .n = 100, .buf = bufs[i].data()});
  }
  REQUIRE((*file)->ReadMany(requests).ok());
  for (size_t i = 0; i < bufs.size(); ++i) {
    size_t want = std::min<size_t>(100, data.size() - requests[i].offset);
    REQUIRE(requests[i].done == want);
    CHECK(bufs[i].substr(0, want) == data.substr(requests[i].offset, want));
  }
}

TEST_CASE("mem fs keeps the file contract") {
  MemFs fs;
  CheckFileContract(fs, "/mem");
}

TEST_CASE("fault fs without faults keeps the file contract") {
  MemFs base;
  FaultFs fs(&base);
  CheckFileContract(fs, "/mem");
}

TEST_CASE("power cut drops unsynced bytes only") {
  MemFs fs;
  REQUIRE(fs.CreateDirs("/d").ok());
  auto file = fs.Open("/d/f");
  REQUIRE(file.ok());
  CHECK((*file)->Append("durable").ok());
  CHECK((*file)->Sync().ok());
  CHECK((*file)->Append("-lost").ok());
  CHECK((*file)->Write(0, "D").ok());
  fs.SimulatePowerCutForTest();
  CHECK(ReadAll(**file) == "durable");
}

TEST_CASE("power cut keeps the unsynced bytes of the files written back") {
  MemFs fs;
  REQUIRE(fs.CreateDirs("/d").ok());
  auto kept = fs.Open("/d/pages-1");
  auto lost = fs.Open("/d/data");
  REQUIRE(kept.ok());
  REQUIRE(lost.ok());
  for (auto* file : {&*kept, &*lost}) {
    CHECK((*file)->Append("durable").ok());
    CHECK((*file)->Sync().ok());
    CHECK((*file)->Append("+later").ok());
  }
  fs.SimulatePowerCutForTest({"pages-"});
  CHECK(ReadAll(**kept) == "durable+later");
  CHECK(ReadAll(**lost) == "durable");
  fs.SimulatePowerCutForTest();  // written back counts as synced
  CHECK(ReadAll(**kept) == "durable+later");
}

// A FaultFs over a MemFs, with /d/f open.
struct FaultFile {
  MemFs base;
  FaultFs fs{&base};
  std::unique_ptr<File> file;
  FaultFile() {
    REQUIRE(fs.CreateDirs("/d").ok());
    auto opened = fs.Open("/d/f");
    REQUIRE(opened.ok());
    file = std::move(opened).value();
  }
};

TEST_CASE_FIXTURE(FaultFile, "fault fs fails exactly the nth write") {
  fs.FailNthWrite(2);
  CHECK(file->Append("a").ok());
  Status s = file->Append("b");
  CHECK(s.IsIOError());
  CHECK(file->Append("c").ok());
  CHECK(ReadAll(*file) == "ac");
  CHECK(fs.writes() == 3);
  CHECK(fs.reads() == 1);
}

TEST_CASE_FIXTURE(FaultFile, "fault fs short write keeps a prefix and fails") {
  fs.ShortNthWrite(1, 3);
  CHECK(file->Append("abcdef").IsIOError());
  CHECK(ReadAll(*file) == "abc");
}

TEST_CASE_FIXTURE(FaultFile, "fault fs fails the nth sync") {
  fs.FailNthSync(1);
  CHECK(file->Sync().IsIOError());
  CHECK(file->Sync().ok());
  CHECK(fs.syncs() == 2);
}

TEST_CASE_FIXTURE(FaultFile, "fault fs fails the nth directory sync, counted apart from file syncs") {
  fs.FailNthDirSync(2);
  CHECK(file->Sync().ok());  // not counted
  CHECK(fs.SyncDir("/d").ok());
  Status failed = fs.SyncDir("/d");
  CHECK(failed.ToString() == "IO error: injected directory fsync failure");
  CHECK(fs.SyncDir("/d").ok());
  CHECK(fs.dir_syncs() == 3);
  CHECK(fs.syncs() == 1);
}

TEST_CASE_FIXTURE(FaultFile, "fault fs reports no space once the limit is reached") {
  fs.SetSpaceLimit(5);
  CHECK(file->Append("abcd").ok());
  Status s = file->Append("ef");
  CHECK(s.IsIOError());
  CHECK(s.message().find("No space left on device") != std::string_view::npos);
  fs.Clear();
  CHECK(file->Append("ef").ok());
}

TEST_CASE("DirVersion: unsure at first, creations since a sync are unsynced, late syncs count") {
  DirVersion dir;
  CHECK(dir.Unsynced() != 0);  // a store just opened does not know
  dir.SyncedNow();
  CHECK(dir.Unsynced() == 0);
  dir.Created();
  const uint64_t covered = dir.Unsynced();
  CHECK(covered != 0);
  dir.Created();  // while a sync covering `covered` is in flight
  dir.Synced(covered);
  CHECK(dir.Unsynced() != 0);  // the second creation is not covered
  dir.Synced(dir.Unsynced());
  CHECK(dir.Unsynced() == 0);
  dir.Synced(covered);  // an older completion changes nothing
  dir.Synced(0);
  CHECK(dir.Unsynced() == 0);
}

TEST_CASE("OpenDir gives a descriptor on posix, none on memory") {
  TempDir tmp("slotkv-fs-test");
  std::unique_ptr<Fs> posix = NewPosixFs();
  const int fd = posix->OpenDir(tmp.path());
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  CHECK(posix->OpenDir(JoinPath(tmp.path(), "missing")) < 0);
  MemFs mem;
  CHECK(mem.OpenDir("/") == -1);
}

}  // namespace
}  // namespace slotkv
