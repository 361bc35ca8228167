#include "core/base/status.h"

#include <doctest/doctest.h>

namespace slotkv {
namespace {

Result<int> Half(int v) {
  if (v % 2 != 0) return Status::InvalidArgument("odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  SLOTKV_ASSIGN_OR_RETURN(int half, Half(v));
  return Half(half);
}

TEST_CASE("ok status has no message and prints OK") {
  Status s;
  CHECK(s.ok());
  CHECK(s.message().empty());
  CHECK(s.ToString() == "OK");
}

TEST_CASE("error status keeps code and message through copies") {
  Status s = Status::Corruption("wal-000001.log at offset 12: checksum mismatch");
  Status copy = s;
  CHECK(copy.IsCorruption());
  CHECK(copy.ToString() == "Corruption: wal-000001.log at offset 12: checksum mismatch");
  CHECK(Status::IOError("x").ToString() == "IO error: x");
}

TEST_CASE("result carries a value or the status, and the macro propagates failure") {
  CHECK(Quarter(8).value() == 2);
  Result<int> odd = Quarter(6);
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.status().IsInvalidArgument());
  CHECK(odd.status().message() == "odd");
}

}  // namespace
}  // namespace slotkv
