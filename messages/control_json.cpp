#include "messages/control_json.hpp"

#include <fmt/format.h>

#include "messages/control_rules.hpp"

namespace flysim {

namespace {
using field_json::ordered_json;

ordered_json body_of(const LiveCommand& command) {
  return std::visit([](const auto& c) { return field_json::object_json(c); }, command);
}
}  // namespace

std::string command_body_json(const LiveCommand& command) { return field_json::dump(body_of(command)); }

std::string to_json(const LiveCommand& command) {
  return field_json::dump(ordered_json{{"action", action_name(command)}, {"body", body_of(command)}});
}

LiveCommand command_from_json(const std::string& action, const std::string& body) {
  const field_json::json j = field_json::parse_object(body);
  std::optional<LiveCommand> command = live_command_named(action);
  if (!command) {
    field_json::refuse_unknown_fields(j, "POST /" + action, {});
    throw bad_request(fmt::format("action \"{}\" is not one of {}", action, fmt::join(kLiveActions, ", ")));
  }
  std::visit([&](auto& c) { field_json::read_object(j, c, "POST /" + action); }, *command);
  if (const std::string problem = command_problem(*command); !problem.empty()) throw bad_request(problem);
  return std::move(*command);
}

}  // namespace flysim
