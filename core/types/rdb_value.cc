#include "core/types/rdb_value.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "core/base/number.h"
#include "core/base/rdb.h"
#include "core/types/listpack.h"

namespace slotkv::rdb {
namespace {

enum : uint8_t {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZSet = 3,
  kTypeHash = 4,
  kTypeZSet2 = 5,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZSetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeHashListpack = 16,
  kTypeZSetListpack = 17,
  kTypeListQuicklist2 = 18,
};
constexpr uint64_t kNodePlain = 1;
constexpr uint64_t kNodePacked = 2;

Status Bad() { return Status::InvalidArgument("bad RDB object"); }

// The elements of a ziplist (Redis 6.2 and older: zlbytes:u32le zltail:u32le zllen:u16le
// entries 0xFF; an entry is prevlen (1 byte, or 0xFE then u32le), an encoding, the data), as
// text; nullopt when it does not parse whole.
std::optional<std::vector<std::string>> Ziplist(std::string_view zl) {
  if (zl.size() < 11 || LittleEndian(zl.data(), 4) != zl.size() ||
      static_cast<uint8_t>(zl.back()) != 0xFF) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  size_t p = 10;
  const size_t end = zl.size() - 1;
  while (p < end) {
    p += static_cast<uint8_t>(zl[p]) == 0xFE ? 5 : 1;  // prevlen
    if (p >= end) return std::nullopt;
    const auto b = static_cast<uint8_t>(zl[p]);
    size_t head = 1, len = 0, width = 0;
    std::optional<int64_t> num;
    switch (b >> 6) {
      case 0:
        len = b & 0x3f;
        break;
      case 1:
        if (p + 2 > end) return std::nullopt;
        head = 2;
        len = (size_t{b & 0x3fu} << 8) | static_cast<uint8_t>(zl[p + 1]);
        break;
      case 2:
        if (b != 0x80 || p + 5 > end) return std::nullopt;
        head = 5;
        for (size_t i = 1; i <= 4; ++i) len = (len << 8) | static_cast<uint8_t>(zl[p + i]);
        break;
      default:
        if (b == 0xC0) {
          width = 2;
        } else if (b == 0xD0) {
          width = 4;
        } else if (b == 0xE0) {
          width = 8;
        } else if (b == 0xF0) {
          width = 3;
        } else if (b == 0xFE) {
          width = 1;
        } else if (b >= 0xF1 && b <= 0xFD) {
          num = (b & 0x0f) - 1;
        } else {
          return std::nullopt;
        }
        if (p + 1 + width > end) return std::nullopt;
        if (width > 0) num = Signed(LittleEndian(zl.data() + p + 1, width), width);
        head = 1 + width;
    }
    if (len > end - p - head) return std::nullopt;
    out.push_back(num ? std::to_string(*num) : std::string(zl.substr(p + head, len)));
    p += head + len;
  }
  const uint64_t count = LittleEndian(zl.data() + 8, 2);
  if (p != end || (count != 65535 && count != out.size())) return std::nullopt;
  return out;
}

// The members of an intset (encoding:u32le length:u32le values), in decimal.
std::optional<std::vector<std::string>> Intset(std::string_view is) {
  if (is.size() < 8) return std::nullopt;
  const uint64_t width = LittleEndian(is.data(), 4);
  const uint64_t n = LittleEndian(is.data() + 4, 4);
  if ((width != 2 && width != 4 && width != 8) || is.size() != 8 + n * width) return std::nullopt;
  std::vector<std::string> out;
  for (uint64_t i = 0; i < n; ++i) {
    out.push_back(std::to_string(Signed(LittleEndian(is.data() + 8 + i * width, width), width)));
  }
  return out;
}

// A score written as text by RDB_TYPE_ZSET: len:u8 (253 NaN, 254 +inf, 255 -inf) then text.
bool GetTextScore(std::string_view* in, double* score) {
  if (in->empty()) return false;
  const auto len = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  if (len == 253) return false;  // NaN: never a score
  if (len == 254 || len == 255) {
    *score = len == 254 ? INFINITY : -INFINITY;
    return true;
  }
  if (in->size() < len) return false;
  std::optional<double> v = ParseDouble(in->substr(0, len));
  in->remove_prefix(len);
  if (!v) return false;
  *score = *v;
  return true;
}

// Reads n strings of a plain collection.
bool GetStrings(std::string_view* in, uint64_t n, std::vector<std::string>* out) {
  for (uint64_t i = 0; i < n; ++i) {
    std::string s;
    if (!GetRdbString(in, &s)) return false;
    out->push_back(std::move(s));
  }
  return true;
}

void PutDouble(std::string* out, double v) {
  char b[8];
  std::memcpy(b, &v, 8);  // little-endian host, as Redis writes it
  out->append(b, 8);
}

Status FillSet(const std::vector<std::string>& members, Object* o) {
  o->type = ValueType::kSet;
  for (const std::string& m : members) {
    if (!o->set.Add(m)) return Bad();  // a duplicate member
  }
  return o->set.empty() ? Bad() : Status::OK();
}

Status FillHash(const std::vector<std::string>& flat, Object* o) {
  if (flat.size() % 2 != 0) return Bad();
  o->type = ValueType::kHash;
  for (size_t i = 0; i < flat.size(); i += 2) {
    if (!o->hash.Set(flat[i], flat[i + 1])) return Bad();  // a duplicate field
  }
  return o->hash.size() == 0 ? Bad() : Status::OK();
}

Status AddScore(std::string_view member, double score, Object* o) {
  if (std::isnan(score)) return Bad();
  o->type = ValueType::kZSet;
  if (o->zset.Set(member, score) != ZSetValue::Change::kAdded) return Bad();  // a duplicate
  return Status::OK();
}

}  // namespace

std::string DumpString(std::string_view s) {
  std::string out(1, static_cast<char>(kTypeString));
  PutRdbString(&out, s);
  return out;
}

std::string DumpList(const ListValue& list) {
  std::string out(1, static_cast<char>(kTypeList));
  PutRdbLength(&out, list.size());
  for (size_t i = 0; i < list.size(); ++i) PutRdbString(&out, list.at(i));
  return out;
}

std::string DumpSet(const SetValue& set) {
  std::string out(1, static_cast<char>(kTypeSet));
  PutRdbLength(&out, set.size());
  for (const std::string& m : set.members()) PutRdbString(&out, m);
  return out;
}

std::string DumpHash(const HashValue& hash) {
  std::string out(1, static_cast<char>(kTypeHash));
  PutRdbLength(&out, hash.size());
  hash.ForEach([&](std::string_view f, std::string_view v) {
    PutRdbString(&out, f);
    PutRdbString(&out, v);
  });
  return out;
}

std::string DumpZSet(const ZSetValue& zset) {
  std::string out(1, static_cast<char>(kTypeZSet2));
  PutRdbLength(&out, zset.size());
  for (const ZSetValue::Entry& e : zset) {
    PutRdbString(&out, e.member);
    PutDouble(&out, e.score);
  }
  return out;
}

Result<Object> Load(std::string_view body) {
  if (body.empty()) return Bad();
  const auto type = static_cast<uint8_t>(body[0]);
  std::string_view in = body.substr(1);
  Object o;
  uint64_t n = 0;
  std::vector<std::string> items;
  switch (type) {
    case kTypeString:
      if (!GetRdbString(&in, &o.str)) return Bad();
      o.type = ValueType::kString;
      break;
    case kTypeList:
      if (!GetRdbLength(&in, &n) || n == 0 || !GetStrings(&in, n, &items)) return Bad();
      o.type = ValueType::kList;
      for (const std::string& v : items) o.list.PushBack(v);
      break;
    case kTypeListZiplist:
    case kTypeListQuicklist: {
      // One ziplist, or a quicklist of ziplist nodes (Redis 6.2 and older).
      n = 1;
      if (type == kTypeListQuicklist && !GetRdbLength(&in, &n)) return Bad();
      o.type = ValueType::kList;
      for (uint64_t i = 0; i < n; ++i) {
        std::string blob;
        if (!GetRdbString(&in, &blob)) return Bad();
        std::optional<std::vector<std::string>> zl = Ziplist(blob);
        if (!zl) return Bad();
        for (const std::string& v : *zl) o.list.PushBack(v);
      }
      if (o.list.size() == 0) return Bad();
      break;
    }
    case kTypeListQuicklist2: {
      if (!GetRdbLength(&in, &n)) return Bad();
      o.type = ValueType::kList;
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t container = 0;
        std::string node;
        if (!GetRdbLength(&in, &container) || !GetRdbString(&in, &node)) return Bad();
        if (container == kNodePlain && !node.empty()) {  // Redis refuses an empty one
          o.list.PushBack(node);
        } else if (container == kNodePacked) {
          std::optional<std::vector<std::string>> lp = ListpackElements(node);
          if (!lp) return Bad();
          for (const std::string& v : *lp) o.list.PushBack(v);  // an empty node is skipped
        } else {
          return Bad();
        }
      }
      if (o.list.size() == 0) return Bad();
      break;
    }
    case kTypeSet:
      if (!GetRdbLength(&in, &n) || !GetStrings(&in, n, &items)) return Bad();
      SLOTKV_RETURN_IF_ERROR(FillSet(items, &o));
      break;
    case kTypeSetIntset: {
      std::string blob;
      if (!GetRdbString(&in, &blob)) return Bad();
      std::optional<std::vector<std::string>> members = Intset(blob);
      if (!members) return Bad();
      SLOTKV_RETURN_IF_ERROR(FillSet(*members, &o));
      break;
    }
    case kTypeHash:
      if (!GetRdbLength(&in, &n) || !GetStrings(&in, 2 * n, &items)) return Bad();
      SLOTKV_RETURN_IF_ERROR(FillHash(items, &o));
      break;
    case kTypeHashListpack:
    case kTypeHashZiplist: {
      std::string blob;
      if (!GetRdbString(&in, &blob)) return Bad();
      std::optional<std::vector<std::string>> flat =
          type == kTypeHashListpack ? ListpackElements(blob) : Ziplist(blob);
      if (!flat) return Bad();
      SLOTKV_RETURN_IF_ERROR(FillHash(*flat, &o));
      break;
    }
    case kTypeZSet:
    case kTypeZSet2: {
      if (!GetRdbLength(&in, &n) || n == 0) return Bad();
      for (uint64_t i = 0; i < n; ++i) {
        std::string member;
        double score = 0;
        if (!GetRdbString(&in, &member)) return Bad();
        if (type == kTypeZSet2) {
          if (in.size() < 8) return Bad();
          std::memcpy(&score, in.data(), 8);
          in.remove_prefix(8);
        } else if (!GetTextScore(&in, &score)) {
          return Bad();
        }
        SLOTKV_RETURN_IF_ERROR(AddScore(member, score, &o));
      }
      break;
    }
    case kTypeZSetListpack:
    case kTypeZSetZiplist: {
      std::string blob;
      if (!GetRdbString(&in, &blob)) return Bad();
      std::optional<std::vector<std::string>> flat =
          type == kTypeZSetListpack ? ListpackElements(blob) : Ziplist(blob);
      if (!flat || flat->empty() || flat->size() % 2 != 0) return Bad();
      for (size_t i = 0; i < flat->size(); i += 2) {
        std::optional<double> score = ParseDouble((*flat)[i + 1]);
        if (!score) return Bad();
        SLOTKV_RETURN_IF_ERROR(AddScore((*flat)[i], *score, &o));
      }
      break;
    }
    default:
      if (!IsStreamType(type)) return Bad();
      SLOTKV_RETURN_IF_ERROR(LoadStream(type, &in, &o.stream));
      o.type = ValueType::kStream;
      break;
  }
  if (!in.empty()) return Bad();
  return o;
}

}  // namespace slotkv::rdb
