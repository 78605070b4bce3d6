// flysim generate: writes the synthetic FlyWire-scale network in the FlyWire CSV format.
#include <spdlog/spdlog.h>

#include <iostream>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/process/file_roles.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "io/flywire_csv.hpp"
#include "model/generator.hpp"

namespace flysim::app {

namespace {
std::vector<OptionSpec> generate_options() {
  const std::vector<OptionSpec> network = network_options();
  std::vector<OptionSpec> specs = {
      spec_of(network, "network.neurons", "neurons file whose root IDs the network uses (',Completed' header)"),
      spec_of(network, "network.seed", "seed; the same seed gives the same network on any machine"),
      {"generate.neurons", OptionType::integer, "0", "use only the first N neurons of network.neurons (0: all)"},
      {"generate.connections", OptionType::integer, "15091983",
       "connected pairs; the synapse total scales with it (54,492,922 at the default)"},
      {"output.neurons", OptionType::path, "neurons.csv", "where to write the neurons file"},
      {"output.connectivity", OptionType::path, "connectivity.csv", "where to write the connectivity CSV"},
  };
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}
}  // namespace

int generate_command(const std::vector<std::string>& args) {
  const auto specs = generate_options();
  if (print_help_if_asked(args, "flysim generate [--key=value ...]",
                               "Generates a synthetic network with the statistics of FlyWire v783 (model/GENERATOR.md) "
                               "and writes it in the FlyWire CSV format that `flysim run --network.connectivity=` reads.",
                               specs))
    return 0;
  catch_stop_signals();
  const Options o = Options::parse(specs, args);
  configure_logging(o);
  check_file_roles(o, {{"network.neurons"}, {"output.neurons", "output.connectivity"}, {}});
  require_writable(o, "output.neurons");
  require_writable(o, "output.connectivity");
  if (o.text("output.neurons").empty()) o.reject("output.neurons", "must name a file");
  if (o.text("output.connectivity").empty()) o.reject("output.connectivity", "must name a file");

  require_bundled_file(o, "network.neurons");
  NetworkSource source;
  source.neurons = o.text("network.neurons");
  source.sugar_ids = synthetic_sensory_ids_file();
  source.readout_id = kMn9RootId;
  source.generator_seed = network_seed(o);
  GeneratorParams params = generator_params(source);
  const int64_t neurons = o.integer("generate.neurons");
  if (neurons < 0 || neurons > static_cast<int64_t>(params.root_ids.size()))
    o.reject("generate.neurons", "must be 0..the " + std::to_string(params.root_ids.size()) + " neurons of network.neurons");
  const int64_t connections = o.integer("generate.connections");
  if (connections < 1) o.reject("generate.connections", "must be at least 1");
  restrict_generator(params, static_cast<std::size_t>(neurons), static_cast<uint64_t>(connections));

  clean_up_leftovers(o, {{}, {"output.neurons", "output.connectivity"}, {}});
  const Network net = generate_network(params, [](uint64_t done, uint64_t total) {
    throw_if_stopped("generating the network");
    spdlog::info("generating: {}%", 100 * done / (total ? total : 1));
  });
  spdlog::info("writing {} and {}", o.text("output.neurons"), o.text("output.connectivity"));
  write_flywire(net, o.text("output.neurons"), o.text("output.connectivity"), [](uint64_t done, uint64_t total) {
    throw_if_stopped("writing the network");
    if (done == total || (done - 1) % (1u << 15) == 0) spdlog::info("writing: {}%", 100 * done / (total ? total : 1));
  });
  std::cout << "flysim generate: " << net.neuron_count() << " neurons, " << net.connection_count() << " connections, "
            << net.synapse_count() << " synapses (" << net.description << ") written to " << o.text("output.neurons")
            << " and " << o.text("output.connectivity") << "\n";
  return 0;
}

}  // namespace flysim::app
