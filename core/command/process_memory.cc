#include "core/command/process_memory.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace slotkv::command {
namespace {

using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
using StatsPrint = void (*)(void (*)(void*, const char*), void*, const char*);

Mallctl FindMallctl() {
  static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

uint64_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

ProcessMemory ReadProcessMemory() {
  ProcessMemory out;
  if (const Mallctl mallctl = FindMallctl()) {
    uint64_t epoch = 1;
    size_t len = sizeof(epoch);
    mallctl("epoch", &epoch, &len, &epoch, len);  // the stats are a snapshot taken at an epoch
    auto read = [&](const char* name) -> uint64_t {
      size_t v = 0;
      size_t n = sizeof(v);
      return mallctl(name, &v, &n, nullptr, 0) == 0 ? v : 0;
    };
    out.allocated = read("stats.allocated");
    out.active = read("stats.active");
    out.resident = read("stats.resident");
  }
  out.rss = RssBytes();
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  out.peak = std::max<uint64_t>(static_cast<uint64_t>(self.ru_maxrss) * 1024, out.rss);
  out.system =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return out;
}

bool HasJemalloc() { return FindMallctl() != nullptr; }

std::string JemallocStats() {
  static const auto print = reinterpret_cast<StatsPrint>(dlsym(RTLD_DEFAULT, "malloc_stats_print"));
  std::string out;
  if (print == nullptr || !HasJemalloc()) return out;
  print([](void* to, const char* s) { static_cast<std::string*>(to)->append(s); }, &out, nullptr);
  return out;
}

bool PurgeAllocator() {
  const Mallctl mallctl = FindMallctl();
  if (mallctl == nullptr) return true;
  unsigned arenas = 0;
  size_t len = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &len, nullptr, 0) != 0) return false;
  const std::string all = "arena." + std::to_string(arenas) + ".purge";  // MALLCTL_ARENAS_ALL
  return mallctl(all.c_str(), nullptr, nullptr, nullptr, 0) == 0;
}

double MemRatio(uint64_t a, uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

int64_t MemDiff(uint64_t a, uint64_t b) {
  return static_cast<int64_t>(a) - static_cast<int64_t>(b);
}

}  // namespace slotkv::command
