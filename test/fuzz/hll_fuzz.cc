// Fuzz target: HyperLogLog values (core/types/hyperloglog.h), which PFADD, PFCOUNT and PFMERGE
// read from any string a client SET.
//
// Input: sparse_max:fixed16 value_len:fixed16 value elements...  (the rest split on '\n')
//
// Checks: on a value that LooksValid, Add, Count, MergeInto and RaiseTo return a Status and
// never crash or read out of bounds (Add may succeed on opcodes damaged past the register it
// sets, and Count then fail, as in Redis); a value Add or RaiseTo changed still LooksValid;
// merged registers stay within 6 bits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/coding.h"
#include "core/types/hyperloglog.h"
#include "test/fuzz/fuzz_util.h"

namespace hll = slotkv::hll;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  uint16_t sparse_max = 0, value_len = 0;
  if (!slotkv::GetFixed16(&in, &sparse_max) || !slotkv::GetFixed16(&in, &value_len)) return 0;
  std::string value(in.substr(0, std::min<size_t>(value_len, in.size())));
  in.remove_prefix(value.size());
  if (!hll::LooksValid(value)) return 0;
  hll::Registers max{};
  if (hll::MergeInto(value, &max).ok()) {
    for (uint8_t r : max) FUZZ_CHECK(r <= 63);
  }
  bool cached = false;
  std::string counted = value;
  (void)hll::Count(&counted, &cached);
  while (!in.empty()) {
    const size_t nl = in.find('\n');
    const std::string_view element = in.substr(0, nl);
    in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
    if (!hll::Add(&value, element, sparse_max).ok()) return 0;
    FUZZ_CHECK(hll::LooksValid(value));
  }
  (void)hll::Count(&value, &cached);
  std::string merged = hll::Empty();
  FUZZ_CHECK(hll::RaiseTo(&merged, max, /*dense=*/false, sparse_max).ok());
  FUZZ_CHECK(hll::LooksValid(merged));
  return 0;
}
