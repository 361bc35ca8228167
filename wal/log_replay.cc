// Opening a Log (format and design in log.cc): its files are replayed in order, unit by unit;
// a damaged tail of the newest file is cut (logged and counted), any other damage is
// Corruption naming the file and offset.
#include <algorithm>
#include <cstdio>

#include "wal/log_impl.h"

namespace slotkv::wal {
namespace {

// Replay reads files this many bytes at a time (more when one record is larger).
constexpr size_t kReadChunk = 4 << 20;

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

// Replays one file. When it may be torn (the newest, or the one before it when the newest may
// follow a tear) a damaged tail is truncated and *torn set; anything else damaged is
// Corruption naming the file and offset.
Status Log::Impl::Replay(uint32_t file_no, bool may_tear, const Visitor& visit, bool* torn) {
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
      if (record.kind == RecordKind::kRotationPending ||
          record.kind == RecordKind::kRotationSynced) {  // for Open, not the visitor
        off += consumed;
        continue;
      }
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
                              may_tear ? NextWholeRecord(reader, off + 1, size) : size);
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
  if (!may_tear) {
    return CorruptionAt(file_no, unit_records.empty() ? off : unit_start, tail_reason);
  }
  // A unit cut short by the tail goes with it: none of its records was acknowledged.
  if (!unit_records.empty()) off = unit_start;
  // A torn tail: the write that made it was never acknowledged as durable.
  *torn = true;
  return CutTail(file_no, off, tail_reason);
}

Result<bool> Log::Impl::MayFollowTear(uint32_t file_no) {
  LiveFile& live = files.at(file_no);
  const uint64_t size = live.file->Size();
  if (size == 0) return true;
  ChunkReader reader(live.file.get(), size);
  SLOTKV_ASSIGN_OR_RETURN(std::string_view in, reader.Peek(0, kRecordHeaderSize));
  if (in.size() < kRecordHeaderSize) return true;
  const uint64_t end = kRecordHeaderSize + uint64_t{DecodeFixed32(in.data() + 4)};
  if (end > size || end > kRecordHeaderSize + kMaxRecordBody) return true;
  SLOTKV_ASSIGN_OR_RETURN(in, reader.Peek(0, static_cast<size_t>(end)));
  Record record;
  size_t consumed = 0;
  if (DecodeRecord(in, &record, &consumed) != DecodeResult::kOk) return true;
  if (record.kind != RecordKind::kRotationPending) return false;
  // Unless it says, further on, that those syncs completed.
  for (uint64_t off = consumed; off + kRecordHeaderSize <= size; off += consumed) {
    SLOTKV_ASSIGN_OR_RETURN(in, reader.Peek(off, kRecordHeaderSize));
    const uint64_t length = DecodeFixed32(in.data() + 4);
    if (length > kMaxRecordBody || off + kRecordHeaderSize + length > size) break;
    SLOTKV_ASSIGN_OR_RETURN(in, reader.Peek(off, static_cast<size_t>(kRecordHeaderSize + length)));
    if (DecodeRecord(in, &record, &consumed) != DecodeResult::kOk) break;
    if (record.kind == RecordKind::kRotationSynced) return false;
  }
  return true;
}

Status Log::Impl::CutTail(uint32_t file_no, uint64_t off, std::string_view reason) {
  LiveFile& live = files.at(file_no);
  const uint64_t size = live.file->Size();
  live.size = off;
  if (size == off) return Status::OK();
  std::fprintf(stderr, "wal: %s: cutting a torn tail of %llu bytes at offset %llu (%.*s)\n",
               PathOf(file_no).c_str(), static_cast<unsigned long long>(size - off),
               static_cast<unsigned long long>(off), static_cast<int>(reason.size()),
               reason.data());
  SLOTKV_RETURN_IF_ERROR(live.file->Truncate(off));
  SLOTKV_RETURN_IF_ERROR(live.file->Sync());
  ++stats.syncs;
  truncated_tail_bytes += size - off;
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
  // A power cut may tear the newest two files: the new file takes writes while the old one's
  // rotation syncs are out (and says so first: MayFollowTear). When the older is torn, those
  // syncs never completed, so nothing of the newer was durable (durable_end) or acknowledged
  // as such: the log ends at the tear.
  bool torn = false;
  for (size_t i = 0; i < numbers.size(); ++i) {
    const bool second_newest = i + 2 == numbers.size();
    if (second_newest) {
      SLOTKV_ASSIGN_OR_RETURN(const bool may_tear, impl->MayFollowTear(numbers[i + 1]));
      SLOTKV_RETURN_IF_ERROR(impl->Replay(numbers[i], may_tear, visit, &torn));
      if (torn) SLOTKV_RETURN_IF_ERROR(impl->CutTail(numbers[i + 1], 0, "follows a torn file"));
      if (torn) break;
      continue;
    }
    SLOTKV_RETURN_IF_ERROR(impl->Replay(numbers[i], i + 1 == numbers.size(), visit, &torn));
  }
  if (numbers.empty()) {
    SLOTKV_RETURN_IF_ERROR(impl->CreateFile(1));
  } else {
    impl->current_no = numbers.back();
  }
  // What was replayed may not be durable: a killed process leaves its writes in the page cache,
  // and a rotation's sync may not have finished. A rotation completes the one before it first,
  // so syncing the newest two makes every replayed record durable (durable_end: a slot
  // persists only durable records).
  for (auto it = impl->files.rbegin(); it != impl->files.rend(); ++it) {
    if (it->first + 1 < impl->current_no) break;
    if (it->second.size == 0) continue;
    SLOTKV_RETURN_IF_ERROR(it->second.file->Sync());
    ++impl->stats.syncs;
  }
  impl->durable = LogPos{.offset = impl->Current().size, .file_no = impl->current_no};
  impl->last_sync_us = impl->clock->MonotonicUs();
  return std::unique_ptr<Log>(new Log(std::move(impl)));
}

}  // namespace slotkv::wal
