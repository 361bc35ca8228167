// ChunkStore: one slot's append-only value storage, `chunks.dat` cut into fixed segments
// (Options::segment_bytes, 16 KiB by default), plus one file per very large value.
//
// Design. Values are written only while a WAL group is persisted, and a segment holds values of
// one group only: every Add for a group goes to segments owned by that group (the unused end
// of the group's newest run, else a fresh segment; a value longer than a segment takes a run of
// consecutive segments; a value of at least big_value_bytes goes to its own file
// `big-<id>.val`). A flush of a few keys so appends a few hundred bytes to a segment instead
// of starting a new one: segments fill up, and the segment table stays small. Each value record carries its key
// hash so compaction can ask the bucket pages whether it is still live. The store counts
// live bytes per segment: Add adds, Release (the cell that pointed at the value was overwritten
// or deleted) subtracts. The segment table (owner group and live bytes per segment) is kept in
// `segments.meta` and rewritten for the entries that changed at each Commit.
//
// Just-in-time compaction is driven by the slot's flush: it asks CompactionCandidates(group)
// for the group's segments that are mostly dead, reads their records with ReadSegment, carries
// the live ones forward with Add, and frees the segments with FreeSegment.
//
// Crash safety. The slot calls SyncData (values and their segment table entries durable), then
// syncs its bucket pages, then Commit. Frees (FreeSegment, Release of a big value) take effect
// at Commit, so a segment is never reused before the bucket pages that stopped pointing at it
// are durable. Segments written by a
// flush that crashed before Commit are garbage nobody points at; compaction frees them.
//
// Thread rule: one owner thread (the slot's worker) calls everything.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunk/value_ptr.h"
#include "core/base/fs.h"
#include "core/base/status.h"

namespace slotkv::chunk {

struct ChunkStoreOptions {
  Fs* fs = nullptr;                  // must outlive the store
  std::string dir;                   // the slot directory (exists)
  uint32_t segment_bytes = 16384;    // fixed when the store is created; recorded on disk
  uint64_t big_value_bytes = 1 << 20;
  size_t cache_bytes = 16 << 20;     // segment cache (CLOCK)
  bool fsync = true;                 // Commit() syncs files (false for pure-memory mode)
};

// A value record as read back from a segment.
struct ChunkRecord {
  uint64_t key_hash = 0;  // KeyHash of the key it was added for
  std::string value;
  ValuePtr ptr;  // where this record lives
};

struct ChunkStoreStats {
  uint64_t bytes_written = 0;       // all bytes handed to files
  uint64_t segments_used = 0;
  uint64_t segments_free = 0;       // in the file, reusable
  uint64_t live_bytes = 0;          // sum of live record bytes
  uint64_t compacted_segments = 0;  // freed by FreeSegment
  uint64_t compacted_bytes = 0;     // compacted_segments x segment size
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  uint64_t cache_bytes = 0;         // segment bytes in the cache now
};

class ChunkStore {
 public:
  // Opens the store in options.dir, creating it on first use; an existing store keeps its
  // recorded segment size. Corruption when the segment table is damaged.
  static Result<std::unique_ptr<ChunkStore>> Open(const ChunkStoreOptions& options);
  ~ChunkStore();

  // Writes one value record for group; returns where it lives. Values of one group written
  // between two Commits are packed into that group's fresh segments.
  Result<ValuePtr> Add(uint32_t group, std::string_view key, std::string_view value);
  // Reads the value at ptr. Corruption on a checksum mismatch, or when the record there does not
  // belong to key.
  Result<std::string> Read(const ValuePtr& ptr, std::string_view key);
  // Reads the values at ptrs (keys[i] must own ptrs[i]) into (*values)[i], as Read would, with
  // the records not in memory fetched in one batch of reads.
  Status ReadMany(const std::vector<ValuePtr>& ptrs, const std::vector<std::string_view>& keys,
                  std::vector<std::string>* values);
  // The value at ptr is no longer referenced once the current flush is durable.
  void Release(const ValuePtr& ptr);
  // Where the store's additions stand: a value added later lies in a run allocated later, or in
  // a big file numbered later.
  struct AddMark {
    uint64_t alloc_seq = 0;
    uint64_t big_id = 0;
  };
  AddMark Mark() const;
  // Whether ptr names a value this store counts for group and added before mark: a big file
  // it has, or a place in a run of group's, within its fill. A page written back before a
  // power cut may name a place whose run the segment table lost (free now, another group's, or
  // handed out again since, even in the flush that meets the page), or past the fill the
  // table kept, whose bytes must not be released.
  bool Holds(uint32_t group, const ValuePtr& ptr, const AddMark& mark) const;
  // Takes back Release(ptr) before the next Commit: the flush that released it failed.
  void Unrelease(const ValuePtr& ptr);

  // Up to max segments of group worth compacting, oldest first: only when the group's segments
  // hold more than twice its live bytes, and only segments under half live.
  std::vector<uint32_t> CompactionCandidates(uint32_t group, size_t max) const;
  // Every value record that starts in segment (live or dead), in order.
  Status ReadSegment(uint32_t segment, std::vector<ChunkRecord>* records);
  // Frees segment (and the rest of its run) at the next Commit; meanwhile no value is added
  // to its run.
  void FreeSegment(uint32_t segment);
  // Withdraws FreeSegment(segment), when the flush that compacted it failed.
  void CancelFree(uint32_t segment);
  // The run of segment as it is now: its allocation and its fill ({} when the segment is
  // free). A compaction that copies a run's records and frees it a publish later
  // (slot/compaction.h) frees it only if the stamp has not changed meanwhile: a run freed
  // and handed out again, or reopened and appended to, holds records it did not copy.
  struct RunStamp {
    uint64_t alloc_seq = 0;
    uint32_t fill = 0;
    bool operator==(const RunStamp&) const = default;
  };
  RunStamp Stamp(uint32_t segment) const;
  // Sets the live bytes of group's runs to those of the values referenced (every pointer the
  // group's bucket pages hold) that it holds (Holds, any mark), after a failed flush or a
  // restart left them unknown: its added values may or may not be referenced, and the values
  // it replaced were never released. A run nothing references is freed at the next Commit.
  void Recount(uint32_t group, const std::vector<ValuePtr>& referenced);

  // Makes the values added so far durable (when fsync) and records their segments in the
  // segment table, so bucket pages may point at them. Frees still wait for Commit.
  Status SyncData();
  // Syncs every file written so far (chunks.dat, segments.meta, big files, the directory)
  // whatever Options::fsync says: a store opened without fsync is made durable at chosen points.
  Status SyncAll();
  // The files SyncAll syncs, appended to *files, for a caller that syncs them itself (through
  // io_uring: File::RingSync). *dir_version is 0 when the directory is durable, else the
  // version to hand to DirSynced once the caller has synced the directory too (files were
  // created since the last SyncAll or DirSynced, or since Open). False, with *files
  // unchanged, when SyncAll must run instead: a file has no descriptor (a memory file), or a
  // big-value file is not synced yet.
  bool SyncHandles(std::vector<File*>* files, uint64_t* dir_version) const;
  // The directory was synced after SyncHandles gave dir_version: files created before it are
  // durable by name.
  void DirSynced(uint64_t dir_version);
  // Changes Options::fsync while open (the slot's fsync policy changed). REQUIRES: after
  // SyncAll, so nothing written under the old setting is left unsynced.
  void set_fsync(bool fsync);
  // Resizes the segment cache, evicting what no longer fits.
  void set_cache_bytes(size_t bytes);
  // SyncData, then applies the frees and big-file removals requested since the last Commit.
  // Call it only once the bucket pages that stopped pointing at freed values are durable.
  Status Commit();
  // Gives the disk blocks of free segments past a reserve back, for about slice (Commit does
  // for 2 ms); the owner calls it now and then for what a large free left.
  Status TrimFree(std::chrono::microseconds slice);

  // Bytes the chunk file and big files take on disk: used segments, free ones not punched yet
  // (ApplyFrees keeps some), big files.
  uint64_t disk_bytes() const;
  const ChunkStoreStats& stats() const;

 private:
  struct Impl;
  explicit ChunkStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace slotkv::chunk
