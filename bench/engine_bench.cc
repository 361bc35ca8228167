// Engine benchmark: loads N keys with V-byte values into S slots, persists them (Flush), and
// measures reads in three states, each with the slots' caches given the server's share of
// --cache-mb (Slot::SetCacheBudget, split evenly as the server splits maxmemory-cache):
//   hot:  after a reopen, Zipf-distributed (s = 0.99) reads over a hot set of keys sized to
//         about a quarter of the cache budget, after a warm-up that reads each of them twice
//         (the value cache admits a value on its second miss): reads served in-process by the
//         value cache (the hot: line gives its hit ratio);
//   warm: after another reopen (empty in-process caches, which then fill as the reads go) with
//         the OS page cache kept, uniformly random reads: bucket pages and chunk records from
//         the page cache;
//   cold: as warm, but with the OS page cache dropped for the data files before the reopen:
//         from the disk.
// It prints their throughput, write and space amplification and peak RSS.
//
// Usage: engine_bench --keys N --value-size V --slots S --dir DIR
//                     [--fsync always|everysec|no] [--gets N] [--batch B] [--cache-mb M]
//                     [--threads T]
// T threads (default: one per CPU core, as the server's workers, at most S) each own the slots
// s with s % T == t, as a server worker owns its slots, and do every put and read of their keys
// with no locks; each phase's rate is all threads' operations over the phase's wall time.
// Writes are committed every B puts and reads are issued B keys per slot at a time (MultiGet),
// as a pipelined client would send them; --batch 1 measures one request at a time. Every value
// read is checked (hot reads by a digest of the value, the others byte for byte). The timed
// reads include the client's work (key formatting, picking the key, checking the value), as a
// client's would.
// Ends with: RESULT puts_per_s=… hot_gets_per_s=… warm_gets_per_s=… cold_gets_per_s=…
//            write_amp=… space_amp=… peak_rss_mb=…
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/base/clock_cache.h"
#include "core/base/fs.h"
#include "core/base/hash.h"
#include "slot/slot.h"

namespace slotkv {
namespace {

struct Args {
  uint64_t keys = 1000000;
  size_t value_size = 200;
  uint32_t slots = 4;
  std::string dir = "./bench-data";
  wal::FsyncPolicy fsync = wal::FsyncPolicy::kEverySec;
  uint64_t gets = 0;        // 0 = as many as keys (capped at 2M)
  int batch = 64;           // puts per Commit and gets per MultiGet, as from a pipelined client
  uint64_t cache_mb = 256;  // the cache budget of all slots: the server's maxmemory-cache default
  uint32_t threads = 0;     // 0 = one per CPU core (the server's default workers), at most slots
};

// Runs fn(t) on threads t = 0..args.threads-1 and waits for all of them.
void OnThreads(const Args& args, const std::function<void(uint32_t t)>& fn) {
  std::vector<std::jthread> threads;
  for (uint32_t t = 0; t < args.threads; ++t) threads.emplace_back(fn, t);
}

// The thread that owns slot s, as a server worker owns it.
uint32_t OwnerOf(const Args& args, uint32_t s) { return s % args.threads; }

// The cache budget of each slot: the server gives each of its slots an equal share.
size_t SlotCacheBytes(const Args& args) {
  return static_cast<size_t>((args.cache_mb << 20) / args.slots);
}

double Seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// "key:" and i in 12 digits, zero-padded (written by hand: snprintf took ~110 ns, a tenth of a
// hot read).
std::string Key(uint64_t i) {
  std::string key = "key:000000000000";
  for (size_t d = key.size(); d > 4 && i > 0; i /= 10) key[--d] = static_cast<char>('0' + i % 10);
  return key;
}

// Which thread owns each key i (its slot's owner), worked out once before anything is timed:
// each thread made and hashed every key to find its own share, 7% of the load's profile
// (HashSlot and the key's digits), the benchmark's time, not the engine's. One bit per key and
// thread: 1.25 MB per thread at 10M keys.
class KeyOwners {
 public:
  explicit KeyOwners(const Args& args) : own_(args.threads, std::vector<bool>(args.keys)) {
    for (uint64_t i = 0; i < args.keys; ++i) {
      own_[OwnerOf(args, SlotOf(Key(i), args.slots))][i] = true;
    }
  }
  bool Owns(uint32_t t, uint64_t i) const { return own_[t][i]; }

 private:
  std::vector<std::vector<bool>> own_;
};

// Deterministic, not trivially compressible value of key i: printable bytes from a xorshift
// stream, eight per step (a step per byte took 0.41 us a value, now 0.21, of a put's ~5 us:
// load time that is the benchmark's, not the engine's).
void FillValue(uint64_t i, std::string* value) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (size_t at = 0; at < value->size(); at += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    uint64_t bits = x;
    for (size_t k = at; k < std::min(at + 8, value->size()); ++k, bits >>= 8) {
      (*value)[k] = static_cast<char>('!' + ((bits & 0xFF) * 90 >> 8));
    }
  }
}

void Die(const char* what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

std::vector<std::unique_ptr<slot::Slot>> OpenSlots(Fs* fs, const Args& args) {
  std::vector<std::unique_ptr<slot::Slot>> slots;
  for (uint32_t s = 0; s < args.slots; ++s) {
    slot::SlotOptions o;
    o.fs = fs;
    char name[32];
    std::snprintf(name, sizeof(name), "slot-%04u", s);
    o.dir = JoinPath(args.dir, name);
    o.fsync = args.fsync;
    o.key_estimate = args.keys / args.slots;
    auto opened = slot::Slot::Open(o);
    if (!opened.ok()) Die("open", opened.status());
    slots.push_back(std::move(opened).value());
    slots.back()->SetCacheBudget(SlotCacheBytes(args));
  }
  return slots;
}

// Bytes the data directory takes on disk (allocated blocks, so holes do not count).
uint64_t DiskBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st;
    if (entry.is_regular_file() && stat(entry.path().c_str(), &st) == 0) {
      total += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  return total;
}

void DropPageCache(const std::string& dir) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    int fd = open(entry.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

// The key index of read j (0-based) of a run of reads.
using KeyPicker = std::function<uint64_t(uint64_t j)>;
// Thread t's picker.
using PickerFor = std::function<KeyPicker(uint32_t t)>;

// Uniformly random keys, the same sequence for the same seed and thread.
PickerFor UniformKeys(const Args& args, uint32_t seed) {
  return [seed, keys = args.keys](uint32_t t) -> KeyPicker {
    return [rng = std::mt19937_64(seed + 1000 * t), keys](uint64_t) mutable {
      return rng() % keys;
    };
  };
}

// Whether value is key i's.
using ValueCheck = std::function<bool(uint64_t i, std::string_view value)>;

// Rebuilds key i's value and compares (~600 ns for 200 bytes).
ValueCheck FullCheck(const Args& args) {
  return [expect = std::string(args.value_size, '\0')](uint64_t i, std::string_view value) mutable {
    FillValue(i, &expect);
    return value == expect;
  };
}

// Each thread t draws n keys with pick_for(t), keeps those of its own slots (about n / T) and
// reads them in batches of args.batch per slot, as a pipelined client would send them,
// checking every value with a copy of check. Returns all threads' gets per second.
double ReadBack(std::vector<std::unique_ptr<slot::Slot>>& slots, const Args& args,
                const KeyOwners& owners, uint64_t n, const PickerFor& pick_for,
                const ValueCheck& check) {
  std::vector<uint64_t> reads(args.threads);
  double start = Seconds();
  OnThreads(args, [&](uint32_t t) {
    KeyPicker pick = pick_for(t);
    ValueCheck own_check = check;
    std::vector<std::vector<uint64_t>> pending(slots.size());
    std::vector<std::vector<std::string>> pending_keys(slots.size());
    std::vector<std::string_view> views;
    std::vector<std::optional<std::string>> values;
    auto drain = [&](uint32_t s) {
      const std::vector<std::string>& keys = pending_keys[s];
      views.assign(keys.begin(), keys.end());
      Status st = slots[s]->MultiGet(views, &values);
      if (!st.ok()) Die("get", st);
      for (size_t j = 0; j < pending[s].size(); ++j) {
        if (!values[j].has_value() || !own_check(pending[s][j], *values[j])) {
          std::fprintf(stderr, "get %s: wrong value\n", keys[j].c_str());
          std::exit(1);
        }
      }
      reads[t] += pending[s].size();
      pending[s].clear();
      pending_keys[s].clear();
    };
    for (uint64_t j = 0; j < n; ++j) {
      uint64_t i = pick(j);
      if (!owners.Owns(t, i)) continue;
      std::string key = Key(i);
      uint32_t s = SlotOf(key, args.slots);
      pending[s].push_back(i);
      pending_keys[s].push_back(std::move(key));
      if (pending[s].size() == static_cast<size_t>(args.batch)) drain(s);
    }
    for (uint32_t s = 0; s < slots.size(); ++s) {
      if (!pending[s].empty()) drain(s);
    }
  });
  double seconds = Seconds() - start;
  uint64_t total = 0;
  for (uint64_t r : reads) total += r;
  return static_cast<double>(total) / seconds;
}

// Zipf-distributed ranks 0..n-1: rank r with probability proportional to 1 / (r + 1)^s. Drawn
// by inverse CDF: a table of the n cumulative probabilities, binary-searched with a uniform
// draw in [0, 1). Exact, unlike YCSB's ZipfianGenerator (Gray et al.'s closed-form
// approximation), for 8 bytes per rank: a few MB for the hot sets this benchmark picks.
class Zipf {
 public:
  Zipf(uint64_t n, double s) : cdf_(n) {
    double sum = 0;
    for (uint64_t r = 0; r < n; ++r) {
      sum += std::pow(static_cast<double>(r + 1), -s);
      cdf_[r] = sum;
    }
    for (double& c : cdf_) c /= sum;
    cdf_.back() = 1.0;  // rounding must not leave a draw past the last rank
  }

  uint64_t Next(std::mt19937_64& rng) const {
    double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // 53 random bits: [0, 1)
    // The first rank whose cumulative probability exceeds u: rank r for u in [cdf[r-1], cdf[r]).
    return static_cast<uint64_t>(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
  }

 private:
  std::vector<double> cdf_;
};

// What the value cache charges a key besides its key and value bytes: kCacheEntryBytes, plus
// the allocator's rounding of the two strings.
constexpr uint64_t kCacheOverheadBytes = kCacheEntryBytes + 32;

// The hot set: as many keys as take about a quarter of the cache budget (at most every key),
// spread evenly over the whole key range (key r * stride), so that the value cache, which gets
// 40% of a slot's budget (Slot::SetCacheBudget), holds all of it. `ranks` lists them hottest
// first, shuffled (fixed seed) so that heat does not follow the order of the load. `digests`
// holds the XXH3 of each one's value (by r): a hot read is checked for ~20 ns, not the ~600 ns
// of rebuilding the value, which would be most of the time measured.
struct HotSet {
  std::vector<uint64_t> ranks;
  uint64_t stride = 1;
  std::vector<uint64_t> digests;
};

HotSet HotKeys(const Args& args) {
  HotSet hot;
  uint64_t per_key = Key(0).size() + args.value_size + kCacheOverheadBytes;
  uint64_t n = std::clamp<uint64_t>((args.cache_mb << 20) / 4 / per_key, 1, args.keys);
  hot.stride = args.keys / n;
  std::string value(args.value_size, '\0');
  for (uint64_t r = 0; r < n; ++r) {
    hot.ranks.push_back(r * hot.stride);
    FillValue(r * hot.stride, &value);
    hot.digests.push_back(KeyHash(value));  // XXH3-64 of the bytes
  }
  std::shuffle(hot.ranks.begin(), hot.ranks.end(), std::mt19937_64(4));
  return hot;
}

ValueCheck DigestCheck(const HotSet& hot) {
  return [&hot](uint64_t i, std::string_view value) {
    return KeyHash(value) == hot.digests[i / hot.stride];
  };
}

// Keys read twice in a row within a warm-up chunk: the doorkeeper that admits a value to the
// value cache on its second miss (core/base/doorkeeper.h) remembers a slot's last 16k-32k keys,
// so the two reads of a key must come closer than that, here ~1k reads per slot apart.
constexpr uint64_t kWarmUpChunk = 4096;

// Read j of the warm-up of hot (2 * hot.size() reads): the hot keys (ranks) chunk by chunk,
// each chunk read twice over.
uint64_t WarmUpKey(const std::vector<uint64_t>& hot, uint64_t j) {
  uint64_t base = j / (2 * kWarmUpChunk) * kWarmUpChunk;
  uint64_t len = std::min<uint64_t>(kWarmUpChunk, hot.size() - base);
  return hot[base + (j - 2 * base) % len];
}

slot::SlotStats TotalStats(const std::vector<std::unique_ptr<slot::Slot>>& slots) {
  slot::SlotStats total;
  for (const auto& sl : slots) total.Add(sl->Stats());
  return total;
}

// Hot reads: warms the value cache with every key of hot (each read twice), then times n
// Zipf-distributed reads over hot, the lowest ranks the most read. *hit_ratio: the value
// cache's hit ratio over the timed reads, to show that they were served in-process.
double HotReads(std::vector<std::unique_ptr<slot::Slot>>& slots, const Args& args,
                const KeyOwners& owners, uint64_t n, const HotSet& hot_set, double* hit_ratio) {
  const std::vector<uint64_t>& hot = hot_set.ranks;
  const ValueCheck check = DigestCheck(hot_set);
  ReadBack(
      slots, args, owners, 2 * hot.size(),
      [&](uint32_t) -> KeyPicker { return [&](uint64_t j) { return WarmUpKey(hot, j); }; },
      check);
  Zipf zipf(hot.size(), 0.99);
  slot::SlotStats before = TotalStats(slots);
  // Every thread draws n: n * T draws over all, about n reads.
  double rate = ReadBack(
      slots, args, owners, n,
      [&](uint32_t t) -> KeyPicker {
        return [&zipf, &hot, rng = std::mt19937_64(3 + 1000 * t)](uint64_t) mutable {
          return hot[zipf.Next(rng)];
        };
      },
      check);
  slot::SlotStats after = TotalStats(slots);
  uint64_t hits = after.value_cache_hits - before.value_cache_hits;
  uint64_t misses = after.value_cache_misses - before.value_cache_misses;
  *hit_ratio = hits + misses ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0;
  return rate;
}

int Run(const Args& args) {
  std::filesystem::remove_all(args.dir);
  std::filesystem::create_directories(args.dir);
  auto fs = NewPosixFs();
  auto slots = OpenSlots(fs.get(), args);
  const KeyOwners owners(args);

  double start = Seconds();
  OnThreads(args, [&](uint32_t t) {
    auto commit_own = [&] {
      for (uint32_t s = 0; s < args.slots; ++s) {
        if (OwnerOf(args, s) != t) continue;
        Status c = slots[s]->Commit();
        if (!c.ok()) Die("commit", c);
      }
    };
    std::string value(args.value_size, '\0');
    uint64_t puts = 0;
    for (uint64_t i = 0; i < args.keys; ++i) {
      if (!owners.Owns(t, i)) continue;
      std::string key = Key(i);
      uint32_t s = SlotOf(key, args.slots);
      FillValue(i, &value);
      Status st = slots[s]->Put(key, value, ValueType::kString);
      if (!st.ok()) Die("put", st);
      if (++puts % args.batch == 0) commit_own();
    }
    commit_own();
  });
  double puts_per_s = static_cast<double>(args.keys) / (Seconds() - start);

  uint64_t gets = args.gets ? args.gets : std::min<uint64_t>(args.keys, 2000000);
  uint64_t user = 0, written = 0;
  for (auto& sl : slots) {
    Status f = sl->Flush();
    if (!f.ok()) Die("flush", f);
    slot::SlotStats st = sl->Stats();
    user += st.user_bytes_written;
    written += st.disk_bytes_written;
  }
  slots.clear();
  uint64_t live = args.keys * (Key(0).size() + args.value_size);
  uint64_t disk = DiskBytes(args.dir);

  // Every read state starts from a reopen: nothing in the group maps (Flush persisted it all)
  // and empty in-process caches, so each phase reads what it says it reads.
  slots = OpenSlots(fs.get(), args);
  const HotSet hot_keys = HotKeys(args);
  double hit_ratio = 0;
  double hot = HotReads(slots, args, owners, gets, hot_keys, &hit_ratio);
  slots.clear();
  slots = OpenSlots(fs.get(), args);  // the OS page cache is kept
  double warm = ReadBack(slots, args, owners, gets, UniformKeys(args, 1), FullCheck(args));
  slots.clear();
  DropPageCache(args.dir);
  slots = OpenSlots(fs.get(), args);
  double cold = ReadBack(slots, args, owners, std::min<uint64_t>(gets, 200000),
                         UniformKeys(args, 2), FullCheck(args));

  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  double rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  double write_amp = static_cast<double>(written) / static_cast<double>(user);
  double space_amp = static_cast<double>(disk) / static_cast<double>(live);
  std::printf("keys=%llu value_size=%zu slots=%u cache_mb=%llu threads=%u\n",
              static_cast<unsigned long long>(args.keys), args.value_size, args.slots,
              static_cast<unsigned long long>(args.cache_mb), args.threads);
  std::printf("load:  %.0f puts/s\n", puts_per_s);
  std::printf("hot:   %.0f gets/s (Zipf s=0.99 over %llu keys, value cache hit ratio %.3f)\n", hot,
              static_cast<unsigned long long>(hot_keys.ranks.size()), hit_ratio);
  std::printf("warm:  %.0f gets/s (uniform, page cache kept, fresh slot caches)\n", warm);
  std::printf("cold:  %.0f gets/s (uniform, page cache dropped)\n", cold);
  std::printf("write: %.2f bytes written per user byte (%llu / %llu)\n", write_amp,
              static_cast<unsigned long long>(written), static_cast<unsigned long long>(user));
  std::printf("space: %.2f disk bytes per live byte (%llu / %llu)\n", space_amp,
              static_cast<unsigned long long>(disk), static_cast<unsigned long long>(live));
  std::printf("RESULT puts_per_s=%.0f hot_gets_per_s=%.0f warm_gets_per_s=%.0f "
              "cold_gets_per_s=%.0f write_amp=%.2f space_amp=%.2f peak_rss_mb=%.0f\n",
              puts_per_s, hot, warm, cold, write_amp, space_amp, rss_mb);
  return 0;
}

}  // namespace
}  // namespace slotkv

int main(int argc, char** argv) {
  slotkv::Args args;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v) {
      std::fprintf(stderr, "missing value for %s\n", flag.c_str());
      return 2;
    }
    ++i;
    if (flag == "--keys") args.keys = std::strtoull(v, nullptr, 10);
    else if (flag == "--value-size") args.value_size = std::strtoull(v, nullptr, 10);
    else if (flag == "--slots") args.slots = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    else if (flag == "--dir") args.dir = v;
    else if (flag == "--gets") args.gets = std::strtoull(v, nullptr, 10);
    else if (flag == "--batch") args.batch = std::atoi(v);
    else if (flag == "--cache-mb") args.cache_mb = std::strtoull(v, nullptr, 10);
    else if (flag == "--threads")
      args.threads = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    else if (flag == "--fsync") {
      std::string p = v;
      if (p == "always") args.fsync = slotkv::wal::FsyncPolicy::kAlways;
      else if (p == "everysec") args.fsync = slotkv::wal::FsyncPolicy::kEverySec;
      else if (p == "no") args.fsync = slotkv::wal::FsyncPolicy::kNo;
      else { std::fprintf(stderr, "bad --fsync %s\n", v); return 2; }
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (args.keys == 0 || args.slots == 0 || (args.slots & (args.slots - 1)) != 0 ||
      args.cache_mb == 0 || args.batch < 1) {
    std::fprintf(stderr, "--keys, --cache-mb and --batch must be > 0, --slots a power of two\n");
    return 2;
  }
  if (args.threads == 0) args.threads = std::max(1u, std::thread::hardware_concurrency());
  args.threads = std::min(args.threads, args.slots);
  return slotkv::Run(args);
}
