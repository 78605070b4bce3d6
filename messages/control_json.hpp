#pragma once
// LiveCommand as JSON: the body of `POST /<action>` (what `flysim ctl` sends), and the
// form the journal stores (io/journal.hpp): the action and that body, so that a
// replay reads each command back through the control API's own checks
// (apps/flysim/service/control_json.hpp command_from_journal_json).
#include <string>

#include "messages/control.hpp"

namespace flysim {

// The body of `POST /<action>` that asks for `command`: only the fields the action takes.
std::string command_body_json(const LiveCommand& command);

// {"action": ..., "body": command_body_json(command)}.
std::string to_json(const LiveCommand& command);

}  // namespace flysim
