// Engine benchmark: loads N keys with V-byte values into S slots on one thread, reads them
// back warm (right after the load) and cold (after reopening with the OS page cache dropped
// for the data files), and prints throughput, write and space amplification and peak RSS.
//
// Usage: engine_bench --keys N --value-size V --slots S --dir DIR
//                     [--fsync always|everysec|no] [--gets N] [--batch B]
// Writes are committed every B puts and reads are issued B keys per slot at a time (MultiGet),
// as a pipelined client would send them; --batch 1 measures one request at a time.
// Ends with: RESULT puts_per_s=… warm_gets_per_s=… cold_gets_per_s=… write_amp=…
//            space_amp=… peak_rss_mb=…
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

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
  uint64_t gets = 0;  // 0 = as many as keys (capped at 2M)
  int batch = 64;     // puts per Commit and gets per MultiGet, as from a pipelined client
};

double Seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key:%012llu", static_cast<unsigned long long>(i));
  return buf;
}

// Deterministic, not trivially compressible value of key i.
void FillValue(uint64_t i, std::string* value) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (char& c : *value) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>('!' + x % 90);
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

// Reads n random keys back in batches of args.batch per slot (as a pipelined client would
// send them) and checks every value.
double ReadBack(std::vector<std::unique_ptr<slot::Slot>>& slots, const Args& args, uint64_t n,
                uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::string expect(args.value_size, '\0');
  std::vector<std::vector<uint64_t>> pending(slots.size());
  std::vector<std::string> keys;
  std::vector<std::string_view> views;
  std::vector<std::optional<std::string>> values;
  auto drain = [&](uint32_t s) {
    keys.clear();
    for (uint64_t i : pending[s]) keys.push_back(Key(i));
    views.assign(keys.begin(), keys.end());
    Status st = slots[s]->MultiGet(views, &values);
    if (!st.ok()) Die("get", st);
    for (size_t j = 0; j < pending[s].size(); ++j) {
      FillValue(pending[s][j], &expect);
      if (!values[j].has_value() || *values[j] != expect) {
        std::fprintf(stderr, "get %s: wrong value\n", keys[j].c_str());
        std::exit(1);
      }
    }
    pending[s].clear();
  };
  double start = Seconds();
  for (uint64_t j = 0; j < n; ++j) {
    uint64_t i = rng() % args.keys;
    uint32_t s = SlotOf(Key(i), args.slots);
    pending[s].push_back(i);
    if (pending[s].size() == static_cast<size_t>(args.batch)) drain(s);
  }
  for (uint32_t s = 0; s < slots.size(); ++s) {
    if (!pending[s].empty()) drain(s);
  }
  return static_cast<double>(n) / (Seconds() - start);
}

int Run(const Args& args) {
  std::filesystem::remove_all(args.dir);
  std::filesystem::create_directories(args.dir);
  auto fs = NewPosixFs();
  auto slots = OpenSlots(fs.get(), args);

  std::string value(args.value_size, '\0');
  double start = Seconds();
  for (uint64_t i = 0; i < args.keys; ++i) {
    std::string key = Key(i);
    FillValue(i, &value);
    slot::Slot& slot = *slots[SlotOf(key, args.slots)];
    Status s = slot.Put(key, value, ValueType::kString);
    if (!s.ok()) Die("put", s);
    if ((i + 1) % args.batch == 0) {
      for (auto& sl : slots) {
        Status c = sl->Commit();
        if (!c.ok()) Die("commit", c);
      }
    }
  }
  for (auto& sl : slots) {
    Status c = sl->Commit();
    if (!c.ok()) Die("commit", c);
  }
  double puts_per_s = static_cast<double>(args.keys) / (Seconds() - start);

  uint64_t gets = args.gets ? args.gets : std::min<uint64_t>(args.keys, 2000000);
  double warm = ReadBack(slots, args, gets, 1);

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
  DropPageCache(args.dir);
  slots = OpenSlots(fs.get(), args);
  double cold = ReadBack(slots, args, std::min<uint64_t>(gets, 200000), 2);

  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  double rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  double write_amp = static_cast<double>(written) / static_cast<double>(user);
  double space_amp = static_cast<double>(disk) / static_cast<double>(live);
  std::printf("keys=%llu value_size=%zu slots=%u\n", static_cast<unsigned long long>(args.keys),
              args.value_size, args.slots);
  std::printf("load:  %.0f puts/s\n", puts_per_s);
  std::printf("warm:  %.0f gets/s\n", warm);
  std::printf("cold:  %.0f gets/s\n", cold);
  std::printf("write: %.2f bytes written per user byte (%llu / %llu)\n", write_amp,
              static_cast<unsigned long long>(written), static_cast<unsigned long long>(user));
  std::printf("space: %.2f disk bytes per live byte (%llu / %llu)\n", space_amp,
              static_cast<unsigned long long>(disk), static_cast<unsigned long long>(live));
  std::printf("RESULT puts_per_s=%.0f warm_gets_per_s=%.0f cold_gets_per_s=%.0f write_amp=%.2f "
              "space_amp=%.2f peak_rss_mb=%.0f\n",
              puts_per_s, warm, cold, write_amp, space_amp, rss_mb);
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
  if (args.keys == 0 || args.slots == 0 || (args.slots & (args.slots - 1)) != 0) {
    std::fprintf(stderr, "--keys must be > 0 and --slots a power of two\n");
    return 2;
  }
  return slotkv::Run(args);
}
