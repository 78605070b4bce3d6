#pragma once
// CAF's own threads, named and placed for their role (model/THREADS.md): CAF 0.17 names
// its scheduler workers "caf.multiplexer" (the network layer's thread too), its timer
// "caf.clock" and each detached actor's thread "caf.actor", and calls the thread hooks
// of the actor_system_config as each starts. The hook renames workers fs-caf-N and the
// timer fs-caf-clock and pins all three kinds to cpus.other; a detached actor then names
// and places its thread for its own role (enter_role in its behavior).
#include <caf/all.hpp>

namespace flysim {

// Adds the hook to `cfg` (before the actor system is built from it).
void name_caf_threads(caf::actor_system_config& cfg);

}  // namespace flysim
