#include "repl/sentinel.h"

#include <array>
#include <utility>

#include "core/command/args.h"
#include "core/command/errors.h"

namespace slotkv::repl {
namespace {

using command::ClusterNode;
using command::ClusterStatus;
using Fields = std::vector<std::pair<std::string_view, std::string>>;

void Send(const Fields& fields, command::Reply& reply) {
  reply.Map(fields.size());
  for (const auto& [key, value] : fields) {
    reply.Bulk(key);
    reply.Bulk(value);
  }
}

std::string Str(int64_t v) { return std::to_string(v); }

// The fields every instance has, in Sentinel's order: name, address, flags, link state.
Fields Instance(std::string name, const std::string& ip, int port, const std::string& run_id,
                std::string flags, int64_t down_after_ms) {
  return {{"name", std::move(name)},
          {"ip", ip},
          {"port", Str(port)},
          {"runid", run_id},
          {"flags", std::move(flags)},
          {"link-pending-commands", "0"},
          {"link-refcount", "1"},
          {"last-ping-sent", "0"},
          {"last-ok-ping-reply", "0"},
          {"last-ping-reply", "0"},
          {"down-after-milliseconds", Str(down_after_ms)}};
}

void Add(Fields& fields, std::initializer_list<std::pair<std::string_view, std::string>> more) {
  fields.insert(fields.end(), more.begin(), more.end());
}

void Master(const ClusterStatus& st, const SentinelSelf& self, command::Reply& reply) {
  const ClusterNode* m = st.master();
  int64_t replicas = 0;
  for (const ClusterNode& n : st.nodes) replicas += (&n != m && !n.master) ? 1 : 0;
  // Gone from ZooKeeper: s_down and o_down (the controller decides alone, as a quorum of one).
  Fields f = Instance(st.name, st.master_host, st.master_port, m != nullptr ? m->run_id : "",
                      m != nullptr ? "master" : "master,s_down,o_down", self.down_after_ms);
  Add(f, {{"info-refresh", "0"},
          {"role-reported", "master"},
          {"role-reported-time", "0"},
          {"config-epoch", Str(static_cast<int64_t>(st.epoch))},
          {"num-slaves", Str(replicas)},
          {"num-other-sentinels", Str(static_cast<int64_t>(st.nodes.size()) - 1)},
          {"quorum", "1"},
          {"failover-timeout", Str(self.down_after_ms)},
          {"parallel-syncs", "1"}});
  Send(f, reply);
}

void Replica(const ClusterStatus& st, const ClusterNode& n, command::Reply& reply) {
  Fields f = Instance(n.host + ":" + Str(n.port), n.host, n.port, n.run_id, "slave", 0);
  Add(f, {{"info-refresh", "0"},
          {"role-reported", "slave"},
          {"role-reported-time", "0"},
          {"master-link-down-time", "0"},
          {"master-link-status", n.link_up ? "ok" : "err"},
          {"master-host", st.master_host},
          {"master-port", Str(st.master_port)},
          {"slave-priority", Str(n.priority)},
          {"slave-repl-offset", Str(static_cast<int64_t>(n.offset))},
          {"replica-announced", "1"}});
  Send(f, reply);
}

void Sentinel(const ClusterNode& n, command::Reply& reply) {
  Fields f = Instance(n.run_id, n.host, n.sentinel_port, n.run_id, "sentinel", 0);
  Add(f, {{"last-hello-message", "0"}, {"voted-leader", "?"}, {"voted-leader-epoch", "0"}});
  Send(f, reply);
}

}  // namespace

void SentinelReply(const ClusterStatus& st, const SentinelSelf& self,
                   const std::vector<std::string>& args, command::Reply& reply) {
  using command::Is;
  const std::string sub = args.size() > 1 ? args[1] : "";
  const bool known = !st.master_host.empty();
  if (Is(sub, "HELP") && args.size() == 2) {
    static constexpr std::array<std::string_view, 8> kHelp = {
        "SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET-MASTER-ADDR-BY-NAME <master-name>",
        "    Return the ip and port number of the master with that name.",
        "MASTER <master-name>", "    Show the state and info of the specified master.",
        "MASTERS", "    Show a list of monitored masters and their state.",
        "REPLICAS <master-name>, SENTINELS <master-name>, MYID"};
    reply.Help(kHelp);
  } else if (Is(sub, "MASTERS") && args.size() == 2) {
    reply.Array(known ? 1 : 0);
    if (known) Master(st, self, reply);
  } else if (Is(sub, "MYID") && args.size() == 2) {
    reply.Bulk(self.run_id);
  } else if ((Is(sub, "MASTER") || Is(sub, "REPLICAS") || Is(sub, "SLAVES") ||
              Is(sub, "SENTINELS") || Is(sub, "GET-MASTER-ADDR-BY-NAME")) &&
             args.size() == 3) {
    if (!known || args[2] != st.name) {
      if (Is(sub, "GET-MASTER-ADDR-BY-NAME")) {
        reply.NullArray();
      } else {
        reply.Error("ERR No such master with that name");
      }
      return;
    }
    if (Is(sub, "GET-MASTER-ADDR-BY-NAME")) {
      reply.Array(2);
      reply.Bulk(st.master_host);
      reply.Bulk(Str(st.master_port));
    } else if (Is(sub, "MASTER")) {
      Master(st, self, reply);
    } else {
      // Replicas: every node but the master; sentinels: every node but this one.
      const bool sentinels = Is(sub, "SENTINELS");
      const ClusterNode* left_out =
          sentinels ? command::FindNode(st.nodes, self.host, self.port) : st.master();
      std::vector<const ClusterNode*> listed;
      for (const ClusterNode& n : st.nodes) {
        if (&n != left_out) listed.push_back(&n);
      }
      reply.Array(listed.size());
      for (const ClusterNode* n : listed) sentinels ? Sentinel(*n, reply) : Replica(st, *n, reply);
    }
  } else {
    reply.Error(command::SubcommandSyntax("SENTINEL", sub));
  }
}

}  // namespace slotkv::repl
