// Dictionary file `dict-<id>` (written to `dict-<id>.tmp`, fsync'd, renamed, dir fsync'd):
//
//   file  := magic:"SKVDICT1" id:fixed32 group:(len:varint64 bytes) dict:(len:varint64 bytes)
//            checksum:fixed64            (XXH3 of everything before it)
#include "slot/dictionaries.h"

// For the experimental frame parameters (magicless format); they pass through the stable
// ZSTD_CCtx_setParameter / ZSTD_DCtx_setParameter entry points of the shared library.
#define ZSTD_STATIC_LINKING_ONLY
#include <pthread.h>
#include <zdict.h>
#include <zstd.h>

#include <algorithm>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::slot {
namespace {

// Version 1 files have no level (they compress at DictionariesOptions::level).
constexpr std::string_view kMagicV1 = "SKVDICT1";
constexpr std::string_view kMagic = "SKVDICT2";

std::string DictPath(const std::string& dir, uint32_t id) {
  return dir + "/dict-" + std::to_string(id);
}

struct CDictDeleter {
  void operator()(ZSTD_CDict* c) const { ZSTD_freeCDict(c); }
};
struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// One compression and one decompression context per thread, set once for lean frames: no
// magic number, dictionary id, content size or checksum (our header and the slot's own
// checksums cover them), which saves ~10 bytes a value.
ZSTD_CCtx* NewLeanCCtx() {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_format, ZSTD_f_zstd1_magicless);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0);
  return c;
}
ZSTD_DCtx* NewLeanDCtx() {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZSTD_DCtx_setParameter(d, ZSTD_d_format, ZSTD_f_zstd1_magicless);
  return d;
}
ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(NewLeanCCtx());
  return cctx.get();
}
ZSTD_DCtx* ThreadDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(NewLeanDCtx());
  return dctx.get();
}

// A dictionary file's level byte (an int8 zstd accepts).
bool GetLevel(std::string_view* in, int* level) {
  if (in->empty()) return false;
  const int value = static_cast<int8_t>((*in)[0]);
  if (value < ZSTD_minCLevel() || value > ZSTD_maxCLevel()) return false;
  *level = value;
  in->remove_prefix(1);
  return true;
}

}  // namespace

struct Dictionaries::Dict {
  uint32_t id = 0;
  std::string group;
  std::string bytes;            // the dictionary; cdict and ddict refer to it (no copies)
  int level = 0;                // of cdict
  ZSTD_CDict* cdict = nullptr;  // nullptr for id 0 (plain zstd)
  ZSTD_DDict* ddict = nullptr;
  std::atomic<uint64_t> values{0};
  std::atomic<uint64_t> raw_bytes{0};
  std::atomic<uint64_t> stored_bytes{0};
  ~Dict() {
    ZSTD_freeCDict(cdict);
    ZSTD_freeDDict(ddict);
  }
};

bool StoredDictId(std::string_view stored, uint32_t* id) { return GetVarint32(&stored, id); }

std::string WithDictId(std::string_view stored, uint32_t id) {
  uint32_t old = 0;
  GetVarint32(&stored, &old);
  std::string out;
  out.reserve(stored.size() + 5);
  PutVarint32(&out, id);
  out += stored;
  return out;
}

Dictionaries::Dictionaries(const DictionariesOptions& options)
    : options_(options), min_bytes_(options.min_bytes), max_bytes_(options.max_bytes) {}

Result<std::unique_ptr<Dictionaries>> Dictionaries::Open(const DictionariesOptions& options) {
  std::unique_ptr<Dictionaries> d(new Dictionaries(options));
  auto plain = std::make_unique<Dict>();
  plain->level = options.level;
  d->dicts_[0].store(plain.get());
  d->owned_.push_back(std::move(plain));
  if (options.fs) {
    SLOTKV_RETURN_IF_ERROR(options.fs->CreateDirs(options.dir));
    SLOTKV_RETURN_IF_ERROR(d->Load());
  }
  d->trainer_ = std::thread([p = d.get()] { p->TrainLoop(); });
  return d;
}

Dictionaries::~Dictionaries() {
  {
    std::lock_guard lock(samples_mu_);
    stop_ = true;
  }
  train_cv_.notify_all();
  if (trainer_.joinable()) trainer_.join();
}

Status Dictionaries::Load() {
  Fs& fs = *options_.fs;
  SLOTKV_ASSIGN_OR_RETURN(std::vector<std::string> names, fs.List(options_.dir));
  for (const std::string& name : names) {
    const std::string path = options_.dir + "/" + name;
    if (name.ends_with(".tmp")) {  // a write that never finished: never published
      SLOTKV_RETURN_IF_ERROR(fs.Remove(path));
      continue;
    }
    if (!name.starts_with("dict-")) continue;
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, fs.Open(path));
    std::string bytes(file->Size(), '\0');
    SLOTKV_ASSIGN_OR_RETURN(size_t n, file->Read(0, bytes.size(), bytes.data()));
    bytes.resize(n);
    const auto bad = [&](const char* what) {
      return Status::Corruption("dictionary file " + path + ": " + what);
    };
    const bool v1 = bytes.starts_with(kMagicV1);
    if (bytes.size() < kMagic.size() + 4 + 8 || !(v1 || bytes.starts_with(kMagic))) {
      return bad("bad header");
    }
    const uint64_t sum = DecodeFixed64(bytes.data() + bytes.size() - 8);
    std::string_view body(bytes.data(), bytes.size() - 8);
    if (KeyHash(body) != sum) return bad("checksum mismatch");
    std::string_view in = body.substr(kMagic.size());
    uint32_t id = 0;
    int level = options_.level;
    std::string_view group;
    std::string_view dict;
    if (!GetFixed32(&in, &id) || (!v1 && !GetLevel(&in, &level)) ||
        !GetLengthPrefixed(&in, &group) || !GetLengthPrefixed(&in, &dict) || !in.empty() ||
        id == 0 || id >= kMaxDicts) {
      return bad("bad body");
    }
    std::unique_ptr<Dict> d = MakeDict(id, std::string(group), std::string(dict), level);
    if (!d) return bad("zstd refused the dictionary");
    std::unique_lock lock(groups_mu_);
    // The newest dictionary of a group compresses its writes; a reopened group trains no more.
    GroupDict& g = groups_[d->group];
    g = GroupDict{.id = std::max(g.id, id), .final = true};
    next_id_ = std::max(next_id_, id + 1);
    Show(std::move(d));
  }
  return Status::OK();
}

std::string_view Dictionaries::GroupOf(std::string_view key) const {
  const size_t sep = key.find_last_of(":.");
  if (sep != std::string_view::npos) return key.substr(0, sep);
  return key.substr(0, std::min(key.size(), options_.group_chars));
}

bool Dictionaries::Admits(size_t value_bytes) const {
  const size_t min_bytes = min_bytes_.load(std::memory_order_relaxed);
  const size_t max_bytes = max_bytes_.load(std::memory_order_relaxed);
  return min_bytes != 0 && value_bytes >= min_bytes && (max_bytes == 0 || value_bytes <= max_bytes);
}

Dictionaries::GroupDict Dictionaries::DictOf(std::string_view group) const {
  std::shared_lock lock(groups_mu_);
  auto it = groups_.find(group);
  return it != groups_.end() ? it->second : GroupDict();
}

void Dictionaries::Observe(std::string_view key, std::string_view value) {
  if (!Admits(value.size()) || value.size() > kMaxSampleBytes) return;
  const std::string_view group = GroupOf(key);
  if (!DictOf(group).final) Sample(group, value);
}

bool Dictionaries::Compress(std::string_view key, std::string_view value, std::string* out,
                            bool observed) {
  if (!Admits(value.size())) {
    raw_values_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const std::string_view group = GroupOf(key);
  const GroupDict found = DictOf(group);
  const uint32_t id = found.id;
  if (!observed && !found.final && value.size() <= kMaxSampleBytes) Sample(group, value);
  if (id == 0) {
    if (value.size() < kPlainMinBytes) {
      raw_values_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  Dict* dict = dicts_[id].load(std::memory_order_acquire);
  ZSTD_CCtx* cctx = ThreadCCtx();
  // A dictionary's CDict carries its level; nullptr (plain zstd) drops the last one used.
  ZSTD_CCtx_refCDict(cctx, dict->cdict);
  if (!dict->cdict) {
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel,
                           value.size() > kFastLevelBytes ? 1 : options_.level);
  }
  out->clear();
  PutVarint32(out, id);
  PutVarint64(out, value.size());
  const size_t header = out->size();
  out->resize(header + ZSTD_compressBound(value.size()));
  const size_t n = ZSTD_compress2(cctx, out->data() + header, out->size() - header, value.data(),
                                  value.size());
  if (ZSTD_isError(n) || header + n >= value.size()) {
    raw_values_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  out->resize(header + n);
  dict->values.fetch_add(1, std::memory_order_relaxed);
  dict->raw_bytes.fetch_add(value.size(), std::memory_order_relaxed);
  dict->stored_bytes.fetch_add(out->size(), std::memory_order_relaxed);
  return true;
}

Status Dictionaries::Decompress(std::string_view stored, std::string* out) const {
  uint32_t id = 0;
  uint64_t size = 0;
  // The declared size is allocated (and zeroed) before zstd reads a byte, so it must be one the
  // frame can produce: a block yields at most ZSTD_BLOCKSIZE_MAX bytes and takes at least 4
  // (header and one RLE byte). A damaged size asked for up to 4 GiB from any frame.
  if (!GetVarint32(&stored, &id) || !GetVarint64(&stored, &size) || size > (1ull << 32) ||
      size > uint64_t{stored.size()} * (ZSTD_BLOCKSIZE_MAX / 4)) {
    return Status::Corruption("compressed value: bad header");
  }
  Dict* dict = id < kMaxDicts ? dicts_[id].load(std::memory_order_acquire) : nullptr;
  if (!dict) {
    return Status::Corruption("compressed value needs zstd dictionary " + std::to_string(id) +
                              ", which is missing");
  }
  out->resize(static_cast<size_t>(size));
  ZSTD_DCtx* dctx = ThreadDCtx();
  ZSTD_DCtx_refDDict(dctx, dict->ddict);  // nullptr (plain zstd) drops the last one used
  const size_t n =
      ZSTD_decompressDCtx(dctx, out->data(), out->size(), stored.data(), stored.size());
  if (ZSTD_isError(n) || n != out->size()) {
    return Status::Corruption("compressed value: zstd could not decode it");
  }
  return Status::OK();
}

void Dictionaries::Sample(std::string_view group, std::string_view value) {
  // Held for a lookup and a copy at most: the trainer drops the lock while it trains.
  std::lock_guard lock(samples_mu_);
  auto it = samples_.find(group);
  if (it == samples_.end()) {
    if (samples_.size() >= kMaxSampledGroups) return;
    it = samples_.emplace(std::string(group), Samples()).first;
  }
  Samples& s = it->second;
  if (s.queued || sample_bytes_ + value.size() > kMaxSampleBytesTotal) return;
  s.values.emplace_back(value);
  s.bytes += value.size();
  sample_bytes_ += value.size();
  const bool full = s.retrain ? s.values.size() >= options_.train_samples ||
                                    s.bytes >= kTrainSampleBytes
                              : s.values.size() >= options_.first_train_samples ||
                                    s.bytes >= kTrainSampleBytes / 8;
  if (full) {
    s.queued = true;
    train_queue_.push_back(it->first);
    train_cv_.notify_one();
  }
}

void Dictionaries::TrainLoop() {
  pthread_setname_np(pthread_self(), "slotkv-train");
  std::unique_lock lock(samples_mu_);
  while (true) {
    train_cv_.wait(lock, [&] { return stop_ || !train_queue_.empty(); });
    if (stop_) return;
    std::string group = std::move(train_queue_.front());
    train_queue_.pop_front();
    Samples& taken = samples_[group];
    const bool final = taken.retrain;
    std::vector<std::string> values = std::move(taken.values);
    sample_bytes_ -= taken.bytes;
    taken.bytes = 0;
    training_ = true;
    lock.unlock();

    // Every kHeldOut-th value is kept out of the training, for LevelFor: values the dictionary
    // was trained on find their own bytes in it and favour the slower level (a 1000-value
    // first dictionary of random text chose level 3 when probed with its own samples).
    std::string all;
    std::vector<size_t> sizes;
    std::vector<std::string> held_out;
    for (size_t i = 0; i < values.size(); ++i) {
      if (i % kHeldOut == kHeldOut - 1) {
        held_out.push_back(std::move(values[i]));
        continue;
      }
      all += values[i];
      sizes.push_back(values[i].size());
    }
    std::string dict(options_.dict_bytes, '\0');
    const size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), all.data(), sizes.data(),
                                           static_cast<unsigned>(sizes.size()));
    Status st;
    if (ZDICT_isError(n)) {
      st = Status::InvalidArgument("training failed");
    } else {
      dict.resize(n);
      const int level = LevelFor(dict, held_out);
      st = Publish(group, std::move(dict), final, level).status();
    }

    lock.lock();
    training_ = false;
    Samples& s = samples_[group];
    if (st.ok() && final) {
      samples_.erase(group);  // the group has its dictionary: no more samples
    } else if (st.ok()) {
      s = Samples();  // a first dictionary: sample again for a better one
      s.retrain = true;
    } else {
      // Not enough variety yet (or the file could not be written): sample again from scratch.
      s = Samples();
    }
    train_cv_.notify_all();
  }
}

int Dictionaries::LevelFor(const std::string& dict, const std::vector<std::string>& values) const {
  const int fast = kFastLevel;
  if (options_.level <= fast || values.empty()) return options_.level;
  // Frames as Compress makes them (a lean context), from dictionaries freed on return.
  std::unique_ptr<ZSTD_CDict, CDictDeleter> at_level(
      ZSTD_createCDict_byReference(dict.data(), dict.size(), options_.level));
  std::unique_ptr<ZSTD_CDict, CDictDeleter> at_fast(
      ZSTD_createCDict_byReference(dict.data(), dict.size(), fast));
  std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(NewLeanCCtx());
  if (!at_level || !at_fast || !cctx) return options_.level;
  size_t level_bytes = 0, fast_bytes = 0;
  std::string out;
  const size_t step = std::max<size_t>(1, values.size() / kLevelProbeValues);
  for (size_t i = 0; i < values.size(); i += step) {
    const std::string& v = values[i];
    out.resize(ZSTD_compressBound(v.size()));
    for (auto [cdict, total] :
         {std::pair{at_level.get(), &level_bytes}, {at_fast.get(), &fast_bytes}}) {
      ZSTD_CCtx_refCDict(cctx.get(), cdict);
      const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), v.data(), v.size());
      *total += ZSTD_isError(n) ? v.size() : std::min(n, v.size());
    }
  }
  if (level_bytes == 0) return options_.level;
  // Within 2% of the configured level's bytes: its matches gain nothing over entropy coding.
  return fast_bytes * 100 <= level_bytes * 102 ? fast : options_.level;
}

std::unique_ptr<Dictionaries::Dict> Dictionaries::MakeDict(uint32_t id, std::string group,
                                                           std::string bytes, int level) const {
  auto d = std::make_unique<Dict>();
  d->id = id;
  d->group = std::move(group);
  d->bytes = std::move(bytes);
  d->level = level;
  d->cdict = ZSTD_createCDict_byReference(d->bytes.data(), d->bytes.size(), level);
  d->ddict = ZSTD_createDDict_byReference(d->bytes.data(), d->bytes.size());
  if (!d->cdict || !d->ddict) return nullptr;
  return d;
}

void Dictionaries::Show(std::unique_ptr<Dict> d) {
  const uint32_t k = published_.load(std::memory_order_relaxed);
  order_[k].store(d->id, std::memory_order_relaxed);
  dicts_[d->id].store(d.get(), std::memory_order_release);
  published_.store(k + 1, std::memory_order_release);
  owned_.push_back(std::move(d));
}

Result<uint32_t> Dictionaries::Publish(std::string group, std::string dict_bytes, bool final,
                                       int level) {
  uint32_t id;
  {
    std::unique_lock lock(groups_mu_);
    if (next_id_ >= kMaxDicts) return Status::InvalidArgument("too many dictionaries");
    id = next_id_++;
  }
  std::unique_ptr<Dict> d = MakeDict(id, std::move(group), std::move(dict_bytes), level);
  if (!d) return Status::InvalidArgument("zstd refused the dictionary");
  if (options_.fs) {
    std::string file(kMagic);
    PutFixed32(&file, id);
    file.push_back(static_cast<char>(static_cast<int8_t>(level)));
    PutLengthPrefixed(&file, d->group);
    PutLengthPrefixed(&file, d->bytes);
    PutFixed64(&file, KeyHash(file));
    Fs& fs = *options_.fs;
    const std::string path = DictPath(options_.dir, id);
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> f, fs.Open(path + ".tmp"));
    SLOTKV_RETURN_IF_ERROR(f->Truncate(0));
    SLOTKV_RETURN_IF_ERROR(f->Write(0, file));
    SLOTKV_RETURN_IF_ERROR(f->Sync());
    f.reset();
    SLOTKV_RETURN_IF_ERROR(fs.Rename(path + ".tmp", path));
    SLOTKV_RETURN_IF_ERROR(fs.SyncDir(options_.dir));
  }
  // Durable first, then visible: no value names a dictionary a crash could lose.
  std::unique_lock lock(groups_mu_);
  groups_[d->group] = GroupDict{.id = id, .final = final};
  Show(std::move(d));
  return id;
}

Status Dictionaries::Export(uint32_t id, std::string_view* group,
                            std::string_view* bytes) const {
  const Dict* d = id < kMaxDicts ? dicts_[id].load(std::memory_order_acquire) : nullptr;
  if (!d || id == 0) return Status::NotFound("no dictionary " + std::to_string(id));
  *group = d->group;
  *bytes = d->bytes;
  return Status::OK();
}

Result<uint32_t> Dictionaries::Adopt(std::string_view group, std::string_view bytes) {
  {
    std::shared_lock lock(groups_mu_);
    for (const std::unique_ptr<Dict>& d : owned_) {
      if (d->id != 0 && d->bytes == bytes) return d->id;
    }
  }
  return Publish(std::string(group), std::string(bytes), true, options_.level);
}

std::vector<Dictionaries::DictStats> Dictionaries::Stats() const {
  std::vector<DictStats> out;
  for (uint32_t id = 0; id < kMaxDicts; ++id) {
    const Dict* d = dicts_[id].load(std::memory_order_acquire);
    if (!d) continue;
    out.push_back({id, d->group, d->level, d->values.load(std::memory_order_relaxed),
                   d->raw_bytes.load(std::memory_order_relaxed),
                   d->stored_bytes.load(std::memory_order_relaxed)});
  }
  return out;
}

void Dictionaries::WaitIdle() {
  std::unique_lock lock(samples_mu_);
  train_cv_.wait(lock, [&] { return train_queue_.empty() && !training_; });
}

}  // namespace slotkv::slot
