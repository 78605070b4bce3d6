#pragma once
// The engine actor: a thin shell around a kernels Engine (VAST's state + behavior).
// Spawned detached in a run: an epoch is real work, and CAF's scheduler threads stay
// free. Its thread is the engine role's: worker 0 of a CPU pool (fs-engine-0, on cpus.engine), or
// the thread that drives the CUDA engine (fs-gpu, on cpus.other: cpus.engine is free
// while the GPU computes).
#include <memory>

#include "kernels/engine.hpp"
#include "kernels/engine_factory.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

struct engine_state {
  std::shared_ptr<Engine> engine;
  static inline const char* name = "engine";
  // Destroys the engine (a swapped-out one, or the last at the end), then hands the
  // pages it freed inside the heap back to the system (malloc_trim): blocks under the
  // mmap threshold (apps/flysim/main.cpp) would otherwise stay resident.
  ~engine_state();
};

engine_actor::behavior_type engine_behavior(engine_actor::stateful_pointer<engine_state> self,
                                            std::shared_ptr<Engine> engine);

// Where an engine actor runs. `own`: detached, on a thread of the engine's role (a run).
// `pool`: CAF's scheduler, as any scheduled actor; the deterministic actor tests use it,
// whose test scheduler runs every scheduled actor on the test's thread.
enum class EngineThread { own, pool };

// `kind`: what `engine` is (names and places its own thread).
engine_actor spawn_engine(caf::actor_system& system, std::shared_ptr<Engine> engine, EngineKind kind,
                          EngineThread thread = EngineThread::own);

}  // namespace flysim
