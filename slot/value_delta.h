// Value deltas: a new version of a value told as changes to the version before it, so that a
// collection page rewritten by every HSET/SADD/ZADD/LPUSH logs tens of bytes instead of the
// whole page (see "held values" in slot.h).
//
// Grammar (pure bytes):
//   delta := base_len:varint64 new_len:varint64 crc:fixed32 op*
//   op    := copy:varint64 skip:varint64 add:varint64 byte*add
// Applying walks the base with a cursor: each op appends `copy` bytes of the base at the
// cursor (moving it on), moves the cursor `skip` bytes further, then appends the `add` bytes.
// crc is Checksum of the new value, so a delta applied to any other base than its own fails
// instead of making a wrong value.
//
// EncodeDelta finds the common prefix and suffix, and in between resynchronises after short
// same-length replacements (a page's member count or a child's count in a node header), so an
// insertion that also bumps a count costs two small ops.
//
// Thread rule: none (pure functions).
#pragma once

#include <string>
#include <string_view>

#include "core/base/status.h"

namespace slotkv::slot {

// Sets *delta to a delta from base to next and returns true when it is at most half of next's
// size; false (and *delta unspecified) when writing next whole is as good.
bool EncodeDelta(std::string_view base, std::string_view next, std::string* delta);

// Sets *out to the value delta makes of base. Corruption when delta does not decode or was not
// made from base.
Status ApplyDelta(std::string_view base, std::string_view delta, std::string* out);

}  // namespace slotkv::slot
