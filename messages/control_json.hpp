#pragma once
// LiveCommand as JSON, both ways, from each command's field list: the body of
// `POST /<action>` (what `flysim ctl` sends and the control API reads), and the form the
// journal stores (io/journal.hpp): the action and that body, so that a replay reads
// each command back through the control API's own checks.
#include <string>

#include "messages/control.hpp"
#include "messages/field_json.hpp"

namespace flysim {

// The body of `POST /<action>` that asks for `command`: the fields it sets.
std::string command_body_json(const LiveCommand& command);

// {"action": ..., "body": command_body_json(command)}.
std::string to_json(const LiveCommand& command);

// The body of `POST /<action>` as a command, checked as command_problem() checks it, so
// that a bad request never leaves the HTTP layer. An empty body is `{}`. Unknown
// actions, and unknown, repeated, mistyped and missing fields are refused by name (bad
// JSON by position) with bad_request.
LiveCommand command_from_json(const std::string& action, const std::string& body);

}  // namespace flysim
