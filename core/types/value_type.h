// The type tag each stored value carries (on disk in WAL records and bucket cells).
// Numbers are part of the on-disk format: never renumber or reuse one.
#pragma once

#include <cstdint>
#include <string_view>

namespace slotkv {

enum class ValueType : uint8_t {
  kString = 0,
  kHash = 1,
  kList = 2,
  kSet = 3,
  kZSet = 4,
  kStream = 5,
};

// The name TYPE replies with: "string", "hash", "list", "set", "zset"; "none" for a bad tag.
constexpr std::string_view ValueTypeName(ValueType t) {
  switch (t) {
    case ValueType::kString: return "string";
    case ValueType::kHash: return "hash";
    case ValueType::kList: return "list";
    case ValueType::kSet: return "set";
    case ValueType::kZSet: return "zset";
    case ValueType::kStream: return "stream";
  }
  return "none";
}

// Whether values of type t are collections (which may be paged: a root plus pages).
constexpr bool IsCollection(ValueType t) {
  return t == ValueType::kHash || t == ValueType::kList || t == ValueType::kSet ||
         t == ValueType::kZSet || t == ValueType::kStream;
}

}  // namespace slotkv
