#pragma once
// The subcommands of the flysim program; each returns the process exit code.
#include <string>
#include <vector>

#include "apps/flysim/run/run_mode.hpp"

namespace flysim::app {

// `run` and `serve` (apps/flysim/run/run_mode.hpp): one implementation, two sets of defaults.
int run_or_serve(const std::vector<std::string>& args, RunMode mode);
int generate_command(const std::vector<std::string>& args);
int doctor_command(const std::vector<std::string>& args);
// `checkpoint inspect FILE`: a checkpoint's header and summary.
int checkpoint_command(const std::vector<std::string>& args);
// `shard`: serve plasticity shards to runs in other processes.
int shard_command(const std::vector<std::string>& args);
// `ctl REQUEST`: the client of a running service's control API.
int ctl_command(const std::vector<std::string>& args);
// `cost`: host cores per role of a running service, as a table.
int cost_command(const std::vector<std::string>& args);
// `sweep`: a dose-response experiment (trials at each of several stimulus rates).
int sweep_command(const std::vector<std::string>& args);
// `screen`: many experiments (activation, silencing, rate grids) with the network loaded once.
int screen_command(const std::vector<std::string>& args);
// `worker`: run the experiments of screens in other processes (screen.nodes).
int worker_command(const std::vector<std::string>& args);

}  // namespace flysim::app
