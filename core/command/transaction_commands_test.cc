#include <doctest/doctest.h>

#include <future>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kQueued = "+QUEUED\r\n";

// Runs fn on worker w and waits for it.
void RunOn(CommandFixture& f, int w, std::function<void()> fn) {
  std::promise<void> done;
  f.executor().Post(w, [&] {
    fn();
    done.set_value();
  });
  done.get_future().wait();
}

TEST_CASE("MULTI queues, EXEC replies every command's reply in order") {
  CommandFixture f;
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"SET", "{a}x", "1"}) == kQueued);
  CHECK(f.Run({"INCR", "{a}x"}) == kQueued);
  CHECK(f.Run({"MSET", "{b}y", "2", "{c}z", "3"}) == kQueued);
  CHECK(f.Run({"MGET", "{a}x", "{b}y", "{c}z"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == "*4\r\n+OK\r\n:2\r\n+OK\r\n" + Arr({"2", "2", "3"}));
  CHECK(f.Run({"EXEC"}) == Err("ERR EXEC without MULTI"));
}

TEST_CASE("a refused command aborts the EXEC; runtime errors stay per command") {
  CommandFixture f;
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"GET"}) == Arity("get"));
  CHECK(f.Run({"SET", "k", "v"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == Err("EXECABORT Transaction discarded because of previous errors."));
  CHECK(f.Run({"GET", "k"}) == kNull);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"SAVE"}) == Err("ERR Command not allowed inside a transaction"));
  CHECK(f.Run({"EXEC"}) == Err("EXECABORT Transaction discarded because of previous errors."));
  CHECK(f.Run({"SET", "s", "abc"}) == kOk);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"INCR", "s"}) == kQueued);
  CHECK(f.Run({"SET", "t", "1"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == "*2\r\n" + kNotInt + kOk);
}

TEST_CASE("nested MULTI and WATCH inside MULTI are errors that do not abort") {
  CommandFixture f;
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"MULTI"}) == Err("ERR MULTI calls can not be nested"));
  CHECK(f.Run({"WATCH", "k"}) == Err("ERR WATCH inside MULTI is not allowed"));
  CHECK(f.Run({"SET", "k", "v"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == "*1\r\n" + kOk);
  CHECK(f.Run({"DISCARD"}) == Err("ERR DISCARD without MULTI"));
  CHECK(f.Run({"EXEC", "x"}) ==
        Err("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command"));
}

TEST_CASE("WATCH: a write of the key by anyone makes EXEC reply a null array") {
  CommandFixture f;
  CHECK(f.Run({"WATCH", "w", "v"}) == kOk);
  CHECK(f.Start({"SET", "w", "other"}).Get() == kOk);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"SET", "r", "1"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == "*-1\r\n");
  CHECK(f.Run({"GET", "r"}) == kNull);
  // The EXEC dropped the watch: the next transaction runs.
  CHECK(f.Start({"SET", "w", "again"}).Get() == kOk);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"SET", "r", "1"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == "*1\r\n" + kOk);
}

TEST_CASE("WATCH: deleting a missing key does not touch it; a flush touches existing keys") {
  CommandFixture f;
  CHECK(f.Run({"WATCH", "missing"}) == kOk);
  CHECK(f.Start({"DEL", "missing"}).Get() == Int(0));
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"EXEC"}) == kEmptyArray);
  CHECK(f.Run({"SET", "there", "1"}) == kOk);
  CHECK(f.Run({"WATCH", "there"}) == kOk);
  CHECK(f.Start({"FLUSHALL"}).Get() == kOk);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"EXEC"}) == "*-1\r\n");
}

TEST_CASE("WATCH: a key with a TTL that passes before EXEC fails it; UNWATCH forgets") {
  CommandFixture f;
  CHECK(f.Run({"SET", "w", "1", "PX", "100"}) == kOk);
  CHECK(f.Run({"WATCH", "w"}) == kOk);
  f.clock().AdvanceMs(200);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"EXEC"}) == "*-1\r\n");
  CHECK(f.Run({"WATCH", "u"}) == kOk);
  CHECK(f.Run({"UNWATCH"}) == kOk);
  CHECK(f.Start({"SET", "u", "1"}).Get() == kOk);
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"EXEC"}) == kEmptyArray);
}

TEST_CASE("blocking commands inside EXEC answer at once") {
  CommandFixture f;
  CHECK(f.Run({"MULTI"}) == kOk);
  CHECK(f.Run({"RPUSH", "l", "a"}) == kQueued);
  CHECK(f.Run({"BLPOP", "l", "0"}) == kQueued);
  CHECK(f.Run({"BLPOP", "l", "0"}) == kQueued);
  CHECK(f.Run({"EXEC"}) == "*3\r\n:1\r\n" + Arr({"l", "a"}) + "*-1\r\n");
}

TEST_CASE("a request waits while a transaction holds its slot, and runs when it is given back") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "before"}) == kOk);
  Keyspace& ks = *f.state().keyspace;
  const uint32_t s = ks.SlotOfKey("k");
  const int owner = f.executor().OwnerOf(s);
  txn::Holder holder(f.executor().workers());
  RunOn(f, owner, [&] { REQUIRE(ks.locks().Acquire(s, &holder, {}, nullptr)); });
  CommandFixture::PendingReply get = f.Start({"GET", "k"});
  CommandFixture::PendingReply mget = f.Start({"MGET", "k", "other"});
  CommandFixture::PendingReply set = f.Start({"SET", "k", "after"});
  CHECK_FALSE(get.WaitFor(100));
  CHECK_FALSE(mget.WaitFor(10));
  CHECK_FALSE(set.WaitFor(10));
  RunOn(f, owner, [&] {
    for (auto& next : ks.locks().Release(s, &holder)) f.executor().Post(owner, next);
  });
  // In arrival order: the GET before the SET.
  CHECK(get.Get() == Bulk("before"));
  CHECK(set.Get() == kOk);
  CHECK(f.Run({"GET", "k"}) == Bulk("after"));
  (void)mget.Get();
}

TEST_CASE("an EXEC's writes to a slot are held open as one unit until it ends") {
  CommandFixture f;
  CHECK(f.Run({"MULTI"}) == kOk);
  for (int i = 0; i < 50; ++i) CHECK(f.Run({"SET", "{t}k" + std::to_string(i), "v"}) == kQueued);
  CHECK(f.Run({"EXEC"}).rfind("*50\r\n+OK\r\n", 0) == 0);
  Keyspace& ks = *f.state().keyspace;
  const uint32_t s = ks.SlotOfKey("{t}k0");
  RunOn(f, f.executor().OwnerOf(s), [&] {
    CHECK(ks.locks().Free(s));
    auto slot = ks.Get(s, 0, false);
    REQUIRE(slot.ok());
    CHECK_FALSE((*slot)->held());
  });
  CHECK(f.Run({"DBSIZE"}) == Int(50));
}

}  // namespace
}  // namespace slotkv::command
