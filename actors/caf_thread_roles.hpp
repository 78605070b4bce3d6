#pragma once
// CAF's own threads, named and placed for their role (host/THREADS.md): CAF 0.17 names
// its scheduler workers "caf.multiplexer" (the network layer's thread too), its timer
// "caf.clock" and each detached actor's thread "caf.actor", and calls the thread hooks
// of the actor_system_config as each starts. The hook renames workers fs-caf-N, the
// timer fs-caf-clock and detached actors' threads fs-caf-actor, and pins all of them to
// cpus.other; flysim's detached actors then name and place their threads for their own
// role (enter_role in their behavior), and CAF's own (one, started with the actor
// system) keeps fs-caf-actor.
#include <caf/all.hpp>

namespace flysim {

// Adds the hook to `cfg` (before the actor system is built from it).
void name_caf_threads(caf::actor_system_config& cfg);

}  // namespace flysim
