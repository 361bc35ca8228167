// A request (or any frame) as RESP writes it: an array of bulk strings. What slotkv sends to
// another server: replication frames (repl/frames.h), MIGRATE's AUTH, SELECT and RESTOREs.
//
// Thread rule: none (pure functions).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace slotkv {

// Appends one bulk string: "$<n>\r\n<arg>\r\n". A request built by hand is "*<n>\r\n" then n
// of these.
void AppendBulk(std::string* out, std::string_view arg);
// Appends the request of these arguments.
void AppendRequest(std::string* out, std::initializer_list<std::string_view> args);

}  // namespace slotkv
