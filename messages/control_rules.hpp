#pragma once
// What a live command must be before the simulation sees it, judged without the
// simulation (whether a neuron exists or CUDA can run is the sim loop's to say).
#include <string>

#include "host/engine_limits.hpp"
#include "messages/live_command.hpp"
#include "model/lif_params.hpp"

namespace flysim {

// The latest a kick may come after its command: no trial lasts longer (2^29 steps of
// the longest dt).
inline constexpr double kMaxKickAfterMs = static_cast<double>(kMaxRunSteps) * kMaxDtMs;

// What is wrong with a command: the engine name, the thread count, the rate, the kicks
// and IDs. Empty when nothing is. Fields are named as the control API spells them
// ("threads must be 1..1024, got 0").
std::string command_problem(const LiveCommand& command);

// One line for logs: "swap to cpu, 2 threads", "stimulus: rate 200 Hz, 3 kicks".
std::string describe_command(const LiveCommand& command);

}  // namespace flysim
