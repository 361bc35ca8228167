#include "repl/cluster.h"

#include <algorithm>
#include <map>

#include "core/base/number.h"

namespace slotkv::repl {
namespace {

using Fields = std::map<std::string, std::string, std::less<>>;

Fields Split(std::string_view text) {
  Fields fields;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const size_t eq = line.find('=');
    if (eq != std::string_view::npos) {
      fields.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
  }
  return fields;
}

void Put(std::string& out, std::string_view key, std::string_view value) {
  out.append(key);
  out += '=';
  out.append(value);
  out += '\n';
}
void Put(std::string& out, std::string_view key, int64_t value) {
  Put(out, key, std::to_string(value));
}

// Reads fields[key] as a number in [lo, hi] into *out; absent keeps *out.
template <typename T>
bool Number(const Fields& fields, std::string_view key, int64_t lo, int64_t hi, T* out) {
  auto it = fields.find(key);
  if (it == fields.end()) return true;
  std::optional<int64_t> v = ParseInt64(it->second);
  if (!v || *v < lo || *v > hi) return false;
  *out = static_cast<T>(*v);
  return true;
}

// Sentinel's order of replicas: lower priority, higher offset, smaller run id first.
bool Better(const ClusterNode& a, const ClusterNode& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.offset != b.offset) return a.offset > b.offset;
  return a.run_id < b.run_id;
}

}  // namespace

std::string Address(std::string_view host, int port) {
  return std::string(host) + ":" + std::to_string(port);
}

std::string FormatMember(const ClusterNode& n) {
  std::string out;
  Put(out, "host", n.host);
  Put(out, "port", n.port);
  Put(out, "sentinel_port", n.sentinel_port);
  Put(out, "run_id", n.run_id);
  Put(out, "role", n.master ? "master" : "replica");
  Put(out, "link_up", n.link_up ? 1 : 0);
  Put(out, "partial", n.partial ? 1 : 0);
  Put(out, "epoch", static_cast<int64_t>(n.epoch));
  Put(out, "offset", static_cast<int64_t>(n.offset));
  Put(out, "priority", n.priority);
  return out;
}

std::optional<ClusterNode> ParseMember(std::string_view text) {
  const Fields f = Split(text);
  ClusterNode n;
  auto host = f.find("host");
  auto run_id = f.find("run_id");
  if (host == f.end() || run_id == f.end() || !f.contains("port")) return std::nullopt;
  n.host = host->second;
  n.run_id = run_id->second;
  auto role = f.find("role");
  n.master = role != f.end() && role->second == "master";
  int link_up = 0;
  int partial = 0;
  constexpr int64_t kMax = INT64_MAX;
  if (!Number(f, "port", 1, 65535, &n.port) ||
      !Number(f, "sentinel_port", 0, 65535, &n.sentinel_port) ||
      !Number(f, "link_up", 0, 1, &link_up) || !Number(f, "partial", 0, 1, &partial) || !Number(f, "epoch", 0, kMax, &n.epoch) ||
      !Number(f, "offset", 0, kMax, &n.offset) ||
      !Number(f, "priority", 0, kMax, &n.priority)) {
    return std::nullopt;
  }
  n.link_up = link_up != 0;
  n.partial = partial != 0;
  return n;
}

std::string FormatRecord(const MasterRecord& r) {
  std::string out;
  Put(out, "epoch", static_cast<int64_t>(r.epoch));
  Put(out, "host", r.host);
  Put(out, "port", r.port);
  Put(out, "run_id", r.run_id);
  return out;
}

std::optional<MasterRecord> ParseRecord(std::string_view text) {
  const Fields f = Split(text);
  MasterRecord r;
  auto host = f.find("host");
  if (host == f.end() || !f.contains("port") || !f.contains("epoch")) return std::nullopt;
  r.host = host->second;
  if (auto id = f.find("run_id"); id != f.end()) r.run_id = id->second;
  if (!Number(f, "port", 1, 65535, &r.port) || !Number(f, "epoch", 1, INT64_MAX, &r.epoch)) {
    return std::nullopt;
  }
  return r;
}

std::optional<ClusterNode> ChooseReplica(const std::vector<ClusterNode>& members,
                                         const MasterRecord& failed) {
  std::optional<ClusterNode> best;
  for (const ClusterNode& n : members) {
    if (n.priority <= 0 || n.partial || (n.host == failed.host && n.port == failed.port)) {
      continue;
    }
    if (!best || Better(n, *best)) best = n;
  }
  return best;
}

std::optional<ClusterNode> ChooseFirstMaster(const std::vector<ClusterNode>& members) {
  std::optional<ClusterNode> best;
  for (const ClusterNode& n : members) {
    if (n.partial) continue;
    if (!best || (n.master && !best->master) || (n.master == best->master && Better(n, *best))) {
      best = n;
    }
  }
  return best;
}

}  // namespace slotkv::repl
