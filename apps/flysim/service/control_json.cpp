#include "apps/flysim/service/control_json.hpp"

#include <fmt/format.h>

#include <limits>

#include "io/input_file.hpp"

namespace flysim::app {

using namespace field_json;

JournaledCommand journal_entry_from_json(const std::string& line) {
  const json j = parse_object(line);
  refuse_unknown_fields(j, "a journal entry", {"seq", "trial", "step", "command"});
  JournaledCommand e;
  e.seq = integer_field(required(j, "seq", "the entry's number"), "seq");
  const auto position = [&](const char* name) {
    const int64_t value = integer_field(required(j, name, "where the command applied"), name);
    if (value < 0 || value > std::numeric_limits<int32_t>::max())
      throw bad_request(fmt::format("{} must be 0..{}, got {}", name, std::numeric_limits<int32_t>::max(), value));
    return static_cast<int32_t>(value);
  };
  e.trial = position("trial");
  e.step = position("step");
  const json& command = required(j, "command", "the command applied");
  if (!command.is_object()) wrong_type("command", "an object", command);
  refuse_unknown_fields(command, "a journaled command", {"action", "body"});
  const std::string action = string_field(required(command, "action", "the command's action"), "action");
  const json& body = required(command, "body", "the body of POST /" + action);
  if (!body.is_object()) wrong_type("body", "an object", body);
  e.command = command_from_json(action, body.dump());
  return e;
}

std::string status_to_json(const ServiceStatus& status) { return dump(object_json(status)); }

std::string reply_to_json(const LiveReply& reply) { return dump(object_json(reply)); }

std::string error_to_json(const std::string& message) { return dump(ordered_json{{"error", message}}); }

ServiceStatus status_from_json(const std::string& body) { return answer_from_json<ServiceStatus>(body, "status"); }

LiveReply reply_from_json(const std::string& body) { return answer_from_json<LiveReply>(body, "reply"); }

std::string error_from_json(const std::string& body) {
  const json j = parse_untrusted(body);
  if (j.is_object() && j.contains("error") && j.at("error").is_string()) return j.at("error").get<std::string>();
  // Not flysim's answer (a web server's page, a proxy's): its first line, not the page.
  const std::string first_line = body.substr(0, body.find('\n'));
  if (first_line.size() == body.size() && body.size() <= 200) return body;
  return printable(first_line.substr(0, 200)) + " ... (not a flysim service's answer: is the port right?)";
}

}  // namespace flysim::app
