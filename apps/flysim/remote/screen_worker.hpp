#pragma once
// The actors of `flysim worker`: a node that opens one session per coordinator (a
// screen's `flysim screen --screen.nodes`), and one slot per engine of a session, each
// running one experiment at a time on its own thread. A session ends when its
// coordinator goes down (its slots stop at their next batch); all end with the node.
#include <caf/all.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "apps/flysim/screen/screen_engines.hpp"
#include "kernels/trial_batches.hpp"
#include "messages/interfaces.hpp"
#include "model/network.hpp"

namespace flysim::app {

// What a worker holds for one coordinator: the network and engines built from the
// coordinator's options with the worker's own engine options.
struct WorkerSession {
  WorkerSession(std::shared_ptr<const Network> net, ScreenEngines engines, TrialBatches plan, double dt_ms, std::string description)
      : net(std::move(net)), engines(std::move(engines)), plan(plan), dt_ms(dt_ms), description(std::move(description)) {}
  std::shared_ptr<const Network> net;
  ScreenEngines engines;
  TrialBatches plan;
  double dt_ms;
  std::string description;
  std::atomic<bool> stopping{false};  // its coordinator went down, or the worker stops
};

// Opens a session for a coordinator's setup; throws (input_error) with the refusal.
using SessionOpener = std::function<std::shared_ptr<WorkerSession>(const ScreenWorkerSetup&)>;

// The worker node (a detached actor: opening a session loads a network). `stopping`
// stops every session's slots at their next batch (the worker's stop signal).
screen_worker_actor spawn_screen_worker(caf::actor_system& system, SessionOpener open,
                                        std::shared_ptr<const std::atomic<bool>> stopping);

}  // namespace flysim::app
