// The command table: one row per command, read by everything that needs to know a command.
// Arity checks, key -> slot routing, COMMAND's output, commandstats and (later) what goes to
// the WAL and replicas all come from the row. Rows are registered by one function per command
// family (RegisterStringCommands ...) at start; the table is read-only afterwards.
//
// A row has exactly one handler: `run` for commands with one key (first_key == last_key > 0),
// run on the key's owner; or `run_async` for the rest (several keys, no key, or client state).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/command/context.h"

namespace slotkv::command {

using Handler = void (*)(CommandContext&);
using AsyncHandler = Task (*)(AsyncContext&);
// The positions of the keys in args (name included), for commands whose keys move with their
// arguments (a numkeys count): Redis's getkeys_proc. Bad input gives the keys it can find.
using KeysFn = std::vector<size_t> (*)(const std::vector<std::string>& args);
using ReachFn = bool (*)(const std::vector<std::string>& args);

// Flags, as COMMAND INFO names them.
enum CommandFlag : uint32_t {
  kWrite = 1 << 0,
  kReadOnly = 1 << 1,
  kAdmin = 1 << 2,
  kFast = 1 << 3,
  kNoAuth = 1 << 4,      // allowed before AUTH
  kDenyOom = 1 << 5,
  kLoading = 1 << 6,
  kStale = 1 << 7,
  kNoScript = 1 << 8,
  kBlocking = 1 << 9,
  kSkipSlowlog = 1 << 10,
  kPubSub = 1 << 11,
  kNoMulti = 1 << 12,    // refused inside MULTI ("Command not allowed inside a transaction")
  kMayReplicate = 1 << 17,  // may reach replicas without kWrite (PUBLISH, EVAL): CLIENT PAUSE
  kSkipMonitor = 1 << 18,   // MONITOR does not show it (EVAL, FCALL: their commands are shown)
  kNoMandatoryKeys = 1 << 19,  // may name no key (EVAL ... 0): COMMAND GETKEYS replies []
  kAllowBusy = 1 << 20,     // runs while a script is busy (dispatch's AllowedWhileBusy)
  kNoAsyncLoading = 1 << 21,  // COMMAND INFO only: Redis refuses it during a diskless load
  kAsking = 1 << 22,  // COMMAND INFO only: a cluster takes it for a slot being imported
  // slotkv's own, not in COMMAND INFO:
  // Reads or changes every slot of the database (KEYS, SCAN, FLUSHDB ...): a transaction
  // holding it takes every slot.
  kAllSlots = 1 << 13,
  // Its task visits its slots in the global lock order (ForEachKeySlot, ForEachSlot), so it
  // takes each slot as it reaches it instead of all of them first (txn/slot_locks.h).
  kOrderedVisits = 1 << 14,
  // Visits its keys one at a time without holding them to the end (WATCH).
  kVisits = 1 << 15,
  // Runs a transaction of its own (EXEC, EVAL): RunTask takes nothing for it.
  kOwnTransaction = 1 << 16,
  // Redis's protected commands (DEBUG; MODULE LOAD, LOADEX, UNLOAD), hidden in COMMAND INFO:
  // refused before authentication unless enable-debug-command / enable-module-command allow
  // the client (Admit).
  kProtected = 1 << 23,
};

// The flags most admin subcommands carry in Redis 7.0 (CONFIG GET, CLIENT KILL, LATENCY ...).
inline constexpr uint32_t kAdminSubcommand = kAdmin | kNoScript | kLoading | kStale;

struct CommandSpec {
  std::string_view name;    // lower case, as COMMAND lists it
  int arity = 0;            // argument count including the name; -N = at least N
  uint32_t flags = 0;
  int first_key = 0;        // 0 = no keys
  int last_key = 0;         // -1 = the last argument
  int step = 0;
  Handler run = nullptr;
  AsyncHandler run_async = nullptr;
  KeysFn keys = nullptr;    // set for movable keys: overrides first_key / last_key / step
  // Set when some calls read keys that no argument names (SORT's BY and GET patterns): true
  // for such a call, which then takes every slot as a kAllSlots command does (AllSlots).
  ReachFn reaches_all = nullptr;
  std::string_view group = {};    // COMMAND DOCS group: "string", "generic", "connection", "server"
  std::string_view summary = {};
  std::string_view since = {};
  std::string_view acl = {};      // ACL categories without '@', space separated: "write string slow"
  // The flags of Redis's key specs, '|' between specs ("RW access delete|RW insert"): the
  // first key found has the first spec's, and so on, the last spec's standing for the rest.
  // COMMAND GETKEYSANDFLAGS shows them; ACL's key patterns go by them (access reads, insert,
  // update and delete write). "not_key": the argument is a shard channel, not a key.
  std::string_view key_specs = {};
  // A container's subcommand rows ("config|get" ...; Subcommand() makes one): the flags, arity,
  // key and ACL categories of each, which the checks before a call runs go by (Resolve); the
  // container's own handler runs them all.
  std::vector<CommandSpec> subcommands = {};
  int id = -1;              // unique over rows and subcommand rows (ACL's bit), set by Add
  bool container = false;   // has subcommands (CLIENT, CONFIG ...): set by Add
};

// A container's subcommand row: its name as Redis shows it ("config|get"), arity (the
// container's name included), flags and ACL categories; its key at key (0: none), with
// key_specs.
CommandSpec Subcommand(std::string_view name, int arity, uint32_t flags, std::string_view acl,
                       int key = 0, std::string_view key_specs = {});

class CommandTable {
 public:
  // Adds a row. REQUIRES: name unique; exactly one of run / run_async.
  void Add(CommandSpec spec);
  // The row of name (any case), or nullptr.
  const CommandSpec* Find(std::string_view name) const;
  // The row or subcommand row of name as Redis spells it ("get", "config|get"; any case), or
  // nullptr (ACL rules).
  const CommandSpec* FindFull(std::string_view name) const;
  const std::vector<CommandSpec>& all() const { return rows_; }
  size_t size() const { return rows_.size(); }
  // Row ids run from 0 to id_count() - 1 (rows first, then subcommand rows).
  size_t id_count() const { return next_id_; }
  // Calls f(row) for every row and, after each container, its subcommand rows.
  template <typename F>
  void ForEachRow(F&& f) const {
    for (const CommandSpec& row : rows_) {
      f(row);
      for (const CommandSpec& sub : row.subcommands) f(sub);
    }
  }
  // Gives the subcommand rows their ids, after every row is added. REQUIRES: called once.
  void Seal();

  // Whether args (name included) has a count the row accepts.
  static bool ArityOk(const CommandSpec& spec, size_t argc) {
    return spec.arity >= 0 ? argc == static_cast<size_t>(spec.arity)
                           : argc >= static_cast<size_t>(-spec.arity);
  }
  // The name Redis shows for a request in CLIENT LIST and errors: "get", "client|list".
  static std::string FullName(const CommandSpec& spec, const std::vector<std::string>& args);
  // The row a call goes by: the subcommand row args[1] names (any case) for a container, else
  // spec (also for a container called without or with an unknown subcommand).
  static const CommandSpec& Resolve(const CommandSpec& spec,
                                    const std::vector<std::string>& args);
  // Positions of the keys in args (from first_key, last_key, step).
  static std::vector<size_t> KeyPositions(const CommandSpec& spec, size_t argc);
  // Positions of every key of this call: spec.keys(args) for movable keys, else KeyPositions
  // (of the subcommand row for a container).
  static std::vector<size_t> Keys(const CommandSpec& spec, const std::vector<std::string>& args);
  // Whether some call of the row names keys (a container: one of its subcommands).
  static bool HasKeys(const CommandSpec& spec);
  // The key spec flags of each of the call's `keys` keys (Keys's order), as COMMAND
  // GETKEYSANDFLAGS shows them: the row's key_specs, or what SET and BITFIELD's arguments make
  // of their variable flags (Redis's setGetKeys, bitfieldGetKeys).
  static std::vector<std::string_view> KeyFlags(const CommandSpec& spec,
                                                const std::vector<std::string>& args,
                                                size_t keys);
  // The flags of this call: its subcommand row's for a container (Resolve).
  static uint32_t CallFlags(const CommandSpec& spec, const std::vector<std::string>& args) {
    return Resolve(spec, args).flags;
  }
  // Whether this call reaches every slot: kAllSlots, or spec.reaches_all(args).
  static bool AllSlots(const CommandSpec& spec, const std::vector<std::string>& args) {
    return (spec.flags & kAllSlots) || (spec.reaches_all && spec.reaches_all(args));
  }
  // Keys of commands shaped `numkeys key...` at numkeys_at (ZUNION, SINTERCARD, LMPOP ...),
  // after the fixed keys before it (ZUNIONSTORE's destination).
  static std::vector<size_t> NumKeys(const std::vector<std::string>& args, size_t numkeys_at,
                                     std::vector<size_t> fixed = {});

 private:
  std::vector<CommandSpec> rows_;
  std::unordered_map<std::string, size_t> index_;
  size_t next_id_ = 0;
};

// KeysFn rows: `cmd numkeys key...` (ZUNION, SINTERCARD, LMPOP, ZMPOP); `cmd timeout numkeys
// key...` (BLMPOP, BZMPOP); `cmd destination numkeys key...` (ZUNIONSTORE ...).
std::vector<size_t> KeysAfterNumKeys(const std::vector<std::string>& args);
std::vector<size_t> KeysAfterTimeoutNumKeys(const std::vector<std::string>& args);
std::vector<size_t> DestinationAndNumKeys(const std::vector<std::string>& args);

// The table with every command family registered.
std::unique_ptr<CommandTable> BuildCommandTable();

// One function per family, each at the end of its family's file.
void RegisterConnectionCommands(CommandTable& table);
void RegisterAclCommands(CommandTable& table);
void RegisterKeyCommands(CommandTable& table);
void RegisterScanCommands(CommandTable& table);
void RegisterStringCommands(CommandTable& table);
void RegisterLcsCommand(CommandTable& table);
void RegisterBitmapCommands(CommandTable& table);
void RegisterHyperLogLogCommands(CommandTable& table);
void RegisterGeoCommands(CommandTable& table);
void RegisterSortCommands(CommandTable& table);
void RegisterStreamCommands(CommandTable& table);
void RegisterStreamGroupCommands(CommandTable& table);
void RegisterStreamReadCommands(CommandTable& table);
void RegisterStreamInfoCommand(CommandTable& table);
void RegisterMonitorCommand(CommandTable& table);
void RegisterMemoryCommand(CommandTable& table);
void RegisterLatencyCommand(CommandTable& table);
void RegisterLolwutCommand(CommandTable& table);
void RegisterModuleCommand(CommandTable& table);
void RegisterPersistCommands(CommandTable& table);
void RegisterDebugCommand(CommandTable& table);
void RegisterClusterCommands(CommandTable& table);
void RegisterDumpCommands(CommandTable& table);
void RegisterHashCommands(CommandTable& table);
void RegisterSetCommands(CommandTable& table);
void RegisterSetSetOpsCommands(CommandTable& table);
void RegisterListCommands(CommandTable& table);
void RegisterZSetCommands(CommandTable& table);
void RegisterZSetRangeCommands(CommandTable& table);
void RegisterZSetSetOpsCommands(CommandTable& table);
void RegisterBlockingCommands(CommandTable& table);
void RegisterServerCommands(CommandTable& table);
void RegisterTransactionCommands(CommandTable& table);
void RegisterPubSubCommands(CommandTable& table);
void RegisterScriptCommands(CommandTable& table);
void RegisterFunctionCommands(CommandTable& table);
void RegisterReplicationCommands(CommandTable& table);

}  // namespace slotkv::command
