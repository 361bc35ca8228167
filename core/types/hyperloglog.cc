#include "core/types/hyperloglog.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

namespace slotkv::hll {
namespace {

constexpr int kP = 14;
constexpr int kQ = 64 - kP;  // hash bits above the register index
constexpr uint8_t kDense = 0;
constexpr uint8_t kSparse = 1;
constexpr uint64_t kSeed = 0xadc83b19;
constexpr int kValMax = 32;          // largest value a VAL opcode holds
constexpr int kValRunMax = 4;        // registers a VAL opcode covers, at most
constexpr int kZeroRunMax = 64;      // ... a ZERO opcode
constexpr int kXZeroRunMax = 16384;  // ... an XZERO opcode

Status Corrupted() { return Status::Corruption("corrupted HyperLogLog value"); }

// ---- dense registers: 6 bits each, from the least significant bit of each byte up ----------

uint8_t DenseGet(const uint8_t* regs, size_t i) {
  const size_t bit = i * 6;
  const size_t byte = bit / 8;
  const unsigned shift = bit % 8;
  unsigned v = regs[byte] >> shift;
  if (shift > 2) v |= static_cast<unsigned>(regs[byte + 1]) << (8 - shift);
  return static_cast<uint8_t>(v & 63);
}

void DenseSet(uint8_t* regs, size_t i, uint8_t value) {
  const size_t bit = i * 6;
  const size_t byte = bit / 8;
  const unsigned shift = bit % 8;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(63u << shift)) | (value << shift));
  if (shift > 2) {
    const unsigned rest = 8 - shift;
    regs[byte + 1] = static_cast<uint8_t>((regs[byte + 1] & ~(63u >> rest)) | (value >> rest));
  }
}

// ---- sparse opcodes -----------------------------------------------------------------------

bool IsZero(uint8_t op) { return (op & 0xc0) == 0; }
bool IsXZero(uint8_t op) { return (op & 0xc0) == 0x40; }
bool IsVal(uint8_t op) { return (op & 0x80) != 0; }
int ZeroLen(uint8_t op) { return (op & 0x3f) + 1; }
int XZeroLen(const uint8_t* p) { return (((p[0] & 0x3f) << 8) | p[1]) + 1; }
int ValValue(uint8_t op) { return ((op >> 2) & 0x1f) + 1; }
int ValLen(uint8_t op) { return (op & 0x3) + 1; }
uint8_t Val(int value, int len) {
  return static_cast<uint8_t>(((value - 1) << 2) | (len - 1) | 0x80);
}

// Appends the opcode(s) of a run of len zero registers (len <= kXZeroRunMax).
uint8_t* PutZeros(uint8_t* out, int len) {
  if (len > kZeroRunMax) {
    *out++ = static_cast<uint8_t>(((len - 1) >> 8) | 0x40);
    *out++ = static_cast<uint8_t>((len - 1) & 0xff);
  } else {
    *out++ = static_cast<uint8_t>(len - 1);
  }
  return out;
}

uint8_t* Regs(std::string* value) {
  return reinterpret_cast<uint8_t*>(value->data()) + kHeaderBytes;
}
const uint8_t* Regs(std::string_view value) {
  return reinterpret_cast<const uint8_t*>(value.data()) + kHeaderBytes;
}

// Calls run(first, len, value) for each run of the sparse registers, in order; false when the
// opcodes do not cover exactly kRegisters registers.
template <class Run>
bool ForEachRun(std::string_view value, Run&& run) {
  const uint8_t* p = Regs(value);
  const uint8_t* end = reinterpret_cast<const uint8_t*>(value.data()) + value.size();
  size_t idx = 0;
  while (p < end) {
    int len;
    int v = 0;
    if (IsZero(*p)) {
      len = ZeroLen(*p++);
    } else if (IsXZero(*p)) {
      if (p + 1 >= end) return false;
      len = XZeroLen(p);
      p += 2;
    } else {
      len = ValLen(*p);
      v = ValValue(*p++);
    }
    if (idx + static_cast<size_t>(len) > kRegisters) return false;
    run(idx, len, v);
    idx += static_cast<size_t>(len);
  }
  return idx == kRegisters;
}

// The register and run length of element (Redis's hllPatLen).
int PatternLength(std::string_view element, size_t* reg) {
  uint64_t hash = MurmurHash64A(element, kSeed);
  *reg = hash & (kRegisters - 1);
  hash >>= kP;
  hash |= uint64_t{1} << kQ;  // the run ends by bit kQ at the latest
  int count = 1;
  for (uint64_t bit = 1; (hash & bit) == 0; bit <<= 1) ++count;
  return count;
}

// Raises register reg of a sparse value to count (Redis's hllSparseSet): true when it grew;
// may make the value dense.
Result<bool> SparseSet(std::string* value, size_t reg, int count, size_t sparse_max) {
  if (count > kValMax) {
    SLOTKV_RETURN_IF_ERROR(ToDense(value));
    DenseSet(Regs(value), reg, static_cast<uint8_t>(count));
    return true;
  }
  // Step 1: the opcode covering reg, the one before it, and the first register it covers.
  const size_t start = kHeaderBytes;
  size_t end = value->size();
  auto at = [&](size_t i) { return static_cast<uint8_t>((*value)[i]); };
  size_t p = start;
  size_t prev = std::string::npos;
  size_t first = 0;
  int span = 0;
  while (p < end) {
    size_t oplen = 1;
    if (IsZero(at(p))) {
      span = ZeroLen(at(p));
    } else if (IsVal(at(p))) {
      span = ValLen(at(p));
    } else {
      if (p + 1 >= end) return Corrupted();
      span = XZeroLen(reinterpret_cast<const uint8_t*>(value->data()) + p);
      oplen = 2;
    }
    if (reg <= first + static_cast<size_t>(span) - 1) break;
    prev = p;
    p += oplen;
    first += static_cast<size_t>(span);
  }
  if (span == 0 || p >= end) return Corrupted();
  const uint8_t op = at(p);
  const bool is_val = IsVal(op);
  const bool is_xzero = IsXZero(op);
  const int runlen = is_val ? ValLen(op) : is_xzero ? span : ZeroLen(op);

  // Step 2: a VAL already as high changes nothing; a VAL or ZERO of one register takes the
  // new value in place; anything else splits into up to three opcodes.
  if (is_val && ValValue(op) >= count) return false;
  if (!is_xzero && runlen == 1) {
    (*value)[p] = static_cast<char>(Val(count, 1));
  } else {
    uint8_t seq[5];
    uint8_t* n = seq;
    const size_t last = first + static_cast<size_t>(span) - 1;
    if (!is_val) {
      if (reg != first) n = PutZeros(n, static_cast<int>(reg - first));
      *n++ = Val(count, 1);
      if (reg != last) n = PutZeros(n, static_cast<int>(last - reg));
    } else {
      const int cur = ValValue(op);
      if (reg != first) *n++ = Val(cur, static_cast<int>(reg - first));
      *n++ = Val(count, 1);
      if (reg != last) *n++ = Val(cur, static_cast<int>(last - reg));
    }
    // Step 3: the new opcodes replace the old one, unless that takes the value past
    // sparse_max.
    const size_t seqlen = static_cast<size_t>(n - seq);
    const size_t oldlen = is_xzero ? 2 : 1;
    if (seqlen > oldlen && value->size() + (seqlen - oldlen) > sparse_max) {
      SLOTKV_RETURN_IF_ERROR(ToDense(value));
      DenseSet(Regs(value), reg, static_cast<uint8_t>(count));
      return true;
    }
    value->replace(p, oldlen, reinterpret_cast<const char*>(seq), seqlen);
    end = value->size();
  }
  // Step 4: equal adjacent VALs merge, among the five opcodes from the one before.
  p = prev != std::string::npos ? prev : start;
  for (int scan = 5; p < end && scan-- > 0;) {
    if (IsXZero(at(p))) {
      p += 2;
      continue;
    }
    if (IsZero(at(p))) {
      ++p;
      continue;
    }
    if (p + 1 < end && IsVal(at(p + 1)) && ValValue(at(p)) == ValValue(at(p + 1))) {
      const int len = ValLen(at(p)) + ValLen(at(p + 1));
      if (len <= kValRunMax) {
        (*value)[p + 1] = static_cast<char>(Val(ValValue(at(p)), len));
        value->erase(p, 1);
        --end;
        continue;  // the merged VAL may merge again with the next
      }
    }
    ++p;
  }
  return true;
}

double Tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0;
  double z = 1 - x;
  double before;
  do {
    x = std::sqrt(x);
    before = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  } while (before != z);
  return z / 3;
}

double Sigma(double x) {
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  double y = 1.0;
  double z = x;
  double before;
  do {
    x *= x;
    before = z;
    z += x * y;
    y += y;
  } while (before != z);
  return z;
}

// Ertl's estimate from the histogram of register values (histo[v]: registers holding v).
uint64_t Estimate(const std::array<int, 64>& histo) {
  const double m = kRegisters;
  double z = m * Tau((m - histo[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += histo[static_cast<size_t>(j)];
    z *= 0.5;
  }
  z += m * Sigma(histo[0] / m);
  constexpr double kAlphaInf = 0.721347520444481703680;  // 1 / (2 ln 2)
  return static_cast<uint64_t>(std::llround(kAlphaInf * m * m / z));
}

}  // namespace

uint64_t MurmurHash64A(std::string_view data, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995;
  constexpr int r = 47;
  const size_t len = data.size();
  // Redis passes the length as an int and the seed as an unsigned int.
  uint64_t h = static_cast<uint32_t>(seed) ^ (static_cast<uint64_t>(static_cast<int>(len)) * m);
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const uint8_t* end = p + (len & ~size_t{7});
  for (; p != end; p += 8) {
    uint64_t k;
    std::memcpy(&k, p, 8);  // little-endian host, as Redis reads it
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const size_t tail = len & 7;
  if (tail > 0) {
    for (size_t i = tail; i-- > 0;) h ^= static_cast<uint64_t>(p[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

std::string Empty() {
  std::string v(kHeaderBytes + 2, '\0');
  std::memcpy(v.data(), "HYLL", 4);
  v[4] = static_cast<char>(kSparse);
  auto* p = reinterpret_cast<uint8_t*>(v.data()) + kHeaderBytes;
  PutZeros(p, kXZeroRunMax);
  return v;
}

bool LooksValid(std::string_view value) {
  if (value.size() < kHeaderBytes || value.substr(0, 4) != "HYLL") return false;
  const auto encoding = static_cast<uint8_t>(value[4]);
  if (encoding > kSparse) return false;
  return encoding != kDense || value.size() == kDenseBytes;
}

bool IsDense(std::string_view value) { return static_cast<uint8_t>(value[4]) == kDense; }

Status ToDense(std::string* value) {
  if (IsDense(*value)) return Status::OK();
  std::string dense(kDenseBytes, '\0');
  std::memcpy(dense.data(), value->data(), kHeaderBytes);
  dense[4] = static_cast<char>(kDense);
  uint8_t* regs = Regs(&dense);
  const bool ok = ForEachRun(*value, [&](size_t first, int len, int v) {
    if (v == 0) return;
    for (int k = 0; k < len; ++k)
      DenseSet(regs, first + static_cast<size_t>(k), static_cast<uint8_t>(v));
  });
  if (!ok) return Corrupted();
  *value = std::move(dense);
  return Status::OK();
}


void Invalidate(std::string* value) { (*value)[15] = static_cast<char>((*value)[15] | 0x80); }

Result<bool> Add(std::string* value, std::string_view element, size_t sparse_max) {
  size_t reg;
  const int count = PatternLength(element, &reg);
  bool grew;
  if (IsDense(*value)) {
    uint8_t* regs = Regs(value);
    grew = count > DenseGet(regs, reg);
    if (grew) DenseSet(regs, reg, static_cast<uint8_t>(count));
  } else {
    SLOTKV_ASSIGN_OR_RETURN(grew, SparseSet(value, reg, count, sparse_max));
  }
  if (grew) Invalidate(value);
  return grew;
}

Result<uint64_t> Count(std::string* value, bool* cached) {
  *cached = false;
  auto* card = reinterpret_cast<uint8_t*>(value->data()) + 8;
  if ((card[7] & 0x80) == 0) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | card[i];
    return n;
  }
  std::array<int, 64> histo{};
  if (IsDense(*value)) {
    const uint8_t* regs = Regs(value);
    for (size_t i = 0; i < kRegisters; ++i) ++histo[DenseGet(regs, i)];
  } else if (!ForEachRun(*value,
                         [&](size_t, int len, int v) { histo[static_cast<size_t>(v)] += len; })) {
    return Corrupted();
  }
  const uint64_t n = Estimate(histo);
  for (int i = 0; i < 8; ++i) card[i] = static_cast<uint8_t>(n >> (8 * i));
  *cached = true;
  return n;
}

Status MergeInto(std::string_view value, Registers* max) {
  if (IsDense(value)) {
    const uint8_t* regs = Regs(value);
    for (size_t i = 0; i < kRegisters; ++i) {
      const uint8_t v = DenseGet(regs, i);
      if (v > (*max)[i]) (*max)[i] = v;
    }
    return Status::OK();
  }
  const bool ok = ForEachRun(value, [&](size_t first, int len, int v) {
    for (int k = 0; k < len && v > 0; ++k) {
      uint8_t& r = (*max)[first + static_cast<size_t>(k)];
      if (v > r) r = static_cast<uint8_t>(v);
    }
  });
  return ok ? Status::OK() : Corrupted();
}

uint64_t CountRegisters(const Registers& max) {
  std::array<int, 64> histo{};
  for (uint8_t v : max) ++histo[v & 63];
  return Estimate(histo);
}

Status RaiseTo(std::string* value, const Registers& max, bool dense, size_t sparse_max) {
  if (dense) SLOTKV_RETURN_IF_ERROR(ToDense(value));
  for (size_t i = 0; i < kRegisters; ++i) {
    if (max[i] == 0) continue;
    if (IsDense(*value)) {
      uint8_t* regs = Regs(value);
      if (max[i] > DenseGet(regs, i)) DenseSet(regs, i, max[i]);
    } else {
      SLOTKV_RETURN_IF_ERROR(SparseSet(value, i, max[i], sparse_max).status());
    }
  }
  Invalidate(value);
  return Status::OK();
}

std::string DescribeSparse(std::string_view value) {
  std::string out;
  const auto* p = reinterpret_cast<const uint8_t*>(value.data()) + kHeaderBytes;
  const auto* end = reinterpret_cast<const uint8_t*>(value.data()) + value.size();
  char item[32];
  while (p < end) {
    if (IsZero(*p)) {
      std::snprintf(item, sizeof(item), "z:%d ", ZeroLen(*p++));
    } else if (IsXZero(*p)) {
      if (p + 1 >= end) break;
      std::snprintf(item, sizeof(item), "Z:%d ", XZeroLen(p));
      p += 2;
    } else {
      std::snprintf(item, sizeof(item), "v:%d,%d ", ValValue(*p), ValLen(*p));
      ++p;
    }
    out += item;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string SelfTest() {
  std::mt19937_64 rng(std::random_device{}());
  // Test 1: every register keeps the value set, and setting it leaves the others alone.
  std::string dense(kDenseBytes - kHeaderBytes, '\0');
  auto* regs = reinterpret_cast<uint8_t*>(dense.data());
  std::array<uint8_t, kRegisters> want{};
  for (int cycle = 0; cycle < 1000; ++cycle) {
    for (size_t i = 0; i < kRegisters; ++i) {
      want[i] = static_cast<uint8_t>(rng() & 63);
      DenseSet(regs, i, want[i]);
    }
    for (size_t i = 0; i < kRegisters; ++i) {
      if (DenseGet(regs, i) != want[i]) return "TESTFAILED Register error at " + std::to_string(i);
    }
  }
  // Test 2: a dense and a sparse value fed the same elements agree, and count close enough.
  std::string d = Empty(), sp = Empty();
  Status st = ToDense(&d);
  if (!st.ok()) return "TESTFAILED dense conversion";
  const double relerr = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const uint64_t seed = rng();
  uint64_t checkpoint = 1;
  for (uint64_t j = 1; j <= 10'000'000; ++j) {
    const uint64_t ele = j ^ seed;
    const std::string_view bytes(reinterpret_cast<const char*>(&ele), sizeof(ele));
    if (!Add(&d, bytes, kDefaultSparseMaxBytes).ok() ||
        !Add(&sp, bytes, kDefaultSparseMaxBytes).ok()) {
      return "TESTFAILED add failed";
    }
    if (j != checkpoint) continue;
    if (j < kDefaultSparseMaxBytes / 2 && IsDense(sp)) return "TESTFAILED sparse encoding not used";
    bool cached = false;
    Result<uint64_t> dense_count = Count(&d, &cached);
    Result<uint64_t> sparse_count = Count(&sp, &cached);
    if (!dense_count.ok() || !sparse_count.ok() || *dense_count != *sparse_count) {
      return "TESTFAILED dense/sparse disagree";
    }
    double abserr = static_cast<double>(checkpoint) - static_cast<double>(*dense_count);
    auto maxerr = static_cast<uint64_t>(std::ceil(relerr * 6 * static_cast<double>(checkpoint)));
    if (j == 10) maxerr = 1;  // small cardinalities are counted (almost) exactly
    if (abserr < 0) abserr = -abserr;
    if (abserr > static_cast<double>(maxerr)) {
      char text[96];
      std::snprintf(text, sizeof(text), "TESTFAILED Too big error. card:%llu abserr:%f",
                    static_cast<unsigned long long>(checkpoint), abserr);
      return text;
    }
    checkpoint *= 10;
  }
  return {};
}

}  // namespace slotkv::hll
