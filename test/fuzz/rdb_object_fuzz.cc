// Fuzz target: the RDB objects RESTORE reads (core/types/rdb_value.h): strings with integer and
// LZF forms, lists, quicklists of listpacks or ziplists, intsets, sets, hashes and sorted sets in
// plain, listpack and ziplist forms, streams (listpack nodes, groups, PELs). A RESTORE payload is any client's bytes.
//
// Input: the object (type byte, then the value), its trailer already removed.
//
// Checks: Load returns a Status, never crashes or reads out of bounds; an object it loads
// dumps (the plain forms DUMP writes) and loads back to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/types/rdb_value.h"
#include "test/fuzz/fuzz_util.h"

namespace {

using slotkv::ValueType;
using slotkv::rdb::Object;

std::string DumpOf(const Object& o) {
  switch (o.type) {
    case ValueType::kString: return slotkv::rdb::DumpString(o.str);
    case ValueType::kList: return slotkv::rdb::DumpList(o.list);
    case ValueType::kSet: return slotkv::rdb::DumpSet(o.set);
    case ValueType::kHash: return slotkv::rdb::DumpHash(o.hash);
    case ValueType::kZSet: return slotkv::rdb::DumpZSet(o.zset);
    case ValueType::kStream: return slotkv::rdb::DumpStream(o.stream);
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  slotkv::Result<Object> o = slotkv::rdb::Load(in);
  if (!o.ok()) return 0;
  const std::string dumped = DumpOf(*o);
  slotkv::Result<Object> back = slotkv::rdb::Load(dumped);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(back->type == o->type);
  FUZZ_CHECK(DumpOf(*back) == dumped);
  return 0;
}
