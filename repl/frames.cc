#include "repl/frames.h"

namespace slotkv::repl {

void AppendBulk(std::string* out, std::string_view arg) {
  *out += '$';
  *out += std::to_string(arg.size());
  *out += "\r\n";
  out->append(arg);
  *out += "\r\n";
}

std::string EncodeFrame(std::initializer_list<std::string_view> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) AppendBulk(&out, a);
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

}  // namespace slotkv::repl
