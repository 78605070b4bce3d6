#pragma once
// LiveCommand <-> JSON, the form the journal stores (model/journal.hpp). Every field is
// written, so a replay never depends on a default that may change.
#include <string>

#include "messages/control.hpp"

namespace flysim {

std::string to_json(const LiveCommand& command);
// Throws input_error naming `where` (e.g. "journal.jsonl:3") when the JSON is not a command.
LiveCommand live_command_from_json(const std::string& json, const std::string& where);

}  // namespace flysim
