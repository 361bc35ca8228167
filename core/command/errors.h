// Every Redis error text slotkv replies with, in one place, so replies match Redis byte for
// byte (text after the leading '-'). Texts that embed a name are built by the functions below.
#pragma once

#include <string>
#include <string_view>

#include "core/base/status.h"

namespace slotkv::command {

inline constexpr std::string_view kErrSyntax = "ERR syntax error";
inline constexpr std::string_view kErrNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kErrNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kErrOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kErrIncrFloatNaN = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kErrWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
// HyperLogLog (hyperloglog_commands.cc): a string that is not one, one whose registers do not
// decode.
inline constexpr std::string_view kErrNotHll =
    "WRONGTYPE Key is not a valid HyperLogLog string value.";
inline constexpr std::string_view kErrBadHll = "INVALIDOBJ Corrupted HLL object detected";
// A RESTORE / FUNCTION RESTORE payload whose trailer does not check, and one whose value does
// not parse.
inline constexpr std::string_view kErrBadPayload = "ERR DUMP payload version or checksum are wrong";
inline constexpr std::string_view kErrBadDataFormat = "ERR Bad data format";
inline constexpr std::string_view kErrBusyKey = "BUSYKEY Target key name already exists.";
inline constexpr std::string_view kErrNoSuchKey = "ERR no such key";
// MONITOR inside MULTI; any command but a few on a monitoring connection (Redis's replica rule).
inline constexpr std::string_view kErrMonitorDenyBlocking =
    "ERR MONITOR isn't allowed for DENY BLOCKING client";
inline constexpr std::string_view kErrReplicaKeyspace =
    "ERR Replica can't interact with the keyspace";
// SORT of an element (or BY value) that is not a number, without ALPHA.
inline constexpr std::string_view kErrSortNotDouble =
    "ERR One or more scores can't be converted into double";
inline constexpr std::string_view kErrDbIndex = "ERR DB index is out of range";
// SWAPDB's indexes that are not 32-bit integers.
inline constexpr std::string_view kErrSwapDbFirst = "ERR invalid first DB index";
inline constexpr std::string_view kErrSwapDbSecond = "ERR invalid second DB index";
inline constexpr std::string_view kErrNoAuth = "NOAUTH Authentication required.";
// Replication (repl/): a write on a read-only replica, on a master short of good replicas.
inline constexpr std::string_view kErrReadOnlyReplica =
    "READONLY You can't write against a read only replica.";
inline constexpr std::string_view kErrNoReplicas = "NOREPLICAS Not enough good replicas to write.";
// ZooKeeper mode: a master whose lease ran out (repl/coordinator.h). READONLY, so that clients
// that found it through Sentinel ask again where the master is.
inline constexpr std::string_view kErrNoLease =
    "READONLY This master has lost its ZooKeeper lease: it takes no writes until it has read "
    "the master record again.";
inline constexpr std::string_view kErrZkManaged =
    "ERR the roles are managed by ZooKeeper here: use the admin API's /cluster";
inline constexpr std::string_view kErrMasterDown =
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
// Sent to a client protected mode refuses, then the connection closes (Redis 7.0.15's words,
// typo included, so clients that match on them keep working).
inline constexpr std::string_view kErrProtectedMode =
    "DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from the "
    "outside.";
inline constexpr std::string_view kErrWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kErrAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kErrSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kErrOffset = "ERR offset is out of range";
inline constexpr std::string_view kErrBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kErrBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kErrBitArg = "ERR The bit argument must be 1 or 0.";
inline constexpr std::string_view kErrBitOpNot =
    "ERR BITOP NOT must be called with a single source key.";
inline constexpr std::string_view kErrBitfieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
inline constexpr std::string_view kErrBitfieldOverflow = "ERR Invalid OVERFLOW type specified";
inline constexpr std::string_view kErrBitfieldRo =
    "ERR BITFIELD_RO only supports the GET subcommand";
// HRANDFIELD / SRANDMEMBER with a negative count whose reply would pass kMaxRandomReplyBytes.
inline constexpr std::string_view kErrReplyTooBig =
    "ERR value is out of range (the reply would exceed 1 GB)";
inline constexpr std::string_view kErrStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kErrTimeoutNotFloat = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kErrTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kErrTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kErrTimeoutRange = "ERR timeout is out of range";
inline constexpr std::string_view kErrKeyTooLong = "ERR key too long (slotkv keeps keys up to 2048 bytes)";
inline constexpr std::string_view kErrExpireOptions =
    "ERR NX and XX, GT or LT options at the same time are not compatible";

// A write refused (or whose commit failed) because an I/O failure stopped writes to its slot,
// followed by the failure (as Redis's "MISCONF Errors writing to the AOF file: ...").
inline constexpr std::string_view kErrWriteFailed = "MISCONF Errors writing to disk: ";
inline constexpr std::string_view kErrNotInMulti = "ERR Command not allowed inside a transaction";
inline constexpr std::string_view kErrNestedMulti = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kErrExecNoMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kErrDiscardNoMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kErrWatchInMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kErrExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
// EXEC itself refused (its arity, NOAUTH): this, then the refusal without its "ERR ".
inline constexpr std::string_view kErrExecAbortBecause =
    "EXECABORT Transaction discarded because of: ";

inline constexpr std::string_view kErrNotBusy = "NOTBUSY No scripts in execution right now.";
inline constexpr std::string_view kErrUnkillable =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";

// "ERR wrong number of arguments for 'get' command" (name as the client sent it, lower-cased).
std::string WrongArgs(std::string_view command);
// "ERR unknown command 'foo', with args beginning with: 'a' 'b' " (args after the name).
std::string UnknownCommand(std::string_view name, const std::string* args, size_t nargs);
// "ERR unknown subcommand 'x'. Try CLIENT HELP."
std::string UnknownSubcommand(std::string_view command, std::string_view sub);
// A known subcommand with arguments it does not take (Redis's addReplySubcommandSyntaxError):
// "ERR unknown subcommand or wrong number of arguments for 'x'. Try CLIENT HELP."
std::string SubcommandSyntax(std::string_view command, std::string_view sub);
// A protected command refused (Redis's processCommand): "ERR DEBUG command not allowed. If the
// enable-debug-command option is set to \"local\", ..." for command "DEBUG".
std::string ProtectedNotAllowed(std::string_view command, std::string_view option);
// "ERR invalid expire time in 'set' command"
std::string InvalidExpire(std::string_view command);
// The reply to a storage failure: "ERR <status>" (IOError and Corruption keep their text);
// Unavailable (a write refused after an I/O failure) is "MISCONF Errors writing to disk: ...".
std::string StatusError(const Status& status);

}  // namespace slotkv::command
