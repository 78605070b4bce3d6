#include "host/thread_role.hpp"

#include <algorithm>

namespace flysim {

namespace {
// Each role's name prefix; roles with many threads append an index.
struct RoleName {
  ThreadRole role;
  const char* label;
  const char* prefix;
  bool indexed;
};

constexpr std::array<RoleName, kThreadRoles.size()> kNames = {{
    {ThreadRole::sim_loop, "simloop", "fs-simloop", false},
    {ThreadRole::engine, "engine", "fs-engine-", true},
    {ThreadRole::gpu, "gpu", "fs-gpu", false},
    {ThreadRole::plasticity, "plasticity", "fs-shard-", true},
    {ThreadRole::recorder, "recorder", "fs-recorder", false},
    {ThreadRole::checkpointer, "checkpointer", "fs-ckpt", false},
    {ThreadRole::http, "http", "fs-http", false},
    {ThreadRole::caf, "caf", "fs-caf-", true},
    {ThreadRole::main, "main", "fs-main", false},
    {ThreadRole::other, "other", "fs-other", false},
}};

const RoleName& names_of(ThreadRole role) {
  return *std::find_if(kNames.begin(), kNames.end(), [&](const RoleName& n) { return n.role == role; });
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }
}  // namespace

std::string role_label(ThreadRole role) { return names_of(role).label; }

std::string thread_name(ThreadRole role, unsigned index) {
  const RoleName& n = names_of(role);
  return n.indexed ? n.prefix + std::to_string(index) : n.prefix;
}

ThreadRole role_of_thread(const std::string& name) {
  for (const RoleName& n : kNames)
    if (n.indexed ? starts_with(name, n.prefix) : name == n.prefix) return n.role;
  return ThreadRole::other;
}

}  // namespace flysim
