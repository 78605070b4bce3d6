#include "apps/flysim/remote/screen_worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "apps/flysim/process/build_version.hpp"
#include "apps/flysim/screen/screen_trials.hpp"
#include "io/screen_results.hpp"

namespace flysim::app {

namespace {

struct Session {
  caf::actor_addr coordinator;
  std::shared_ptr<WorkerSession> work;
  std::vector<screen_slot_actor> slots;
};

struct worker_state {
  std::vector<Session> sessions;
  static inline const char* name = "screen_worker";
};

struct slot_state {
  static inline const char* name = "screen_slot";
};

// Runs `item` on engine `k` of `session`: its counts and spike lines, or the error.
ScreenWorkResult run_item(WorkerSession& session, std::size_t k, const std::atomic<bool>& worker_stopping, ScreenWorkItem& item) {
  ScreenWorkResult result;
  result.index = item.index;
  try {
    // A plan that does not fit this worker's network is refused by the engine (check_stimulus).
    const ExperimentCounts counts = run_screen_experiment(
        session.engines.engine(k), std::move(item.plan), item.rate_Hz, session.plan, *session.net, item.name, session.dt_ms,
        item.keep_spikes ? &result.spike_lines : nullptr, [&](int32_t) {
          if (session.stopping || worker_stopping) throw std::runtime_error("the worker is stopping");
        });
    result.counts_text = counts_part_text(counts);
  } catch (const std::exception& e) {
    result.error = e.what();
    result.spike_lines.clear();
  }
  return result;
}

screen_slot_actor::behavior_type slot_behavior(screen_slot_actor::stateful_pointer<slot_state> self,
                                               std::shared_ptr<WorkerSession> session, std::size_t k,
                                               std::shared_ptr<const std::atomic<bool>> stopping) {
  return {
      [=](work_atom, ScreenWorkItem& item) {
        const std::string name = item.name;
        ScreenWorkResult result = run_item(*session, k, *stopping, item);
        if (result.error.empty())
          spdlog::info("worker: experiment {} done on engine {}", name, k + 1);
        else
          spdlog::warn("worker: experiment {} not done on engine {}: {}", name, k + 1, result.error);
        caf::anon_send(caf::actor_cast<caf::actor>(self->current_sender()), work_atom::value, std::move(result));
      },
  };
}

// Ends the sessions of `coordinator` (all when null): their slots stop at their next batch.
void end_sessions(screen_worker_actor::stateful_pointer<worker_state> self, const caf::actor_addr* coordinator) {
  auto& sessions = self->state.sessions;
  for (auto it = sessions.begin(); it != sessions.end();) {
    if (coordinator && it->coordinator != *coordinator) {
      ++it;
      continue;
    }
    it->work->stopping = true;
    for (auto& slot : it->slots) self->send_exit(slot, caf::exit_reason::user_shutdown);
    spdlog::info("worker: session of {} ended", caf::to_string(it->coordinator));
    it = sessions.erase(it);
  }
}

screen_worker_actor::behavior_type worker_behavior(screen_worker_actor::stateful_pointer<worker_state> self, SessionOpener open,
                                                   std::shared_ptr<const std::atomic<bool>> stopping) {
  self->set_down_handler([=](caf::down_msg& msg) { end_sessions(self, &msg.source); });
  self->set_exit_handler([=](caf::exit_msg& msg) {
    end_sessions(self, nullptr);
    self->quit(msg.reason);
  });
  return {
      [=](hello_atom, ScreenWorkerSetup& setup) {
        const caf::actor coordinator = caf::actor_cast<caf::actor>(self->current_sender());
        ScreenWorkerReady ready;
        try {
          spdlog::info("worker: opening a session for {}", caf::to_string(coordinator.address()));
          std::shared_ptr<WorkerSession> work = open(setup);
          Session session{coordinator.address(), work, {}};
          for (std::size_t k = 0; k < work->engines.size(); ++k) {
            auto slot = self->system().spawn<caf::detached>(slot_behavior, work, k, stopping);
            session.slots.push_back(slot);
            ready.slots.push_back(caf::actor_cast<caf::actor>(slot));
          }
          ready.description = work->description;
          self->monitor(coordinator);
          self->state.sessions.push_back(std::move(session));
          spdlog::info("worker: session ready: {}", ready.description);
        } catch (const std::exception& e) {
          ready.refusal = e.what();
          spdlog::warn("worker: refused a session: {}", ready.refusal);
        }
        caf::anon_send(coordinator, hello_atom::value, std::move(ready));
      },
      [=](version_atom) { return build_version(); },
  };
}

}  // namespace

screen_worker_actor spawn_screen_worker(caf::actor_system& system, SessionOpener open,
                                        std::shared_ptr<const std::atomic<bool>> stopping) {
  return system.spawn<caf::detached>(worker_behavior, std::move(open), std::move(stopping));
}

}  // namespace flysim::app
