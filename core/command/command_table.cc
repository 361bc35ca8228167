#include "core/command/command_table.h"

#include <algorithm>
#include <cassert>
#include <cctype>

namespace slotkv::command {

namespace {

// Redis's commands that are containers of subcommands.
constexpr std::string_view kContainers[] = {"acl",    "client", "cluster", "command", "config",
                                            "debug",  "function", "latency", "memory",
                                            "module", "object", "pubsub",  "script",
                                            "slowlog", "xinfo", "xgroup"};

}  // namespace

void CommandTable::Add(CommandSpec spec) {
  spec.container = std::find(std::begin(kContainers), std::end(kContainers), spec.name) !=
                   std::end(kContainers);
  assert((spec.run == nullptr) != (spec.run_async == nullptr));
  assert(spec.run == nullptr || (spec.first_key > 0 && spec.first_key == spec.last_key));
  spec.id = static_cast<int>(rows_.size());
  [[maybe_unused]] bool added = index_.emplace(std::string(spec.name), rows_.size()).second;
  assert(added);
  rows_.push_back(spec);
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  char lower[32];
  if (name.size() > sizeof lower) return nullptr;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];  // ASCII: command names are; no locale call per byte
    lower[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  auto it = index_.find(std::string(lower, name.size()));
  return it == index_.end() ? nullptr : &rows_[it->second];
}

std::string CommandTable::FullName(const CommandSpec& spec,
                                   const std::vector<std::string>& args) {
  std::string name(spec.name);
  if (spec.container && args.size() > 1) {
    name += '|';
    for (char c : args[1]) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

std::vector<size_t> CommandTable::KeyPositions(const CommandSpec& spec, size_t argc) {
  std::vector<size_t> keys;
  if (spec.first_key <= 0 || argc <= static_cast<size_t>(spec.first_key)) return keys;
  int64_t last = spec.last_key < 0 ? static_cast<int64_t>(argc) + spec.last_key : spec.last_key;
  last = std::min<int64_t>(last, static_cast<int64_t>(argc) - 1);
  for (int64_t i = spec.first_key; i <= last; i += std::max(spec.step, 1)) {
    keys.push_back(static_cast<size_t>(i));
  }
  return keys;
}

std::vector<size_t> CommandTable::Keys(const CommandSpec& spec,
                                       const std::vector<std::string>& args) {
  return spec.keys ? spec.keys(args) : KeyPositions(spec, args.size());
}

std::vector<size_t> CommandTable::NumKeys(const std::vector<std::string>& args,
                                          size_t numkeys_at, std::vector<size_t> fixed) {
  std::vector<size_t> keys = std::move(fixed);
  if (numkeys_at >= args.size()) return keys;
  int64_t n = 0;
  for (char c : args[numkeys_at]) {
    if (c < '0' || c > '9' || n > (int64_t{1} << 40)) return keys;
    n = n * 10 + (c - '0');
  }
  for (size_t i = numkeys_at + 1; i < args.size() && n > 0; ++i, --n) keys.push_back(i);
  return keys;
}

std::vector<size_t> KeysAfterNumKeys(const std::vector<std::string>& args) {
  return CommandTable::NumKeys(args, 1);
}
std::vector<size_t> KeysAfterTimeoutNumKeys(const std::vector<std::string>& args) {
  return CommandTable::NumKeys(args, 2);
}
std::vector<size_t> DestinationAndNumKeys(const std::vector<std::string>& args) {
  return CommandTable::NumKeys(args, 2, {1});
}

std::unique_ptr<CommandTable> BuildCommandTable() {
  auto table = std::make_unique<CommandTable>();
  RegisterConnectionCommands(*table);
  RegisterKeyCommands(*table);
  RegisterScanCommands(*table);
  RegisterStringCommands(*table);
  RegisterLcsCommand(*table);
  RegisterBitmapCommands(*table);
  RegisterHyperLogLogCommands(*table);
  RegisterGeoCommands(*table);
  RegisterSortCommands(*table);
  RegisterMonitorCommand(*table);
  RegisterMemoryCommand(*table);
  RegisterLatencyCommand(*table);
  RegisterLolwutCommand(*table);
  RegisterDumpCommands(*table);
  RegisterHashCommands(*table);
  RegisterSetCommands(*table);
  RegisterSetSetOpsCommands(*table);
  RegisterListCommands(*table);
  RegisterZSetCommands(*table);
  RegisterZSetRangeCommands(*table);
  RegisterZSetSetOpsCommands(*table);
  RegisterBlockingCommands(*table);
  RegisterStreamCommands(*table);
  RegisterStreamGroupCommands(*table);
  RegisterStreamReadCommands(*table);
  RegisterStreamInfoCommand(*table);
  RegisterServerCommands(*table);
  RegisterTransactionCommands(*table);
  RegisterPubSubCommands(*table);
  RegisterScriptCommands(*table);
  RegisterFunctionCommands(*table);
  RegisterReplicationCommands(*table);
  return table;
}

}  // namespace slotkv::command
