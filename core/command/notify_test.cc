#include "core/command/notify.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "conf/config.h"
#include "core/command/command_table.h"

namespace slotkv::command {
namespace {

// The events of cmd (name and arguments) setting / removing key, as "class:name" strings.
struct Rules {
  std::unique_ptr<CommandTable> table = BuildCommandTable();

  std::vector<std::string> Names(const std::vector<CommandNotifier::Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) {
      out.push_back((e.klass == conf::kNotifyGeneric ? "g:" : "") + std::string(e.name));
    }
    return out;
  }
  std::vector<std::string> Put(std::vector<std::string> cmd, const std::string& key) {
    return Names(CommandNotifier::PutEvents(*table->Find(cmd[0]), cmd, key));
  }
  std::vector<std::string> Delete(std::vector<std::string> cmd, const std::string& key) {
    return Names(CommandNotifier::DeleteEvents(*table->Find(cmd[0]), cmd, key));
  }
};

using V = std::vector<std::string>;

TEST_CASE("a command's own event, or the one Redis names for it") {
  Rules r;
  CHECK(r.Put({"append", "k", "x"}, "k") == V{"append"});
  CHECK(r.Put({"SET", "k", "v"}, "k") == V{"set"});
  CHECK(r.Put({"set", "k", "v", "px", "5"}, "k") == V{"set", "g:expire"});
  CHECK(r.Put({"set", "k", "v", "KEEPTTL"}, "k") == V{"set"});
  CHECK(r.Put({"setex", "k", "5", "v"}, "k") == V{"set", "g:expire"});
  CHECK(r.Put({"decr", "k"}, "k") == V{"incrby"});
  CHECK(r.Put({"getex", "k", "persist"}, "k") == V{"g:persist"});
  CHECK(r.Put({"pexpireat", "k", "5"}, "k") == V{"g:expire"});
  CHECK(r.Put({"rpushx", "k", "a"}, "k") == V{"rpush"});
  CHECK(r.Put({"hsetnx", "k", "f", "v"}, "k") == V{"hset"});
  CHECK(r.Put({"zadd", "k", "incr", "1", "m"}, "k") == V{"zincr"});
  CHECK(r.Put({"bitfield", "k", "set", "u8", "0", "1"}, "k") == V{"setbit"});
  CHECK(r.Put({"lmpop", "2", "left", "k", "left"}, "k") == V{"lpop"});  // a key named left
  CHECK(r.Put({"bzmpop", "0", "1", "k", "max"}, "k") == V{"zpopmax"});
}

TEST_CASE("the two keys of a move get their own events") {
  Rules r;
  CHECK(r.Put({"rename", "a", "b"}, "b") == V{"g:rename_to"});
  CHECK(r.Delete({"rename", "a", "b"}, "a") == V{"g:rename_from"});
  CHECK(r.Delete({"rename", "a", "b"}, "b").empty());  // a replaced destination: silent
  CHECK(r.Delete({"move", "a", "1"}, "a") == V{"g:move_from"});
  CHECK(r.Put({"move", "a", "1"}, "a") == V{"g:move_to"});
  CHECK(r.Delete({"copy", "a", "b", "replace"}, "b").empty());
  CHECK(r.Put({"smove", "a", "b", "m"}, "b") == V{"sadd"});
  CHECK(r.Delete({"smove", "a", "b", "m"}, "a") == V{"srem", "g:del"});
  CHECK(r.Put({"lmove", "a", "b", "LEFT", "RIGHT"}, "a") == V{"lpop"});
  CHECK(r.Put({"lmove", "a", "b", "LEFT", "RIGHT"}, "b") == V{"rpush"});
  CHECK(r.Put({"lmove", "a", "a", "LEFT", "RIGHT"}, "a") == V{"rpush", "lpop"});
  CHECK(r.Put({"rpoplpush", "a", "b"}, "b") == V{"lpush"});
}

TEST_CASE("a removal is del, after the command's event when it emptied a collection") {
  Rules r;
  CHECK(r.Delete({"del", "a", "b"}, "b") == V{"g:del"});
  CHECK(r.Delete({"getdel", "a"}, "a") == V{"g:del"});
  CHECK(r.Delete({"expire", "a", "-1"}, "a") == V{"g:del"});
  CHECK(r.Delete({"sunionstore", "d", "s"}, "d") == V{"g:del"});
  CHECK(r.Delete({"bitop", "and", "d", "s"}, "d") == V{"g:del"});
  CHECK(r.Delete({"hdel", "h", "f"}, "h") == V{"hdel", "g:del"});
  CHECK(r.Delete({"blpop", "l", "0"}, "l") == V{"lpop", "g:del"});
  CHECK(r.Delete({"zremrangebyscore", "z", "0", "1"}, "z") == V{"zremrangebyscore", "g:del"});
}

}  // namespace
}  // namespace slotkv::command
