#pragma once
// The words of `flysim ctl`: which request, its arguments, and the options
// that say where the service is. Bad usage is an input_error (exit code 2).
#include <string>
#include <vector>

#include "messages/live_command.hpp"

namespace flysim::app {

struct CtlRequest {
  std::string action;                    // "status", or one of kLiveActions
  LiveCommand command;                   // for a live action: what POST /<action> carries
  bool json = false;                     // --json: print the service's JSON as it came
  std::vector<std::string> option_args;  // the --key=value options (control.*, --config, log.level)
};

// `status`, `swap cpu [--threads=N]`, `swap cuda`, `checkpoint`,
// `stimulus [--rate=HZ] [--ids=FILE] [--kick=ID@MS ...]`, `pause`, `resume`, `stop`,
// with --json and options anywhere. The command is checked as the service checks it
// (command_problem), and --ids is read here, its errors naming the file and line.
CtlRequest parse_ctl_args(const std::vector<std::string>& args);

}  // namespace flysim::app
