#pragma once
// The control API's JSON beyond the commands (messages/control_json.hpp): journal
// entries in, status, replies and errors out, and the other way for the client. Both
// sides use it: the server (control_server.cpp) and the client (`flysim ctl`).
#include <string>

#include "messages/control.hpp"
#include "messages/control_json.hpp"

namespace flysim::app {

// A journal entry after the header (io/journal.hpp): its number, the boundary where
// its command applied, and the command (messages/control_json.hpp to_json), checked
// exactly as command_from_json checks a request. Unknown, repeated, mistyped and
// missing fields, positions beyond int32 and values the API refuses are refused by name
// (bad_request).
struct JournaledCommand {
  int64_t seq = 0;
  int32_t trial = 0, step = 0;
  LiveCommand command;
};
JournaledCommand journal_entry_from_json(const std::string& line);

// ServiceStatus and LiveReply as JSON objects, one field per member, named as their
// field lists name them.
std::string status_to_json(const ServiceStatus& status);
std::string reply_to_json(const LiveReply& reply);
// {"error": message}: the body of every answer that is neither a status nor a reply.
std::string error_to_json(const std::string& message);

// The other way, for the client. Fields it does not know are ignored (a newer service
// may report more); a field of the wrong type throws std::runtime_error.
ServiceStatus status_from_json(const std::string& body);
LiveReply reply_from_json(const std::string& body);
// The "error" field of an error body; the body itself when it is not one.
std::string error_from_json(const std::string& body);

}  // namespace flysim::app
