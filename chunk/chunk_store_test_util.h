// The fixture of the ChunkStore tests (chunk_store_*_test.cc): a store over MemFs with small
// segments, and helpers to make values and damage files.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "chunk/chunk_store.h"
#include "core/base/mem_fs.h"

namespace slotkv::chunk {

#define ASSERT_OK(expr)                      \
  do {                                       \
    const ::slotkv::Status _s = (expr);      \
    REQUIRE_MESSAGE(_s.ok(), _s.ToString()); \
  } while (0)

inline constexpr uint32_t kSeg = 256;
inline const std::string kDir = "slot";

// A store over MemFs with small segments, so a few values span several segments.
class StoreTest {
 public:
  StoreTest() { ASSERT_OK(fs_.CreateDirs(kDir)); }

  ChunkStoreOptions Options(Fs* fs = nullptr) {
    ChunkStoreOptions o;
    o.fs = fs != nullptr ? fs : &fs_;
    o.dir = kDir;
    o.segment_bytes = kSeg;
    o.big_value_bytes = 4096;
    o.cache_bytes = 8 * kSeg;
    return o;
  }
  std::unique_ptr<ChunkStore> Open(const ChunkStoreOptions& o) {
    auto store = ChunkStore::Open(o);
    REQUIRE_MESSAGE(store.ok(), store.status().ToString());
    return std::move(store).value();
  }
  std::unique_ptr<ChunkStore> Open() { return Open(Options()); }

  ValuePtr Add(ChunkStore* store, uint32_t group, const std::string& key,
               const std::string& value) {
    auto ptr = store->Add(group, key, value);
    REQUIRE_MESSAGE(ptr.ok(), ptr.status().ToString());
    return *ptr;
  }
  std::string Read(ChunkStore* store, const ValuePtr& ptr, const std::string& key) {
    auto value = store->Read(ptr, key);
    REQUIRE_MESSAGE(value.ok(), value.status().ToString());
    return *value;
  }
  // Whether segment of chunks.dat reads as zeros (a hole).
  bool Punched(uint32_t segment) {
    auto file = fs_.Open(JoinPath(kDir, "chunks.dat"));
    REQUIRE(file.ok());
    std::string bytes(kSeg, 'x');
    auto n = (*file)->Read(uint64_t{segment} * kSeg, kSeg, bytes.data());
    REQUIRE(n.ok());
    return bytes.substr(0, *n) == std::string(*n, '\0');
  }
  // Writes bytes into the store's file name at offset, behind the store's back.
  void WriteAt(const std::string& name, uint64_t offset, const std::string& bytes) {
    auto file = fs_.Open(JoinPath(kDir, name));
    REQUIRE(file.ok());
    ASSERT_OK((*file)->Write(offset, bytes));
  }
  void FlipByte(const std::string& name, uint64_t offset) {
    auto file = fs_.Open(JoinPath(kDir, name));
    REQUIRE(file.ok());
    char c = 0;
    auto n = (*file)->Read(offset, 1, &c);
    REQUIRE((n.ok() && *n == 1));
    WriteAt(name, offset, std::string(1, static_cast<char>(c ^ 0x40)));
  }

  MemFs fs_;
};

// A value whose record (key "k") is exactly `record` bytes long.
inline std::string ValueForRecord(size_t record) {
  // 4 crc + 8 key hash + varint length + value.
  size_t v = record - 12 - 1;
  if (v >= 128) v -= 1;
  return std::string(v, 'v');
}

inline std::string Value(size_t n, uint64_t seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>('a' + (seed * 7 + i) % 26);
  return v;
}

}  // namespace slotkv::chunk
