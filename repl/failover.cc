// FAILOVER: Redis 7's coordinated switch from a master to one of its replicas (replication.h).
#include <cstdio>

#include "core/command/args.h"
#include "core/command/client_pause.h"
#include "core/command/errors.h"
#include "repl/frames.h"
#include "repl/replication.h"

namespace slotkv::repl {
namespace {

constexpr int64_t kStepMs = 10;

}  // namespace

std::string_view Replication::FailoverStateName() const {
  switch (failover_stage_.load()) {
    case kWaitForSync: return "waiting-for-sync";
    case kFailoverInProgress: return "failover-in-progress";
    default: return "no-failover";
  }
}

void Replication::Failover(command::AsyncContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  std::lock_guard change(change_mu_);
  if (a.size() == 2 && command::Is(a[1], "ABORT")) {
    if (failover_stage_.load() == kNoFailover) {
      ctx.reply.Error("ERR No failover in progress.");
      return;
    }
    AbortFailover("Failover manually aborted");
    ctx.reply.Ok();
    return;
  }
  FailoverPlan plan;
  int64_t timeout_ms = 0;
  bool has_target = false;
  for (size_t j = 1; j < a.size(); ++j) {
    if (command::Is(a[j], "TIMEOUT") && j + 1 < a.size() && timeout_ms == 0) {
      std::optional<int64_t> t = command::IntArg(a[j + 1], ctx.reply);
      if (!t) return;
      if (*t <= 0) {
        ctx.reply.Error("ERR FAILOVER timeout must be greater than 0");
        return;
      }
      timeout_ms = *t;
      ++j;
    } else if (command::Is(a[j], "TO") && j + 2 < a.size() && !has_target) {
      std::optional<int64_t> port = command::IntArg(a[j + 2], ctx.reply);
      if (!port) return;
      plan.host = a[j + 1];
      plan.port = static_cast<int>(*port);
      has_target = true;
      j += 2;
    } else if (command::Is(a[j], "FORCE") && !plan.force) {
      plan.force = true;
    } else {
      ctx.reply.Error(command::kErrSyntax);
      return;
    }
  }
  if (failover_stage_.load() != kNoFailover) {
    ctx.reply.Error("ERR FAILOVER already in progress.");
    return;
  }
  if (replica_) {
    ctx.reply.Error("ERR FAILOVER is not valid when server is a replica.");
    return;
  }
  if (master_->Feeds().empty()) {
    ctx.reply.Error("ERR FAILOVER requires connected replicas.");
    return;
  }
  if (plan.force && (timeout_ms == 0 || !has_target)) {
    ctx.reply.Error(
        "ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
    return;
  }
  if (has_target) {
    std::shared_ptr<Feed> feed = master_->FindFeed(plan.host, plan.port);
    if (!feed) {
      ctx.reply.Error("ERR FAILOVER target HOST and PORT is not a replica.");
      return;
    }
    if (!feed->online()) {
      ctx.reply.Error("ERR FAILOVER target replica is not online.");
      return;
    }
    std::fprintf(stderr, "repl: FAILOVER requested to %s:%d.\n", plan.host.c_str(), plan.port);
  } else {
    std::fprintf(stderr, "repl: FAILOVER requested to any replica.\n");
  }
  if (timeout_ms > 0) plan.end_ms = state_->keyspace->clock()->NowMs() + timeout_ms;
  failover_ = plan;
  failover_stage_ = kWaitForSync;
  // As Redis: writes wait until the switch ends (then this node, a replica, refuses them
  // with READONLY; after an abort they run here), so the target can catch up.
  state_->pause->Pause(command::PausePurpose::kFailover, command::PauseMode::kWrite,
                       command::ClientPause::kForever);
  master_->AskAcks();  // caught up: known at once rather than at the next second's acks
  state_->executor->Post(0, [this] { FailoverStep(); });
  ctx.reply.Ok();
}

void Replication::FailoverStep() {
  std::lock_guard change(change_mu_);
  const int stage = failover_stage_.load();
  if (stage == kNoFailover || stopped_) return;
  const int64_t now = state_->keyspace->clock()->NowMs();
  const bool late = failover_.end_ms != 0 && now >= failover_.end_ms;
  if (stage == kFailoverInProgress) {
    bool up = false;
    {
      std::lock_guard lock(mu_);
      up = link_ && link_->up();
    }
    if (coordinator_) {
      std::optional<Status> switched = coordinator_->SwitchResult(switch_ticket_);
      if (switched && !switched->ok()) {
        AbortFailover(("the master record was not switched: " + switched->ToString()).c_str());
        return;
      }
    }
    if (up) {
      std::fprintf(stderr, "repl: FAILOVER to %s:%d done.\n", failover_.host.c_str(),
                   failover_.port);
      failover_stage_ = kNoFailover;
      state_->pause->Unpause(command::PausePurpose::kFailover);
      return;
    }
    if (late) {
      AbortFailover("the new master never took this node as its replica before the timeout");
      return;
    }
  } else {
    std::shared_ptr<Feed> target;
    if (!failover_.host.empty()) {
      target = master_->FindFeed(failover_.host, failover_.port);
      if (!target) {
        AbortFailover("the target replica is gone");
        return;
      }
    }
    std::shared_ptr<Feed> synced = master_->CaughtUp(target);
    if (!synced && late && failover_.force) {
      std::fprintf(stderr, "repl: FAILOVER to %s:%d time out exceeded, failing over.\n",
                   failover_.host.c_str(), failover_.port);
      synced = target;
    } else if (!synced && late) {
      AbortFailover("Replica never caught up before timeout");
      return;
    }
    if (synced) {
      failover_.host = synced->ip;
      failover_.port = synced->port;
      std::fprintf(stderr, "repl: Failover target %s:%d is synced, failing over.\n",
                   failover_.host.c_str(), failover_.port);
      failover_stage_ = kFailoverInProgress;
      if (coordinator_) {
        // ZooKeeper mode: the record names the target in the next epoch; every node follows
        // it (this one becomes its replica, which ends the failover).
        switch_ticket_ = coordinator_->RequestSwitch(failover_.host, failover_.port);
        state_->executor->RunAfter(kStepMs, [this] { FailoverStep(); });
        return;
      }
      // The target promotes itself; its link to us closes then, so our feed to it is left
      // open for the frame to leave (the others close, and link again: to us, a replica of
      // the target then, or where Sentinel points them).
      master_->SendFrame(synced, EncodeFrame({"FAILOVER"}));
      master_->CloseFeeds(synced.get());
      Status st = BecomeReplica(failover_.host, failover_.port);
      if (!st.ok()) {
        AbortFailover(st.ToString().c_str());
        return;
      }
    }
  }
  state_->executor->RunAfter(kStepMs, [this] { FailoverStep(); });
}

void Replication::AbortFailover(const char* why) {
  std::fprintf(stderr, "repl: FAILOVER to %s aborted: %s\n",
               failover_.host.empty()
                   ? "any replica"
                   : (failover_.host + ":" + std::to_string(failover_.port)).c_str(),
               why);
  // (In ZooKeeper mode the record decides the role, whatever happened.)
  if (failover_stage_.load() == kFailoverInProgress && !coordinator_) {
    BecomeMaster("FAILOVER aborted").PermitUnchecked();
  }
  failover_stage_ = kNoFailover;
  state_->pause->Unpause(command::PausePurpose::kFailover);
}

void Replication::PromoteForFailover() {
  std::lock_guard change(change_mu_);
  Status st = BecomeMaster("FAILOVER from the master");
  if (!st.ok()) {
    std::fprintf(stderr, "repl: saving the role after FAILOVER failed: %s\n",
                 st.ToString().c_str());
  }
}

}  // namespace slotkv::repl
