// Scripting family: EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT, as Redis 7.0's eval.c, and FCALL
// FCALL_RO, which run Redis 7 functions the same way (their libraries: function_commands.cc).
//
// A script is a transaction (txn/slot_locks.h): it takes the slots of its KEYS first, whole, in
// the global order, and keeps them to its end; its writes to each slot are one WAL unit. It then
// runs on the worker that owns the last of them (home without keys), in an interpreter of that
// worker (script/scripts.h), on a fiber (script/fiber.h). redis.call runs a one-key command of a
// slot of that worker right there; anything else (a slot of another worker, a coroutine
// command, a slot to take) stops the fiber, and the task driving it (Drive) does it and resumes
// the fiber there with the reply: the worker serves other requests meanwhile, and no thread
// waits. A key the script did not declare is allowed when its slot is held already, free (taken
// now: never waiting, so no cycle can form), or after every slot held (waited for in order);
// else the call fails with an error naming the key. Commands run with the script's own client
// (its database; SELECT changes it for the rest of the script), and blocking commands are
// refused as in Redis. The writes reach the WAL as what they are (the effects), never as the
// script.
#include <cstdio>

#include "core/base/ascii.h"
#include "core/command/acl_check.h"
#include "core/command/args.h"
#include "core/command/tracking.h"
#include "core/command/command_table.h"
#include "core/command/errors.h"
#include "core/command/execute.h"
#include "core/command/monitor.h"
#include "core/command/scripting.h"
#include "core/script/fiber.h"
#include "core/script/functions.h"
#include "core/script/scripts.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrNoScript = "NOSCRIPT No matching script. Please use EVAL.";
constexpr const char* kReplyNotAllowed = "-ERR This Redis command is not allowed from script\r\n";

// One script run: the interpreter lent to it, the fiber it runs on, its client, and what it
// asks the task driving it to do.
class ScriptRun : public script::Host {
 public:
  enum class Need { kNone, kRun, kTake, kYield };

  ScriptRun(AsyncContext& ctx, script::Fiber& fiber, bool read_only)
      : ctx_(ctx), worker_(ctx.server.executor->current()), read_only_(read_only),
        fiber_(fiber), running_(ctx.server.scripts->Started()),
        start_ms_(ctx.server.keyspace->clock()->MonotonicUs() / 1000) {
    client_.id = ctx.client ? ctx.client->id : 0;
    client_.db = ctx.db;
    client_.authenticated = true;
    client_.script = true;
    client_.addr = "lua";  // as MONITOR shows a script's calls
    if (ctx.client) {
      client_.name = ctx.client->name;
      client_.user = ctx.client->user;  // its calls are checked against the caller's ACL user
      client_.user_version = ctx.client->user_version;
      track_reads_ = ctx.client->tracking_reads;
    }
  }

  // script::Host, on the fiber.
  std::string Call(std::vector<std::string> args, int resp) override;
  void Log(int level, std::string_view message) override {
    static constexpr const char* kLevel[] = {".", "-", "*", "#"};
    std::fprintf(stderr, "%s %.*s\n", kLevel[level], static_cast<int>(message.size()),
                 message.data());
  }

  // Past busy-reply-threshold the script lets its worker serve others between slices (and
  // they get -BUSY); a SCRIPT KILL ends it here.
  std::string Check() override;
  ~ScriptRun() override { ctx_.server.scripts->Ended(running_); }

  int worker() const { return worker_; }
  script::Fiber& fiber() { return fiber_; }
  ClientState& client() { return client_; }
  Need need() const { return need_; }
  const CommandSpec* spec() const { return spec_; }
  std::vector<std::string>& args() { return args_; }
  uint32_t slot() const { return slot_; }
  const std::string& key() const { return key_; }
  int resp() const { return resp_; }
  // The driver's answer; the fiber goes on.
  void Answer(std::string reply) {
    reply_ = std::move(reply);
    need_ = Need::kNone;
  }

 private:
  // Stops the fiber until the driver answers need; returns its answer.
  std::string Ask(Need need) {
    need_ = need;
    fiber_.Suspend();
    return std::move(reply_);
  }
  // Makes sure the script holds the slot of key: "" or an error reply.
  std::string Reach(const std::string& key);

  AsyncContext& ctx_;
  const int worker_;  // where the script runs
  const bool read_only_;
  bool track_reads_ = false;  // the caller remembers the keys its script reads (tracking.h)
  script::Fiber& fiber_;
  std::shared_ptr<script::Scripts::Running> running_;
  const int64_t start_ms_;
  ClientState client_;
  Need need_ = Need::kNone;
  const CommandSpec* spec_ = nullptr;
  std::vector<std::string> args_;
  uint32_t slot_ = 0;
  std::string key_;
  int resp_ = 2;
  std::string reply_;
};

std::string ScriptRun::Check() {
  constexpr const char* kKilled = "ERR Script killed by user with SCRIPT KILL...";
  if (running_->kill.load()) return kKilled;
  const int64_t threshold = ctx_.server.busy_reply_threshold.load();
  const int64_t ran = ctx_.server.keyspace->clock()->MonotonicUs() / 1000 - start_ms_;
  if (threshold <= 0 || ran < threshold) return "";
  ctx_.server.scripts->Busy(*running_);
  Ask(Need::kYield);
  return running_->kill.load() ? kKilled : "";
}

std::string ScriptRun::Reach(const std::string& key) {
  const uint32_t s = ctx_.server.keyspace->SlotOfKey(key);
  if (ctx_.HoldsSlot(s)) return "";
  if (ctx_.server.executor->OwnerOf(s) == worker_ && ctx_.TakeNow(s)) return "";
  slot_ = s;
  key_ = key;
  return Ask(Need::kTake);
}

std::string ScriptRun::Call(std::vector<std::string> args, int resp) {
  ServerState& server = ctx_.server;
  const CommandSpec* spec = server.table->Find(args[0]);
  if (!spec) return "-ERR Unknown Redis command called from script\r\n";
  if (!CommandTable::ArityOk(*spec, args.size())) {
    return "-ERR Wrong number of args calling Redis command from script\r\n";
  }
  const CommandSpec& call = CommandTable::Resolve(*spec, args);
  if (&call == spec && spec->container && args.size() > 1) {
    return "-ERR Unknown Redis command called from script\r\n";
  }
  if (!CommandTable::ArityOk(call, args.size())) {
    return "-ERR Wrong number of args calling Redis command from script\r\n";
  }
  // A blocking command Redis lets scripts call (BLMPOP, XREAD ...) answers at once there.
  const uint32_t flags = call.flags;
  if (flags & kNoScript) return kReplyNotAllowed;
  switch (CheckCall(server, client_, *spec, args, acl::Context::kLua).denial) {
    case acl::Denial::kNone:
      break;
    case acl::Denial::kKey:
      return "-ERR The user executing the script can't access at least one of the keys "
             "mentioned in the command arguments\r\n";
    case acl::Denial::kChannel:
      return "-ERR The user executing the script can't publish to the channel mentioned in the "
             "command\r\n";
    default:
      return "-ERR The user executing the script can't run this command or subcommand\r\n";
  }
  if (read_only_ && (flags & kWrite)) {
    return "-ERR Write commands are not allowed from read-only scripts.\r\n";
  }
  if (flags & kWrite) running_->wrote.store(true);
  // The caller's client-side caching remembers what its script reads, as Redis's call().
  if (track_reads_) RememberKeys(server, client_.id, *spec, args);
  if (CommandTable::AllSlots(*spec, args)) {
    for (uint32_t s = 0; s < server.keyspace->slots(); ++s) {
      if (ctx_.HoldsSlot(s)) continue;
      slot_ = s;
      key_.clear();
      if (std::string err = Ask(Need::kTake); !err.empty()) return err;
    }
  } else {
    for (size_t k : CommandTable::Keys(*spec, args)) {
      if (std::string err = Reach(args[k]); !err.empty()) return err;
    }
  }
  if (spec->run) {
    const uint32_t s = server.keyspace->SlotOfKey(args[static_cast<size_t>(spec->first_key)]);
    if (server.executor->OwnerOf(s) == worker_) {
      std::string reply = Execute(server, *spec, args, s, client_.db, resp, client_.addr,
                                  client_.name, &ctx_.trace);
      FeedMonitors(server, *spec, args, client_.db, client_.addr);
      return reply;
    }
    slot_ = s;
  }
  spec_ = spec;
  args_ = std::move(args);
  resp_ = resp;
  return Ask(Need::kRun);
}

// The driver's side of Need::kRun: runs the command on its owner, or as a coroutine on the
// script's worker with the script's client. Ends anywhere.
Task RunForScript(AsyncContext& ctx, ScriptRun& run, std::string* reply) {
  const CommandSpec& spec = *run.spec();
  if (spec.run) {
    co_await ctx.ToSlot(run.slot());  // held
    *reply = Execute(ctx.server, spec, run.args(), run.slot(), run.client().db, run.resp(),
                     run.client().addr, run.client().name, &ctx.trace);
    FeedMonitors(ctx.server, spec, run.args(), run.client().db, run.client().addr);
    co_return;
  }
  AsyncContext sub(std::move(run.args()), run.resp(), &ctx.server, &run.client(), run.worker());
  sub.db = run.client().db;
  sub.holder = ctx.holder;
  sub.no_block = true;
  const int64_t start = NowUs();
  co_await RunAsync(spec, sub);
  RecordCall(ctx.server, spec, sub.args, NowUs() - start, sub.reply.error_code(),
             run.client().addr, run.client().name);
  ctx.Absorb(sub);
  *reply = std::move(sub.reply.buffer());
}

// The driver's side of Need::kTake: takes the slot on its owner, waiting only when it comes
// after every slot held. Ends there.
Task TakeForScript(AsyncContext& ctx, ScriptRun& run, std::string* reply) {
  const uint32_t s = run.slot();
  co_await ctx.ToWorker(ctx.server.executor->OwnerOf(s));
  if (ctx.HoldsSlot(s) || ctx.TakeNow(s)) co_return;
  if (ctx.MayWaitFor(s)) {
    co_await ctx.ToSlot(s);
    co_return;
  }
  *reply = ErrorLine(
      "ERR slotkv: the script reached " +
      (run.key().empty() ? std::string("every slot") : "key '" + run.key() + "'") +
      " outside its KEYS while another transaction holds slot " + std::to_string(s) +
      "; pass the key in KEYS");
}

// Lets the worker run what is queued there, then goes on.
struct YieldToLoop {
  Executor* executor;
  bool await_ready() const { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    executor->Post(executor->current(), [h] { h.resume(); });
  }
  void await_resume() const {}
};

// Runs the fiber to its end, doing what it asks in between; ends on the script's worker.
Task Drive(AsyncContext& ctx, ScriptRun& run) {
  while (!run.fiber().done()) {
    std::string reply;
    if (run.need() == ScriptRun::Need::kRun) {
      co_await RunForScript(ctx, run, &reply);
    } else if (run.need() == ScriptRun::Need::kTake) {
      co_await TakeForScript(ctx, run, &reply);
    } else {
      co_await YieldToLoop{ctx.server.executor};
    }
    co_await ctx.ToWorker(run.worker());
    run.Answer(std::move(reply));
    run.fiber().Resume();
  }
}

// What a call runs: a script (by SHA-1, its body) or a function (by name).
struct ScriptCall {
  bool function = false;
  std::string name;  // the script's SHA-1, or the function's name
  std::string body;
  bool read_only = false;
  std::vector<std::string> keys;
  std::vector<std::string> argv;
};

// Parses `numkeys key... arg...` after args[1]; false after replying the error (FCALL words
// a numkeys that is no integer its own way).
bool ParseKeys(AsyncContext& ctx, bool function, ScriptCall* call) {
  const auto& a = ctx.args;
  std::optional<int64_t> numkeys = ParseInt64(a[2]);
  if (!numkeys) {
    ctx.reply.Error(function ? "ERR Bad number of keys provided" : kErrNotInteger);
    return false;
  }
  if (*numkeys < 0) {
    ctx.reply.Error("ERR Number of keys can't be negative");
    return false;
  }
  if (static_cast<uint64_t>(*numkeys) > a.size() - 3) {
    ctx.reply.Error("ERR Number of keys can't be greater than number of args");
    return false;
  }
  const size_t first_arg = 3 + static_cast<size_t>(*numkeys);
  call->keys.assign(a.begin() + 3, a.begin() + static_cast<ptrdiff_t>(first_arg));
  call->argv.assign(a.begin() + static_cast<ptrdiff_t>(first_arg), a.end());
  return true;
}

// EVAL's `script|sha numkeys key... arg...`; false after replying the error.
bool ParseEval(AsyncContext& ctx, bool by_sha, bool read_only, ScriptCall* call) {
  if (!ParseKeys(ctx, false, call)) return false;
  script::Scripts& scripts = *ctx.server.scripts;
  call->read_only = read_only;
  if (!by_sha) {
    call->body = ctx.args[1];
    call->name = scripts.Add(ctx.args[1]);
    return true;
  }
  std::optional<std::string> body = scripts.Body(ctx.args[1]);
  if (!body) {
    ctx.reply.Error(kErrNoScript);
    return false;
  }
  call->body = std::move(*body);
  call->name = AsciiLower(ctx.args[1]);  // the body's SHA-1, as the cache found it
  return true;
}

// FCALL's `function numkeys key... arg...`; false after replying the error.
bool ParseFcall(AsyncContext& ctx, bool read_only, ScriptCall* call) {
  if (!ParseKeys(ctx, true, call)) return false;
  std::optional<script::Functions::Found> found = ctx.server.functions->Find(ctx.args[1]);
  if (!found) {
    ctx.reply.Error("ERR Function not found");
    return false;
  }
  if (read_only && !found->no_writes) {
    ctx.reply.Error("ERR Can not execute a script with write flag using *_ro command.");
    return false;
  }
  call->function = true;
  call->name = ctx.args[1];
  call->read_only = read_only || found->no_writes;
  return true;
}

// Makes vm ready to run call: its script compiled, or the current libraries loaded. Error
// reply text on failure.
std::string Prepare(ServerState& server, script::LuaVm& vm, const ScriptCall& call) {
  if (!call.function) {
    Status st = vm.Load(call.name, call.body);
    return st.ok() ? "" : std::string(st.message());
  }
  script::Functions::Snapshot now = server.functions->Current();
  if (vm.libraries_generation != now.generation) {
    vm.DropFunctions();
    for (const std::string& code : now.codes) {
      // Checked by FUNCTION LOAD in a scratch interpreter: it loads here as it did there.
      Result<std::vector<script::LuaVm::Function>> loaded =
          vm.LoadLibrary(script::Functions::Body(code));
      if (!loaded.ok()) return std::string(loaded.status().message());
    }
    vm.libraries_generation = now.generation;
  }
  return "";
}

Task RunScript(AsyncContext& ctx, ScriptCall call) {
  // Inside EXEC the transaction holds the slots already.
  if (!ctx.holder) ctx.Hold(/*units=*/true);
  std::vector<uint32_t> slots;
  for (const std::string& k : call.keys) slots.push_back(ctx.server.keyspace->SlotOfKey(k));
  co_await ctx.LockSlots(std::move(slots));
  script::Scripts& scripts = *ctx.server.scripts;
  const int w = ctx.server.executor->current();
  Result<script::Scripts::Lease> lease = scripts.Take(w);
  if (Failed(lease.status(), ctx.reply)) co_return;
  if (std::string err = Prepare(ctx.server, *lease->vm, call); !err.empty()) {
    scripts.Give(w, std::move(*lease));
    ctx.reply.Error(err);
    co_return;
  }
  ScriptRun run(ctx, *lease->fiber, call.read_only);
  std::string result;
  run.fiber().Start([&] {
    const int protocol = ctx.reply.protocol();
    result = call.function
                 ? lease->vm->RunFunction(call.name, call.keys, call.argv, run, protocol)
                 : lease->vm->Run(call.name, call.keys, call.argv, run, protocol);
  });
  co_await Drive(ctx, run);
  scripts.Give(w, std::move(*lease));  // on w again: Drive ends on the script's worker
  ctx.reply.buffer() += result;
}

Task EvalGeneric(AsyncContext& ctx, bool by_sha, bool read_only) {
  ScriptCall call;
  if (!ParseEval(ctx, by_sha, read_only, &call)) co_return;
  co_await RunScript(ctx, std::move(call));
}

Task FcallGeneric(AsyncContext& ctx, bool read_only) {
  ScriptCall call;
  if (!ParseFcall(ctx, read_only, &call)) co_return;
  co_await RunScript(ctx, std::move(call));
}

Task Eval(AsyncContext& ctx) { return EvalGeneric(ctx, false, false); }
Task EvalSha(AsyncContext& ctx) { return EvalGeneric(ctx, true, false); }
Task EvalRo(AsyncContext& ctx) { return EvalGeneric(ctx, false, true); }
Task EvalShaRo(AsyncContext& ctx) { return EvalGeneric(ctx, true, true); }
Task Fcall(AsyncContext& ctx) { return FcallGeneric(ctx, false); }
Task FcallRo(AsyncContext& ctx) { return FcallGeneric(ctx, true); }

constexpr std::string_view kScriptHelp[] = {
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
};

}  // namespace

void KillScripts(ServerState& server, Reply& reply) {
  switch (server.scripts->Kill()) {
    case script::Scripts::KillResult::kNotBusy:
      reply.Error(kErrNotBusy);
      break;
    case script::Scripts::KillResult::kUnkillable:
      reply.Error(kErrUnkillable);
      break;
    case script::Scripts::KillResult::kKilled:
      reply.Ok();
      break;
  }
}

namespace {

Task ScriptCommand(AsyncContext& ctx) {
  const auto& a = ctx.args;
  const std::string& sub = a[1];
  script::Scripts& scripts = *ctx.server.scripts;
  // Arities are the subcommand rows' (checked before the call); FLUSH takes fewer.
  if (Is(sub, "LOAD")) {
    // Compiled here first, so a script that does not compile is refused.
    const int w = ctx.server.executor->current();
    Result<script::Scripts::Lease> lease = scripts.Take(w);
    if (Failed(lease.status(), ctx.reply)) co_return;
    const std::string sha = script::Sha1Hex(a[2]);
    Status st = lease->vm->Load(sha, a[2]);
    scripts.Give(w, std::move(*lease));
    if (!st.ok()) {
      ctx.reply.Error(st.message());
      co_return;
    }
    ctx.reply.Bulk(scripts.Add(a[2]));
  } else if (Is(sub, "EXISTS")) {
    ctx.reply.Array(a.size() - 2);
    for (size_t i = 2; i < a.size(); ++i) ctx.reply.Integer(scripts.Exists(a[i]) ? 1 : 0);
  } else if (Is(sub, "FLUSH")) {
    if (a.size() > 3) {
      ctx.reply.Error(WrongArgs("script|flush"));
      co_return;
    }
    if (a.size() == 3 && !Is(a[2], "ASYNC") && !Is(a[2], "SYNC")) {
      ctx.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
      co_return;
    }
    scripts.Flush();
    ctx.reply.Ok();
  } else if (Is(sub, "KILL")) {
    KillScripts(ctx.server, ctx.reply);
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kScriptHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("script", sub));
  }
  co_return;
}

}  // namespace

void RegisterScriptCommands(CommandTable& t) {
  constexpr uint32_t kEval =
      kNoScript | kSkipMonitor | kNoMandatoryKeys | kMayReplicate | kOwnTransaction;
  // clang-format off
  t.Add({.name = "eval", .arity = -3, .flags = kEval, .run_async = Eval,
         .keys = KeysAfterTimeoutNumKeys, .group = "scripting",
         .summary = "Execute a Lua script server side", .since = "2.6.0", .acl = "slow scripting", .key_specs = "RW access update"});
  t.Add({.name = "evalsha", .arity = -3, .flags = kEval, .run_async = EvalSha,
         .keys = KeysAfterTimeoutNumKeys, .group = "scripting",
         .summary = "Execute a Lua script server side", .since = "2.6.0", .acl = "slow scripting", .key_specs = "RW access update"});
  t.Add({.name = "eval_ro", .arity = -3, .flags = kEval | kReadOnly, .run_async = EvalRo,
         .keys = KeysAfterTimeoutNumKeys, .group = "scripting",
         .summary = "Execute a read-only Lua script server side", .since = "7.0.0",
         .acl = "slow scripting", .key_specs = "RO access"});
  t.Add({.name = "evalsha_ro", .arity = -3, .flags = kEval | kReadOnly, .run_async = EvalShaRo,
         .keys = KeysAfterTimeoutNumKeys, .group = "scripting",
         .summary = "Execute a read-only Lua script server side", .since = "7.0.0",
         .acl = "slow scripting", .key_specs = "RO access"});
  t.Add({.name = "fcall", .arity = -3, .flags = kEval, .run_async = Fcall,
         .keys = KeysAfterTimeoutNumKeys, .group = "scripting",
         .summary = "Invoke a function", .since = "7.0.0", .acl = "slow scripting", .key_specs = "RW access update"});
  t.Add({.name = "fcall_ro", .arity = -3, .flags = kEval | kReadOnly, .run_async = FcallRo,
         .keys = KeysAfterTimeoutNumKeys, .group = "scripting",
         .summary = "Invoke a read-only function", .since = "7.0.0", .acl = "slow scripting", .key_specs = "RO access"});
  t.Add({.name = "script", .arity = -2, .flags = 0, .run_async = ScriptCommand,
         .group = "scripting", .summary = "A container for Lua scripts management commands",
         .since = "2.6.0", .acl = "slow",
         .subcommands = {
             Subcommand("script|exists", -3, kNoScript, "slow scripting"),
             Subcommand("script|flush", -2, kNoScript, "slow scripting"),
             Subcommand("script|help", 2, kLoading | kStale, "slow scripting"),
             Subcommand("script|kill", 2, kNoScript | kAllowBusy, "slow scripting"),
             Subcommand("script|load", 3, kNoScript | kStale, "slow scripting"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
