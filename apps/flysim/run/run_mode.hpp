#pragma once
// `run` (a plan, as fast as it goes) and `serve` (the same run as a paced, endless,
// steerable service): one implementation, two sets of defaults.
namespace flysim::app {

enum class RunMode { run, serve };

}  // namespace flysim::app
