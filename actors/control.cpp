#include "actors/control.hpp"

#include <spdlog/spdlog.h>

namespace flysim {

caf::error invalid_command(const std::string& problem) { return caf::make_error(caf::sec::invalid_argument, problem); }

std::optional<std::string> invalid_command_problem(const caf::error& err) {
  if (err.category() != caf::atom("system") || err.code() != static_cast<uint8_t>(caf::sec::invalid_argument) ||
      !err.context().match_elements<std::string>())
    return std::nullopt;
  return err.context().get_as<std::string>(0);
}

namespace {
using control_pointer = control_actor::stateful_pointer<control_state>;

void answer_command(control_pointer self, uint64_t number, caf::expected<LiveReply> answer) {
  auto& pending = self->state.pending;
  const auto it = pending.find(number);
  if (it == pending.end()) return;
  if (answer) it->second.deliver(std::move(*answer));
  else it->second.deliver(std::move(answer.error()));
  pending.erase(it);
}

// Asks `whom` (within the status timeout) and hands the answer, or the error, to the requester.
template <class Report, class Handle, class... Ts>
caf::typed_response_promise<Report> ask(control_pointer self, const Handle& whom, Ts... question) {
  auto promise = self->make_response_promise<Report>();
  self->request(whom, self->state.status_timeout, question...)
      .then([=](Report& report) mutable { promise.deliver(std::move(report)); },
            [=](caf::error& err) mutable { promise.deliver(std::move(err)); });
  return promise;
}

void end_with(control_pointer self, const caf::error& reason) {
  for (auto& [number, promise] : self->state.pending)
    promise.deliver(caf::make_error(caf::sec::request_receiver_down, "the simulation ended before the command took effect"));
  self->state.pending.clear();
  self->quit(reason);
}
}  // namespace

control_actor::behavior_type control_behavior(control_actor::stateful_pointer<control_state> self, live_actor sim,
                                              activity_actor activity, caf::timespan status_timeout) {
  self->state.sim = std::move(sim);
  self->state.activity = std::move(activity);
  self->state.status_timeout = status_timeout;
  // The control actor serves the sim loop: once that is gone there is nothing to ask.
  self->monitor(self->state.sim);
  self->set_down_handler([=](caf::down_msg& msg) {
    if (msg.source == self->state.sim.address()) end_with(self, msg.reason);
  });
  self->set_exit_handler([=](caf::exit_msg& msg) {
    if (msg.reason != caf::exit_reason::normal) end_with(self, msg.reason);
  });
  return {
      [=](status_atom) { return ask<ServiceStatus>(self, self->state.sim, status_atom::value); },
      [=](command_atom, LiveCommand& command) -> caf::result<LiveReply> {
        if (const std::string problem = command_problem(command); !problem.empty()) {
          spdlog::debug("control: refused {}: {}", action_name(command), problem);
          return invalid_command(problem);
        }
        spdlog::info("control: {}", describe_command(command));
        auto promise = self->make_response_promise<LiveReply>();
        const uint64_t number = self->state.next_command++;
        self->state.pending.emplace(number, promise);
        // No timeout: the sim loop answers once the command took effect, however many
        // epochs that takes; the HTTP layer decides how long its client waits.
        self->request(self->state.sim, caf::infinite, command_atom::value, std::move(command))
            .then([=](LiveReply& reply) { answer_command(self, number, std::move(reply)); },
                  [=](caf::error& err) { answer_command(self, number, std::move(err)); });
        return promise;
      },
      [=](raster_atom, int64_t since, uint32_t neurons) {
        return ask<RasterReport>(self, self->state.activity, raster_atom::value, since, neurons);
      },
      [=](rates_atom, int64_t since) { return ask<RatesReport>(self, self->state.activity, rates_atom::value, since); },
      [=](top_atom, uint32_t neurons) { return ask<TopReport>(self, self->state.activity, top_atom::value, neurons); },
  };
}

}  // namespace flysim
