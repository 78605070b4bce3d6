#include "apps/flysim/run/run_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/readout_option.hpp"
#include "io/output_writers.hpp"
#include "io/input_file.hpp"
#include "io/reference_spikes.hpp"

namespace flysim::app {

namespace {
// run.pace: 'off' -> 0, 'realtime' -> 1, or a positive factor.
double pace_factor(const Options& o) {
  const std::string& text = o.text("run.pace");
  if (text == "off") return 0.0;
  if (text == "realtime") return 1.0;
  double factor = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (ec != std::errc() || end != text.data() + text.size() || !(factor > 0) || factor > 1e6)
    o.reject("run.pace", "must be off, realtime or simulated seconds per wall second (a number above 0, at most 1e6)");
  return factor;
}
}  // namespace

bool checkpoints_asked(const Options& o) { return o.number("checkpoint.every-ms") != 0; }

RunChecks check_run_options(const Options& o) {
  RunChecks c;
  require_writable(o, "output.spikes");
  if (const std::vector<std::string> known = spike_format_names();
      std::find(known.begin(), known.end(), o.text("output.spikes-format")) == known.end())
    o.reject("output.spikes-format", "is not a spike format (known: " + fmt::format("{}", fmt::join(known, ", ")) + ")");
  if (o.given("output.spikes-format") && o.text("output.spikes").empty())
    o.reject("output.spikes-format", "formats the spike file, but output.spikes names none (give --output.spikes=FILE)");
  if (const std::string name = experiment_of_file(o.text("output.spikes"));
      o.text("output.spikes-format") == "reference" && !o.text("output.spikes").empty() && !is_plain_name(name))
    o.reject("output.spikes", "names the experiment '" + printable(name) + "' (exp_name: the file's name without its "
                              "extension), which holds a comma, a quote, a control character or bytes that are not UTF-8; "
                              "exp_name is written unquoted");
  require_writable(o, "output.rates");
  require_writable(o, "output.summary");
  require_writable(o, "output.journal");
  c.keep = o.integer("checkpoint.keep");
  if (c.keep < 1) o.reject("checkpoint.keep", "must be at least 1");
  c.checkpoint_every_ms = o.number("checkpoint.every-ms");
  if (c.checkpoint_every_ms < 0) o.reject("checkpoint.every-ms", "must not be negative (0 turns checkpoints off)");
  c.checkpointing = checkpoints_asked(o);
  c.pace = pace_factor(o);
  c.pace_text = o.text("run.pace");
  c.fallback_every_ms = o.number("engine.fallback-every-ms");
  if (c.fallback_every_ms < 0) o.reject("engine.fallback-every-ms", "must not be negative (0: no fallback)");
  c.fault_after_epochs = o.integer("engine.fault-after-epochs");
  if (c.fault_after_epochs < 0) o.reject("engine.fault-after-epochs", "must not be negative (0: never)");
  c.readouts = readout_ids(o);
  return c;
}

}  // namespace flysim::app
