#include "apps/flysim/run/plot_script.hpp"

#include <cstdlib>
#include <filesystem>

#include "model/errors.hpp"

namespace flysim::app {

namespace {
// Runs `command` (a shell line); true when it exits with 0.
bool shell(const std::string& command) { return std::system(command.c_str()) == 0; }

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::vector<OptionSpec> plot_options(const std::string& prefix, const std::string& script, const std::string& what) {
  return {
      {prefix + ".plot", OptionType::boolean, "true", "draw " + what + " (" + prefix + ".python with matplotlib)"},
      {prefix + ".python", OptionType::path, "/usr/bin/python3",
       "the Python that draws the plot: Debian's, where python3-matplotlib is installed"},
      {prefix + ".plot-script", OptionType::path, std::string(FLYSIM_SOURCE_SCRIPTS_DIR) + "/" + script, "the plotting script"},
  };
}

bool plot_wanted(const Options& o, const std::string& prefix) {
  if (!o.boolean(prefix + ".plot")) return false;
  if (!shell(quoted(o.text(prefix + ".python")) + " -c 'import matplotlib' 2>/dev/null"))
    o.reject(prefix + ".python", "cannot import matplotlib (Debian: apt-get install python3-matplotlib), or set " + prefix +
                                     ".plot=false");
  if (!std::filesystem::is_regular_file(o.text(prefix + ".plot-script"))) o.reject(prefix + ".plot-script", "is not a file");
  return true;
}

void draw_plot(const Options& o, const std::string& prefix, const std::vector<std::string>& args, const std::string& written) {
  std::string command = quoted(o.text(prefix + ".python")) + " " + quoted(o.text(prefix + ".plot-script"));
  for (const std::string& arg : args) command += " " + quoted(arg);
  if (!shell(command))
    throw input_error("the plot failed (" + o.text(prefix + ".plot-script") + "); " + written + " are written");
}

}  // namespace flysim::app
