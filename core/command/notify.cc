#include "core/command/notify.h"

#include <algorithm>
#include <atomic>

#include "conf/config.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/pubsub/registry.h"

namespace slotkv::command {

namespace {

using Events = std::vector<CommandNotifier::Event>;

// The class of a command's own event, by its family.
uint32_t ClassOf(std::string_view group) {
  if (group == "string" || group == "bitmap" || group == "hyperloglog") {
    return conf::kNotifyString;
  }
  if (group == "list") return conf::kNotifyList;
  if (group == "set") return conf::kNotifySet;
  if (group == "hash") return conf::kNotifyHash;
  if (group == "sorted-set") return conf::kNotifyZSet;
  return conf::kNotifyGeneric;
}

bool AnyArg(const std::vector<std::string>& args, size_t from,
            std::initializer_list<std::string_view> words) {
  for (size_t i = from; i < args.size(); ++i) {
    for (std::string_view w : words) {
      if (Is(args[i], w)) return true;
    }
  }
  return false;
}

// The argument after the last key (LMPOP's LEFT|RIGHT, ZMPOP's MIN|MAX).
std::string_view AfterKeys(const CommandSpec& spec, const std::vector<std::string>& args) {
  std::vector<size_t> keys = CommandTable::Keys(spec, args);
  const size_t at = keys.empty() ? args.size() : keys.back() + 1;
  return at < args.size() ? std::string_view(args[at]) : std::string_view();
}

// Commands that store a computed value at a destination: an empty result removes it ("del").
bool Stores(std::string_view name) {
  static constexpr std::string_view kStores[] = {
      "sinterstore", "sunionstore", "sdiffstore", "zunionstore", "zinterstore",
      "zdiffstore",  "zrangestore", "bitop", "georadius", "georadiusbymember",
      "geosearchstore", "sort"};
  return std::find(std::begin(kStores), std::end(kStores), name) != std::end(kStores);
}

constexpr uint32_t kG = conf::kNotifyGeneric;
constexpr uint32_t kS = conf::kNotifyString;
constexpr uint32_t kL = conf::kNotifyList;

}  // namespace

void Notify(ServerState& server, uint32_t klass, std::string_view event, std::string_view key,
            uint32_t db) {
  const uint32_t flags = server.notify_flags.load(std::memory_order_relaxed);
  if (!(flags & klass) || server.pubsub == nullptr) return;
  const std::string at = "@" + std::to_string(db) + "__:";
  if (flags & conf::kNotifyKeyspace) {
    server.pubsub->Publish(pubsub::Kind::kChannel, "__keyspace" + at + std::string(key), event);
  }
  if (flags & conf::kNotifyKeyevent) {
    server.pubsub->Publish(pubsub::Kind::kChannel, "__keyevent" + at + std::string(event), key);
  }
}

CommandNotifier::CommandNotifier(ServerState& server, const CommandSpec* spec,
                                 const std::vector<std::string>* args)
    : server_(server), spec_(spec), args_(args),
      flags_(server.notify_flags.load(std::memory_order_relaxed)),
      active_(spec != nullptr && (flags_ & (conf::kNotifyKeyspace | conf::kNotifyKeyevent)) &&
              (flags_ & ~(conf::kNotifyKeyspace | conf::kNotifyKeyevent))) {}

bool CommandNotifier::wants_created() const { return (flags_ & conf::kNotifyNew) != 0; }

void CommandNotifier::OnPut(uint32_t db, std::string_view key, bool created) {
  // RENAME and COPY remove a destination they replace before adding theirs: "new" all the same.
  const std::string_view name = spec_->name;
  const bool replaces = (name == "rename" || name == "renamenx" || name == "copy") &&
                        args_->size() > 2 && key == (*args_)[2];
  if (created || replaces) Notify(server_, conf::kNotifyNew, "new", key, db);
  for (const Event& e : PutEvents(*spec_, *args_, key)) Notify(server_, e.klass, e.name, key, db);
}

void CommandNotifier::OnDelete(uint32_t db, std::string_view key) {
  for (const Event& e : DeleteEvents(*spec_, *args_, key)) {
    Notify(server_, e.klass, e.name, key, db);
  }
}

void CommandNotifier::OnMiss(uint32_t db, std::string_view key) {
  Notify(server_, conf::kNotifyKeyMiss, "keymiss", key, db);
}

Events CommandNotifier::PutEvents(const CommandSpec& spec, const std::vector<std::string>& args,
                                  std::string_view key) {
  const std::string_view name = spec.name;
  const bool is_src = args.size() > 1 && key == args[1];
  const bool is_dst = args.size() > 2 && key == args[2];
  if (name == "rename" || name == "renamenx") return {{kG, "rename_to"}};
  if (name == "move") return {{kG, "move_to"}};
  if (name == "copy") return {{kG, "copy_to"}};
  if (name == "smove") return {{conf::kNotifySet, is_dst ? "sadd" : "srem"}};
  if (name == "lmove" || name == "blmove" || name == "rpoplpush" || name == "brpoplpush") {
    const bool rpoplpush = name == "rpoplpush" || name == "brpoplpush";
    const bool from_left = !rpoplpush && Is(args[3], "LEFT");
    const bool to_left = rpoplpush || Is(args[4], "LEFT");
    Events out;  // Redis tells the push before the pop
    if (is_dst) out.push_back({kL, to_left ? "lpush" : "rpush"});
    if (is_src) out.push_back({kL, from_left ? "lpop" : "rpop"});
    return out;
  }
  if (name == "set" || name == "setex" || name == "psetex") {
    Events out = {{kS, "set"}};
    if (name != "set" || AnyArg(args, 3, {"EX", "PX", "EXAT", "PXAT"})) {
      out.push_back({kG, "expire"});
    }
    return out;
  }
  if (name == "setnx" || name == "getset" || name == "mset" || name == "msetnx" ||
      name == "bitop") {
    return {{kS, "set"}};
  }
  if (name == "incr" || name == "decr" || name == "incrby" || name == "decrby") {
    return {{kS, "incrby"}};
  }
  if (name == "getex") return {{kG, AnyArg(args, 2, {"PERSIST"}) ? "persist" : "expire"}};
  if (name == "expire" || name == "pexpire" || name == "expireat" || name == "pexpireat") {
    return {{kG, "expire"}};
  }
  if (name == "lpushx") return {{kL, "lpush"}};
  if (name == "rpushx") return {{kL, "rpush"}};
  if (name == "blpop") return {{kL, "lpop"}};
  if (name == "brpop") return {{kL, "rpop"}};
  if (name == "lmpop" || name == "blmpop") {
    return {{kL, Is(AfterKeys(spec, args), "LEFT") ? "lpop" : "rpop"}};
  }
  if (name == "hmset" || name == "hsetnx") return {{conf::kNotifyHash, "hset"}};
  if (name == "zadd") {
    return {{conf::kNotifyZSet, AnyArg(args, 2, {"INCR"}) ? "zincr" : "zadd"}};
  }
  if (name == "zincrby") return {{conf::kNotifyZSet, "zincr"}};
  if (name == "bzpopmin") return {{conf::kNotifyZSet, "zpopmin"}};
  if (name == "bzpopmax") return {{conf::kNotifyZSet, "zpopmax"}};
  if (name == "zmpop" || name == "bzmpop") {
    return {{conf::kNotifyZSet, Is(AfterKeys(spec, args), "MIN") ? "zpopmin" : "zpopmax"}};
  }
  if (name == "bitfield") return {{kS, "setbit"}};
  if (name == "pfmerge") return {{kS, "pfadd"}};
  if (name == "geoadd") return {{conf::kNotifyZSet, "zadd"}};
  if (name == "georadius" || name == "georadiusbymember") {
    return {{conf::kNotifyZSet, "georadiusstore"}};
  }
  if (name == "geosearchstore") return {{conf::kNotifyZSet, "geosearchstore"}};
  if (name == "sort") return {{kL, "sortstore"}};
  if (name == "pfcount") return {};  // its cache: Redis tells nothing
  if (spec.group == "stream") return {};  // the family tells its own (stream_access.h)
  return {{ClassOf(spec.group), name}};
}

Events CommandNotifier::DeleteEvents(const CommandSpec& spec,
                                     const std::vector<std::string>& args,
                                     std::string_view key) {
  const std::string_view name = spec.name;
  const bool is_src = args.size() > 1 && key == args[1];
  if (name == "rename" || name == "renamenx") {
    // A destination that is replaced goes without an event, as in Redis.
    return is_src ? Events{{kG, "rename_from"}} : Events{};
  }
  if (name == "move") return is_src ? Events{{kG, "move_from"}} : Events{};
  if (name == "copy") return {};
  if (name == "del" || name == "unlink" || name == "getdel" || Stores(name) ||
      name == "expire" || name == "pexpire" || name == "expireat" || name == "pexpireat" ||
      name == "getex" || name == "set" || name == "setex" || name == "psetex" ||
      name == "restore" || name == "migrate") {
    return {{kG, "del"}};
  }
  // A collection its command emptied: the command's event, then "del".
  Events out = PutEvents(spec, args, key);
  out.push_back({kG, "del"});
  return out;
}

}  // namespace slotkv::command
