// flysim cost: host cores per role of a running service, as a table (host/THREADS.md).
// --window=0 prints the service's own figures (over status.window-s). --window=N reads
// /status twice, N seconds apart, and differences the per-thread CPU counters the two
// carry, exactly as pidstat -t differences /proc over its interval: any window, the
// service's sampling period does not matter, and threads that started or ended in
// between are accounted for (an ended thread's time shows as "(ended)").
#include <fmt/format.h>

#include <iostream>
#include <thread>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/service/control_client.hpp"
#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/service/cost_table.hpp"
#include "host/cost_meter.hpp"

namespace flysim::app {

namespace {
constexpr const char* kCostUsage = "flysim cost [--url=http://127.0.0.1:7460] [--window=SECONDS] [--threads=true] [--control.token-file=FILE]";
constexpr const char* kCostDescription =
    "Prints the host cores each role of a running `flysim serve` holds (sim loop, engine pool, GPU driver thread, "
    "plasticity shards, recorder, checkpointer, control API, CAF, main), read from the kernel's per-thread CPU counters. "
    "--window=0: the service's own window (status.window-s); --window=N: two status readings N seconds apart, differenced "
    "like pidstat -t. Exit code 0: printed; 1: no service answered, or it refused (a token missing or wrong); 2: bad usage.";

std::vector<OptionSpec> cost_options() {
  std::vector<OptionSpec> specs = {
      {"url", OptionType::text, fmt::format("http://127.0.0.1:{}", kDefaultControlPort), "the service's control API"},
      {"window", OptionType::number, "0", "seconds between the two readings (0: the service's own window; at most 3600)"},
      {"threads", OptionType::boolean, "false", "also print every thread, like pidstat -t"},
  };
  for (const OptionSpec& spec : control_options(kDefaultControlPort))
    if (spec.key == "control.token-file") specs.push_back(spec);
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}

// The cost between two reports of one service: both readings fed to a meter.
CostReport cost_between(const CostReport& first, const CostReport& second) {
  CostMeter meter(second.at_s - first.at_s + 1.0);
  meter.add(first.at_s, reading_of(first));
  meter.add(second.at_s, reading_of(second));
  return meter.report();
}
}  // namespace

int cost_command(const std::vector<std::string>& args) {
  const auto specs = cost_options();
  if (print_help_if_asked(args, kCostUsage, kCostDescription, specs)) return 0;
  const Options o = Options::parse(specs, args);
  configure_logging(o);
  ControlEndpoint service = endpoint_from_url(o.text("url"), "url");
  service.token = control_token(o);
  const double window = o.number("window");
  if (!(window >= 0) || window > 3600) o.reject("window", "must lie in 0..3600 seconds");
  try {
    const ServiceStatus first = fetch_status(service);
    CostReport cost = first.cost;
    std::string how = fmt::format("the service's window of {:.0f} s", first.window_s);
    if (window > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(window));
      const ServiceStatus second = fetch_status(service);
      if (second.cost.at_s <= first.cost.at_s)
        throw control_failure("the service restarted between the two readings (its cost clock went back)");
      cost = cost_between(first.cost, second.cost);
      how = fmt::format("two readings {:.1f} s apart", cost.window_s);
    }
    std::cout << fmt::format("flysim cost at {}: {}, pace {}, {}\n", service.where(), first.engine, first.pace, how);
    std::cout << cost_table(cost, "  ");
    if (o.boolean("threads")) std::cout << "\n" << thread_table(cost, "  ");
  } catch (const control_failure& e) {
    std::cerr << "flysim cost: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace flysim::app
