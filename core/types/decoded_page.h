// DecodedPage: the decoded form of a collection page (a tree node), kept in memory beside the
// page's stored bytes between commands, so that the next command on the page skips reading
// and decoding it.
//
// Design. CountedTree asks its PageIo for a node's kept form before its bytes
// (PageIo::TakeDecoded), and hands every node it loaded back when done: one it changed with
// its new bytes (PageIo::PutPage), one it only read as it was (PageIo::KeepDecoded). The slot
// keeps the object with the page's held value ("held values" in slot/slot.h) and drops it
// whenever that value changes any other way (a write that hands over none, a replica's record,
// its group's flush, a reset) or when it is taken: a page taken is always the decoded form of
// the page's current bytes. `version` names the held version the object decodes (set by the
// slot when it keeps it), so one handed back after its page was written again is refused.
//
// A tree node the command changed whose page the slot holds goes to the slot as this object
// alone (PageIo::PutDecoded): the slot encodes it only when the bytes are needed (a read of
// them, the unit's close), so a node changed by each of the ~8 pushes of a unit is encoded
// once. While the slot lends such an object out (TakeDecoded) it is the page's only current
// form: a command that fails after changing it drops it, and the slot then fails (its unit,
// not acknowledged yet, goes; slot.h "Held values").
//
// Measured (redis-benchmark, one key, server CPU per op): a list's pushes and pops hit the
// same few nodes, which stay kept: LPUSH 31 -> 26 us, LPOP 29 -> 26 us. A sorted set's random
// inserts gain little (53 -> 51 us): the decode saved comes back as cache misses when the
// node's scattered entries are encoded. Hash and set pages (MemberPages) are not kept: with
// 200-byte values, HSET went from 28 to 37 us for the same reason.
//
// Thread rule: none inside; used by the slot's owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace slotkv {

class DecodedPage {
 public:
  virtual ~DecodedPage() = default;
  // The memory it takes, roughly (counted with the held values).
  virtual size_t memory_bytes() const = 0;
  // Sets *out to the page's bytes (the slot encodes a page written as its decoded form only,
  // PageIo::PutDecoded, when its bytes are needed).
  virtual void Encode(std::string* out) const = 0;

  uint64_t version = 0;  // set by the keeper; 0: never kept
};

}  // namespace slotkv
