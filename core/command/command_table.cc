#include "core/command/command_table.h"

#include <algorithm>
#include <cassert>
#include <cctype>

#include "core/base/ascii.h"

namespace slotkv::command {


CommandSpec Subcommand(std::string_view name, int arity, uint32_t flags, std::string_view acl,
                       int key, std::string_view key_specs) {
  return {.name = name, .arity = arity, .flags = flags, .first_key = key, .last_key = key,
          .step = key > 0 ? 1 : 0, .acl = acl, .key_specs = key_specs};
}

void CommandTable::Add(CommandSpec spec) {
  spec.container = !spec.subcommands.empty();
  assert((spec.run == nullptr) != (spec.run_async == nullptr));
  assert(spec.run == nullptr || (spec.first_key > 0 && spec.first_key == spec.last_key));
  assert(next_id_ == rows_.size());  // no row after Seal
  spec.id = static_cast<int>(rows_.size());
  next_id_ = rows_.size() + 1;
  [[maybe_unused]] bool added = index_.emplace(std::string(spec.name), rows_.size()).second;
  assert(added);
  rows_.push_back(std::move(spec));
}

void CommandTable::Seal() {
  for (CommandSpec& row : rows_) {
    for (CommandSpec& sub : row.subcommands) {
      assert(sub.name.starts_with(std::string(row.name) + "|"));
      sub.id = static_cast<int>(next_id_++);
    }
  }
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

const CommandSpec* CommandTable::FindFull(std::string_view name) const {
  const size_t bar = name.find('|');
  const CommandSpec* row = Find(name.substr(0, bar));
  if (row == nullptr || bar == std::string_view::npos) return row;
  for (const CommandSpec& sub : row->subcommands) {
    if (EqualsIgnoreCase(sub.name, name)) return &sub;
  }
  return nullptr;
}

const CommandSpec& CommandTable::Resolve(const CommandSpec& spec,
                                         const std::vector<std::string>& args) {
  if (spec.subcommands.empty() || args.size() < 2) return spec;
  const std::string_view sub = args[1];
  for (const CommandSpec& row : spec.subcommands) {
    if (EqualsIgnoreCase(row.name.substr(spec.name.size() + 1), sub)) return row;
  }
  return spec;
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
  if (spec.keys) return spec.keys(args);
  const CommandSpec& call = Resolve(spec, args);
  return &call == &spec && spec.container ? std::vector<size_t>{}
                                          : KeyPositions(call, args.size());
}

std::vector<std::string_view> CommandTable::KeyFlags(const CommandSpec& spec,
                                                     const std::vector<std::string>& args,
                                                     size_t keys) {
  const CommandSpec& row = Resolve(spec, args);
  std::string_view specs = row.key_specs;
  if (row.name == "set") {  // SET ... GET reads the old value
    specs = "OW update";
    for (size_t i = 3; i < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "GET")) specs = "RW access update";
    }
  } else if (row.name == "bitfield") {  // only GETs: a read
    specs = "RO access";
    for (size_t i = 2; i < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "SET") || EqualsIgnoreCase(args[i], "INCRBY")) specs = "RW access update";
    }
  }
  std::vector<std::string_view> out;
  for (size_t i = 0; i < keys; ++i) {
    const size_t bar = specs.find('|');
    out.push_back(specs.substr(0, bar));
    if (bar != std::string_view::npos) specs.remove_prefix(bar + 1);
  }
  return out;
}

bool CommandTable::HasKeys(const CommandSpec& spec) {
  if (spec.first_key > 0 || spec.keys != nullptr) return true;
  return std::any_of(spec.subcommands.begin(), spec.subcommands.end(),
                     [](const CommandSpec& sub) { return sub.first_key > 0; });
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
  RegisterAclCommands(*table);
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
  RegisterModuleCommand(*table);
  RegisterPersistCommands(*table);
  RegisterDebugCommand(*table);
  RegisterClusterCommands(*table);
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
  table->Seal();
  return table;
}

}  // namespace slotkv::command
