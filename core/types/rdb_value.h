// Key values in Redis 7.0's RDB object format, the body of DUMP / RESTORE payloads
// (core/base/rdb.h has the lengths, strings and trailer).
//
// Written (DUMP): a string as RDB_TYPE_STRING (0), a list as RDB_TYPE_LIST (1), a set as
// RDB_TYPE_SET (2), a hash as RDB_TYPE_HASH (4), a sorted set as RDB_TYPE_ZSET_2 (5: binary
// double scores): plain forms every Redis since 4.0 loads.
// Read (RESTORE): those, and the compact forms Redis 7.0 writes for small values: RDB_TYPE_ZSET
// (3: scores as text), RDB_TYPE_SET_INTSET (11), RDB_TYPE_HASH_LISTPACK (16),
// RDB_TYPE_ZSET_LISTPACK (17), RDB_TYPE_LIST_QUICKLIST_2 (18: plain and listpack nodes), and the
// ziplist forms of Redis 6.2 and older (10, 12, 13, 14). A stream is written and read as
// RDB_TYPE_STREAM_LISTPACKS_2 (19; rdb_stream.cc), also read in the forms of 5.0 (15) and 7.2
// (21). Zipmaps (Redis 2.4) and modules are refused.
// A value that does not parse whole, or an empty collection, is refused (Redis: "Bad data
// format").
//
// Thread rule: none (pure functions).
#pragma once

#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/types/hash_value.h"
#include "core/types/list_value.h"
#include "core/types/set_value.h"
#include "core/types/stream_value.h"
#include "core/types/value_type.h"
#include "core/types/zset_value.h"

namespace slotkv::rdb {

// The object of a payload (type byte, then the value).
std::string DumpString(std::string_view s);
std::string DumpList(const ListValue& list);
std::string DumpSet(const SetValue& set);
std::string DumpHash(const HashValue& hash);
std::string DumpZSet(const ZSetValue& zset);
std::string DumpStream(const StreamValue& stream);

// A value RESTORE read: type says which member holds it.
struct Object {
  ValueType type = ValueType::kString;
  std::string str;
  ListValue list;
  SetValue set;
  HashValue hash;
  ZSetValue zset;
  StreamValue stream;
};

// Reads an object (a payload's body, its trailer removed); InvalidArgument when it does not
// parse, has bytes after it, or is an empty collection.
Result<Object> Load(std::string_view body);

// The stream object types (rdb_stream.cc), and the reading of one after its type byte.
bool IsStreamType(uint8_t type);
Status LoadStream(uint8_t type, std::string_view* in, StreamValue* out);

}  // namespace slotkv::rdb
