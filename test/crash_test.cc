// Crash test: a child process writes to a slot (appendfsync always, or everysec on every other
// run) and acknowledges each committed write to the parent through a pipe; the parent SIGKILLs it at random moments, reopens the
// data and checks that every acknowledged write reads back exactly and nothing else appears.
//
// Protocol, one line per event on the child's stdout:
//   "I <key> <version>"  the child is about to write key (version -1 = delete)
//   "A"                  that write is committed (acknowledged)
// After a kill, the last intent without an ack may or may not have happened.
//
// Usage: crash_test [--iterations N] [--seed S] [--dir D]   (the parent)
//        crash_test --child DIR SEED always|everysec         (spawned by the parent)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/base/fs.h"
#include "core/base/hash.h"
#include "slot/slot.h"

namespace slotkv {
namespace {

constexpr uint32_t kSlots = 2;
constexpr int kKeys = 3000;
// One child in three rewrites only this many keys, with a log a quarter the size: its old
// files soon hold overwritten records only, and go without flushes (Slot::Impl::Repin).
constexpr int kHotKeys = 40;

std::string KeyName(int k) { return "crash:{" + std::to_string(k % 97) + "}:" + std::to_string(k); }

// Deterministic value of (key, version): the parent can recompute what the child wrote.
std::string ValueOf(int k, int version) {
  std::mt19937 rng(static_cast<uint32_t>(k * 7919 + version));
  size_t size = rng() % 4 == 0 ? rng() % 6000 : rng() % 300;
  std::string v = std::to_string(k) + "/" + std::to_string(version) + "/";
  while (v.size() < size) v.push_back(static_cast<char>('a' + rng() % 26));
  return v;
}

slot::SlotOptions Options(Fs* fs, const std::string& dir, uint32_t s, wal::FsyncPolicy fsync,
                          bool hot) {
  slot::SlotOptions o;
  o.fs = fs;
  char name[32];
  std::snprintf(name, sizeof(name), "slot-%04u", s);
  o.dir = JoinPath(dir, name);
  o.fsync = fsync;
  o.key_estimate = 40 * 32;  // small: splits, flushes and compaction happen quickly
  o.buckets_per_group = 4;
  o.flush_entries_per_page = 3;
  o.segment_bytes = 1024;
  o.big_value_bytes = 4096;
  o.wal_file_bytes = hot ? 64 << 10 : 256 << 10;
  o.wal_max_bytes = hot ? 256 << 10 : 1 << 20;
  return o;
}

std::vector<std::unique_ptr<slot::Slot>> OpenSlots(
    Fs* fs, const std::string& dir, wal::FsyncPolicy fsync = wal::FsyncPolicy::kAlways,
    bool hot = false) {
  std::vector<std::unique_ptr<slot::Slot>> slots;
  for (uint32_t s = 0; s < kSlots; ++s) {
    auto opened = slot::Slot::Open(Options(fs, dir, s, fsync, hot));
    if (!opened.ok()) {
      std::fprintf(stderr, "open slot %u: %s\n", s, opened.status().ToString().c_str());
      std::exit(2);
    }
    slots.push_back(std::move(opened).value());
  }
  return slots;
}

int RunChild(const std::string& dir, uint32_t seed, wal::FsyncPolicy fsync) {
  auto fs = NewPosixFs();
  const bool hot = seed % 3 == 0;
  auto slots = OpenSlots(fs.get(), dir, fsync, hot);
  std::mt19937 rng(seed);
  const int keys = hot ? kHotKeys : kKeys;
  for (int version = static_cast<int>(seed % 100000) * 1000;; ++version) {
    int k = static_cast<int>(rng() % static_cast<uint32_t>(keys));
    std::string key = KeyName(k);
    slot::Slot& slot = *slots[SlotOf(key, kSlots)];
    bool del = rng() % 6 == 0;
    std::printf("I %d %d\n", k, del ? -1 : version);
    std::fflush(stdout);
    Status s = del ? slot.Delete(key).status()
                   : slot.Put(key, ValueOf(k, version), ValueType::kString);
    if (s.ok()) s = slot.Commit();
    if (!s.ok()) {
      std::fprintf(stderr, "child write: %s\n", s.ToString().c_str());
      return 3;
    }
    std::printf("A\n");
    std::fflush(stdout);
  }
}

// The parent's model: the acknowledged version of each key (-1 = absent).
struct Model {
  std::map<int, int> acked;
  std::optional<std::pair<int, int>> in_flight;

  void Apply(const std::string& line) {
    int k, version;
    if (std::sscanf(line.c_str(), "I %d %d", &k, &version) == 2) {
      in_flight = {k, version};
    } else if (line == "A" && in_flight) {
      acked[in_flight->first] = in_flight->second;
      in_flight.reset();
    }
  }
};

// Reads everything the child printed until EOF; returns complete lines.
std::vector<std::string> DrainLines(int fd, std::string* partial) {
  std::vector<std::string> lines;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) {
    partial->append(buf, static_cast<size_t>(n));
    size_t nl;
    while ((nl = partial->find('\n')) != std::string::npos) {
      lines.push_back(partial->substr(0, nl));
      partial->erase(0, nl + 1);
    }
  }
  return lines;
}

int Verify(const std::string& dir, Model& model, int iteration) {
  auto fs = NewPosixFs();
  auto slots = OpenSlots(fs.get(), dir);
  int failures = 0;
  for (int k = 0; k < kKeys; ++k) {
    std::string key = KeyName(k);
    auto got = slots[SlotOf(key, kSlots)]->Get(key);
    if (!got.ok()) {
      std::fprintf(stderr, "iteration %d: get %s: %s\n", iteration, key.c_str(),
                   got.status().ToString().c_str());
      return 1;
    }
    auto it = model.acked.find(k);
    int want = it == model.acked.end() ? -1 : it->second;
    auto matches = [&](int version) {
      return version < 0 ? !got->has_value() : (got->has_value() && **got == ValueOf(k, version));
    };
    if (matches(want)) continue;
    if (model.in_flight && model.in_flight->first == k && matches(model.in_flight->second)) {
      model.acked[k] = model.in_flight->second;  // the unacknowledged write landed
      continue;
    }
    if (++failures <= 10) {
      std::fprintf(stderr, "iteration %d: key %s: want version %d, got %s\n", iteration,
                   key.c_str(), want, got->has_value() ? (*got)->substr(0, 40).c_str() : "absent");
    }
  }
  model.in_flight.reset();
  return failures == 0 ? 0 : 1;
}

int RunParent(int iterations, uint32_t seed, std::string dir, const char* self) {
  bool own_dir = dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/slotkv-crash-XXXXXX";
    if (!mkdtemp(tmpl)) return 2;
    dir = tmpl;
  }
  std::printf("crash test: %d iterations, seed %u, dir %s\n", iterations, seed, dir.c_str());
  std::mt19937 rng(seed);
  Model model;
  size_t total_acks = 0;
  for (int it = 0; it < iterations; ++it) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return 2;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(pipefd[1], STDOUT_FILENO);
      close(pipefd[0]);
      close(pipefd[1]);
      std::string child_seed = std::to_string(rng() + static_cast<uint32_t>(it));
      const char* policy = it % 2 == 0 ? "always" : "everysec";
      execl(self, self, "--child", dir.c_str(), child_seed.c_str(), policy, nullptr);
      _exit(127);
    }
    close(pipefd[1]);
    // Let it run for a random while (startup replay included), then kill it mid-write.
    usleep(static_cast<useconds_t>(20000 + rng() % 150000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    std::string partial;
    for (const std::string& line : DrainLines(pipefd[0], &partial)) {
      if (line == "A") ++total_acks;
      model.Apply(line);
    }
    close(pipefd[0]);
    if (!WIFSIGNALED(status)) {
      std::fprintf(stderr, "iteration %d: child exited by itself (status %d)\n", it, status);
      return 1;
    }
    if (Verify(dir, model, it) != 0) return 1;
  }
  std::printf("crash test: %zu acknowledged writes over %d kills, all intact\n", total_acks,
              iterations);
  if (own_dir) std::filesystem::remove_all(dir);
  return total_acks > 0 ? 0 : 1;
}

}  // namespace
}  // namespace slotkv

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--child") == 0) {
    auto fsync = std::strcmp(argv[4], "always") == 0 ? slotkv::wal::FsyncPolicy::kAlways
                                                     : slotkv::wal::FsyncPolicy::kEverySec;
    return slotkv::RunChild(argv[2], static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)),
                            fsync);
  }
  int iterations = 60;
  uint32_t seed = static_cast<uint32_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--iterations") iterations = std::atoi(argv[i + 1]);
    else if (flag == "--seed") seed = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--dir") dir = argv[i + 1];
  }
  return slotkv::RunParent(iterations, seed, dir, "/proc/self/exe");
}
