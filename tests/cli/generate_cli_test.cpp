// `flysim generate` then load: the files it writes are the synthetic network, exactly,
// and `flysim run` reads them back.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include "apps/flysim/options/common_options.hpp"
#include "cli_support.hpp"
#include "io/flywire_csv.hpp"
#include "model/generator.hpp"
#include "io/network_source.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr std::size_t kNeurons = 3000;
constexpr uint64_t kConnections = 40000;

TEST(GenerateCli, WrittenNetworkLoadsAsTheGeneratedOne) {
  const ScratchDir dir("flysim-generate");
  const std::string files = "--output.neurons=" + dir.path("neurons.csv") + " --output.connectivity=" + dir.path("connectivity.csv");
  const CliResult generated =
      run_flysim("generate --network.seed=3 --generate.neurons=" + std::to_string(kNeurons) + " --generate.connections=" +
                     std::to_string(kConnections) + " " + files,
                 dir.path("generate.out"), dir.path("generate.err"));
  ASSERT_EQ(generated.code, 0) << generated.err;

  // The same network in this process, as `flysim generate` makes it.
  NetworkSource source;
  source.neurons = data_path("../../data/Completeness_783.csv");
  source.sugar_ids = data_path("../../data/sugar_grn_783.txt");
  source.readout_id = app::kMn9RootId;
  source.generator_seed = 3;
  GeneratorParams params = generator_params(source);
  restrict_generator(params, kNeurons, kConnections);
  const Network expected = generate_network(params);
  const Network loaded = load_flywire(dir.path("neurons.csv"), dir.path("connectivity.csv"));
  EXPECT_EQ(loaded.root_ids, expected.root_ids);
  EXPECT_EQ(loaded.out_offsets, expected.out_offsets);
  EXPECT_EQ(loaded.out_targets, expected.out_targets);
  EXPECT_EQ(loaded.out_weights, expected.out_weights);
  EXPECT_EQ(loaded.content_hash(), expected.content_hash());

  // flysim run on the files: the summary describes that network.
  const CliResult run = run_flysim("run --network.neurons=" + dir.path("neurons.csv") + " --network.connectivity=" +
                                       dir.path("connectivity.csv") + " --network.cache=false --stimulus.ids= " +
                                       "--run.duration-ms=20 --engine.threads=1 --output.summary=" + dir.path("summary.json"),
                                   dir.path("run.out"), dir.path("run.err"));
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json network = read_summary(dir.path("summary.json"))["network"];
  EXPECT_EQ(network.value("neurons", 0u), kNeurons);
  EXPECT_EQ(network.value("connections", 0u), expected.connection_count());
  EXPECT_EQ(network.value("synapses", 0u), expected.synapse_count());
}

// A generate stopped while it writes leaves neither file: never a neurons file without its
// connectivity (the two are committed together at the end).
TEST(GenerateCli, AStoppedGenerateLeavesNeitherFile) {
  const ScratchDir dir("flysim-generate-stop");
  BackgroundFlysim generate("generate --output.neurons=" + dir.path("neurons.csv") + " --output.connectivity=" +
                                dir.path("connectivity.csv"),
                            dir.path("generate.out"), dir.path("generate.err"));
  ASSERT_NE(generate.wait_for_log("writing: ", 120), "") << slurp(dir.path("generate.err"));
  EXPECT_NE(generate.stop(SIGTERM), 0);
  EXPECT_FALSE(std::filesystem::exists(dir.path("neurons.csv")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("connectivity.csv")));
}

// A small ID file is generated with hubs scaled to its size, not FlyWire's; the density
// the refusal states is one that builds.
TEST(GenerateCli, ASmallIdFileGeneratesAndTheStatedLimitBuilds) {
  const ScratchDir dir("flysim-generate-small");
  const std::string files = "--output.neurons=" + dir.path("neurons.csv") + " --output.connectivity=" + dir.path("connectivity.csv");
  const auto generate = [&](const std::string& args) {
    return run_flysim("generate " + args + " " + files, dir.path("generate.out"), dir.path("generate.err"));
  };
  for (const char* connections : {"20000", "200000"}) {
    const CliResult r = generate("--network.neurons=" + data_path("net2000/neurons.csv") + " --generate.connections=" + connections);
    EXPECT_EQ(r.code, 0) << connections << ": " << r.err;
  }
  expect_one_line_error(generate("--generate.neurons=100 --network.seed=-1"),
                        "command line: option network.seed='-1' must not be negative");
  const CliResult over = generate("--generate.neurons=100 --generate.connections=4951");
  expect_one_line_error(over, "a network of 100 neurons cannot hold 4951 connections");
  const std::string stated = "ask for at most ";
  const std::size_t at = over.err.find(stated);
  ASSERT_NE(at, std::string::npos) << over.err;
  const std::string limit = over.err.substr(at + stated.size(), over.err.find_first_not_of("0123456789", at + stated.size()) - at - stated.size());
  for (const char* seed : {"1", "5", "9"}) {
    const CliResult at_limit = generate("--generate.neurons=100 --network.seed=" + std::string(seed) +
                                        " --generate.connections=" + limit);
    EXPECT_EQ(at_limit.code, 0) << limit << ", seed " << seed << ": " << at_limit.err;
  }
  // The smallest networks too: their total cannot hold FlyWire's largest weight.
  for (const char* seed : {"1", "2", "3"}) {
    const CliResult tiny = generate("--generate.neurons=30 --network.seed=" + std::string(seed) + " --generate.connections=217");
    EXPECT_EQ(tiny.code, 0) << "30 neurons, seed " << seed << ": " << tiny.err;
  }
}

}  // namespace
}  // namespace flysim::test
