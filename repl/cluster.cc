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

constexpr size_t kMaxStreamsField = 64 << 10;
constexpr size_t kMaxStreams = 16384 * 1024;  // slots * databases at most

// "index:offset,..." into streams[index] = offset.
bool ParseStreams(std::string_view text, std::vector<uint64_t>* streams) {
  while (!text.empty()) {
    const size_t end = std::min(text.find(','), text.size());
    const std::string_view item = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) return false;
    std::optional<uint64_t> index = ParseUint64(item.substr(0, colon));
    std::optional<uint64_t> offset = ParseUint64(item.substr(colon + 1));
    if (!index || !offset || *index >= kMaxStreams) return false;
    if (streams->size() <= *index) streams->resize(*index + 1, 0);
    (*streams)[*index] = *offset;
  }
  return true;
}

// Whether a holds at least what b holds in every stream (both known).
bool Covers(const ClusterNode& a, const ClusterNode& b) {
  if (a.streams.empty() || b.streams.empty()) return false;
  for (size_t i = 0; i < b.streams.size(); ++i) {
    if ((i < a.streams.size() ? a.streams[i] : 0) < b.streams[i]) return false;
  }
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
  // The streams that hold something, "index:offset,..." (left out when too long for a znode
  // rewritten every second: the choice falls back to the sums).
  std::string streams;
  for (size_t i = 0; i < n.streams.size(); ++i) {
    if (n.streams[i] == 0) continue;
    if (!streams.empty()) streams += ',';
    streams += std::to_string(i) + ":" + std::to_string(n.streams[i]);
  }
  if (streams.size() <= kMaxStreamsField) Put(out, "streams", streams);
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
  if (auto it = f.find("streams"); it != f.end() && !ParseStreams(it->second, &n.streams)) {
    return std::nullopt;
  }
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
  std::vector<const ClusterNode*> eligible;
  for (const ClusterNode& n : members) {
    if (n.priority <= 0 || n.partial || (n.host == failed.host && n.port == failed.port)) {
      continue;
    }
    eligible.push_back(&n);
  }
  // A replica that holds, in every stream, what each other one holds loses nothing another
  // one had (a write WAIT counted on any of them); the sums alone cannot tell, as one replica
  // may be ahead in a stream and behind in another. Among those, and when there is none,
  // Sentinel's order.
  std::optional<ClusterNode> best;
  bool best_covers = false;
  for (const ClusterNode* n : eligible) {
    const bool covers = std::all_of(eligible.begin(), eligible.end(),
                                    [n](const ClusterNode* o) { return o == n || Covers(*n, *o); });
    if (!best || (covers && !best_covers) || (covers == best_covers && Better(*n, *best))) {
      best = *n;
      best_covers = covers;
    }
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
