#include "core/command/errors.h"

#include <algorithm>
#include <cctype>

#include "core/base/ascii.h"

namespace slotkv::command {
namespace {

// Redis cuts user text quoted in errors at 128 bytes.
std::string Shorten(std::string_view s) {
  constexpr size_t kMax = 128;
  return std::string(s.substr(0, kMax));
}

std::string Upper(std::string_view command) {
  std::string upper(command);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper;
}

}  // namespace

std::string WrongArgs(std::string_view command) {
  return "ERR wrong number of arguments for '" + AsciiLower(command) + "' command";
}

std::string UnknownCommand(std::string_view name, const std::string* args, size_t nargs) {
  // As Redis: each argument is cut so the list stays near 128 bytes.
  std::string list;
  for (size_t i = 0; i < nargs && list.size() < 128; ++i) {
    list += "'" + std::string(std::string_view(args[i]).substr(0, 128 - list.size())) + "' ";
  }
  return "ERR unknown command '" + Shorten(name) + "', with args beginning with: " + list;
}

std::string UnknownSubcommand(std::string_view command, std::string_view sub) {
  return "ERR unknown subcommand '" + Shorten(sub) + "'. Try " + Upper(command) + " HELP.";
}

std::string ProtectedNotAllowed(std::string_view command, std::string_view option) {
  return "ERR " + std::string(command) + " command not allowed. If the " + std::string(option) +
         " option is set to \"local\", you can run it from a local connection, otherwise you "
         "need to set this option in the configuration file, and then restart the server.";
}

std::string SubcommandSyntax(std::string_view command, std::string_view sub) {
  return "ERR unknown subcommand or wrong number of arguments for '" + Shorten(sub) + "'. Try " +
         Upper(command) + " HELP.";
}

std::string InvalidExpire(std::string_view command) {
  return "ERR invalid expire time in '" + AsciiLower(command) + "' command";
}

std::string StatusError(const Status& status) {
  if (status.IsInvalidArgument()) return "ERR " + std::string(status.message());
  if (status.IsUnavailable()) return std::string(kErrWriteFailed) + std::string(status.message());
  return "ERR " + status.ToString();
}

}  // namespace slotkv::command
