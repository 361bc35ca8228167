// Scripts: the server's script cache (SHA-1 -> body, for EVALSHA and SCRIPT LOAD/EXISTS/FLUSH)
// and each worker's Lua interpreters. A script runs on one worker, in an interpreter it has to
// itself while it runs (another script may start there while it waits for a reply); each
// interpreter compiles a script the first time it runs it, and forgets them all after a
// SCRIPT FLUSH (the cache's generation moves on).
//
// Thread rule: the cache may be used from any thread; worker w's interpreters on w only.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include "core/script/fiber.h"
#include "core/script/lua_vm.h"

namespace slotkv::script {

class Scripts {
 public:
  explicit Scripts(int workers) : idle_(static_cast<size_t>(workers)) {}

  // Caches body; returns its SHA-1.
  std::string Add(std::string body);
  // The body of sha (lower or upper case hex), if cached.
  std::optional<std::string> Body(std::string_view sha) const;
  bool Exists(std::string_view sha) const { return Body(sha).has_value(); }
  // Empties the cache (SCRIPT FLUSH).
  void Flush();
  // The cache's scripts and the bytes of their SHA-1s and bodies (MEMORY STATS lua.caches).
  std::pair<size_t, size_t> CacheSize() const;

  // An interpreter and a fiber lent to one script run, and the cache generation it compiles
  // for.
  struct Lease {
    std::unique_ptr<LuaVm> vm;
    std::unique_ptr<Fiber> fiber;
    uint64_t generation = 0;
  };
  // An interpreter of worker w to run a script in, with nothing compiled from before the last
  // Flush; Status on failure to create one. REQUIRES: on worker w.
  Result<Lease> Take(int w);
  // Gives it back for the next script. REQUIRES: on worker w.
  void Give(int w, Lease lease);

  // A script running now, as SCRIPT KILL and -BUSY see it.
  struct Running {
    std::atomic<bool> wrote{false};  // ran a write command: it cannot be killed
    std::atomic<bool> busy{false};   // past busy-reply-threshold
    std::atomic<bool> kill{false};   // SCRIPT KILL asked it to stop
  };
  std::shared_ptr<Running> Started();
  void Ended(const std::shared_ptr<Running>& run);
  // A running script passed busy-reply-threshold: until it ends, other clients get -BUSY.
  void Busy(Running& run);
  bool busy() const { return busy_.load() > 0; }
  enum class KillResult { kNotBusy, kUnkillable, kKilled };
  // SCRIPT KILL: stops the busy scripts that wrote nothing.
  KillResult Kill();

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> bodies_;  // guarded by mu_
  std::atomic<uint64_t> generation_{0};
  std::vector<std::vector<Lease>> idle_;  // [worker]
  std::vector<std::shared_ptr<Running>> running_;  // guarded by mu_
  std::atomic<int> busy_{0};
};

}  // namespace slotkv::script
