#pragma once
// Ctrl-C and SIGTERM for the long-running commands (run, shard): the handler only
// records the signal; the command polls it and stops cleanly.

namespace flysim::app {

// Installs the handler for SIGINT and SIGTERM.
void catch_stop_signals();
// The signal that asked to stop, or 0.
int stop_signal();

}  // namespace flysim::app
