// InlineKey: an immutable byte string that keeps up to 30 bytes inside its 32-byte object and
// longer ones on the heap: a cache key compared on every probe.
//
// Why: std::string keeps 15 bytes inline, and redis-benchmark's keys ("key:000000012345") and
// most application keys are longer. A value cache hit then compared the key in a heap block of
// its own (a cache miss of its own, beside the entry's and the value's), and a new entry
// allocated that block.
//
// Layout: bytes_[0, 30) the key when inline; size_ its length (<= kInline) or kOnHeap, when
// bytes_ holds {char* data, size_t size} instead.
//
// Thread rule: a value type; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "core/base/alloc_class.h"

namespace slotkv {

class InlineKey {
 public:
  static constexpr size_t kInline = 30;

  InlineKey() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): keys convert from any string.
  InlineKey(std::string_view key) { Assign(key); }
  InlineKey(const InlineKey& other) { Assign(other.view()); }
  InlineKey& operator=(const InlineKey& other) {
    if (this != &other) {
      Release();
      Assign(other.view());
    }
    return *this;
  }
  InlineKey(InlineKey&& other) noexcept { Take(other); }
  InlineKey& operator=(InlineKey&& other) noexcept {
    if (this != &other) {
      Release();
      Take(other);
    }
    return *this;
  }
  ~InlineKey() { Release(); }

  std::string_view view() const {
    if (size_ != kOnHeap) return std::string_view(bytes_, size_);
    Heap h;
    std::memcpy(&h, bytes_, sizeof(h));
    return std::string_view(h.data, h.size);
  }
  // NOLINTNEXTLINE(google-explicit-constructor): a key reads as a string_view.
  operator std::string_view() const { return view(); }

  // The heap block a key of n bytes takes: 0 inline, else its allocator class. Known from the
  // length, so a cache charges a key before (or without) making one.
  static constexpr size_t HeapBytesFor(size_t n) { return n <= kInline ? 0 : AllocClassBytes(n); }

  friend bool operator==(const InlineKey& a, std::string_view b) { return a.view() == b; }

 private:
  struct Heap {
    char* data;
    size_t size;
  };
  static constexpr uint8_t kOnHeap = 0xFF;

  void Assign(std::string_view key) {
    if (key.size() <= kInline) {
      if (!key.empty()) std::memcpy(bytes_, key.data(), key.size());
      size_ = static_cast<uint8_t>(key.size());
      return;
    }
    Heap h{new char[key.size()], key.size()};
    std::memcpy(h.data, key.data(), key.size());
    std::memcpy(bytes_, &h, sizeof(h));
    size_ = kOnHeap;
  }
  void Take(InlineKey& other) {
    std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
    size_ = std::exchange(other.size_, 0);
  }
  void Release() {
    if (size_ == kOnHeap) {
      Heap h;
      std::memcpy(&h, bytes_, sizeof(h));
      delete[] h.data;
    }
    size_ = 0;
  }

  char bytes_[kInline] = {};
  uint8_t size_ = 0;
};

static_assert(sizeof(InlineKey) <= 32);

}  // namespace slotkv
