// ChunkStore files in the slot directory (format version 2; version 1 records held the key):
//
//   chunks.meta   := magic:"SKVCHUNK" version:fixed32(2) segment_bytes:fixed32
//                    crc:fixed32 (Checksum of the 16 bytes before it)            (20 bytes)
//   chunks.dat    := segment*        segment i at offset i * segment_bytes
//   segment       := record* rest    records of one group (record.cc); the run's fill (its
//                                     segments.meta entry) says where they end; rest is a
//                                     hole, zeros, old bytes of a reused segment, or the torn
//                                     end of an append that never became durable. Runs
//                                     written before fills were kept end in zero padding
//   segments.meta := the segment table (segment_table.cc)
//   big-<id>.val  := record           one value of at least big_value_bytes; <id> in decimal
//
// chunks.meta is written once, atomically, when the store is created; an existing store keeps
// the segment size it records whatever the options say.
//
// Worked example (segment_bytes 4096): chunks.meta for a new store is
//   53 4b 56 43 48 55 4e 4b  02 00 00 00  00 10 00 00  cc cc cc cc
// Group 3 then adds "ab"/"xyz" (16 bytes) and "k"/5000 bytes (5014 bytes): the first goes to a
// fresh segment 0 at offset 0 (ptr {0, 0, 16}); the second does not fit in the 4080 bytes
// left, so segment 0 is sealed (its 16 bytes written) and the value takes a fresh run of
// two segments, 1-2 (ptr {1, 0, 5014}), whose last 3178 bytes stay free for later
// records of group 3. Commit writes run 1-2's 5014 bytes, syncs chunks.dat, and writes
// entries 0-2 of segments.meta (segment 0 with fill 16, run 1-2 with fill 5014). The next flush of group 3
// adding "c"/"d" (15 bytes) reopens run 1-2 and writes just those 15 bytes at offset
// 1 * 4096 + 5014 (ptr {2, 918, 15}); its SyncData then records fill 5029.
//
// Big values go to their own file, written with one Append at Add; the next id is one past the
// largest id found in the directory at Open, so ids keep increasing across reopens.
#include "chunk/chunk_store.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <memory>
#include <map>
#include <unordered_map>
#include <utility>

#include "chunk/record.h"
#include "chunk/segment_table.h"
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/base/clock_cache.h"
#include "core/base/io_ring.h"

namespace slotkv::chunk {
namespace {

constexpr std::string_view kMagic = "SKVCHUNK";
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kChunksMetaBytes = 20;
constexpr uint32_t kMinSegmentBytes = 64;
constexpr uint32_t kMaxSegmentBytes = 64u << 20;
// Free segments that keep their disk blocks at least (ApplyFrees), and how long a Commit
// punches the rest.
constexpr uint64_t kMinHeldFree = 64;
constexpr auto kPunchSlice = std::chrono::milliseconds(2);
// Punches through the io_uring at a time: each completion submits the next.
constexpr size_t kPunchesInFlight = 4;
// Keeps a run's bytes, and so its live count, within 32 bits; longer values need a big file.
constexpr size_t kMaxSegmentRecordBytes = size_t{1} << 31;

std::string EncodeChunksMeta(uint32_t segment_bytes) {
  std::string out(kMagic);
  PutFixed32(&out, kFormatVersion);
  PutFixed32(&out, segment_bytes);
  PutFixed32(&out, Checksum(out));
  return out;
}

Result<uint32_t> DecodeChunksMeta(std::string_view in) {
  if (in.size() != kChunksMetaBytes || in.substr(0, kMagic.size()) != kMagic ||
      DecodeFixed32(in.data() + 16) != Checksum(in.substr(0, 16))) {
    return Status::Corruption("chunks.meta: bad header");
  }
  const uint32_t version = DecodeFixed32(in.data() + 8);
  if (version != kFormatVersion) {
    return Status::NotSupported("chunks.meta: format version " + std::to_string(version));
  }
  const uint32_t segment_bytes = DecodeFixed32(in.data() + 12);
  if (segment_bytes < kMinSegmentBytes || segment_bytes > kMaxSegmentBytes) {
    return Status::Corruption("chunks.meta: bad segment size");
  }
  return segment_bytes;
}

std::string BigFileName(uint64_t id) { return "big-" + std::to_string(id) + ".val"; }

// The id in a name "big-<id>.val", or false.
bool ParseBigFileName(std::string_view name, uint64_t* id) {
  constexpr std::string_view kPrefix = "big-", kSuffix = ".val";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  std::string_view digits = name.substr(4, name.size() - 8);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *id);
  return ec == std::errc() && end == digits.data() + digits.size();
}

std::string Where(const ValuePtr& ptr) {
  return " at segment " + std::to_string(ptr.segment) + " offset " + std::to_string(ptr.offset);
}

// The open run of a group: records are appended to buf until the next one does not fit.
struct OpenRun {
  uint32_t head = 0;
  uint32_t length = 0;  // segments
  uint32_t base = 0;    // bytes of the run before buf: its fill when reopened, else 0
  std::string buf;      // the run's bytes from base on, so far (no padding)
  uint64_t end() const { return base + buf.size(); }
};

}  // namespace

struct ChunkStore::Impl {
  ChunkStoreOptions options;
  uint32_t segment_bytes = 0;
  std::unique_ptr<File> data;  // chunks.dat
  std::unique_ptr<File> meta;  // segments.meta
  SegmentTable table;
  ClockCache<uint32_t, std::string> cache;       // segment number -> its bytes
  std::unordered_map<uint32_t, OpenRun> open;  // group -> open run
  bool data_unsynced = false;
  std::vector<SegmentRun> awaiting_reuse;  // freed in the table, entries not yet durable

  std::map<uint64_t, uint64_t> big_sizes;  // id -> file size
  uint64_t big_bytes = 0;
  uint64_t next_big_id = 1;
  std::vector<std::unique_ptr<File>> unsynced_big;
  DirVersion dir;
  std::vector<uint64_t> big_to_remove;

  ChunkStoreStats stats;

  // Punches in flight through the io_uring name the store through this; it is cleared when
  // the store goes, so a completion after that does nothing.
  struct PunchToken {
    Impl* store = nullptr;
  };
  std::shared_ptr<PunchToken> punch_token = std::make_shared<PunchToken>();
  size_t punches_in_flight = 0;
  Status punch_error;  // the first a ring punch met since the last PunchFree returned

  Impl(const ChunkStoreOptions& opts, uint32_t seg_bytes)
      : options(opts),
        segment_bytes(seg_bytes),
        table(seg_bytes),
        cache(opts.cache_bytes) {
    punch_token->store = this;
  }
  ~Impl() { punch_token->store = nullptr; }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::string Path(std::string_view name) const { return JoinPath(options.dir, name); }
  uint64_t RunBytes(uint32_t length) const { return uint64_t{length} * segment_bytes; }

  Status LoadBigFiles();
  Status Seal(OpenRun* run);
  Result<ValuePtr> AddBig(std::string_view key, std::string_view value);
  Result<std::string> ReadBig(uint64_t id, std::string_view key);
  // Where a segment record's bytes are: in memory (open run or segment cache), or at a file
  // offset of chunks.dat. Corruption when ptr does not name a record of a used run.
  struct Located {
    std::string_view bytes;  // in_memory only
    uint64_t file_offset = 0;
    bool in_memory = false;
  };
  Result<Located> Locate(const ValuePtr& ptr);
  // Checks the record bytes at ptr (checksum, length, key) and returns its value.
  Result<std::string> DecodeValue(const ValuePtr& ptr, std::string_view key,
                                  std::string_view bytes) const;
  Status ReadAt(uint64_t offset, size_t n, std::string* out) const;
  Status ApplyFrees();
  // Punches free segments past the reserve, for about slice (see ApplyFrees); on a thread
  // with an io_uring, through it (SubmitPunches) instead.
  Status PunchFree(std::chrono::microseconds slice);
  // Keeps kPunchesInFlight runs being punched through ring while any are past the reserve.
  void SubmitPunches(IoRing& ring);
  // A ring punch of run completed with error (0, or an errno): the run is free for use again,
  // and the next runs go.
  void PunchDone(const SegmentRun& run, int error);
  uint64_t PunchReserve() const;
  // Writes the changed segment table entries (only those of fresh runs when fresh_only) and
  // syncs them when fsync.
  Status WriteDirtyEntries(bool fresh_only);

  // Whether ptr (kSegments) lies in a run of group's, within its fill: past it, only a page
  // written back before a power cut names it (the table lost the records, and the run's next
  // appends take the place).
  bool HoldsPlace(uint32_t group, const ValuePtr& ptr) const {
    if (!table.IsUsed(ptr.segment) || table.Group(ptr.segment) != group) return false;
    const uint32_t head = table.RunHead(ptr.segment);
    const uint64_t end =
        uint64_t{ptr.segment - head} * segment_bytes + ptr.offset + uint64_t{ptr.length};
    return end <= table.Fill(head);
  }
};

Status ChunkStore::Impl::LoadBigFiles() {
  SLOTKV_ASSIGN_OR_RETURN(std::vector<std::string> names, options.fs->List(options.dir));
  for (const std::string& name : names) {
    uint64_t id = 0;
    if (!ParseBigFileName(name, &id)) continue;
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, options.fs->Open(Path(name)));
    big_sizes[id] = file->Size();
    big_bytes += file->Size();
    next_big_id = std::max(next_big_id, id + 1);
  }
  return Status::OK();
}

// Writes the run's new records, after its fill (0 for a new run). Nothing is written past
// them: the fill says where records end, so the rest of a segment stays a hole in the file
// until a later flush fills it.
Status ChunkStore::Impl::Seal(OpenRun* run) {
  SLOTKV_RETURN_IF_ERROR(data->Write(uint64_t{run->head} * segment_bytes + run->base, run->buf));
  stats.bytes_written += run->buf.size();
  data_unsynced = true;
  table.SetFill(run->head, static_cast<uint32_t>(run->end()));
  // Recently written segments are the likeliest to be read soon: cache each segment's bytes up
  // to the run's end of records (a reopened segment only when its older bytes are cached).
  for (uint32_t j = run->base / segment_bytes; j < run->length; ++j) {
    const uint64_t seg_start = uint64_t{j} * segment_bytes;
    if (seg_start >= run->end()) break;
    std::string segment;
    if (seg_start >= run->base) {
      segment = run->buf.substr(seg_start - run->base, segment_bytes);
    } else if (const std::string* old = cache.Peek(run->head + j);
               old != nullptr && old->size() == run->base - seg_start) {
      segment.reserve(std::min<uint64_t>(segment_bytes, run->end() - seg_start));
      segment = *old;
      segment.append(run->buf, 0, segment_bytes - segment.size());
    } else {
      cache.Erase(run->head + j);
      continue;
    }
    const size_t charge = kCacheEntryBytes + HeapBytes(segment);
    cache.Insert(run->head + j, std::move(segment), charge);
  }
  return Status::OK();
}

Status ChunkStore::Impl::ReadAt(uint64_t offset, size_t n, std::string* out) const {
  out->assign(n, '\0');
  SLOTKV_ASSIGN_OR_RETURN(size_t got, data->Read(offset, n, out->data()));
  (void)got;  // a short read leaves zeros, which fail the checksum or end the records
  return Status::OK();
}

Result<ValuePtr> ChunkStore::Impl::AddBig(std::string_view key, std::string_view value) {
  const uint64_t id = next_big_id++;
  const std::string path = Path(BigFileName(id));
  std::string record;
  record.reserve(RecordLength(value.size()));
  AppendRecord(KeyHash(key), value, &record);
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, options.fs->Open(path));
  Status s = file->Truncate(0);
  if (s.ok()) s = file->Append(record);
  if (!s.ok()) {
    file.reset();
    options.fs->Remove(path).PermitUnchecked();  // best effort: the Add fails either way
    return s;
  }
  stats.bytes_written += record.size();
  big_sizes[id] = record.size();
  big_bytes += record.size();
  unsynced_big.push_back(std::move(file));
  dir.Created();
  return ValuePtr{.kind = ValuePtr::Kind::kBigFile, .big_id = id};
}

Result<std::string> ChunkStore::Impl::ReadBig(uint64_t id, std::string_view key) {
  const std::string path = Path(BigFileName(id));
  Result<std::string> bytes = options.fs->ReadFile(path);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) return Status::Corruption("big value file missing: " + path);
    return bytes.status();
  }
  std::string& file = *bytes;
  RecordView rec;
  size_t length = 0;
  Status s = DecodeRecord(file, &rec, &length);
  if (!s.ok()) return Status::Corruption(std::string(s.message()) + " in " + path);
  if (length != file.size()) return Status::Corruption("trailing bytes in " + path);
  if (rec.key_hash != KeyHash(key)) {
    return Status::Corruption("value record key mismatch in " + path);
  }
  // Move the value to the front of the buffer instead of copying a possibly huge string.
  const size_t value_offset = static_cast<size_t>(rec.value.data() - file.data());
  const size_t value_size = rec.value.size();
  file.erase(0, value_offset);
  file.resize(value_size);
  return std::move(file);
}

// Frees become reusable only once the segments.meta entries saying "free" are durable; then
// stale cache entries go away, and disk space goes back past a reserve. Every freed run was
// punched here, on the worker: under random ZADDs into a 10M-member sorted set a publish freed
// 176-2465 runs, and their fallocate calls held the worker up to 197 ms (loop lag 216 ms),
// although most of that space was written again within seconds. Now free segments keep their
// blocks up to a sixteenth of the used ones (kMinHeldFree at least), and the rest is punched
// for about kPunchSlice a Commit, runs of adjacent segments, the highest first (PunchFree; the
// owner calls TrimFree for what a large free left: a DEL of a 10M-member collection frees
// ~100k runs, ~10 s of fallocate calls while they are scattered).
Status ChunkStore::Impl::ApplyFrees() {
  Status first_error;
  for (const SegmentRun& run : awaiting_reuse) {
    for (uint32_t j = run.head; j < run.head + run.length; ++j) cache.Erase(j);
    table.MakeReusable(run);
  }
  awaiting_reuse.clear();
  if (Status s = PunchFree(kPunchSlice); !s.ok() && first_error.ok()) first_error = s;
  std::vector<uint64_t> still_pending;
  for (uint64_t id : big_to_remove) {
    auto it = big_sizes.find(id);
    if (it == big_sizes.end()) continue;
    Status s = options.fs->Remove(Path(BigFileName(id)));
    if (!s.ok() && !s.IsNotFound()) {
      still_pending.push_back(id);
      if (first_error.ok()) first_error = s;
      continue;
    }
    big_bytes -= it->second;
    big_sizes.erase(it);
  }
  big_to_remove = std::move(still_pending);
  return first_error;
}

uint64_t ChunkStore::Impl::PunchReserve() const {
  return std::max<uint64_t>(kMinHeldFree, table.used_segments() / 16);
}

// On a worker the punches go through its io_uring, a few at a time, each run out of the free
// list until done: on the worker, a punch waiting for ext4's journal held it up to 52 ms (loop
// lag 65 ms while a DEL's freed segments were given back).
Status ChunkStore::Impl::PunchFree(std::chrono::microseconds slice) {
  Status first_error = std::exchange(punch_error, Status::OK());
  if (IoRing* ring = IoRing::Current()) {
    SubmitPunches(*ring);
    return first_error;
  }
  const uint64_t keep = PunchReserve();
  const auto deadline = std::chrono::steady_clock::now() + slice;
  // One run at a time: a punch takes ~0.1 ms, but one in a few hundred waits for the
  // filesystem's journal (up to 50 ms), and batches of 16 held the worker 130 ms.
  do {
    std::optional<SegmentRun> run = table.TakeToPunch(keep);
    if (!run) break;
    Status s = data->PunchHole(uint64_t{run->head} * segment_bytes, RunBytes(run->length));
    table.PunchDone(*run);
    if (!s.ok() && first_error.ok()) first_error = s;
  } while (std::chrono::steady_clock::now() < deadline);
  return first_error;
}

void ChunkStore::Impl::SubmitPunches(IoRing& ring) {
  const uint64_t keep = PunchReserve();
  while (punches_in_flight < kPunchesInFlight) {
    std::optional<SegmentRun> run = table.TakeToPunch(keep);
    if (!run) return;
    ++punches_in_flight;
    data->RingPunchHole(ring, uint64_t{run->head} * segment_bytes, RunBytes(run->length),
                        [token = punch_token, run = *run](int error) {
                          if (token->store != nullptr) token->store->PunchDone(run, error);
                        });
  }
}

void ChunkStore::Impl::PunchDone(const SegmentRun& run, int error) {
  --punches_in_flight;
  Status st;
  if (error == EOPNOTSUPP) {  // no holes on this file system: PunchHole zeroes the range
    st = data->PunchHole(uint64_t{run.head} * segment_bytes, RunBytes(run.length));
  } else if (error != 0) {
    st = Status::IOError(std::string("chunks.dat: punching free segments: ") +
                         std::strerror(error));
  }
  if (!st.ok() && punch_error.ok()) punch_error = st;
  table.PunchDone(run);
  if (IoRing* ring = IoRing::Current()) SubmitPunches(*ring);
}

ChunkStore::ChunkStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChunkStore::~ChunkStore() = default;

Result<std::unique_ptr<ChunkStore>> ChunkStore::Open(const ChunkStoreOptions& options) {
  if (options.fs == nullptr || options.dir.empty()) {
    return Status::InvalidArgument("chunk store needs an fs and a dir");
  }
  Fs* fs = options.fs;
  const std::string meta_path = JoinPath(options.dir, "chunks.meta");
  const std::string table_path = JoinPath(options.dir, "segments.meta");
  uint32_t segment_bytes = 0;
  bool created = false;
  if (fs->Exists(meta_path)) {
    SLOTKV_ASSIGN_OR_RETURN(std::string bytes, fs->ReadFile(meta_path));
    SLOTKV_ASSIGN_OR_RETURN(segment_bytes, DecodeChunksMeta(bytes));
  } else {
    segment_bytes = options.segment_bytes;
    if (segment_bytes < kMinSegmentBytes || segment_bytes > kMaxSegmentBytes) {
      return Status::InvalidArgument("segment_bytes out of range");
    }
    created = true;
  }

  auto impl = std::make_unique<Impl>(options, segment_bytes);
  SLOTKV_ASSIGN_OR_RETURN(impl->data, fs->Open(JoinPath(options.dir, "chunks.dat")));
  impl->data->AdviseRandomAccess();  // value reads touch single segments
  SLOTKV_ASSIGN_OR_RETURN(impl->meta, fs->Open(table_path));
  if (created) {
    // Without chunks.meta the store never finished being created; a segment table then would
    // mean chunks.meta was lost, and starting over would drop data.
    if (impl->meta->Size() > 0) return Status::Corruption("chunks.meta missing in " + options.dir);
    SLOTKV_RETURN_IF_ERROR(impl->data->Truncate(0));
    // Atomic and synced with its directory, which also makes the two files above durable.
    SLOTKV_RETURN_IF_ERROR(fs->WriteFileAtomic(meta_path, EncodeChunksMeta(segment_bytes)));
  }

  SLOTKV_ASSIGN_OR_RETURN(std::string table_bytes, fs->ReadFile(table_path));
  SLOTKV_RETURN_IF_ERROR(impl->table.Load(table_bytes));
  // Segments past the table belong to a flush that never committed: nothing points at them.
  const uint64_t table_end = impl->RunBytes(impl->table.segment_count());
  if (impl->data->Size() > table_end) SLOTKV_RETURN_IF_ERROR(impl->data->Truncate(table_end));
  const uint64_t data_size = impl->data->Size();
  for (uint32_t s = impl->table.segment_count(); s-- > 0;) {
    if (!impl->table.IsUsed(s)) continue;
    // Records end at the fill; a run without one was written whole.
    const uint32_t head = impl->table.RunHead(s);
    const uint32_t fill = impl->table.Fill(head);
    const uint64_t end = uint64_t{head} * segment_bytes +
                         (fill > 0 ? fill : impl->RunBytes(impl->table.RunLength(head)));
    if (data_size < end) {
      return Status::Corruption("segments.meta names segment " + std::to_string(s) +
                                " past the end of chunks.dat");
    }
    break;  // the last used run is within the file, so all are
  }
  SLOTKV_RETURN_IF_ERROR(impl->LoadBigFiles());
  return std::unique_ptr<ChunkStore>(new ChunkStore(std::move(impl)));
}

Result<ValuePtr> ChunkStore::Add(uint32_t group, std::string_view key, std::string_view value) {
  Impl& m = *impl_;
  if (group == kNoGroup) return Status::InvalidArgument("group 0xFFFFFFFF is reserved");
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    return Status::InvalidArgument("value record too large");
  }
  if (value.size() >= m.options.big_value_bytes) return m.AddBig(key, value);
  const size_t len = RecordLength(value.size());
  if (len > kMaxSegmentRecordBytes) {
    return Status::InvalidArgument("value too large for segments; lower big_value_bytes");
  }

  auto it = m.open.find(group);
  if (it != m.open.end() && (it->second.end() + len > m.RunBytes(it->second.length) ||
                             m.table.FreeRequested(it->second.head))) {
    SLOTKV_RETURN_IF_ERROR(m.Seal(&it->second));
    m.open.erase(it);
    it = m.open.end();
  }
  if (it == m.open.end()) {
    OpenRun run;
    if (const uint32_t head = m.table.AppendableRun(group, static_cast<uint32_t>(len));
        head != kNoGroup) {
      // Fill the end of the group's newest run rather than start a mostly empty segment.
      m.table.Reopen(head);
      run = OpenRun{
          .head = head, .length = m.table.RunLength(head), .base = m.table.Fill(head), .buf = {}};
    } else {
      const auto n = static_cast<uint32_t>(
          std::max<uint64_t>(1, (len + m.segment_bytes - 1) / m.segment_bytes));
      run = OpenRun{.head = m.table.Allocate(group, n), .length = n, .base = 0, .buf = {}};
      run.buf.reserve(m.RunBytes(n));
    }
    it = m.open.emplace(group, std::move(run)).first;
  }
  OpenRun& run = it->second;
  const uint64_t offset = run.end();
  AppendRecord(KeyHash(key), value, &run.buf);
  m.table.AddLive(run.head, static_cast<uint32_t>(len));
  return ValuePtr{.kind = ValuePtr::Kind::kSegments,
                  .segment = run.head + static_cast<uint32_t>(offset / m.segment_bytes),
                  .offset = static_cast<uint32_t>(offset % m.segment_bytes),
                  .length = static_cast<uint32_t>(len)};
}

Result<ChunkStore::Impl::Located> ChunkStore::Impl::Locate(const ValuePtr& ptr) {
  if (!table.IsUsed(ptr.segment)) {
    return Status::Corruption("value pointer to free segment " + std::to_string(ptr.segment));
  }
  const uint32_t head = table.RunHead(ptr.segment);
  const uint64_t start = uint64_t{ptr.segment - head} * segment_bytes + ptr.offset;
  if (ptr.offset >= segment_bytes || ptr.length < kMinRecordBytes ||
      start + ptr.length > RunBytes(table.RunLength(head))) {
    return Status::Corruption("value pointer out of its run");
  }
  Located at;
  auto run = open.find(table.Group(head));
  if (run != open.end() && run->second.head == head && start >= run->second.base) {
    // Not written yet: read the open run's buffer.
    if (start + ptr.length > run->second.end()) {
      return Status::Corruption("value pointer past the bytes added");
    }
    at.bytes = std::string_view(run->second.buf).substr(start - run->second.base, ptr.length);
    at.in_memory = true;
  } else if (const std::string* segment = ptr.offset + uint64_t{ptr.length} <= segment_bytes
                                               ? cache.Lookup(ptr.segment)
                                               : nullptr;
             segment != nullptr && ptr.offset + uint64_t{ptr.length} <= segment->size()) {
    // A cached segment holds its bytes up to the end of its records.
    at.bytes = std::string_view(*segment).substr(ptr.offset, ptr.length);
    at.in_memory = true;
  } else {
    // A miss reads the record alone: with data far larger than the cache, caching whole
    // segments on reads would copy 4 KiB per value for hits that rarely come.
    at.file_offset = uint64_t{head} * segment_bytes + start;
  }
  return at;
}

Result<std::string> ChunkStore::Impl::DecodeValue(const ValuePtr& ptr, std::string_view key,
                                                  std::string_view bytes) const {
  RecordView rec;
  size_t length = 0;
  Status s = DecodeRecord(bytes, &rec, &length);
  if (!s.ok()) return Status::Corruption(std::string(s.message()) + Where(ptr));
  if (length != ptr.length) return Status::Corruption("value record length mismatch" + Where(ptr));
  if (rec.key_hash != KeyHash(key)) {
    return Status::Corruption("value record key mismatch" + Where(ptr));
  }
  return std::string(rec.value);
}

Result<std::string> ChunkStore::Read(const ValuePtr& ptr, std::string_view key) {
  Impl& m = *impl_;
  if (ptr.kind == ValuePtr::Kind::kBigFile) return m.ReadBig(ptr.big_id, key);
  SLOTKV_ASSIGN_OR_RETURN(Impl::Located at, m.Locate(ptr));
  std::string scratch;
  if (!at.in_memory) {
    SLOTKV_RETURN_IF_ERROR(m.ReadAt(at.file_offset, ptr.length, &scratch));
    at.bytes = scratch;
  }
  return m.DecodeValue(ptr, key, at.bytes);
}

Status ChunkStore::ReadMany(const std::vector<ValuePtr>& ptrs,
                            const std::vector<std::string_view>& keys,
                            std::vector<std::string>* values) {
  Impl& m = *impl_;
  values->assign(ptrs.size(), std::string());
  std::vector<size_t> pending;  // indexes read from chunks.dat in the batch
  std::vector<ReadRequest> batch;
  size_t total = 0;
  for (size_t i = 0; i < ptrs.size(); ++i) {
    if (ptrs[i].kind == ValuePtr::Kind::kBigFile) {
      SLOTKV_ASSIGN_OR_RETURN((*values)[i], m.ReadBig(ptrs[i].big_id, keys[i]));
      continue;
    }
    SLOTKV_ASSIGN_OR_RETURN(Impl::Located at, m.Locate(ptrs[i]));
    if (at.in_memory) {
      SLOTKV_ASSIGN_OR_RETURN((*values)[i], m.DecodeValue(ptrs[i], keys[i], at.bytes));
      continue;
    }
    pending.push_back(i);
    batch.push_back({.offset = at.file_offset, .n = ptrs[i].length});
    total += ptrs[i].length;
  }
  if (pending.empty()) return Status::OK();
  std::string bytes(total, '\0');
  size_t used = 0;
  for (ReadRequest& r : batch) {
    r.buf = bytes.data() + used;
    used += r.n;
  }
  SLOTKV_RETURN_IF_ERROR(m.data->ReadMany(batch));
  // A short read leaves zeros, which fail the checksum.
  for (size_t j = 0; j < pending.size(); ++j) {
    size_t i = pending[j];
    SLOTKV_ASSIGN_OR_RETURN((*values)[i],
                            m.DecodeValue(ptrs[i], keys[i], std::string_view(batch[j].buf, batch[j].n)));
  }
  return Status::OK();
}

void ChunkStore::Release(const ValuePtr& ptr) {
  Impl& m = *impl_;
  if (ptr.kind == ValuePtr::Kind::kBigFile) {
    if (m.big_sizes.count(ptr.big_id) > 0) m.big_to_remove.push_back(ptr.big_id);
    return;
  }
  m.table.ReleaseLive(ptr.segment, ptr.length);
}

ChunkStore::AddMark ChunkStore::Mark() const {
  return {.alloc_seq = impl_->table.next_alloc_seq(), .big_id = impl_->next_big_id};
}

bool ChunkStore::Holds(uint32_t group, const ValuePtr& ptr, const AddMark& mark) const {
  const Impl& m = *impl_;
  if (ptr.kind == ValuePtr::Kind::kBigFile) {
    return ptr.big_id < mark.big_id && m.big_sizes.contains(ptr.big_id);
  }
  return m.HoldsPlace(group, ptr) &&
         m.table.AllocSeq(m.table.RunHead(ptr.segment)) < mark.alloc_seq;
}

void ChunkStore::Unrelease(const ValuePtr& ptr) {
  Impl& m = *impl_;
  if (ptr.kind == ValuePtr::Kind::kBigFile) {
    auto it = std::find(m.big_to_remove.begin(), m.big_to_remove.end(), ptr.big_id);
    if (it != m.big_to_remove.end()) m.big_to_remove.erase(it);
    return;
  }
  if (m.table.IsUsed(ptr.segment)) m.table.AddLive(m.table.RunHead(ptr.segment), ptr.length);
}

std::vector<uint32_t> ChunkStore::CompactionCandidates(uint32_t group, size_t max) const {
  return impl_->table.Candidates(group, max);
}

Status ChunkStore::ReadSegment(uint32_t segment, std::vector<ChunkRecord>* records) {
  Impl& m = *impl_;
  if (!m.table.IsUsed(segment)) {
    return Status::InvalidArgument("segment " + std::to_string(segment) + " is free");
  }
  const uint32_t head = m.table.RunHead(segment);
  const uint32_t length = m.table.RunLength(head);
  std::string region;
  auto open = m.open.find(m.table.Group(head));
  if (open != m.open.end() && open->second.head == head) {
    if (open->second.base > 0) {
      SLOTKV_RETURN_IF_ERROR(
          m.ReadAt(uint64_t{head} * m.segment_bytes, open->second.base, &region));
    }
    region += open->second.buf;
  } else {
    // Compaction reads a run once and then frees it: bypass the cache. Records end at the fill
    // (when known): past it may lie the torn end of an append that never became durable.
    const uint32_t fill = m.table.Fill(head);
    SLOTKV_RETURN_IF_ERROR(m.ReadAt(uint64_t{head} * m.segment_bytes,
                                    fill > 0 ? fill : m.RunBytes(length), &region));
  }
  size_t at = 0;
  Status s = ForEachRecord(region, &at, [&](const RecordView& rec, size_t pos, size_t len) {
    records->push_back(
        ChunkRecord{.key_hash = rec.key_hash,
                    .value = std::string(rec.value),
                    .ptr = ValuePtr{.kind = ValuePtr::Kind::kSegments,
                                    .segment = head + static_cast<uint32_t>(pos / m.segment_bytes),
                                    .offset = static_cast<uint32_t>(pos % m.segment_bytes),
                                    .length = static_cast<uint32_t>(len)}});
  });
  if (!s.ok()) {
    return Status::Corruption(std::string(s.message()) + " in run of segment " +
                              std::to_string(head) + " at byte " + std::to_string(at));
  }
  return Status::OK();
}

void ChunkStore::FreeSegment(uint32_t segment) { impl_->table.RequestFree(segment); }

void ChunkStore::CancelFree(uint32_t segment) { impl_->table.CancelFree(segment); }

ChunkStore::RunStamp ChunkStore::Stamp(uint32_t segment) const {
  const Impl& m = *impl_;
  if (!m.table.IsUsed(segment)) return {};
  const uint32_t head = m.table.RunHead(segment);
  RunStamp stamp{.alloc_seq = m.table.AllocSeq(head), .fill = m.table.Fill(head)};
  // An open run's fill is recorded when it is sealed; its appends count now.
  auto open = m.open.find(m.table.Group(head));
  if (open != m.open.end() && open->second.head == head) {
    stamp.fill = static_cast<uint32_t>(open->second.end());
  }
  return stamp;
}

void ChunkStore::Recount(uint32_t group, const std::vector<ValuePtr>& referenced) {
  SegmentTable& table = impl_->table;
  std::unordered_map<uint32_t, uint64_t> live;
  for (const ValuePtr& ptr : referenced) {
    if (ptr.kind != ValuePtr::Kind::kSegments || !impl_->HoldsPlace(group, ptr)) continue;
    live[table.RunHead(ptr.segment)] += ptr.length;
  }
  table.SetGroupLive(group, live);
}

Status ChunkStore::SyncData() {
  Impl& m = *impl_;
  // 1. Every open run is written: the next flush starts fresh segments.
  for (auto it = m.open.begin(); it != m.open.end();) {
    SLOTKV_RETURN_IF_ERROR(m.Seal(&it->second));
    it = m.open.erase(it);
  }
  // 2. The new values are durable before any entry points at them.
  if (m.options.fsync) {
    if (m.data_unsynced) SLOTKV_RETURN_IF_ERROR(m.data->Sync());
    for (auto& file : m.unsynced_big) SLOTKV_RETURN_IF_ERROR(file->Sync());
    if (!m.unsynced_big.empty()) SLOTKV_RETURN_IF_ERROR(m.options.fs->SyncDir(m.options.dir));
  }
  m.data_unsynced = false;
  if (m.options.fsync) m.unsynced_big.clear();  // else SyncAll syncs them later
  // 3. The table entries of the new runs, so that Open keeps them once bucket pages point at
  //    them. Lower live bytes of older runs wait for Commit: written now, a crash before the
  //    pages are durable would let Open free a run that durable pages still point at.
  return m.WriteDirtyEntries(/*fresh_only=*/true);
}

Status ChunkStore::SyncAll() {
  Impl& m = *impl_;
  SLOTKV_RETURN_IF_ERROR(m.data->Sync());
  SLOTKV_RETURN_IF_ERROR(m.meta->Sync());
  for (auto& file : m.unsynced_big) SLOTKV_RETURN_IF_ERROR(file->Sync());
  SLOTKV_RETURN_IF_ERROR(m.options.fs->SyncDir(m.options.dir));
  m.unsynced_big.clear();
  m.dir.SyncedNow();
  return Status::OK();
}

bool ChunkStore::SyncHandles(std::vector<File*>* files, uint64_t* dir_version) const {
  const Impl& m = *impl_;
  if (!m.unsynced_big.empty()) return false;  // SyncAll syncs them and forgets them
  *dir_version = m.dir.Unsynced();
  if (m.data->NativeHandle() < 0 || m.meta->NativeHandle() < 0) return false;
  files->push_back(m.data.get());
  files->push_back(m.meta.get());
  return true;
}

void ChunkStore::DirSynced(uint64_t dir_version) { impl_->dir.Synced(dir_version); }

Status ChunkStore::Impl::WriteDirtyEntries(bool fresh_only) {
  auto writes = table.DirtyWrites(fresh_only);
  for (const auto& [offset, bytes] : writes) {
    SLOTKV_RETURN_IF_ERROR(meta->Write(offset, bytes));
    stats.bytes_written += bytes.size();
  }
  if (options.fsync && !writes.empty()) SLOTKV_RETURN_IF_ERROR(meta->Sync());
  // Written entries are clean again: a flush writes only what changed since the last one.
  table.ClearDirty(fresh_only);
  return Status::OK();
}

Status ChunkStore::TrimFree(std::chrono::microseconds slice) {
  return impl_->PunchFree(slice);
}

Status ChunkStore::Commit() {
  Impl& m = *impl_;
  SLOTKV_RETURN_IF_ERROR(SyncData());
  // 4. Frees: marked in the table, made durable, and only then is the space reused or given
  //    back.
  m.table.ClearFresh();
  std::vector<SegmentRun> freed = m.table.TakeFrees(&m.stats.compacted_segments);
  m.awaiting_reuse.insert(m.awaiting_reuse.end(), freed.begin(), freed.end());
  SLOTKV_RETURN_IF_ERROR(m.WriteDirtyEntries(/*fresh_only=*/false));
  return m.ApplyFrees();
}

uint64_t ChunkStore::disk_bytes() const {
  const SegmentTable& t = impl_->table;
  return (t.used_segments() + t.holding_segments()) * impl_->segment_bytes + impl_->big_bytes;
}

const ChunkStoreStats& ChunkStore::stats() const {
  ChunkStoreStats& s = impl_->stats;
  s.segments_used = impl_->table.used_segments();
  s.segments_free = impl_->table.segment_count() - impl_->table.used_segments();
  s.live_bytes = impl_->table.live_bytes();
  s.cache_hits = impl_->cache.hits();
  s.cache_misses = impl_->cache.misses();
  s.cache_bytes = impl_->cache.size_bytes();
  s.compacted_bytes = impl_->RunBytes(1) * s.compacted_segments;
  return s;
}

void ChunkStore::set_fsync(bool fsync) { impl_->options.fsync = fsync; }

void ChunkStore::set_cache_bytes(size_t bytes) { impl_->cache.SetCapacity(bytes); }

}  // namespace slotkv::chunk
