// The CUDA engine against the CPU pool (docs/ARCHITECTURE.md, "The determinism contract"): the
// same spikes and the same state bits at every epoch boundary, across hand-offs between
// the engines, on net2000 and on the FlyWire-scale synthetic network. Skips, saying why,
// where no usable CUDA device is present (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "kernels/cpu/cpu_engine.hpp"
#include "kernels/cuda/cuda_engine.hpp"
#include "model/errors.hpp"
#include "io/flywire_csv.hpp"
#include "model/generator.hpp"
#include "io/network_source.hpp"
#include "io/stimulus_files.hpp"
#include "stimulus_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

// The repository's data/ folder, beside tests/.
std::string repo_data(const std::string& relative) { return data_path("../../data/" + relative); }

constexpr int64_t kMn9RootId = 720575940660219265;

// Empty when the CUDA engine can run here, else why not.
const std::string& cuda_unusable() {
  static const std::string why = [] {
    const CudaProbe probe = probe_cuda(0);
    return probe.problem.empty() ? std::string() : "no usable CUDA device: " + probe.problem;
  }();
  return why;
}

#define SKIP_WITHOUT_CUDA()                                       \
  if (const std::string& why = cuda_unusable(); !why.empty()) \
  GTEST_SKIP() << why

// First difference of two spike lists, for a message that fits on a screen.
testing::AssertionResult same_spikes(const std::vector<Spike>& expected, const std::vector<Spike>& actual) {
  if (expected == actual) return testing::AssertionSuccess();
  std::size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
  testing::AssertionResult failure = testing::AssertionFailure();
  failure << expected.size() << " vs " << actual.size() << " spikes; first difference at #" << i << ": ";
  auto show = [&](const std::vector<Spike>& s) {
    if (i < s.size())
      failure << "(" << s[i].step << ", " << s[i].neuron << ")";
    else
      failure << "end";
  };
  show(expected);
  failure << " vs ";
  show(actual);
  return failure;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// First difference of two states, compared bit for bit (operator== would call -0.0 and
// 0.0 equal; the contract is the bits).
testing::AssertionResult same_state(const EngineState& expected, const EngineState& actual) {
  if (expected.trial != actual.trial || expected.next_step != actual.next_step)
    return testing::AssertionFailure() << "trial/next_step " << expected.trial << "/" << expected.next_step << " vs "
                                       << actual.trial << "/" << actual.next_step;
  if (expected.v.size() != actual.v.size() || expected.g.size() != actual.g.size() ||
      expected.last_spike.size() != actual.last_spike.size())
    return testing::AssertionFailure() << "state sizes differ";
  for (std::size_t i = 0; i < expected.v.size(); ++i)
    if (!same_bits(expected.v[i], actual.v[i]) || !same_bits(expected.g[i], actual.g[i]) ||
        expected.last_spike[i] != actual.last_spike[i])
      return testing::AssertionFailure() << "neuron " << i << ": v " << expected.v[i] << " vs " << actual.v[i] << ", g "
                                         << expected.g[i] << " vs " << actual.g[i] << ", last spike "
                                         << expected.last_spike[i] << " vs " << actual.last_spike[i];
  if (const auto pending = same_spikes(expected.pending, actual.pending); !pending)
    return testing::AssertionFailure() << "pending spikes: " << pending.message();
  if (!(expected == actual)) return testing::AssertionFailure() << "operator== disagrees with the bitwise comparison";
  return testing::AssertionSuccess();
}

// Epoch lengths: whole cells (the sim loop's default), or a cycle of shorter spans such
// as pacing or a stop request make, each cut at the cell's end.
enum class Epochs { cells, irregular };

kernels::EpochSpan epoch_at(int32_t next_step, int32_t end_step, int32_t delay_steps, Epochs epochs, std::size_t k) {
  kernels::EpochSpan span = next_epoch(next_step, end_step, delay_steps);
  if (epochs == Epochs::irregular) {
    static constexpr int32_t kLengths[] = {5, 18, 1, 13, 7, 11, 18, 2, 17};
    span.steps = std::min(span.steps, kLengths[k % std::size(kLengths)]);
  }
  return span;
}

// Advances every engine through `span` with `advance(engine, span)`; the first is the
// reference. Spikes and exported state must agree afterwards; the spikes are appended to
// `all`. False at the first difference.
template <class Advance>
bool agree_after(const std::vector<Engine*>& engines, kernels::EpochSpan span, Advance advance, std::vector<Spike>& all) {
  const std::vector<Spike> expected = advance(*engines[0], span);
  for (std::size_t e = 1; e < engines.size(); ++e) {
    const std::vector<Spike> actual = advance(*engines[e], span);
    EXPECT_TRUE(same_spikes(expected, actual)) << engines[e]->describe() << ", steps [" << span.first << ", +"
                                               << span.steps << ")";
    if (expected != actual) return false;
  }
  const EngineState reference = engines[0]->export_state();
  for (std::size_t e = 1; e < engines.size(); ++e) {
    const auto same = same_state(reference, engines[e]->export_state());
    EXPECT_TRUE(same) << engines[e]->describe() << ", after steps [" << span.first << ", +" << span.steps << ")";
    if (!same) return false;
  }
  all.insert(all.end(), expected.begin(), expected.end());
  return true;
}

// Advances every engine through the same epochs from `from` to `to` (Engine::advance,
// one epoch per call). Returns the spikes.
std::vector<Spike> lockstep(const std::vector<Engine*>& engines, int32_t from, int32_t to, int32_t delay_steps,
                            Epochs epochs = Epochs::cells) {
  std::vector<Spike> all;
  const auto one_epoch = [](Engine& engine, kernels::EpochSpan span) { return engine.advance(span); };
  std::size_t k = 0;
  for (int32_t next = from; next < to; ++k) {
    const kernels::EpochSpan span = epoch_at(next, to, delay_steps, epochs, k);
    if (!agree_after(engines, span, one_epoch, all)) break;
    next += span.steps;
  }
  return all;
}

// Advances every engine through spans of `lengths` steps (cycled) from `from` to `to`
// with advance_cells, which the CUDA engine runs as rounds of many epochs (one graph
// launch each). Returns the spikes.
std::vector<Spike> lockstep_rounds(const std::vector<Engine*>& engines, int32_t from, int32_t to,
                                   const std::vector<int32_t>& lengths) {
  std::vector<Spike> all;
  const auto rounds = [](Engine& engine, kernels::EpochSpan span) { return engine.advance_cells(span).front(); };
  std::size_t k = 0;
  for (int32_t next = from; next < to; ++k) {
    const kernels::EpochSpan span{next, std::min(lengths[k % lengths.size()], to - next)};
    if (!agree_after(engines, span, rounds, all)) break;
    next += span.steps;
  }
  return all;
}

std::shared_ptr<const Network> net2000() {
  static const auto net = std::make_shared<const Network>(
      load_flywire(data_path("net2000/neurons.csv"), data_path("net2000/connectivity.csv")));
  return net;
}

// The synthetic FlyWire-scale network of `flysim generate` (138,639 neurons, about 15.1
// million connections), its sugar GRNs and MN9 as the pathway; built once per process.
struct FlyWireScale {
  std::shared_ptr<const Network> network;
  std::vector<uint32_t> sugar;
};

const FlyWireScale& flywire_scale() {
  static const FlyWireScale scale = [] {
    NetworkSource source;
    source.neurons = repo_data("Completeness_783.csv");
    source.sugar_ids = repo_data("sugar_grn_783.txt");
    source.readout_id = kMn9RootId;
    const GeneratorParams params = generator_params(source);
    return FlyWireScale{std::make_shared<const Network>(generate_network(params)), params.sensory};
  }();
  return scale;
}

// docs/MODEL.md's canonical stimulus: the 21 sugar GRNs Poisson-driven at `rate_Hz`.
EngineSetup sugar_setup(double rate_Hz) {
  StimulusPlan plan;
  plan.poisson_neurons = flywire_scale().sugar;
  LifParams params;
  params.r_poi_Hz = rate_Hz;
  return setup_for(flywire_scale().network, plan, params);
}

// Every tenth neuron Poisson-driven at 50 Hz: hundreds of thousands of spikes a second.
EngineSetup dense_setup() {
  StimulusPlan plan;
  const auto& net = flywire_scale().network;
  for (uint32_t i = 0; i < net->neuron_count(); i += 10) plan.poisson_neurons.push_back(i);
  plan.seed = 7;
  LifParams params;
  params.r_poi_Hz = 50.0;
  return setup_for(net, plan, params);
}

// The reference (CPU pool, 1 and 2 threads) and the CUDA engine in lockstep.
std::vector<Spike> cpu_and_cuda_lockstep(const EngineSetup& setup, int32_t steps, Epochs epochs = Epochs::cells) {
  CpuEngine one(setup, 1), two(setup, 2);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(setup);
  return lockstep({&one, &two, cuda.get()}, 0, steps, setup.constants.delay_steps, epochs);
}

TEST(CudaEngine, ProbeAndFactoryAgree) {
  const CudaProbe probe = probe_cuda(0);
  EXPECT_FALSE(probe.binary_archs.empty());
  EXPECT_GE(probe.runtime_version, 13000);
  std::printf("probe: driver %s, runtime %s, %d device(s), device 0 '%s' sm_%d%d, code for %s (%s); problem: '%s'\n",
              cuda_version_string(probe.driver_version).c_str(), cuda_version_string(probe.runtime_version).c_str(),
              probe.device_count, probe.device_name.c_str(), probe.cc_major, probe.cc_minor, probe.binary_archs.c_str(),
              probe.binary_runs_on_device ? "runs here" : "does not run here", probe.problem.c_str());
  const auto setup = setup_for(net2000(), StimulusPlan{});
  if (probe.problem.empty()) {
    EXPECT_TRUE(probe.device_present);
    EXPECT_TRUE(probe.binary_runs_on_device);
    EXPECT_NE(make_cuda_engine(setup)->describe().find(probe.device_name), std::string::npos);
  } else {
    try {
      make_cuda_engine(setup);
      FAIL() << "make_cuda_engine succeeded although the probe says: " << probe.problem;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(probe.problem), std::string::npos) << e.what();
    }
  }
}

TEST(CudaEngine, StartsAtRestLikeCpu) {
  SKIP_WITHOUT_CUDA();
  const auto setup = setup_for(net2000(), StimulusPlan{});
  EXPECT_TRUE(same_state(CpuEngine(setup, 1).export_state(), make_cuda_engine(setup)->export_state()));
}

TEST(CudaEngine, Net2000KicksMatchCpuEveryEpoch) {
  SKIP_WITHOUT_CUDA();
  StimulusPlan plan;
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net2000());
  const auto spikes = cpu_and_cuda_lockstep(setup_for(net2000(), plan), 10000);
  std::printf("net2000 kicks: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

TEST(CudaEngine, Net2000PoissonAndKicksInIrregularEpochsMatchCpu) {
  SKIP_WITHOUT_CUDA();
  StimulusPlan plan;
  plan.poisson_neurons = load_id_list_as_indices(data_path("net2000/stimulated.txt"), *net2000());
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net2000());
  plan.seed = 0x1234'5678'9abc'def0ull;
  const auto spikes = cpu_and_cuda_lockstep(setup_for(net2000(), plan), 10000, Epochs::irregular);
  std::printf("net2000 poisson + kicks, irregular epochs: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

TEST(CudaEngine, FlyWireScaleSugarStimulusMatchesCpu) {
  SKIP_WITHOUT_CUDA();
  const auto spikes = cpu_and_cuda_lockstep(sugar_setup(150.0), 10000);
  std::printf("FlyWire-scale, 21 sugar GRNs at 150 Hz: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

// A paced run's engine naps while the GPU works (HostWait::nap): the same spikes.
TEST(CudaEngine, NappingWhileTheDeviceWorksMatchesCpu) {
  SKIP_WITHOUT_CUDA();
  EngineSetup setup = sugar_setup(150.0);
  setup.host_wait = HostWait::nap;
  CpuEngine cpu(setup, 2);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(setup);
  const auto spikes = lockstep({&cpu, cuda.get()}, 0, 2000, setup.constants.delay_steps);
  EXPECT_GT(spikes.size(), 100u);
}

TEST(CudaEngine, FlyWireScaleDenseStimulusMatchesCpu) {
  SKIP_WITHOUT_CUDA();
  const auto spikes = cpu_and_cuda_lockstep(dense_setup(), 10000);
  std::printf("FlyWire-scale, 10%% of neurons at 50 Hz: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 100000u);
}

// Neurons whose v, g or last spike bits differ between two states.
// Plasticity on the engines (Engine::apply_weights): every excitatory connection is
// plastic; every 5 cells the same pseudo-random weights are set on every engine, so the
// spikes only stay equal if both engines deliver with the changed weights from the same
// boundary on. Halfway, a fresh CUDA engine imports the CPU state (weights included).
void expect_weight_changes_match(EngineSetup setup, int32_t cells) {
  PlasticSelection excitatory;
  excitatory.excitatory_only = true;
  const auto edges = std::make_shared<const std::vector<uint64_t>>(select_plastic_edges(*setup.network, excitatory));
  setup.plastic_edges = edges;
  ASSERT_GT(edges->size(), 1000u);
  CpuEngine one(setup, 1), two(setup, 2);
  std::unique_ptr<Engine> cuda = make_cuda_engine(setup);
  const int32_t d = setup.constants.delay_steps;
  uint64_t lcg = 12345;
  std::vector<Spike> all;
  for (int32_t cell = 0; cell < cells; cell += 5) {
    std::vector<WeightChange> changes;
    const std::vector<int32_t> current = one.export_state().plastic_weights;
    for (int k = 0; k < 4000; ++k) {
      lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint32_t p = static_cast<uint32_t>((lcg >> 33) % edges->size());
      changes.push_back({p, std::max(0, current[p] + static_cast<int32_t>((lcg >> 20) % 200000) - 60000)});
    }
    std::sort(changes.begin(), changes.end(), [](const WeightChange& a, const WeightChange& b) { return a.plastic < b.plastic; });
    changes.erase(std::unique(changes.begin(), changes.end(),
                              [](const WeightChange& a, const WeightChange& b) { return a.plastic == b.plastic; }),
                  changes.end());
    for (Engine* e : std::vector<Engine*>{&one, &two, cuda.get()}) e->apply_weights(changes);
    if (cell == cells / 2 / 5 * 5) {
      cuda = make_cuda_engine(setup);
      cuda->import_state(one.export_state());
    }
    const auto spikes = lockstep({&one, &two, cuda.get()}, cell * d, std::min(cell + 5, cells) * d, d);
    if (::testing::Test::HasFailure()) return;
    all.insert(all.end(), spikes.begin(), spikes.end());
  }
  EXPECT_GT(all.size(), 100u);
  // The changes mattered: without them the CPU engine spikes differently.
  setup.plastic_edges = nullptr;
  CpuEngine fixed(setup, 2);
  EXPECT_NE(run_until(fixed, 0, cells * d), all);
}

TEST(CudaEngine, Net2000PlasticWeightChangesMatchCpu) {
  SKIP_WITHOUT_CUDA();
  StimulusPlan plan;
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net2000());
  expect_weight_changes_match(setup_for(net2000(), plan), 1000);
}

TEST(CudaEngine, FlyWireScaleDensePlasticWeightChangesMatchCpu) {
  SKIP_WITHOUT_CUDA();
  expect_weight_changes_match(dense_setup(), 200);
}

std::size_t neurons_differing(const EngineState& a, const EngineState& b) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.v.size(); ++i)
    count += !same_bits(a.v[i], b.v[i]) || !same_bits(a.g[i], b.g[i]) || a.last_spike[i] != b.last_spike[i];
  return count;
}

// Hand-offs at boundaries and inside delay cells, both ways, against one uninterrupted
// CPU run cut into the same epochs: CPU -> CUDA mid-cell, CUDA -> CPU mid-cell, then
// CPU -> the same CUDA engine again (one that has run before) at a cell boundary.
void expect_handoffs_match(const EngineSetup& setup, int32_t a, int32_t b, int32_t c, int32_t end) {
  const int32_t d = setup.constants.delay_steps;
  ASSERT_NE(a % d, 0);
  ASSERT_NE(b % d, 0);
  ASSERT_EQ(c % d, 0);
  CpuEngine reference(setup, 2);
  CpuEngine first(setup, 1);
  std::vector<Spike> spikes = lockstep({&reference, &first}, 0, a, d);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(setup);
  cuda->import_state(first.export_state());
  ASSERT_TRUE(same_state(reference.export_state(), cuda->export_state())) << "CPU -> CUDA at step " << a;
  auto more = lockstep({&reference, cuda.get()}, a, b, d);
  spikes.insert(spikes.end(), more.begin(), more.end());
  CpuEngine second(setup, 2);
  second.import_state(cuda->export_state());
  ASSERT_TRUE(same_state(reference.export_state(), second.export_state())) << "CUDA -> CPU at step " << b;
  more = lockstep({&reference, &second}, b, c, d);
  spikes.insert(spikes.end(), more.begin(), more.end());
  cuda->import_state(second.export_state());
  more = lockstep({&reference, cuda.get()}, c, end, d);
  spikes.insert(spikes.end(), more.begin(), more.end());
  ASSERT_FALSE(testing::Test::HasFailure());

  CpuEngine uninterrupted(setup, 1);
  std::vector<Spike> expected;
  for (const auto& [from, to] : {std::pair{0, a}, {a, b}, {b, c}, {c, end}}) {
    more = run_until(uninterrupted, from, to);
    expected.insert(expected.end(), more.begin(), more.end());
  }
  EXPECT_TRUE(same_spikes(expected, spikes));
  EXPECT_TRUE(same_state(uninterrupted.export_state(), cuda->export_state()));

  // Cutting a cell changes the quiet path's rounding (kernels/README.md, "Three paths"),
  // so a run in whole cells may differ in the last bits: reported, not asserted.
  CpuEngine whole_cells(setup, 2);
  const bool same_spikes_whole = run_until(whole_cells, 0, end) == spikes;
  std::printf("hand-offs at %d, %d, %d: %zu spikes; against whole-cell epochs: spikes %s, %zu neurons' state bits "
              "differ\n",
              a, b, c, spikes.size(), same_spikes_whole ? "identical" : "DIFFER",
              neurons_differing(whole_cells.export_state(), cuda->export_state()));
}

TEST(CudaEngine, Net2000HandoffsInsideDelayCellsMatchUninterruptedCpu) {
  SKIP_WITHOUT_CUDA();
  StimulusPlan plan;
  plan.poisson_neurons = load_id_list_as_indices(data_path("net2000/stimulated.txt"), *net2000());
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net2000());
  // 2007 = 111 x 18 + 9 and 5011 = 278 x 18 + 7: inside cells; 7002 = 389 x 18: a boundary.
  expect_handoffs_match(setup_for(net2000(), plan), 2007, 5011, 7002, 10000);
}

TEST(CudaEngine, FlyWireScaleDenseHandoffsInsideDelayCellsMatchUninterruptedCpu) {
  SKIP_WITHOUT_CUDA();
  expect_handoffs_match(dense_setup(), 1007, 2011, 2502, 3000);
}

// Live stimulus changes (Engine::set_stimulus) against the CPU pool, every epoch: at a
// cell boundary to a plan with more kicks than the device holds (its kick buffer grows),
// a fresh CUDA engine built with that plan importing the CPU state there; then mid-cell
// back to the first plan (fewer kicks: the buffer is reused) at another rate.
TEST(CudaEngine, Net2000StimulusChangesMatchCpu) {
  SKIP_WITHOUT_CUDA();
  const EngineSetup before = net2000_setup();
  const int32_t d = before.constants.delay_steps;
  CpuEngine one(before, 1), two(before, 2);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(before);
  std::vector<Engine*> engines{&one, &two, cuda.get()};
  std::vector<Spike> spikes = lockstep(engines, 0, 1800, d);

  const StimulusChange change = stimulus_change(before, 1800, 80.0);
  for (Engine* e : engines) e->set_stimulus(change.plan, change.poisson_threshold);
  const std::unique_ptr<Engine> rebuilt = make_cuda_engine(with_change(before, change));
  rebuilt->import_state(one.export_state());
  engines.push_back(rebuilt.get());
  std::vector<Spike> more = lockstep(engines, 1800, 3007, d);
  spikes.insert(spikes.end(), more.begin(), more.end());

  const uint32_t back = poisson_threshold(200.0, LifParams{}.dt_ms);
  for (Engine* e : engines) e->set_stimulus(before.stimulus, back);
  more = lockstep(engines, 3007, 5000, d);
  spikes.insert(spikes.end(), more.begin(), more.end());
  ASSERT_FALSE(testing::Test::HasFailure());

  // The changes mattered: the CPU engine without them spikes differently.
  CpuEngine unchanged(before, 2);
  EXPECT_NE(run_until(unchanged, 0, 5000), spikes);
  std::printf("net2000 stimulus changes at 1800 and 3007: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

// Rounds of many epochs (advance_cells, as the sim loop asks): spans that start and end
// inside cells, one step, whole seconds; Poisson input and kicks; a stimulus change
// between rounds (the engine's captured graphs hold the old one and must be dropped);
// and a state imported into a running engine (its graphs hold the old first trial).
TEST(CudaEngine, Net2000RoundsOfManyCellsMatchCpu) {
  SKIP_WITHOUT_CUDA();
  const EngineSetup before = net2000_setup();
  const int32_t d = before.constants.delay_steps;
  CpuEngine reference(before, 2);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(before);
  const std::vector<Engine*> engines{&reference, cuda.get()};
  const std::vector<int32_t> lengths{100, 1, 37, 1100, 18, 250, 5, 2 * d, 555, 10000};
  std::vector<Spike> spikes = lockstep_rounds(engines, 0, 4000, lengths);
  const StimulusChange change = stimulus_change(before, 4000, 80.0);
  for (Engine* e : engines) e->set_stimulus(change.plan, change.poisson_threshold);
  std::vector<Spike> more = lockstep_rounds(engines, 4000, 8003, lengths);
  spikes.insert(spikes.end(), more.begin(), more.end());
  EngineState moved = reference.export_state();
  moved.trial = 3;
  for (Engine* e : engines) e->import_state(moved);
  more = lockstep_rounds(engines, 8003, 12000, lengths);
  spikes.insert(spikes.end(), more.begin(), more.end());
  ASSERT_FALSE(testing::Test::HasFailure());
  std::printf("net2000 rounds of many cells, a stimulus change and an import: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

// The same at FlyWire scale with the sugar stimulus: rounds as long as the spike buffer
// allows, and the short rounds of a paced service.
TEST(CudaEngine, FlyWireScaleRoundsOfManyCellsMatchCpu) {
  SKIP_WITHOUT_CUDA();
  const EngineSetup setup = sugar_setup(150.0);
  CpuEngine reference(setup, 2);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(setup);
  const auto spikes = lockstep_rounds({&reference, cuda.get()}, 0, 20000, {5000, 100, 100, 3, 1000});
  std::printf("FlyWire-scale sugar, rounds of many cells: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

// Replaying from an exported state on the same engine gives the same spikes: import
// must clear everything a run left behind (ring, flags, kicks, counters).
TEST(CudaEngine, ReimportReplaysIdentically) {
  SKIP_WITHOUT_CUDA();
  StimulusPlan plan;
  plan.poisson_neurons = load_id_list_as_indices(data_path("net2000/stimulated.txt"), *net2000());
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net2000());
  const auto setup = setup_for(net2000(), plan);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(setup);
  run_until(*cuda, 0, 3011);
  const EngineState saved = cuda->export_state();
  const auto first = run_until(*cuda, 3011, 6000);
  const EngineState end_first = cuda->export_state();
  cuda->import_state(saved);
  EXPECT_TRUE(same_spikes(first, run_until(*cuda, 3011, 6000)));
  EXPECT_TRUE(same_state(end_first, cuda->export_state()));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Wall time of `steps` steps from rest, after one untimed warm-up run; with the spikes
// and the slowest epoch.
struct Timing {
  double seconds;
  double slowest_epoch_s;
  std::vector<Spike> spikes;
};

// `request_cells` delay cells per request: 1 is one host wait per cell; an unpaced run
// asks for 200 ms at once (actors/SCHEDULE.md), 111 cells of 1.8 ms, and the CUDA engine
// runs them as overlapped rounds (slowest_epoch_s is then the slowest request).
Timing time_run(Engine& engine, const EngineSetup& setup, int32_t steps, bool warm_up, int32_t request_cells = 1) {
  const int32_t request_steps = setup.constants.delay_steps * request_cells;
  const EngineState rest = resting_state(setup.network->neuron_count(), setup.constants.v0, 0);
  if (warm_up) {
    engine.import_state(rest);
    run_until(engine, 0, steps);
  }
  engine.import_state(rest);
  Timing t{0.0, 0.0, {}};
  const auto t0 = std::chrono::steady_clock::now();
  for (int32_t next = 0; next < steps;) {
    const kernels::EpochSpan span = next_epoch(next, steps, request_steps);
    const auto e0 = std::chrono::steady_clock::now();
    const std::vector<Spike> spikes = run_until(engine, next, next + span.steps);
    t.slowest_epoch_s = std::max(t.slowest_epoch_s, seconds_since(e0));
    t.spikes.insert(t.spikes.end(), spikes.begin(), spikes.end());
    next += span.steps;
  }
  t.seconds = seconds_since(t0);
  return t;
}

// Not a pass/fail speed test (timings vary by machine): it measures the figures that
// docs/GPU-RESULTS.md records, and checks the timed runs agree.
TEST(CudaEngine, TimedFlyWireScaleRuns) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kSteps = 10000;  // one simulated second at dt = 0.1 ms
  const double epochs = std::ceil(kSteps / 18.0);
  auto report = [&](const char* what, const Engine& engine, const Timing& t) {
    std::printf("timing: %-42s %-40s %8.4f wall s per simulated s, %6.1f us/epoch mean, %7.1f us slowest, %zu spikes\n",
                what, engine.describe().c_str(), t.seconds, 1e6 * t.seconds / epochs, 1e6 * t.slowest_epoch_s,
                t.spikes.size());
  };

  const auto sugar = sugar_setup(150.0);
  const std::unique_ptr<Engine> cuda = make_cuda_engine(sugar);
  const Timing gpu = time_run(*cuda, sugar, kSteps, true);
  report("sugar GRNs 150 Hz (default experiment)", *cuda, gpu);
  constexpr int32_t kUnpacedRequestCells = 111;
  const Timing requests = time_run(*cuda, sugar, kSteps, true, kUnpacedRequestCells);
  report("sugar GRNs 150 Hz, 200 ms requests", *cuda, requests);
  EXPECT_TRUE(same_spikes(requests.spikes, gpu.spikes));
  CpuEngine cpu(sugar, 1);
  const Timing one_thread = time_run(cpu, sugar, kSteps, false);
  report("sugar GRNs 150 Hz (default experiment)", cpu, one_thread);
  EXPECT_TRUE(same_spikes(one_thread.spikes, gpu.spikes));

  // The floor: nothing but the fixed per-epoch cost (launches, synchronization, the
  // sweep over resting neurons).
  const auto silent = setup_for(flywire_scale().network, StimulusPlan{});
  const std::unique_ptr<Engine> idle = make_cuda_engine(silent);
  report("no stimulus (per-epoch floor)", *idle, time_run(*idle, silent, kSteps, true));
  report("no stimulus, 200 ms requests", *idle, time_run(*idle, silent, kSteps, true, kUnpacedRequestCells));

  const auto dense = dense_setup();
  const std::unique_ptr<Engine> busy = make_cuda_engine(dense);
  report("10% of neurons at 50 Hz", *busy, time_run(*busy, dense, kSteps, true));
}

// A plan with a second Poisson group (a few neurons at 60 Hz), a group at 0 Hz (driven,
// no events) and `silenced_count` of the neurons that spike most in `setup`'s run silenced.
std::shared_ptr<StimulusPlan> experiment_plan(const EngineSetup& setup, SilenceMode mode, std::size_t silenced_count,
                                              int32_t probe_steps) {
  auto plan = std::make_shared<StimulusPlan>(*setup.stimulus);
  const std::size_t n = setup.network->neuron_count();
  const auto taken = [&](uint32_t i) { return std::binary_search(plan->poisson_neurons.begin(), plan->poisson_neurons.end(), i); };
  PoissonGroup fast{"fast", {}, 60.0, poisson_threshold(60.0, LifParams{}.dt_ms)}, still{"still", {}, 0.0, 0u};
  for (uint32_t i = 7; i < n && fast.neurons.size() < 40; i += 13)
    if (!taken(i)) fast.neurons.push_back(i);
  for (uint32_t i = 11; i < n && still.neurons.size() < 10; i += 17)
    if (!taken(i) && !std::binary_search(fast.neurons.begin(), fast.neurons.end(), i)) still.neurons.push_back(i);
  plan->groups = {fast, still};
  CpuEngine probe(setup, 2);
  std::vector<uint64_t> count(n, 0);
  for (const Spike& s : run_until(probe, 0, probe_steps)) count[s.neuron] += 1;
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return count[a] > count[b]; });
  plan->silenced.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(silenced_count));
  std::sort(plan->silenced.begin(), plan->silenced.end());
  plan->silence_mode = mode;
  return plan;
}

// Groups at their own rates and silenced neurons, both modes: CPU == CUDA, every spike,
// with kicks and Poisson input in irregular epochs, and the silencing mattered.
TEST(CudaEngine, Net2000GroupsAndSilenceMatchCpu) {
  SKIP_WITHOUT_CUDA();
  for (const SilenceMode mode : {SilenceMode::outgoing, SilenceMode::both}) {
    EngineSetup setup = net2000_setup();
    CpuEngine unsilenced(setup, 2);
    const std::vector<Spike> plain = run_until(unsilenced, 0, 5000);
    setup.stimulus = experiment_plan(setup, mode, 30, 3000);
    const auto spikes = cpu_and_cuda_lockstep(setup, 5000, Epochs::irregular);
    EXPECT_NE(spikes, plain) << "silencing and groups change the run";
    std::printf("net2000 groups + %s silencing: %zu spikes identical\n", silence_mode_name(mode), spikes.size());
    EXPECT_GT(spikes.size(), 1000u);
  }
}

TEST(CudaEngine, FlyWireScaleSilencedSugarStimulusMatchesCpu) {
  SKIP_WITHOUT_CUDA();
  EngineSetup setup = sugar_setup(150.0);
  setup.stimulus = experiment_plan(setup, SilenceMode::outgoing, 20, 2000);
  const auto spikes = cpu_and_cuda_lockstep(setup, 5000);
  std::printf("FlyWire-scale, sugar GRNs at 150 Hz, 20 busiest silenced, groups: %zu spikes identical\n", spikes.size());
  EXPECT_GT(spikes.size(), 1000u);
}

// A screen swaps the plan between batches: silencing, unsilencing and new groups through
// set_stimulus give, on the GPU, each batch's trials as the CPU gives them alone.
TEST(CudaBatch, SilencedAndGroupedBatchesSwappedBySetStimulusEqualCpuTrialsAlone) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kTrials = 4, kSteps = 1500;
  EngineSetup base = net2000_setup();
  const std::size_t n = base.network->neuron_count();
  const std::vector<std::shared_ptr<const StimulusPlan>> plans = {
      experiment_plan(base, SilenceMode::outgoing, 25, 2000), base.stimulus,
      experiment_plan(base, SilenceMode::both, 10, 2000)};
  EngineSetup batched = base;
  batched.batch = kTrials;
  std::unique_ptr<Engine> gpu = make_cuda_engine(batched);
  for (std::size_t p = 0; p < plans.size(); ++p) {
    gpu->set_stimulus(plans[p], base.constants.poisson_threshold);
    gpu->start_at_rest(0, kTrials);
    std::vector<std::vector<Spike>> got(kTrials);
    for (int32_t step = 0; step < kSteps;) {
      const kernels::EpochSpan span = next_epoch(step, kSteps, base.constants.delay_steps);
      const BatchSpikes spikes = gpu->advance_batch(span);
      for (int32_t k = 0; k < kTrials; ++k) got[k].insert(got[k].end(), spikes[k].begin(), spikes[k].end());
      step += span.steps;
    }
    EngineSetup alone_setup = base;
    alone_setup.stimulus = plans[p];
    for (int32_t k = 0; k < kTrials; ++k) {
      CpuEngine cpu(alone_setup, 2);
      cpu.import_state(resting_state(n, base.constants.v0, k));
      EXPECT_TRUE(same_spikes(run_until(cpu, 0, kSteps), got[k])) << "plan " << p << " trial " << k;
    }
  }
}

// Trials first .. first + trials - 1 of `setup`, each alone on the CPU pool from rest:
// their spikes.
std::vector<std::vector<Spike>> cpu_trials_alone(const EngineSetup& setup, int32_t trials, int32_t steps,
                                                 int32_t first = 0) {
  std::vector<std::vector<Spike>> alone;
  for (int32_t t = first; t < first + trials; ++t) {
    CpuEngine cpu(setup, 2);
    cpu.import_state(resting_state(setup.network->neuron_count(), setup.constants.v0, t));
    alone.push_back(run_until(cpu, 0, steps));
  }
  return alone;
}

// A CUDA engine of `setup` holding its batch, trials 0 .. setup.batch - 1, at rest.
std::unique_ptr<Engine> cuda_batch_at_rest(const EngineSetup& setup) {
  std::unique_ptr<Engine> gpu = make_cuda_engine(setup);
  gpu->import_batch(resting_batch(setup.network->neuron_count(), setup.constants.v0, 0, setup.batch));
  return gpu;
}

// Batched trials on the GPU: a batch of 5 trials of net2000 in one set of
// launches gives, per trial, the CPU pool's spikes of that trial alone, bit for bit, and
// the same states; exported in the middle of a cell and imported into the CPU pool, the
// batch goes on identically there (a swap or checkpoint of a batch). Trials started at
// rest in place (Engine::start_at_rest) after a busy batch are those trials alone too.
TEST(CudaBatch, EveryTrialOfABatchEqualsTheCpuTrialAlone) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kTrials = 5, kSteps = 1000, kStop = 18 * 20 + 7;
  EngineSetup setup = net2000_setup();
  const std::size_t n = setup.network->neuron_count();
  const std::vector<std::vector<Spike>> alone = cpu_trials_alone(setup, kTrials, kSteps);
  setup.batch = kTrials;
  std::unique_ptr<Engine> gpu = cuda_batch_at_rest(setup);
  std::vector<std::vector<Spike>> batched(kTrials);
  const auto advance = [&](Engine& engine, int32_t from, int32_t to) {
    for (int32_t step = from; step < to;) {
      const kernels::EpochSpan span = next_epoch(step, to, setup.constants.delay_steps);
      const BatchSpikes spikes = engine.advance_batch(span);
      for (int32_t k = 0; k < kTrials; ++k) batched[k].insert(batched[k].end(), spikes[k].begin(), spikes[k].end());
      step += span.steps;
    }
  };
  advance(*gpu, 0, kStop);
  const std::vector<EngineState> states = gpu->export_batch();
  CpuEngine cpu(setup, 2);
  cpu.import_batch(states);
  const std::vector<EngineState> back = cpu.export_batch();
  for (int32_t k = 0; k < kTrials; ++k) EXPECT_TRUE(same_state(states[k], back[k])) << "trial " << k;
  advance(cpu, kStop, kSteps);
  for (int32_t k = 0; k < kTrials; ++k) EXPECT_TRUE(same_spikes(alone[k], batched[k])) << "trial " << k;

  // The whole way on the GPU, and a smaller last batch (2 of 3 slots) after a bigger one.
  batched.assign(kTrials, {});
  gpu->import_batch(resting_batch(n, setup.constants.v0, 0, kTrials));
  advance(*gpu, 0, kSteps);
  for (int32_t k = 0; k < kTrials; ++k) EXPECT_TRUE(same_spikes(alone[k], batched[k])) << "trial " << k;
  // Started at rest in place (what the sim loop does), not imported, after a batch that
  // left spikes in flight for the start to clear.
  const std::vector<EngineState> busy = gpu->export_batch();
  ASSERT_TRUE(std::any_of(busy.begin(), busy.end(), [](const EngineState& x) { return !x.pending.empty(); }));
  gpu->start_at_rest(3, 2);
  const std::vector<EngineState> rest = gpu->export_batch();
  ASSERT_EQ(rest.size(), 2u);
  for (int32_t k = 0; k < 2; ++k) EXPECT_TRUE(same_state(resting_state(n, setup.constants.v0, 3 + k), rest[k]));
  std::vector<std::vector<Spike>> last(2);
  for (int32_t step = 0; step < kSteps;) {
    const kernels::EpochSpan span = next_epoch(step, kSteps, setup.constants.delay_steps);
    const BatchSpikes spikes = gpu->advance_batch(span);
    ASSERT_EQ(spikes.size(), 2u);
    for (int32_t k = 0; k < 2; ++k) last[k].insert(last[k].end(), spikes[k].begin(), spikes[k].end());
    step += span.steps;
  }
  EXPECT_TRUE(same_spikes(alone[3], last[0]));
  EXPECT_TRUE(same_spikes(alone[4], last[1]));
}

// A batch through requests of many rounds (advance_cells, as an unpaced run asks): each
// round after a request's first is launched before the host has recorded the one before.
// Requests that start and end inside cells, so that a request's first round starts
// mid-cell. Every trial equals the CPU pool's trial alone.
TEST(CudaBatch, RequestsOfManyOverlappedRoundsEqualCpuTrialsAlone) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kTrials = 5, kSteps = 6000;
  EngineSetup setup = net2000_setup();
  const std::vector<std::vector<Spike>> alone = cpu_trials_alone(setup, kTrials, kSteps);
  setup.batch = kTrials;
  std::unique_ptr<Engine> gpu = cuda_batch_at_rest(setup);
  std::vector<std::vector<Spike>> batched(kTrials);
  const int32_t lengths[] = {2000, 37, 1501, 18 * 100, 662};
  std::size_t requests = 0;
  for (int32_t step = 0; step < kSteps; ++requests) {
    const kernels::EpochSpan span{step, std::min(lengths[requests % std::size(lengths)], kSteps - step)};
    const BatchSpikes spikes = gpu->advance_cells(span);
    ASSERT_EQ(spikes.size(), static_cast<std::size_t>(kTrials));
    for (int32_t k = 0; k < kTrials; ++k) batched[k].insert(batched[k].end(), spikes[k].begin(), spikes[k].end());
    step += span.steps;
  }
  std::size_t total = 0;
  for (int32_t k = 0; k < kTrials; ++k) {
    EXPECT_TRUE(same_spikes(alone[k], batched[k])) << "trial " << k;
    total += alone[k].size();
  }
  ASSERT_FALSE(testing::Test::HasFailure());
  std::printf("net2000 batch of %d in %zu requests of many rounds: %zu spikes identical\n", kTrials, requests, total);
  EXPECT_GT(total, 1000u);
}

// A busy batch pulls whole cells' input by target (kernels/cuda/README.md, "A pulled
// cell"): 37 trials (a warp of trials and five more) with Poisson groups, kicks and the
// busiest neurons silenced both ways, through requests that start and end inside cells
// (pulled and pushed epochs alternate; a pushed one can leave input in the ring for a
// pulled one), exported mid-cell into a fresh engine that goes on pulling. Every trial
// equals the CPU pool's trial alone.
TEST(CudaBatch, PulledCellsEqualCpuTrialsAlone) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kTrials = 37, kSteps = 3000, kHandOff = 18 * 80 + 5;
  EngineSetup setup = net2000_setup();
  setup.stimulus = experiment_plan(setup, SilenceMode::both, 20, 2000);
  const std::vector<std::vector<Spike>> alone = cpu_trials_alone(setup, kTrials, kSteps);
  setup.batch = kTrials;
  setup.cuda_pull_from = 0.0;
  std::unique_ptr<Engine> gpu = cuda_batch_at_rest(setup);
  EXPECT_NE(gpu->describe().find("busy cells pulled"), std::string::npos) << gpu->describe();
  std::vector<std::vector<Spike>> batched(kTrials);
  const int32_t lengths[] = {500, 37, 18 * 30, 401};
  for (int32_t step = 0, request = 0; step < kSteps; ++request) {
    int32_t to = std::min(step + lengths[request % std::size(lengths)], kSteps);
    if (step < kHandOff && to > kHandOff) to = kHandOff;
    const BatchSpikes spikes = gpu->advance_cells({step, to - step});
    ASSERT_EQ(spikes.size(), static_cast<std::size_t>(kTrials));
    for (int32_t k = 0; k < kTrials; ++k) batched[k].insert(batched[k].end(), spikes[k].begin(), spikes[k].end());
    step = to;
    if (step == kHandOff) {
      const std::vector<EngineState> states = gpu->export_batch();
      gpu = make_cuda_engine(setup);
      gpu->import_batch(states);
    }
  }
  std::size_t total = 0;
  for (int32_t k = 0; k < kTrials; ++k) {
    EXPECT_TRUE(same_spikes(alone[k], batched[k])) << "trial " << k;
    total += alone[k].size();
  }
  std::printf("net2000 batch of %d, busy cells pulled: %zu spikes identical\n", kTrials, total);
  EXPECT_GT(total, 10000u);
}

// A pulled engine's marks are laid out for its largest batch: a later, smaller batch (one
// group of 32) on the same engine, started at rest after a busy batch of two groups,
// pulls through those marks and gives its trials as the CPU gives them alone.
TEST(CudaBatch, SmallerBatchAfterALargerOnePullsAsTrialsAlone) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kLarge = 37, kSmall = 5, kLargeSteps = 18 * 40 + 7, kSteps = 2000;
  EngineSetup setup = net2000_setup();
  setup.stimulus = experiment_plan(setup, SilenceMode::both, 20, 2000);
  setup.batch = kLarge;
  setup.cuda_pull_from = 0.0;
  std::unique_ptr<Engine> gpu = cuda_batch_at_rest(setup);
  for (int32_t step = 0; step < kLargeSteps;) {
    const kernels::EpochSpan span = next_epoch(step, kLargeSteps, setup.constants.delay_steps);
    ASSERT_EQ(gpu->advance_batch(span).size(), static_cast<std::size_t>(kLarge));
    step += span.steps;
  }
  gpu->start_at_rest(kLarge, kSmall);
  std::vector<std::vector<Spike>> small(kSmall);
  for (int32_t step = 0; step < kSteps;) {
    const int32_t to = std::min(step + 18 * 7 + 3, kSteps);
    const BatchSpikes spikes = gpu->advance_cells({step, to - step});
    ASSERT_EQ(spikes.size(), static_cast<std::size_t>(kSmall));
    for (int32_t k = 0; k < kSmall; ++k) small[k].insert(small[k].end(), spikes[k].begin(), spikes[k].end());
    step = to;
  }
  const std::vector<std::vector<Spike>> alone = cpu_trials_alone(setup, kSmall, kSteps, kLarge);
  std::size_t total = 0;
  for (int32_t k = 0; k < kSmall; ++k) {
    EXPECT_TRUE(same_spikes(alone[k], small[k])) << "trial " << kLarge + k;
    total += alone[k].size();
  }
  std::printf("net2000 batch of %d after one of %d, busy cells pulled: %zu spikes identical\n", kSmall, kLarge, total);
  EXPECT_GT(total, 1000u);
}

// More trials than a grid has rows (65,535): the kicks reach every trial, the last
// included, which equals the CPU trial alone.
TEST(CudaBatch, BatchOfMoreTrialsThanGridRowsEqualsCpuTrialsAlone) {
  SKIP_WITHOUT_CUDA();
  constexpr int32_t kTrials = 65537, kSteps = 18 * 12;
  EngineSetup setup = net2000_setup();
  ASSERT_FALSE(setup.stimulus->kicks.empty());
  ASSERT_LT(setup.stimulus->kicks.front().step, kSteps);
  const std::size_t n = setup.network->neuron_count();
  setup.batch = kTrials;
  std::unique_ptr<Engine> gpu = make_cuda_engine(setup);
  gpu->start_at_rest(0, kTrials);
  std::vector<std::vector<Spike>> batched(kTrials);
  for (int32_t step = 0; step < kSteps;) {
    const kernels::EpochSpan span = next_epoch(step, kSteps, setup.constants.delay_steps);
    const BatchSpikes spikes = gpu->advance_batch(span);
    ASSERT_EQ(spikes.size(), std::size_t{kTrials});
    for (const int32_t k : {0, kTrials - 1}) batched[k].insert(batched[k].end(), spikes[k].begin(), spikes[k].end());
    step += span.steps;
  }
  for (const int32_t k : {0, kTrials - 1}) {
    EngineSetup alone_setup = setup;
    alone_setup.batch = 1;
    CpuEngine cpu(alone_setup, 2);
    cpu.import_state(resting_state(n, setup.constants.v0, k));
    const std::vector<Spike> alone = run_until(cpu, 0, kSteps);
    EXPECT_FALSE(alone.empty());
    EXPECT_TRUE(same_spikes(alone, batched[k])) << "trial " << k;
  }
}

}  // namespace
}  // namespace flysim::test
