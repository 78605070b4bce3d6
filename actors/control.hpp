#pragma once
// The control actor: what the control API's HTTP handlers talk to. It refuses
// a live command that is wrong on its face and forwards the rest, and every status
// request, to the actor that runs the simulation, which decides. So HTTP threads never
// touch the simulation, and the sim loop never sees a malformed command. The live page's
// questions go to the activity window's owner, the recorder.
#include <map>
#include <optional>
#include <string>

#include "messages/control_rules.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

// How long the control actor waits for the sim loop's status before answering with
// caf::sec::request_timeout: the sim loop answers between epochs, well within it.
inline constexpr caf::timespan kStatusTimeout = std::chrono::seconds(5);

// The error the control actor answers a command with when command_problem finds
// something (the HTTP layer answers 400 with its text).
caf::error invalid_command(const std::string& problem);
// The problem when `err` is an invalid_command error; nothing for any other error.
std::optional<std::string> invalid_command_problem(const caf::error& err);

struct control_state {
  live_actor sim;
  activity_actor activity;
  caf::timespan status_timeout = kStatusTimeout;
  // Commands the sim loop has not answered yet, by a number of their own: failed when
  // the sim loop or this actor ends, since CAF 0.17 drops an undelivered promise
  // silently and its requester would wait for a boundary that never comes.
  std::map<uint64_t, caf::typed_response_promise<LiveReply>> pending;
  uint64_t next_command = 0;
  control_state() = default;  // not an aggregate (docs/CAF-0.17.md: state whose first member is a handle)
  static inline const char* name = "control";
};

// Forwards to `sim` (the sim loop) and `activity` (the recorder). A status request, or
// a question for the page, fails with caf::sec::request_timeout when it is not answered
// within `status_timeout`. A command waits, with no timeout here, for `sim` to answer
// once it took effect at the boundary it chose (a pause or a swap may wait for the
// epochs in flight); the caller decides how long it waits. Ends when `sim` ends, with its exit
// reason: the commands still waiting, and every later request, fail with
// caf::sec::request_receiver_down.
control_actor::behavior_type control_behavior(control_actor::stateful_pointer<control_state> self, live_actor sim,
                                              activity_actor activity, caf::timespan status_timeout);

}  // namespace flysim
