#pragma once
// The engine actor: a thin shell around a kernels Engine (VAST's state + behavior).
// Spawned detached: an epoch is real work, and CAF's scheduler threads stay free.
#include <memory>

#include "kernels/engine.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

struct engine_state {
  std::shared_ptr<Engine> engine;
  static inline const char* name = "engine";
};

engine_actor::behavior_type engine_behavior(engine_actor::stateful_pointer<engine_state> self,
                                            std::shared_ptr<Engine> engine);

engine_actor spawn_engine(caf::actor_system& system, std::shared_ptr<Engine> engine);

}  // namespace flysim
