// The replication protocol of slotkv, spoken on the normal port (as Kvrocks does: Redis's own
// PSYNC and RDB transfer do not fit a store of per-slot streams).
//
// A replica connects, authenticates (masterauth) and sends
//   SLOTKV.SYNC <listening-port> <announce-ip|-> <slots> <databases> <epoch> <replid|?>
//               [<slot> <db> <offset>]...
// naming the epoch of the master record it follows (ZooKeeper mode, repl/cluster.h; else 0),
// the replication id its data came from and the offset of each stream (database of a slot) it
// holds data of. A master whose epoch is lower refuses (it stops taking writes and re-reads
// the record: it was replaced). From then on the connection carries frames, each a RESP array of bulk
// strings (what a client sends as a command, so the replica reads them with net::RespParser):
//   HELLO <replid> <slots> <databases> <epoch>
//                                        the reply to SLOTKV.SYNC: who the master is; a replica
//                                        that knows a higher epoch drops the link. The epoch
//                                        holds for every frame of the connection: a master
//                                        that learns of a higher one closes its links.
//   CONT <slot> <db> <offset>            partial resync: the stream continues after offset
//   FULL <slot> <db>                     full sync: the replica empties the stream, DATA follow
//   DATA <slot> <db> <records>           snapshot: the stream's live keys as wal::Record kPut
//   SYNCED <slot> <db> <offset>          the snapshot is complete; the stream is at offset
//   UNIT <slot> <db> <offset> <records>  committed units (wal::Record encoding, whole units)
//   CLEAR <slot> <db> <offset>           the stream was emptied (FLUSHDB, FLUSHALL)
//   DICT <id> <group> <bytes>            a zstd dictionary of the master (slot/dictionaries.h)
//   PING                                 keepalive
//   GETACK                               the replica acknowledges now (WAIT)
//   FAILOVER                             the master hands over: the replica promotes itself
//   PUB <channel> <payload>              a PUBLISH on the master (SPUB: SPUBLISH), delivered to
//                                        the replica's subscribers as Redis propagates it
//   DBMAP <physical>...                  the master's database map (SWAPDB; the database slot
//                                        of each database, command::Keyspace::db_map): right
//                                        after HELLO, and at each SWAPDB after the frames of
//                                        the writes before it and before those after it
// Records carry values as the master stores them: a compressed one names the master's
// dictionary id, and each worker of the master sends every dictionary it has not sent on the
// link before its next frame, so a DICT always precedes the records that need it. The replica
// adopts each (Dictionaries::Adopt) and rewrites the ids of the values it applies to its own.
// Per stream the frames keep the master's order; UNIT frames of a stream in full sync are
// interleaved with its DATA, each reflecting the master at the moment it was sent, so applying
// them in order ends equal to the master. The replica acknowledges with
//   SLOTKV.ACK [<slot> <db> <offset>]...
// (no reply) once a second, after GETACK, and whenever a stream comes online, each offset
// applied and committed. Offsets are the streams' sequence numbers (slot::Slot::stream_seq).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/resp_request.h"

namespace slotkv::repl {

// The frame (or command) of these arguments: a RESP array of bulk strings (AppendRequest). A
// frame built by hand is "*<n>\r\n" then AppendBulk (core/base/resp_request.h) n times.
std::string EncodeFrame(std::initializer_list<std::string_view> args);

// The frame with a stream's slot, db and offset as decimal arguments after name.
std::string StreamFrame(std::string_view name, uint32_t slot, uint32_t db, uint64_t offset);
std::string StreamFrame(std::string_view name, uint32_t slot, uint32_t db);
// UNIT <slot> <db> <offset> <records>, DATA <slot> <db> <records>.
std::string UnitFrame(uint32_t slot, uint32_t db, uint64_t offset, std::string_view records);
std::string DataFrame(uint32_t slot, uint32_t db, std::string_view records);

// DBMAP <physical>... of map, and the map of a DBMAP frame's args: nullopt unless it lists
// databases numbers below databases (command::Keyspace::SetDbMap checks it is a permutation).
std::string DbMapFrame(const std::vector<uint32_t>& map);
std::optional<std::vector<uint32_t>> ParseDbMap(const std::vector<std::string>& args,
                                                uint32_t databases);

// A stream's offset as SLOTKV.SYNC and SLOTKV.ACK carry them: "<slot> <db> <offset>".
struct StreamOffset {
  uint32_t slot = 0;
  uint32_t db = 0;
  uint64_t offset = 0;
};
// Appends its three bulks (the caller counts them in the array's header).
void AppendOffset(std::string* out, const StreamOffset& o);
// The triples of args from first on; nullopt when one is malformed or names a slot or a
// database past slots or databases.
std::optional<std::vector<StreamOffset>> ParseOffsets(const std::vector<std::string>& args,
                                                      size_t first, uint32_t slots,
                                                      uint32_t databases);

}  // namespace slotkv::repl
