// Fuzz target: value deltas (slot/value_delta.h), which replay and replicas apply to what they
// hold.
//
// Input: split:fixed16 rest   rest[0, split) is a base, rest[split, end) the other part.
//
// Checks: ApplyDelta of the other part to the base returns a Status, never crashes or reads out
// of bounds, and an applied delta's value has the length it declares; EncodeDelta of base to
// the other part (as a new version), when it says a delta is worth it, is at most half that
// version and applies back to exactly it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/coding.h"
#include "slot/value_delta.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  uint16_t split = 0;
  if (!slotkv::GetFixed16(&in, &split)) return 0;
  const std::string_view base = in.substr(0, std::min<size_t>(split, in.size()));
  const std::string_view other = in.substr(base.size());
  std::string out;
  if (slotkv::slot::ApplyDelta(base, other, &out).ok()) {
    std::string_view d = other;
    uint64_t base_len = 0;
    uint64_t next_len = 0;
    FUZZ_CHECK(slotkv::GetVarint64(&d, &base_len) && slotkv::GetVarint64(&d, &next_len));
    FUZZ_CHECK(base_len == base.size() && next_len == out.size());
  }
  std::string delta;
  if (slotkv::slot::EncodeDelta(base, other, &delta)) {
    FUZZ_CHECK(delta.size() <= other.size() / 2);
    FUZZ_CHECK(slotkv::slot::ApplyDelta(base, delta, &out).ok());
    FUZZ_CHECK(out == other);
  }
  return 0;
}
