#include "core/base/resp_request.h"

namespace slotkv {

void AppendBulk(std::string* out, std::string_view arg) {
  *out += '$';
  *out += std::to_string(arg.size());
  *out += "\r\n";
  out->append(arg);
  *out += "\r\n";
}

void AppendRequest(std::string* out, std::initializer_list<std::string_view> args) {
  *out += '*';
  *out += std::to_string(args.size());
  *out += "\r\n";
  for (std::string_view a : args) AppendBulk(out, a);
}

}  // namespace slotkv
