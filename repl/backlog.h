// Backlog: the recent events of one replication stream (a database of a slot), kept so that a
// replica that reconnects continues from its offset instead of a full sync of the stream.
//
// An event is one encoded frame (repl/frames.h: UNIT or CLEAR) and the stream offset after it;
// offsets grow strictly. The backlog covers the offsets (start, end]: a replica at offset x
// with start <= x <= end gets exactly the frames after x. Past `capacity` bytes the oldest
// frames go and start moves up to the offset of the last one dropped (one frame larger than
// the capacity is still kept, alone).
//
// Thread rule: none; each stream's backlog belongs to the stream's owner worker.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

namespace slotkv::repl {

class Backlog {
 public:
  explicit Backlog(uint64_t start = 0, size_t capacity = 1 << 20)
      : start_(start), end_(start), capacity_(capacity) {}

  // Appends frame, after which the stream is at offset (> end()).
  void Append(uint64_t offset, std::string frame);
  // Empties it: it covers offset only (a stream whose history is unknown before it).
  void Reset(uint64_t offset);
  // Changes the capacity (repl-backlog-size); trims at the next Append.
  void set_capacity(size_t capacity) { capacity_ = capacity; }
  // Drops the oldest frames until it holds at most bytes (the newest frame stays).
  void TrimTo(size_t bytes);

  // Whether a replica at offset can continue from here.
  bool Covers(uint64_t offset) const { return start_ <= offset && offset <= end_; }
  // Calls fn with each frame after offset, in order. REQUIRES: Covers(offset).
  void ForEachAfter(uint64_t offset, const std::function<void(std::string_view)>& fn) const;

  uint64_t start() const { return start_; }
  uint64_t end() const { return end_; }
  size_t bytes() const { return bytes_; }

 private:
  struct Event {
    uint64_t offset;
    std::string frame;
  };
  uint64_t start_;
  uint64_t end_;
  size_t capacity_;
  size_t bytes_ = 0;
  std::deque<Event> events_;
};

}  // namespace slotkv::repl
