// Log: a numbered series of WAL files in one slot directory.
//
//   dir/     := wal-NNNNNN.log ...      NNNNNN = file number, decimal, zero-padded to 6 digits
//                                       (more digits past 999999), starting at 1
//   file     := record*                 records as in wal/record.cc, back to back, no padding
//   tail     := record* (torn | zero*)  only the newest file may end in a torn record or zero
//                                       fill; Open truncates it
//
// Example: a slot with file_bytes = 64 MB after 70 MB of records holds
//   wal-000001.log  (64 MB + the record that crossed the limit)
//   wal-000002.log  (the rest)
// and a LogPos {file_no=2, offset=4096, size=30} names the 30-byte record at byte 4096 of
// wal-000002.log. Records never span files.
//
//   unit     := record* record          every record of a unit but its last has the more bit
//                                       (wal/record.cc); replay applies a unit whole or not at
//                                       all, and a torn tail is cut back to its unit's start
//
// Design: appends go to an in-memory buffer that belongs to the current (newest) file and starts
// at its size. The records appended since BeginUnit are the open unit; Commit closes it and
// hands the buffer to the file in one write. A held log (a transaction holds the slot,
// slot::Slot::Hold) keeps its open unit in the buffer and writes only what is before it. A
// unit never spans files: a new file starts only between units. So a LogPos in the current
// file at or past its size lives in the buffer. On a worker (a thread with an io_uring) and with
// Options::ring_writes, CommitThen hands the buffer to the ring instead: one write in flight at a
// time, its bytes kept in memory (and read from there) until it completes; commits meanwhile share
// the next one. A synchronous path (Commit, Sync, a new file) first writes the bytes in flight
// again itself (Settle: the same bytes at the same offset, so whichever lands last changes
// nothing), so that its fsync covers them. Every live file keeps an open handle for ReadAt. A
// failed write or sync leaves failure set: what reached the file is unknown, so the log refuses
// further writes until it is reopened and replay decides.
#include "wal/log.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "core/base/buffer.h"
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"

namespace slotkv::wal {
namespace {

// Replay reads files this many bytes at a time (more when one record is larger).
constexpr size_t kReadChunk = 4 << 20;
constexpr int64_t kEverySecUs = 1'000'000;

std::string FileName(uint32_t file_no) {
  char name[32];
  std::snprintf(name, sizeof(name), "wal-%06u.log", file_no);
  return name;
}

// The number in "wal-NNNNNN.log", or 0 when name is not a WAL file.
uint32_t ParseFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "wal-", kSuffix = ".log";
  if (name.size() < kPrefix.size() + 6 + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return 0;
  }
  std::string_view digits = name.substr(kPrefix.size(), name.size() - 8);
  if (digits.size() > 10) return 0;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n > UINT32_MAX ? 0 : static_cast<uint32_t>(n);
}

Status CorruptionAt(uint32_t file_no, uint64_t offset, std::string_view reason) {
  return Status::Corruption(FileName(file_no) + " at offset " + std::to_string(offset) + ": " +
                            std::string(reason));
}

// Why DecodeRecord said kCorrupt for in (which holds the whole declared record).
std::string_view CorruptReason(std::string_view in) {
  const uint32_t length = DecodeFixed32(in.data() + 4);
  if (length > kMaxRecordBody) return "record too large";
  if (DecodeFixed32(in.data()) != Checksum(in.substr(4, 4 + static_cast<size_t>(length)))) {
    return "checksum mismatch";
  }
  return "malformed record";
}

// Sequential reader over one file for replay: keeps a window of the file in memory and reads
// ahead in big chunks, so replay costs one read per kReadChunk, not one per record.
class ChunkReader {
 public:
  ChunkReader(const File* file, uint64_t size) : file_(file), size_(size) {}

  // Returns the buffered bytes from off on, at least min(n, size - off) of them.
  // REQUIRES: off never decreases between calls; off <= size.
  Result<std::string_view> Peek(uint64_t off, size_t n) {
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - off));
    if (off + n > start_ + buf_.size()) {
      buf_.erase(0, static_cast<size_t>(std::min<uint64_t>(off - start_, buf_.size())));
      start_ = off;
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>(std::max(n, kReadChunk), size_ - off));
      size_t have = buf_.size();
      buf_.resize(want);
      while (have < want) {
        SLOTKV_ASSIGN_OR_RETURN(size_t got,
                                file_->Read(start_ + have, want - have, buf_.data() + have));
        if (got == 0) break;  // the file shrank under us: decode what is there
        have += got;
      }
      buf_.resize(have);
    }
    return std::string_view(buf_).substr(static_cast<size_t>(off - start_));
  }

 private:
  const File* file_;
  uint64_t size_;
  uint64_t start_ = 0;  // file offset of buf_[0]
  std::string buf_;
};

bool AllZero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

// The offset of the first whole record (checksum matching) at or after from, or size when
// there is none. Replay looks past a damaged record of the newest file with it: records after
// the damage were acknowledged, so damage followed by one is Corruption, not a tail to cut (a
// bad length field used to cut every record after it without a word).
Result<uint64_t> NextWholeRecord(ChunkReader& reader, uint64_t from, uint64_t size) {
  for (uint64_t at = from; at + kRecordHeaderSize <= size;) {
    SLOTKV_ASSIGN_OR_RETURN(std::string_view in, reader.Peek(at, kRecordHeaderSize));
    if (in.size() < kRecordHeaderSize) break;
    // No record starts with a zero checksum and length: skip zero runs whole.
    if (const size_t nonzero = in.find_first_not_of('\0'); nonzero != 0) {
      at += nonzero == std::string_view::npos ? in.size() : nonzero;
      continue;
    }
    const uint64_t length = DecodeFixed32(in.data() + 4);
    if (length <= kMaxRecordBody && at + kRecordHeaderSize + length <= size) {
      SLOTKV_ASSIGN_OR_RETURN(std::string_view whole,
                              reader.Peek(at, static_cast<size_t>(kRecordHeaderSize + length)));
      Record record;
      size_t consumed = 0;
      if (DecodeRecord(whole, &record, &consumed) == DecodeResult::kOk) return at;
    }
    ++at;
  }
  return size;
}

}  // namespace

struct Log::Impl {
  Status CheckPos(const LogPos& pos) const;
  Result<Record> DecodeAt(const LogPos& pos, std::string_view in) const;
  // Whether the record at pos is in memory (buffered, or in the ring write in flight), with
  // its bytes in *bytes then. REQUIRES: CheckPos(pos) is OK.
  bool InMemory(const LogPos& pos, std::string_view* bytes) const;
  struct LiveFile {
    std::unique_ptr<File> file;
    uint64_t size = 0;  // bytes written or handed to the ring (the buffer not included)
  };

  Options options;
  Clock* clock = nullptr;
  std::map<uint32_t, LiveFile> files;  // never empty after Open; the last is the current file
  uint32_t current_no = 0;
  std::string buffer;     // encoded records not yet written, to follow files[current_no]
  // File offsets (in the current file) of the records of the open unit, at the buffer's end
  // (empty when none is open: outside BeginUnit each record is a unit of its own).
  std::vector<uint64_t> unit;
  bool unsynced = false;  // bytes reached the current file since its last sync
  int64_t last_sync_us = 0;
  Status failure;  // first write/sync error; sticky
  // The fsync in flight through the thread's io_uring, if any (everysec, or kAlways commits),
  // shared with its completion, which may come after the log is gone.
  struct RingSync {
    Impl* log = nullptr;  // nullptr once the log is destroyed
    bool inflight = false;
    int error = 0;        // errno of a failed ring fsync; sticky
    Status closed;        // the destructor's own sync, when it ran with a ring fsync in flight
    std::vector<std::function<void(const Status&)>> current;  // durable with the one in flight
    std::vector<std::function<void(const Status&)>> next;     // need the one after it
  };
  std::shared_ptr<RingSync> ring_sync = MakeRingSync();
  // The write in flight through the thread's io_uring, if any (CommitThen on a worker),
  // shared with its completion, which may come after the log is gone.
  struct RingWrite {
    Impl* log = nullptr;  // nullptr once the log is destroyed
    std::shared_ptr<const std::string> bytes;  // in flight; null when none
    uint32_t file_no = 0;
    uint64_t offset = 0;
    bool settled = false;  // written again synchronously (Settle)
    Status closed;         // what the destructor made of it, when it ran with one in flight
    std::vector<std::function<void(const Status&)>> current;  // written with the one in flight
    std::vector<std::function<void(const Status&)>> next;     // need the one after it
  };
  std::shared_ptr<RingWrite> ring_write = MakeRingWrite();

  std::shared_ptr<RingSync> MakeRingSync() {
    auto rs = std::make_shared<RingSync>();
    rs->log = this;
    return rs;
  }
  std::shared_ptr<RingWrite> MakeRingWrite() {
    auto rw = std::make_shared<RingWrite>();
    rw->log = this;
    return rw;
  }

  bool in_unit = false;  // BeginUnit came, EndUnit not yet: appends join the open unit
  bool held = false;     // Hold: the open unit stays open through writes

  void EndUnit() {
    in_unit = false;
    // Every record but the last says that the next one is of the same unit. They are all
    // still in the buffer: nothing of an open unit is ever written.
    for (size_t i = 0; i + 1 < unit.size(); ++i) {
      SetMore(buffer.data() + (unit[i] - Current().size));
    }
    unit.clear();
  }
  void CloseUnitUnlessHeld() {
    if (!held && in_unit) EndUnit();
  }

  // Bytes at the buffer's start that hold closed units (what a write may take).
  size_t closed_bytes() const {
    return unit.empty() ? buffer.size() : static_cast<size_t>(unit.front() - Current().size);
  }
  // Takes the closed units out of the buffer (Current().size is advanced by the caller).
  std::string TakeClosed() {
    const size_t n = closed_bytes();
    if (n == buffer.size()) return std::exchange(buffer, std::string());
    std::string out = buffer.substr(0, n);
    buffer.erase(0, n);
    ReleaseLargeBuffer(&buffer);
    return out;
  }

  // Hands the closed units of the buffer to ring as one write at the end of the current file.
  void StartRingWrite(IoRing* ring) {
    RingWrite& rw = *ring_write;
    rw.bytes = std::make_shared<const std::string>(TakeClosed());
    rw.file_no = current_no;
    rw.offset = Current().size;
    rw.settled = false;
    Current().size += rw.bytes->size();
    ring->Write(Current().file->NativeHandle(), rw.offset, rw.bytes,
                [rw = ring_write, ring](int error) { OnRingWritten(rw, ring, error); });
  }

  // A ring write completed: its waiters learn the outcome, and those of the next one get it
  // started (or learn the outcome too when a synchronous path wrote their records since).
  static void OnRingWritten(const std::shared_ptr<RingWrite>& rw, IoRing* ring, int error) {
    Impl* log = rw->log;
    Status st = log != nullptr ? log->failure : rw->closed;
    if (error != 0) {
      st = Status::IOError(std::string("wal: write: ") + std::strerror(error));
      if (log != nullptr) log->Fail(st).PermitUnchecked();  // sticky
    } else if (log != nullptr && !rw->settled) {
      log->stats.bytes_written += rw->bytes->size();
      log->unsynced = true;
    }
    rw->bytes.reset();
    std::vector<std::function<void(const Status&)>> done = std::move(rw->current);
    rw->current.clear();
    if (!rw->next.empty()) {
      if (st.ok() && log != nullptr && log->closed_bytes() > 0) {
        rw->current = std::move(rw->next);
        rw->next.clear();
        log->StartRingWrite(ring);
      } else {  // failed, or a synchronous path wrote their records since
        for (auto& fn : rw->next) done.push_back(std::move(fn));
        rw->next.clear();
      }
    }
    for (auto& fn : done) fn(st);
  }

  // The write in flight, written again synchronously, so that what follows (a write of the
  // buffer behind it, an fsync) finds its bytes in the file.
  Status Settle() {
    RingWrite& rw = *ring_write;
    if (!rw.bytes || rw.settled) return Status::OK();
    Status st = files.at(rw.file_no).file->Write(rw.offset, *rw.bytes);
    if (!st.ok()) return Fail(std::move(st));
    rw.settled = true;
    stats.bytes_written += rw.bytes->size();
    unsynced = true;  // rw.file_no is the current file: a new file settles first
    return Status::OK();
  }

  // Submits an fsync of the current file through ring for what was written so far.
  void StartRingSync(IoRing* ring) {
    ring_sync->inflight = true;
    ++stats.syncs;
    unsynced = false;
    last_sync_us = clock->MonotonicUs();
    ring->Sync(Current().file->NativeHandle(),
               [rs = ring_sync](int error) { OnRingSynced(rs, error); });
  }

  // A ring fsync completed: its waiters learn the outcome, and those of the next one get it
  // started (or learn the failure too).
  static void OnRingSynced(const std::shared_ptr<RingSync>& rs, int error) {
    rs->inflight = false;
    if (error != 0 && rs->error == 0) rs->error = error;
    Status st = rs->error != 0 ? Status::IOError(std::string("wal: fdatasync: ") +
                                                 std::strerror(rs->error))
                               : rs->closed;
    std::vector<std::function<void(const Status&)>> done = std::move(rs->current);
    rs->current.clear();
    if (!rs->next.empty()) {
      IoRing* ring = IoRing::Current();
      if (st.ok() && rs->log != nullptr && rs->log->unsynced && ring != nullptr) {
        rs->current = std::move(rs->next);
        rs->next.clear();
        rs->log->StartRingSync(ring);
      } else {
        // Failed, or already durable (a synchronous sync since, or the destructor's).
        if (st.ok() && rs->log != nullptr && rs->log->unsynced) st = rs->log->SyncCurrent();
        for (auto& fn : rs->next) done.push_back(std::move(fn));
        rs->next.clear();
      }
    }
    for (auto& fn : done) fn(st);
  }
  uint64_t truncated_tail_bytes = 0;
  LogStats stats;

  std::string PathOf(uint32_t file_no) const { return JoinPath(options.dir, FileName(file_no)); }
  LiveFile& Current() { return files.at(current_no); }
  const LiveFile& Current() const { return files.at(current_no); }

  Status Fail(Status st) {
    if (failure.ok()) failure = st;
    return st;
  }

  Status SyncCurrent() {
    Status st = Current().file->Sync();
    if (!st.ok()) return Fail(std::move(st));
    ++stats.syncs;
    unsynced = false;
    last_sync_us = clock->MonotonicUs();
    return Status::OK();
  }

  // everysec: the fsync goes through the thread's io_uring when it has one (a worker), so the
  // worker serves requests while the disk works; one at a time. A failure it reports later
  // fails the log as a failed sync here does (CheckRingSync).
  Status SyncEverySec() {
    IoRing* ring = IoRing::Current();
    if (ring == nullptr || Current().file->NativeHandle() < 0) return SyncCurrent();
    if (ring_sync->inflight) return Status::OK();  // a later Commit syncs what came since
    StartRingSync(ring);
    return Status::OK();
  }

  // done(status) once everything appended so far is written: at once when it is, else from
  // the completion of a ring write (the one in flight when it holds every record, else the
  // next, started here when none is in flight).
  void WriteThen(IoRing* ring, std::function<void(const Status&)> done);
  // WriteThen, then done(status) once everything written is durable: at once when it already
  // is, else from the completion of a ring fsync (the one in flight when it covers every
  // byte, else the next, started here when none is in flight).
  void SyncThen(IoRing* ring, std::function<void(const Status&)> done);
  void FsyncThen(IoRing* ring, std::function<void(const Status&)> done);
  // Syncs what was written per the fsync policy (kAlways: now; kEverySec: when the last sync
  // is a second old, through the ring on a worker; kNo: never).
  Status SyncPerPolicy();
  Status RemoveBefore(uint32_t file_no);

  Status CheckRingSync() {
    if (ring_sync->error == 0) return Status::OK();
    return Fail(Status::IOError(PathOf(current_no) + ": fdatasync: " +
                                std::strerror(ring_sync->error)));
  }

  // Settles the ring write in flight and writes the closed units of the buffer behind it.
  Status WriteBuffer() {
    SLOTKV_RETURN_IF_ERROR(Settle());
    const size_t n = closed_bytes();
    if (n == 0) return Status::OK();
    Status st = Current().file->Write(Current().size, std::string_view(buffer).substr(0, n));
    if (!st.ok()) return Fail(std::move(st));
    Current().size += n;
    stats.bytes_written += n;
    buffer.erase(0, n);
    ReleaseLargeBuffer(&buffer);
    unsynced = true;
    return Status::OK();
  }

  // Creates file_no and makes it the current file.
  Status CreateFile(uint32_t file_no) {
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, options.fs->Open(PathOf(file_no)));
    SLOTKV_RETURN_IF_ERROR(options.fs->SyncDir(options.dir));
    files[file_no] = LiveFile{std::move(file), 0};
    current_no = file_no;
    unsynced = false;
    return Status::OK();
  }

  // Closes the current file (written out and synced) and starts the next one. Synced under
  // every policy, kNo included: one sync per file_bytes of log costs little, and it means a
  // power cut can only tear the newest file, whose damaged tail replay truncates; a torn older
  // file would stop Open with Corruption.
  Status Rotate() {
    SLOTKV_RETURN_IF_ERROR(WriteBuffer());
    if (unsynced) SLOTKV_RETURN_IF_ERROR(SyncCurrent());
    Status st = CreateFile(current_no + 1);
    if (!st.ok()) return Fail(std::move(st));
    return Status::OK();
  }

  Status Replay(uint32_t file_no, bool newest, const Visitor& visit);
};

// Replays one file. For the newest file a damaged tail is truncated; anything else damaged is
// Corruption naming the file and offset.
Status Log::Impl::Replay(uint32_t file_no, bool newest, const Visitor& visit) {
  LiveFile& live = files.at(file_no);
  const uint64_t size = live.file->Size();
  ChunkReader reader(live.file.get(), size);
  uint64_t off = 0;
  std::string_view tail_reason;
  // The records of the unit being read, visited once its last record is read.
  std::vector<std::pair<Record, LogPos>> unit_records;
  uint64_t unit_start = 0;
  while (off < size) {
    SLOTKV_ASSIGN_OR_RETURN(std::string_view in, reader.Peek(off, kRecordHeaderSize));
    uint64_t declared_end = size + 1;  // unknown until a header is read: treat as past the end
    if (in.size() >= kRecordHeaderSize) {
      declared_end = off + kRecordHeaderSize + DecodeFixed32(in.data() + 4);
      if (declared_end <= size) {
        SLOTKV_ASSIGN_OR_RETURN(in, reader.Peek(off, static_cast<size_t>(declared_end - off)));
      }
    }
    Record record;
    size_t consumed = 0;
    const DecodeResult result = DecodeRecord(in, &record, &consumed);
    if (result == DecodeResult::kOk) {
      if (unit_records.empty()) unit_start = off;
      const bool more = record.more;
      unit_records.emplace_back(std::move(record),
                                LogPos{.offset = off, .file_no = file_no,
                                       .size = static_cast<uint32_t>(consumed)});
      off += consumed;
      if (more) continue;
      for (auto& [r, pos] : unit_records) {
        if (visit) SLOTKV_RETURN_IF_ERROR(visit(r, pos));
      }
      unit_records.clear();
      continue;
    }
    if (in.size() >= kRecordHeaderSize && AllZero(in.substr(0, kRecordHeaderSize))) {
      // Zero fill is a tail only when nothing but zeros follows it.
      for (uint64_t at = off; at < size;) {
        SLOTKV_ASSIGN_OR_RETURN(std::string_view rest, reader.Peek(at, kReadChunk));
        if (rest.empty()) break;
        if (!AllZero(rest)) return CorruptionAt(file_no, off, "zero-filled header before data");
        at += rest.size();
      }
      tail_reason = "zero fill";
    } else {
      tail_reason = result == DecodeResult::kIncomplete ? "incomplete record" : CorruptReason(in);
      if (declared_end < size) return CorruptionAt(file_no, off, tail_reason);
      // A torn tail, or a damaged length in the middle of the file?
      SLOTKV_ASSIGN_OR_RETURN(uint64_t next,
                              newest ? NextWholeRecord(reader, off + 1, size) : size);
      if (next < size) {
        return CorruptionAt(file_no, off,
                            std::string(tail_reason) + "; whole records follow from offset " +
                                std::to_string(next));
      }
    }
    break;
  }
  if (off == size && unit_records.empty()) {
    live.size = size;
    return Status::OK();
  }
  if (off == size) tail_reason = "unit cut short";
  if (!newest) return CorruptionAt(file_no, unit_records.empty() ? off : unit_start, tail_reason);
  // A unit cut short by the tail goes with it: none of its records was acknowledged.
  if (!unit_records.empty()) off = unit_start;
  // A torn tail of the newest file: the write that made it was never acknowledged as durable.
  std::fprintf(stderr, "wal: %s: cutting a torn tail of %llu bytes at offset %llu (%.*s)\n",
               PathOf(file_no).c_str(), static_cast<unsigned long long>(size - off),
               static_cast<unsigned long long>(off), static_cast<int>(tail_reason.size()),
               tail_reason.data());
  SLOTKV_RETURN_IF_ERROR(live.file->Truncate(off));
  SLOTKV_RETURN_IF_ERROR(live.file->Sync());
  ++stats.syncs;
  truncated_tail_bytes += size - off;
  live.size = off;
  return Status::OK();
}

Result<std::unique_ptr<Log>> Log::Open(const Options& options, const Visitor& visit) {
  if (options.fs == nullptr) return Status::InvalidArgument("wal: Options::fs is null");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->clock = options.clock != nullptr ? options.clock : SystemClock();

  SLOTKV_ASSIGN_OR_RETURN(std::vector<std::string> names, options.fs->List(options.dir));
  std::vector<uint32_t> numbers;
  for (const std::string& name : names) {
    if (uint32_t n = ParseFileName(name); n != 0) numbers.push_back(n);
  }
  std::sort(numbers.begin(), numbers.end());
  for (uint32_t n : numbers) {
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, options.fs->Open(impl->PathOf(n)));
    impl->files[n] = Impl::LiveFile{std::move(file), 0};
  }
  for (uint32_t n : numbers) {
    SLOTKV_RETURN_IF_ERROR(impl->Replay(n, n == numbers.back(), visit));
  }
  if (numbers.empty()) {
    SLOTKV_RETURN_IF_ERROR(impl->CreateFile(1));
  } else {
    impl->current_no = numbers.back();
  }
  impl->last_sync_us = impl->clock->MonotonicUs();
  return std::unique_ptr<Log>(new Log(std::move(impl)));
}

Log::Log(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// Buffered records that were never committed are dropped: nobody was told they are stored.
Log::~Log() {
  Impl& m = *impl_;
  m.ring_sync->log = nullptr;
  m.ring_write->log = nullptr;
  // Commits waiting on a ring write or fsync still get their answer, from its completion: make
  // what they wait for durable now, since no later write or fsync of this log will come.
  if (m.ring_sync->inflight || m.ring_write->bytes) {
    Status st = m.failure;
    if (st.ok() && m.ring_write->bytes) st = m.WriteBuffer();
    if (st.ok() && m.unsynced) st = m.SyncCurrent();
    m.ring_sync->closed = st;
    m.ring_write->closed = st;
  }
}

Result<LogPos> Log::Append(const Record& record) {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  const uint64_t current_size = m.Current().size + m.buffer.size();
  if (m.unit.empty() && current_size > 0 && current_size >= m.options.file_bytes) {
    SLOTKV_RETURN_IF_ERROR(m.Rotate());
  }
  const size_t start = m.buffer.size();
  EncodeRecord(record, &m.buffer);
  const size_t encoded = m.buffer.size() - start;
  if (encoded - kRecordHeaderSize > kMaxRecordBody) {
    m.buffer.resize(start);
    return Status::InvalidArgument("wal: record of " + std::to_string(encoded) +
                                   " bytes is larger than the limit");
  }
  ++m.stats.records_appended;
  if (m.in_unit) m.unit.push_back(m.Current().size + start);
  return LogPos{.offset = m.Current().size + start, .file_no = m.current_no,
                .size = static_cast<uint32_t>(encoded)};
}

void Log::BeginUnit() { impl_->in_unit = true; }
void Log::EndUnit() { impl_->EndUnit(); }

void Log::Hold() { impl_->held = true; }
void Log::Unhold() { impl_->held = false; }

Status Log::Commit() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  m.CloseUnitUnlessHeld();
  SLOTKV_RETURN_IF_ERROR(m.CheckRingSync());
  SLOTKV_RETURN_IF_ERROR(m.WriteBuffer());
  return m.SyncPerPolicy();
}

Status Log::Impl::SyncPerPolicy() {
  if (!unsynced) return Status::OK();
  switch (options.fsync) {
    case FsyncPolicy::kAlways:
      return SyncCurrent();
    case FsyncPolicy::kEverySec:
      if (clock->MonotonicUs() - last_sync_us >= kEverySecUs) return SyncEverySec();
      return Status::OK();
    case FsyncPolicy::kNo:
      return Status::OK();
  }
  return Status::OK();
}

void Log::CommitThen(std::function<void(const Status&)> done) {
  Impl& m = *impl_;
  m.CloseUnitUnlessHeld();
  IoRing* ring = IoRing::Current();
  if (ring == nullptr || m.Current().file->NativeHandle() < 0) {
    done(Commit());
    return;
  }
  if (m.options.fsync == FsyncPolicy::kAlways) {
    m.SyncThen(ring, std::move(done));
    return;
  }
  m.WriteThen(ring, [rw = m.ring_write, done = std::move(done)](const Status& st) {
    done(st.ok() && rw->log != nullptr ? rw->log->SyncPerPolicy() : st);
  });
}

void Log::Impl::WriteThen(IoRing* ring, std::function<void(const Status&)> done) {
  Status st = failure;
  if (st.ok()) st = CheckRingSync();
  if (!st.ok()) {
    done(st);
    return;
  }
  if (!options.ring_writes) {
    done(WriteBuffer());
    return;
  }
  RingWrite& rw = *ring_write;
  if (rw.bytes) {
    (closed_bytes() == 0 ? rw.current : rw.next).push_back(std::move(done));
    return;
  }
  if (closed_bytes() == 0) {
    done(Status::OK());
    return;
  }
  rw.current.push_back(std::move(done));
  StartRingWrite(ring);
}

void Log::Impl::SyncThen(IoRing* ring, std::function<void(const Status&)> done) {
  // A destroyed log answers with what its destructor made durable.
  WriteThen(ring, [rw = ring_write, ring, done = std::move(done)](const Status& st) {
    if (!st.ok() || rw->log == nullptr) {
      done(st);
      return;
    }
    rw->log->FsyncThen(ring, done);
  });
}

void Log::Impl::FsyncThen(IoRing* ring, std::function<void(const Status&)> done) {
  Impl& m = *this;
  RingSync& rs = *m.ring_sync;
  if (!m.unsynced) {
    // Nothing written since the last fsync was started: durable once it completes.
    if (rs.inflight) {
      rs.current.push_back(std::move(done));
    } else {
      done(Status::OK());
    }
    return;
  }
  if (rs.inflight) {
    rs.next.push_back(std::move(done));
    return;
  }
  rs.current.push_back(std::move(done));
  m.StartRingSync(ring);
}

void Log::set_fsync(FsyncPolicy fsync) { impl_->options.fsync = fsync; }

Status Log::Sync() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  m.CloseUnitUnlessHeld();
  SLOTKV_RETURN_IF_ERROR(m.CheckRingSync());
  SLOTKV_RETURN_IF_ERROR(m.WriteBuffer());
  return m.SyncCurrent();
}

// Checks pos against the live files.
Status Log::Impl::CheckPos(const LogPos& pos) const {
  auto it = files.find(pos.file_no);
  if (it == files.end()) return Status::NotFound(FileName(pos.file_no) + " is not a live WAL file");
  if (pos.size < kRecordHeaderSize) {
    return Status::InvalidArgument("wal: LogPos size " + std::to_string(pos.size) + " too small");
  }
  uint64_t end = it->second.size;
  if (pos.file_no == current_no) end += buffer.size();
  if (pos.offset + pos.size > end) {
    return Status::InvalidArgument("wal: LogPos past the end of " + FileName(pos.file_no));
  }
  return Status::OK();
}

Result<Record> Log::Impl::DecodeAt(const LogPos& pos, std::string_view in) const {
  Record record;
  size_t consumed = 0;
  switch (DecodeRecord(in, &record, &consumed)) {
    case DecodeResult::kOk:
      if (consumed != pos.size) return CorruptionAt(pos.file_no, pos.offset, "size mismatch");
      return record;
    case DecodeResult::kIncomplete:
      return CorruptionAt(pos.file_no, pos.offset, "incomplete record");
    case DecodeResult::kCorrupt:
      break;
  }
  return CorruptionAt(pos.file_no, pos.offset, CorruptReason(in));
}

bool Log::Impl::InMemory(const LogPos& pos, std::string_view* bytes) const {
  const RingWrite& rw = *ring_write;
  if (rw.bytes && pos.file_no == rw.file_no && pos.offset >= rw.offset &&
      pos.offset < rw.offset + rw.bytes->size()) {
    *bytes = std::string_view(*rw.bytes).substr(static_cast<size_t>(pos.offset - rw.offset),
                                                 pos.size);
    return true;
  }
  const uint64_t size = files.at(pos.file_no).size;
  if (pos.file_no != current_no || pos.offset < size) return false;
  *bytes = std::string_view(buffer).substr(static_cast<size_t>(pos.offset - size), pos.size);
  return true;
}

Result<Record> Log::ReadAt(const LogPos& pos) const {
  const Impl& m = *impl_;
  SLOTKV_RETURN_IF_ERROR(m.CheckPos(pos));
  std::string_view in_memory;
  if (m.InMemory(pos, &in_memory)) return m.DecodeAt(pos, in_memory);
  std::string from_file(pos.size, '\0');
  SLOTKV_ASSIGN_OR_RETURN(size_t got,
                          m.files.at(pos.file_no).file->Read(pos.offset, pos.size, from_file.data()));
  if (got != pos.size) return CorruptionAt(pos.file_no, pos.offset, "short read");
  return m.DecodeAt(pos, from_file);
}

Status Log::ReadMany(const std::vector<LogPos>& positions, std::vector<Record>* records) const {
  const Impl& m = *impl_;
  records->assign(positions.size(), Record());
  size_t total = 0;
  std::vector<std::string_view> in_memory(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    SLOTKV_RETURN_IF_ERROR(m.CheckPos(positions[i]));
    if (!m.InMemory(positions[i], &in_memory[i])) total += positions[i].size;
  }
  // One batch per file, into one buffer.
  std::string bytes(total, '\0');
  std::map<uint32_t, std::vector<ReadRequest>> batches;
  std::vector<size_t> at(positions.size());
  size_t used = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (!in_memory[i].empty()) continue;
    at[i] = used;
    batches[positions[i].file_no].push_back(
        {.offset = positions[i].offset, .n = positions[i].size, .buf = bytes.data() + used});
    used += positions[i].size;
  }
  for (auto& [file_no, batch] : batches) {
    SLOTKV_RETURN_IF_ERROR(m.files.at(file_no).file->ReadMany(batch));
    for (const ReadRequest& r : batch) {
      if (r.done != r.n) return CorruptionAt(file_no, r.offset, "short read");
    }
  }
  for (size_t i = 0; i < positions.size(); ++i) {
    std::string_view in = !in_memory[i].empty()
                              ? in_memory[i]
                              : std::string_view(bytes).substr(at[i], positions[i].size);
    SLOTKV_ASSIGN_OR_RETURN((*records)[i], m.DecodeAt(positions[i], in));
  }
  return Status::OK();
}

Status Log::StartNewFile() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  if (m.Current().size + m.buffer.size() == 0) return Status::OK();
  m.CloseUnitUnlessHeld();
  if (!m.unit.empty()) return Status::Busy("wal: a unit is held open");
  return m.Rotate();
}

Status Log::RemoveFilesBefore(uint32_t file_no) { return impl_->RemoveBefore(file_no); }

Status Log::Impl::RemoveBefore(uint32_t file_no) {
  // On a worker the names go through its ring: closing a file that still has its name is cheap,
  // the unlink that frees it is not.
  auto removable = [&](uint32_t no) { return no < file_no && no != current_no; };
  if (files.empty() || !removable(files.begin()->first)) return Status::OK();
  IoRing* ring = IoRing::Current();
  const int dir_fd = ring ? options.fs->OpenDir(options.dir) : -1;
  Status st;
  while (!files.empty()) {
    auto it = files.begin();
    const uint32_t no = it->first;
    if (!removable(no)) break;
    if (dir_fd >= 0) {
      files.erase(it);
      ring->Unlink(dir_fd, FileName(no), [path = PathOf(no)](int error) {
        // A file left behind is taken again at the next Open (its records are covered).
        if (error != 0 && error != ENOENT) {
          std::fprintf(stderr, "wal: removing %s: %s\n", path.c_str(), std::strerror(error));
        }
      });
    } else {
      st = options.fs->Remove(PathOf(no));
      if (!st.ok()) break;
      files.erase(it);
    }
    ++stats.files_removed;
  }
  if (dir_fd >= 0) close(dir_fd);
  return st;
}

Status Log::RemoveFilesBeforeWhenDurable(uint32_t file_no) {
  Impl& m = *impl_;
  IoRing* ring = IoRing::Current();
  if (ring == nullptr || m.Current().file->NativeHandle() < 0) {
    SLOTKV_RETURN_IF_ERROR(Sync());
    return m.RemoveBefore(file_no);
  }
  if (!m.failure.ok()) return m.failure;
  m.SyncThen(ring, [rs = m.ring_sync, file_no](const Status& st) {
    // A failed fsync is already the log's failure; a destroyed log leaves the files to the
    // next open (replay only finds records that were persisted).
    if (!st.ok() || rs->log == nullptr) return;
    Status removed = rs->log->RemoveBefore(file_no);
    if (!removed.ok()) rs->log->Fail(std::move(removed)).PermitUnchecked();  // now sticky
  });
  return Status::OK();
}

uint32_t Log::current_file_no() const { return impl_->current_no; }
uint32_t Log::oldest_file_no() const { return impl_->files.begin()->first; }

uint64_t Log::total_bytes() const {
  uint64_t total = impl_->buffer.size();
  for (const auto& [no, live] : impl_->files) total += live.size;
  return total;
}

uint64_t Log::truncated_tail_bytes() const { return impl_->truncated_tail_bytes; }
bool Log::failed() const { return !impl_->failure.ok(); }
const LogStats& Log::stats() const { return impl_->stats; }

}  // namespace slotkv::wal
