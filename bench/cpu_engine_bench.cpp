// The CPU engine alone, without actors: builds it on the synthetic FlyWire-scale network
// (from the cache flysim keeps, ~/.cache/flysim) and runs the canonical experiment or the
// dense scenario, epoch by epoch as the sim loop cuts them, timing only the advances.
// Prints the median engine seconds per simulated second and two hashes, of the spikes
// and of the final exported state, so two builds can be compared for speed and bits in
// one go (two builds run alternately; bench/bench_compare.sh does the same for whole
// flysim runs). A measurement tool, not a test.
//   flysim_cpu_bench [--threads=N] [--batch=B] [--repeat=R] [--steps=S] [--dense]
//                    [--rate=HZ] [--ids=FILE] [--kicks=FILE] [--data=DIR] [--block=N]
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_engine.hpp"
#include "model/lif_params.hpp"
#include "io/network_source.hpp"
#include "io/stimulus_files.hpp"
#include "model/stimulus.hpp"

namespace {

struct Args {
  unsigned threads = 1;
  int32_t batch = 1;
  int repeat = 1;
  int32_t steps = 10000;
  bool dense = false;
  double rate = -1;  // default: 150 Hz, or 50 Hz for the dense scenario
  std::string ids;
  std::string kicks;
  std::string data = FLYSIM_BENCH_DATA_DIR;
  uint32_t block = 0;  // 0: EngineSetup's default
};

constexpr char kUsage[] =
    "usage: flysim_cpu_bench [--threads=N] [--batch=B] [--repeat=R] [--steps=S] [--dense] [--rate=HZ]\n"
    "                        [--ids=FILE] [--kicks=FILE] [--data=DIR] [--block=N]\n"
    "The CPU engine alone on the synthetic FlyWire-scale network (flysim's cache): the canonical\n"
    "experiment (21 sugar GRNs, --rate default 150 Hz) or --dense (every 10th neuron, 50 Hz),\n"
    "or --kicks (a step,neuron_id CSV of timed kicks, no Poisson input),\n"
    "--steps steps (default 10000 = 1 s), --repeat times; prints the median engine seconds per\n"
    "simulated second and hashes of the spikes and final state (two builds must agree);\n"
    "--block neurons a block of the blocked sweep (default: the engine's).\n";

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* key) -> const char* {
      const std::size_t n = std::strlen(key);
      return arg.compare(0, n, key) == 0 ? arg.c_str() + n : nullptr;
    };
    if (const char* v = value("--threads=")) a.threads = static_cast<unsigned>(std::atoi(v));
    else if (const char* v = value("--batch=")) a.batch = std::atoi(v);
    else if (const char* v = value("--repeat=")) a.repeat = std::atoi(v);
    else if (const char* v = value("--steps=")) a.steps = std::atoi(v);
    else if (const char* v = value("--rate=")) a.rate = std::atof(v);
    else if (const char* v = value("--ids=")) a.ids = v;
    else if (const char* v = value("--kicks=")) a.kicks = v;
    else if (const char* v = value("--data=")) a.data = v;
    else if (const char* v = value("--block=")) a.block = static_cast<uint32_t>(std::atoi(v));
    else if (arg == "--dense") a.dense = true;
    else if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else {
      std::fprintf(stderr, "flysim_cpu_bench: error: unknown argument %s\n%s", argv[i], kUsage);
      std::exit(2);
    }
  }
  if (a.rate < 0) a.rate = a.dense ? 50.0 : 150.0;
  return a;
}

// CPU seconds of the whole process so far (all threads; spinning helpers included).
double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

uint64_t hash_bytes(uint64_t seed, const void* data, std::size_t bytes) {
  return XXH3_64bits_withSeed(data, bytes, seed);
}

template <class T>
uint64_t hash_vector(uint64_t seed, const std::vector<T>& v) {
  return hash_bytes(seed, v.data(), v.size() * sizeof(T));
}

uint64_t hash_state(const flysim::EngineState& s) {
  uint64_t h = hash_vector(s.next_step, s.v);
  h = hash_vector(h, s.g);
  h = hash_vector(h, s.last_spike);
  return hash_vector(h, s.pending);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace flysim;
  const Args args = parse(argc, argv);
  NetworkSource source;
  source.neurons = args.data + "/Completeness_783.csv";
  source.sugar_ids = args.data + "/sugar_grn_783.txt";
  source.readout_id = 720575940660219265;  // MN9, as flysim run builds it
  if (const char* home = std::getenv("HOME")) source.cache_dir = std::string(home) + "/.cache/flysim";
  auto net = obtain_network(source, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });

  StimulusPlan plan;
  plan.seed = 1;
  if (!args.kicks.empty()) {
    plan.kicks = load_kicks(args.kicks, *net);
  } else if (args.dense) {
    for (uint32_t i = 0; i < net->neuron_count(); i += 10) plan.poisson_neurons.push_back(i);
  } else {
    plan.poisson_neurons = load_id_list_as_indices(args.ids.empty() ? source.sugar_ids : args.ids, *net);
  }
  LifParams params;
  params.r_poi_Hz = args.rate;
  EngineSetup setup{net, std::make_shared<const StimulusPlan>(plan), derive_constants(params), nullptr};
  setup.batch = args.batch;
  if (args.block > 0) setup.cpu_block_neurons = args.block;
  const int32_t d = setup.constants.delay_steps;

  std::vector<double> seconds, cpu_seconds;
  uint64_t spike_hash = 0, state_hash = 0;
  std::size_t spike_count = 0;
  for (int r = 0; r < args.repeat; ++r) {
    CpuEngine engine(setup, args.threads);
    engine.import_batch(resting_batch(net->neuron_count(), setup.constants.v0, 0, args.batch));
    std::vector<std::vector<Spike>> spikes(static_cast<std::size_t>(args.batch));
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = process_cpu_s();
    for (int32_t step = 0; step < args.steps;) {
      const kernels::EpochSpan span = next_epoch(step, args.steps, d);
      BatchSpikes epoch = engine.advance_batch(span);
      for (std::size_t k = 0; k < epoch.size(); ++k) spikes[k].insert(spikes[k].end(), epoch[k].begin(), epoch[k].end());
      step += span.steps;
    }
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cpu_seconds.push_back(process_cpu_s() - cpu_start);
    spike_hash = 0;
    spike_count = 0;
    for (const auto& trial : spikes) spike_hash = hash_vector(spike_hash, trial), spike_count += trial.size();
    state_hash = 0;
    for (const EngineState& s : engine.export_batch()) {
      const uint64_t h = hash_state(s);
      state_hash = hash_bytes(state_hash, &h, sizeof h);
    }
  }
  const auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  const double sim_s = args.steps * params.dt_ms / 1000.0 * args.batch;
  const char* scenario = !args.kicks.empty() ? "kicks" : args.dense ? "dense" : "default";
  std::printf("network %016llx  %s  threads %u  batch %d  steps %d\n",
              static_cast<unsigned long long>(net->content_hash()), scenario, args.threads, args.batch, args.steps);
  std::printf("spikes %zu  spike_hash %016llx  state_hash %016llx\n", spike_count,
              static_cast<unsigned long long>(spike_hash), static_cast<unsigned long long>(state_hash));
  std::printf("engine_s_per_sim_s median %.4f  fastest %.4f  cpu_s_per_sim_s median %.4f  (runs:",
              median(seconds) / sim_s, *std::min_element(seconds.begin(), seconds.end()) / sim_s,
              median(cpu_seconds) / sim_s);
  for (double s : seconds) std::printf(" %.4f", s / sim_s);
  std::printf(")\n");
  return 0;
}
