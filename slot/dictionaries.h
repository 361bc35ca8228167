// Dictionaries: zstd compression of values with dictionaries trained per key prefix group,
// shared by every slot of a server.
//
// A value of at least `min_bytes` (and at most `max_bytes`: a big value is stored raw, since
// compressing it would hold its worker for long, e.g. 0.3 s for 100 MB of incompressible bytes)
// is compressed when that makes it smaller: with the trained
// dictionary of its key's group when there is one, else with plain zstd when it is at least
// kPlainMinBytes. The group of a key is the key up to its last ':' or '.', else its first
// `group_chars` bytes. Until a group has its final dictionary, writes leave samples of its
// values; when a group has collected enough, a background thread trains a dictionary (ZDICT;
// twice per group, see first_train_samples), writes
// it to `dir/dict-<id>` (fsync'd, then renamed in place) and only then publishes it, so every
// value compressed with a dictionary finds it on disk after a crash. Training never runs on a
// worker and touches no slot state; a write that leaves a sample holds the sample lock for a
// copy only (the trainer never holds it while training).
//
// Stored form of a compressed value: varint dictionary id (0 = no dictionary), varint value
// size, then one magicless zstd frame without content size, dictionary id or checksum (so a
// copy of the dictionary under another id decodes it once the varint is rewritten:
// WithDictId). Whether
// a stored value is compressed is kept beside it in the slot (the type tag's kCompressedTag
// bit), so raw values need no header. A value whose dictionary is missing
// decodes to Corruption, never to wrong data.
//
// Thread rule: Compress / Decompress / Stats from any thread; dictionaries are immutable once
// published and live as long as the Dictionaries.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/base/fs.h"
#include "core/base/clock_cache.h"
#include "core/base/status.h"
#include "core/types/value_type.h"

namespace slotkv::slot {

// The type tag bit that marks a compressed stored value.
inline constexpr uint8_t kCompressedTag = 0x80;
// The type tag bit of a log record whose value is a delta against the key's version before it
// (slot/value_delta.h, "held values" in slot.h). Only in log records, never in a cell.
inline constexpr uint8_t kSpliceTag = 0x40;
// A stored type tag without those bits: the value's type.
inline ValueType TypeOf(ValueType stored) {
  return static_cast<ValueType>(static_cast<uint8_t>(stored) & ~(kCompressedTag | kSpliceTag));
}
// The same as a tag: that of a raw, whole value.
inline uint8_t PlainTag(uint8_t stored) { return stored & ~(kCompressedTag | kSpliceTag); }

struct DictionariesOptions {
  Fs* fs = nullptr;         // nullptr = keep dictionaries in memory only (pure-memory mode)
  std::string dir;          // where dict-<id> files live (created when missing)
  size_t min_bytes = 64;    // compress-min-bytes; 0 = no compression
  size_t max_bytes = 1 << 20;  // compress-max-bytes; 0 = no upper bound
  size_t group_chars = 8;   // prefix length for keys without ':' or '.'
  // Training starts when a group has this many samples (or kTrainSampleBytes of them).
  // A group trains twice: soon, on first_train_samples values (or kTrainSampleBytes / 8), so
  // that few values go out with plain zstd, then once more on train_samples values (or
  // kTrainSampleBytes) for a better dictionary, which later writes use. Dictionaries of ~100 KiB
  // trained on thousands of values compress small JSON-like values ~1.5x better than 16 KiB
  // ones trained on a thousand (4.3x against 2.9x on bench-memory's data).
  size_t first_train_samples = 1000;
  size_t train_samples = 8000;
  size_t dict_bytes = 112 << 10;  // dictionary capacity
  int level = 3;
};

// The dictionary id a compressed stored value names; false when its header is damaged.
bool StoredDictId(std::string_view stored, uint32_t* id);
// A compressed stored value with its dictionary id replaced by id. REQUIRES: StoredDictId
// accepted stored.
std::string WithDictId(std::string_view stored, uint32_t id);

class Dictionaries {
 public:
  static constexpr size_t kPlainMinBytes = 256;
  // Larger values are not sampled (dictionaries help small values), and get zstd level 1.
  static constexpr size_t kMaxSampleBytes = 64 << 10;
  static constexpr size_t kFastLevelBytes = 1 << 20;
  // A trained dictionary compresses at this level instead of DictionariesOptions::level when
  // its samples come out within 2% of the same size (LevelFor): values whose bytes repeat
  // little (tokens, ids, random text) gain only the entropy coding, which both levels do, and
  // level 1 did 200-byte random printable values in 1.13 us against level 3's 2.02 us.
  // JSON-like values keep level 3: 3.41x against 2.79x at level 1.
  static constexpr int kFastLevel = 1;
  static constexpr size_t kLevelProbeValues = 256;  // samples LevelFor compresses, at most
  static constexpr size_t kHeldOut = 16;  // one sample in kHeldOut trains nothing, LevelFor's
  static constexpr size_t kTrainSampleBytes = 4 << 20;
  static constexpr size_t kMaxSampledGroups = 1024;
  // Samples waiting for training, over all groups; past it, writes leave no more samples.
  static constexpr size_t kMaxSampleBytesTotal = 64 << 20;
  static constexpr uint32_t kMaxDicts = 4096;

  // Loads every dict-<id> file of options.dir (Corruption naming a damaged one) and starts the
  // training thread.
  static Result<std::unique_ptr<Dictionaries>> Open(const DictionariesOptions& options);
  ~Dictionaries();

  // The stored form of value for key: true and *out set when compressing made it smaller,
  // false to store value raw.
  // Offers value to its group's training (as Compress does) unless observed: Observe offered
  // it when it was written.
  bool Compress(std::string_view key, std::string_view value, std::string* out,
                bool observed = false);
  // Offers value to the training of key's group, compressing nothing: for a value stored raw
  // now and compressed later (Compress with observed).
  void Observe(std::string_view key, std::string_view value);
  // The value a compressed stored form came from; Corruption when it is damaged or its
  // dictionary is missing.
  Status Decompress(std::string_view stored, std::string* out) const;

  // The group of key (see above).
  std::string_view GroupOf(std::string_view key) const;
  void set_min_bytes(size_t n) { min_bytes_.store(n); }
  void set_max_bytes(size_t n) { max_bytes_.store(n); }

  struct DictStats {
    uint32_t id;
    std::string group;
    int level;              // zstd level it compresses at
    uint64_t values;        // values compressed with it
    uint64_t raw_bytes;     // their bytes before
    uint64_t stored_bytes;  // and after
  };
  // Every published dictionary, by id; id 0 is plain zstd (group "").
  std::vector<DictStats> Stats() const;
  // Values written raw because compressing did not help (or they were short).
  uint64_t raw_values() const { return raw_values_.load(std::memory_order_relaxed); }
  // Waits until no training is queued or running (tests).
  void WaitIdle();

  // Replication: a replica reads its master's values with copies of the master's dictionaries,
  // sent before the first value that needs them (repl/frames.h DICT). Any thread.
  // Published dictionaries in the order they were published: PublishedId(k), k < published().
  // A value compressed with a dictionary was compressed after it was published, so a reader
  // that was told the first published() ids when the value was made was told its id.
  uint32_t published() const { return published_.load(std::memory_order_acquire); }
  uint32_t PublishedId(uint32_t k) const { return order_[k].load(std::memory_order_relaxed); }
  // The group and bytes of dictionary id (views, valid as long as this); NotFound when none
  // is published under it.
  Status Export(uint32_t id, std::string_view* group, std::string_view* bytes) const;
  // Makes a dictionary another node exported one of ours: the id of an identical one already
  // here, else a new id, on disk (as a trained one) before it is returned. It becomes its
  // group's dictionary for later writes. InvalidArgument when zstd refuses it or no id is left.
  Result<uint32_t> Adopt(std::string_view group, std::string_view bytes);

 private:
  struct Dict;
  explicit Dictionaries(const DictionariesOptions& options);
  Status Load();
  void Sample(std::string_view group, std::string_view value);
  void TrainLoop();
  // Writes dict_bytes under a new id (durable first), then publishes it as group's newest.
  Result<uint32_t> Publish(std::string group, std::string dict_bytes, bool final, int level);
  // The level a dictionary trained on values compresses at: kFastLevel or options_.level.
  int LevelFor(const std::string& dict, const std::vector<std::string>& values) const;
  // The dictionary's memory, or null when zstd refuses the bytes.
  std::unique_ptr<Dict> MakeDict(uint32_t id, std::string group, std::string bytes,
                                 int level) const;
  // Makes d visible to readers. REQUIRES: groups_mu_ held exclusively.
  void Show(std::unique_ptr<Dict> d);

  DictionariesOptions options_;
  std::atomic<size_t> min_bytes_;
  std::atomic<size_t> max_bytes_;
  // Published dictionaries by id (0 = plain zstd); written once, then read without locks.
  std::array<std::atomic<Dict*>, kMaxDicts> dicts_{};
  std::vector<std::unique_ptr<Dict>> owned_;  // guarded by groups_mu_
  mutable std::shared_mutex groups_mu_;
  // group -> dictionary id; looked up by string_view on every compressible write (no copy).
  struct GroupDict {
    uint32_t id = 0;     // its newest dictionary
    bool final = false;  // trained for the last time: no more samples
  };
  std::unordered_map<std::string, GroupDict, StringKeyHash, std::equal_to<>> groups_;
  GroupDict DictOf(std::string_view group) const;
  // Whether a value of this size is compressed at all (compress-min-bytes, -max-bytes).
  bool Admits(size_t value_bytes) const;
  uint32_t next_id_ = 1;                              // guarded by groups_mu_
  std::array<std::atomic<uint32_t>, kMaxDicts> order_{};  // written under groups_mu_
  std::atomic<uint32_t> published_{0};

  std::mutex samples_mu_;
  struct Samples {
    std::vector<std::string> values;
    size_t bytes = 0;
    bool queued = false;   // handed to the trainer
    bool retrain = false;  // the group has its first dictionary; these train the final one
  };
  size_t sample_bytes_ = 0;  // sum of Samples::bytes
  std::unordered_map<std::string, Samples, StringKeyHash, std::equal_to<>> samples_;
  std::condition_variable train_cv_;
  std::deque<std::string> train_queue_;  // groups ready to train
  bool training_ = false;
  bool stop_ = false;
  std::thread trainer_;

  std::atomic<uint64_t> raw_values_{0};
};

}  // namespace slotkv::slot
