// A small catalog for core/acl's unit tests and its fuzz target: get (read string fast), set
// (write string slow), del (keyspace write slow), the container config with config|get and
// config|set (admin slow dangerous), publish (pubsub fast), select (fast connection) and auth
// (fast connection, no_auth), ids in that order.
#pragma once

#include <string>
#include <string_view>

#include "core/acl/user.h"

namespace slotkv::acl {

inline Catalog TestCatalog() {
  Catalog c;
  auto add = [&](std::string name, std::string_view cats, int parent = -1) {
    c.push_back({.name = std::move(name), .categories = CategoryBits(cats), .parent = parent});
    const int id = static_cast<int>(c.size() - 1);
    if (parent >= 0) c[static_cast<size_t>(parent)].subcommands.push_back(id);
    return id;
  };
  add("get", "read string fast");
  add("set", "write string slow");
  add("del", "keyspace write slow");
  const int config = add("config", "slow");
  add("config|get", "admin slow dangerous", config);
  add("config|set", "admin slow dangerous", config);
  add("publish", "pubsub fast");
  add("select", "fast connection");
  add("auth", "fast connection");
  c.back().no_auth = true;
  return c;
}

}  // namespace slotkv::acl
