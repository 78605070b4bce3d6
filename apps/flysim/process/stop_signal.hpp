#pragma once
// Ctrl-C, SIGTERM and SIGHUP for the commands that work for a while (run, generate,
// shard): the handler only records the signal; the command polls it and stops cleanly.
// Installed first thing, so a signal while the network loads is a clean stop too.

namespace flysim::app {

// Installs the handler for SIGINT, SIGTERM and SIGHUP.
void catch_stop_signals();
// The first signal that asked to stop, or 0.
int stop_signal();
// How many stop signals arrived (a second one while stopping means: stop now).
int stop_signal_count();
// Throws flysim::interrupted when a stop signal arrived: for long work (loading,
// generating, writing) that checks now and then.
void throw_if_stopped(const char* doing);

}  // namespace flysim::app
