// The process's memory as Redis reports it (INFO memory, MEMORY STATS and DOCTOR): jemalloc's
// figures read as Redis's zmalloc_get_allocator_info reads them, the resident set, its peak,
// and the ratios Redis derives from them.
//
// Thread rule: any thread.
#pragma once

#include <cstdint>
#include <string>

namespace slotkv::command {

struct ProcessMemory {
  // jemalloc's bytes allocated, in active pages, and resident; all 0 when jemalloc is not the
  // allocator (the sanitizer build).
  uint64_t allocated = 0;
  uint64_t active = 0;
  uint64_t resident = 0;
  uint64_t rss = 0;     // /proc/self/statm
  uint64_t peak = 0;    // the RSS's peak (the kernel keeps it), at least rss
  uint64_t system = 0;  // physical memory

  // What the allocator handed out, as Redis's used_memory; the RSS without jemalloc.
  uint64_t used() const { return allocated != 0 ? allocated : rss; }
};

// Reads the figures now.
ProcessMemory ReadProcessMemory();
// Whether jemalloc is the allocator (looked up, not linked: the sanitizer build has none).
bool HasJemalloc();
// jemalloc's malloc_stats_print text (Redis's MEMORY MALLOC-STATS); empty without jemalloc.
std::string JemallocStats();
// Asks jemalloc to return its dirty pages (MEMORY PURGE); true when it did or there is none.
bool PurgeAllocator();

// a / b, 0 when b is 0 (Redis's memory ratios).
double MemRatio(uint64_t a, uint64_t b);
// a - b, signed as Redis's *_bytes fields are.
int64_t MemDiff(uint64_t a, uint64_t b);

}  // namespace slotkv::command
