#include "slot/value_delta.h"

#include <algorithm>
#include <cstring>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::slot {
namespace {

// A same-length replacement is looked for up to kWindow bytes long, and counts as found when
// kRun bytes after it agree again.
constexpr size_t kWindow = 16;
constexpr size_t kRun = 8;

size_t CommonPrefix(const char* a, const char* b, size_t n) {
  size_t i = 0;
  while (i + 8 <= n && std::memcmp(a + i, b + i, 8) == 0) i += 8;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// Common suffix of a[0, an) and b[0, bn).
size_t CommonSuffix(const char* a, size_t an, const char* b, size_t bn) {
  const size_t n = std::min(an, bn);
  size_t i = 0;
  while (i + 8 <= n && std::memcmp(a + an - i - 8, b + bn - i - 8, 8) == 0) i += 8;
  while (i < n && a[an - 1 - i] == b[bn - 1 - i]) ++i;
  return i;
}

void PutOp(std::string* out, uint64_t copy, uint64_t skip, std::string_view add) {
  PutVarint64(out, copy);
  PutVarint64(out, skip);
  PutVarint64(out, add.size());
  out->append(add);
}

}  // namespace

bool EncodeDelta(std::string_view base, std::string_view next, std::string* delta) {
  const size_t limit = next.size() / 2;
  const size_t p = CommonPrefix(base.data(), next.data(), std::min(base.size(), next.size()));
  const size_t s = CommonSuffix(base.data() + p, base.size() - p, next.data() + p,
                                next.size() - p);
  const size_t base_end = base.size() - s;
  const size_t next_end = next.size() - s;
  delta->clear();
  PutVarint64(delta, base.size());
  PutVarint64(delta, next.size());
  PutFixed32(delta, Checksum(next));
  size_t copy = p;
  size_t bi = p;
  size_t ni = p;
  while ((bi < base_end || ni < next_end) && delta->size() <= limit) {
    size_t k = 0;  // a same-length replacement of k bytes, then kRun equal bytes
    for (size_t t = 1; t <= kWindow; ++t) {
      if (bi + t + kRun > base_end || ni + t + kRun > next_end) break;
      if (std::memcmp(base.data() + bi + t, next.data() + ni + t, kRun) == 0) {
        k = t;
        break;
      }
    }
    if (k == 0) {  // the rest up to the common suffix is one replacement
      PutOp(delta, copy, base_end - bi, next.substr(ni, next_end - ni));
      copy = 0;
      bi = base_end;
      ni = next_end;
      break;
    }
    PutOp(delta, copy, k, next.substr(ni, k));
    bi += k;
    ni += k;
    copy = CommonPrefix(base.data() + bi, next.data() + ni,
                        std::min(base_end - bi, next_end - ni));
    bi += copy;
    ni += copy;
  }
  if (copy + s > 0) PutOp(delta, copy + s, 0, {});
  return delta->size() <= limit;
}

Status ApplyDelta(std::string_view base, std::string_view delta, std::string* out) {
  auto bad = [] { return Status::Corruption("a value delta does not apply to its base"); };
  uint64_t base_len = 0;
  uint64_t next_len = 0;
  uint32_t crc = 0;
  if (!GetVarint64(&delta, &base_len) || !GetVarint64(&delta, &next_len) ||
      !GetFixed32(&delta, &crc) || base_len != base.size()) {
    return bad();
  }
  out->clear();
  out->reserve(std::min<uint64_t>(next_len, base.size() + delta.size()));
  uint64_t at = 0;  // the cursor in base
  while (!delta.empty()) {
    uint64_t copy = 0;
    uint64_t skip = 0;
    uint64_t add = 0;
    if (!GetVarint64(&delta, &copy) || !GetVarint64(&delta, &skip) ||
        !GetVarint64(&delta, &add) || copy > base.size() - at ||
        skip > base.size() - at - copy || add > delta.size() ||
        copy + add > next_len - std::min<uint64_t>(next_len, out->size())) {
      return bad();
    }
    out->append(base.substr(at, copy));
    at += copy + skip;
    out->append(delta.substr(0, add));
    delta.remove_prefix(add);
  }
  if (out->size() != next_len || Checksum(*out) != crc) return bad();
  return Status::OK();
}

}  // namespace slotkv::slot
