#pragma once
// flysim screen merge: joins the parts of a screen run as a job array into the whole screen's files.
#include <string>
#include <vector>

namespace flysim::app {

// `flysim screen merge DIR... --output.dir=OUT`: `args` follow the word `merge`.
int screen_merge_command(const std::vector<std::string>& args);

}  // namespace flysim::app
