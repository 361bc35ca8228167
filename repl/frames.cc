#include "repl/frames.h"

#include "core/base/number.h"

namespace slotkv::repl {

std::string EncodeFrame(std::initializer_list<std::string_view> args) {
  std::string out;
  AppendRequest(&out, args);
  return out;
}

std::string StreamFrame(std::string_view name, uint32_t slot, uint32_t db, uint64_t offset) {
  return EncodeFrame({name, std::to_string(slot), std::to_string(db), std::to_string(offset)});
}

std::string StreamFrame(std::string_view name, uint32_t slot, uint32_t db) {
  return EncodeFrame({name, std::to_string(slot), std::to_string(db)});
}

std::string UnitFrame(uint32_t slot, uint32_t db, uint64_t offset, std::string_view records) {
  return EncodeFrame(
      {"UNIT", std::to_string(slot), std::to_string(db), std::to_string(offset), records});
}

std::string DataFrame(uint32_t slot, uint32_t db, std::string_view records) {
  return EncodeFrame({"DATA", std::to_string(slot), std::to_string(db), records});
}

void AppendOffset(std::string* out, const StreamOffset& o) {
  AppendBulk(out, std::to_string(o.slot));
  AppendBulk(out, std::to_string(o.db));
  AppendBulk(out, std::to_string(o.offset));
}

std::string DbMapFrame(const std::vector<uint32_t>& map) {
  std::string out = "*" + std::to_string(map.size() + 1) + "\r\n";
  AppendBulk(&out, "DBMAP");
  for (uint32_t db : map) AppendBulk(&out, std::to_string(db));
  return out;
}

std::optional<std::vector<uint32_t>> ParseDbMap(const std::vector<std::string>& args,
                                                uint32_t databases) {
  if (args.size() != size_t{databases} + 1) return std::nullopt;
  std::vector<uint32_t> map;
  for (size_t k = 1; k < args.size(); ++k) {
    std::optional<uint64_t> db = ParseUint64(args[k]);
    if (!db || *db >= databases) return std::nullopt;
    map.push_back(static_cast<uint32_t>(*db));
  }
  return map;
}

std::optional<std::vector<StreamOffset>> ParseOffsets(const std::vector<std::string>& args,
                                                      size_t first, uint32_t slots,
                                                      uint32_t databases) {
  if (first > args.size() || (args.size() - first) % 3 != 0) return std::nullopt;
  std::vector<StreamOffset> out;
  for (size_t k = first; k < args.size(); k += 3) {
    std::optional<uint64_t> s = ParseUint64(args[k]);
    std::optional<uint64_t> db = ParseUint64(args[k + 1]);
    std::optional<uint64_t> off = ParseUint64(args[k + 2]);
    if (!s || !db || !off || *s >= slots || *db >= databases) return std::nullopt;
    out.push_back({static_cast<uint32_t>(*s), static_cast<uint32_t>(*db), *off});
  }
  return out;
}

}  // namespace slotkv::repl
