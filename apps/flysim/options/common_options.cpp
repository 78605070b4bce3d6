#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include <thread>

#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/options/plasticity_options.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "io/stimulus_files.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
const std::string kGroupIds = "stimulus.group." + kOptionName + ".ids";
const std::string kGroupRate = "stimulus.group." + kOptionName + ".rate";
std::string group_key(const std::string& name, const char* field) { return "stimulus.group." + name + "." + field; }

// The groups of stimulus.group.NAME.ids / .rate, each rate checked and turned into its
// Poisson threshold with the model's dt.
std::vector<PoissonGroup> poisson_groups(const Options& o, const Network& net) {
  std::vector<std::string> names = poisson_group_names(o);
  const std::vector<std::string> rated = o.names_of(kGroupRate);
  for (const std::string& name : rated)
    if (std::find(names.begin(), names.end(), name) == names.end())
      o.reject(group_key(name, "rate"), "is set, but stimulus.group." + name + ".ids is not: a group needs its neurons");
  const double dt_ms = o.number("model.dt-ms");
  std::vector<PoissonGroup> groups;
  for (const std::string& name : names) {
    const std::string rate_key = group_key(name, "rate");
    if (name == "default") o.reject(group_key(name, "ids"), "uses the name 'default', which is stimulus.ids's group");
    if (std::find(rated.begin(), rated.end(), name) == rated.end())
      o.reject(group_key(name, "ids"), "has no rate: set " + rate_key + " (Hz)");
    PoissonGroup group{name, load_id_list_as_indices(o.text(group_key(name, "ids")), net), o.number(rate_key), 0u};
    try {
      group.threshold = poisson_threshold(group.rate_Hz, dt_ms);
    } catch (const input_error& e) {
      o.reject(rate_key, e.what());
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// A neuron in two groups is an error naming the neuron and both groups' options.
void refuse_shared_neurons(const Options& o, const Network& net, const StimulusPlan& plan) {
  const std::optional<SharedNeuron> shared = neuron_in_two_groups(plan);
  if (!shared) return;
  const auto key = [&](int g) { return g < 0 ? std::string("stimulus.ids") : group_key(plan.groups[g].name, "ids"); };
  const std::string first = key(shared->first_group), second = key(shared->second_group);
  throw input_error("options " + first + " and " + second + " both list neuron " + std::to_string(net.root_ids[shared->neuron]) +
                    ": a neuron belongs to one Poisson group (" + o.text(first) + ", " + o.text(second) + ")");
}
}  // namespace

StimulusPlan stimulus_condition(const Options& o, const Network& net) {
  StimulusPlan plan;
  plan.groups = poisson_groups(o, net);
  if (!o.text("stimulus.silence").empty()) plan.silenced = load_id_list_as_indices(o.text("stimulus.silence"), net);
  plan.silence_mode = *parse_silence_mode(o.text("stimulus.silence-mode"));
  return plan;
}

StimulusPlan stimulus_plan(const Options& o, const Network& net) {
  StimulusPlan plan = stimulus_condition(o, net);
  const bool ids_apply = o.given("stimulus.ids") || !o.given("stimulus.kicks");
  if (ids_apply && !o.text("stimulus.ids").empty()) {
    try {
      plan.poisson_neurons = load_id_list_as_indices(o.text("stimulus.ids"), net);
    } catch (const input_error& e) {
      if (o.given("stimulus.ids")) throw;
      throw input_error(std::string(e.what()) + " (the default stimulus.ids, FlyWire 783's sugar neurons; for another "
                                                "network give --stimulus.ids=FILE, or --stimulus.ids= for none)");
    }
  }
  if (!o.text("stimulus.kicks").empty()) plan.kicks = load_kicks(o.text("stimulus.kicks"), net);
  plan.seed = static_cast<uint64_t>(o.integer("run.seed"));
  refuse_shared_neurons(o, net, plan);
  return plan;
}

std::vector<std::string> poisson_group_names(const Options& o) { return o.names_of(kGroupIds); }

std::vector<std::string> stimulus_file_keys(const Options& o) {
  std::vector<std::string> keys = {"stimulus.ids", "stimulus.kicks", "stimulus.silence"};
  for (const std::string& name : poisson_group_names(o)) keys.push_back(group_key(name, "ids"));
  return keys;
}

std::vector<OptionSpec> log_options() {
  return {{"log.level", OptionType::choice, "info", "how much to log (to stderr)", {"debug", "info", "warn", "error"}}};
}

void configure_logging(const Options& o) {
  auto logger = spdlog::stderr_color_mt("flysim");
  logger->set_pattern("[%H:%M:%S.%e] %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(o.text("log.level")));
}

void require_writable(const Options& o, const std::string& key) {
  const std::string& path = o.text(key);
  if (path.empty()) return;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) o.reject(key, "names a file in " + dir.string() + ", which is not an existing folder");
  if (::access(dir.c_str(), W_OK) != 0) o.reject(key, "names a file in " + dir.string() + ", which is not writable");
  if (std::filesystem::is_directory(path, ec)) o.reject(key, "is a folder; give a file name");
  // Every output is plain text; a name that promises a binary or compressed format would mislead pandas.
  const std::string extension = std::filesystem::path(path).extension().string();
  for (const char* binary : {".parquet", ".pq", ".feather", ".arrow", ".h5", ".hdf5", ".gz", ".bz2", ".xz", ".zst", ".zip"})
    if (extension == binary)
      o.reject(key, "names a " + extension + " file, but flysim writes plain text (CSV or JSON); name it .csv (or .json) "
                    "and convert it afterwards (pandas: pd.read_csv(FILE).to_parquet(...))");
}

std::vector<OptionSpec> run_options() {
  const LifParams d;
  const auto num = [](double x) { return fmt::format("{}", x); };
  std::vector<OptionSpec> specs = network_options();
  const std::vector<OptionSpec> own = {
      {"stimulus.ids", OptionType::path, sugar_ids_file(),
       "root IDs of the Poisson-driven neurons, one per line ('#' comments); empty for none. The default applies "
       "only when stimulus.kicks is not given"},
      {"stimulus.rate", OptionType::number, num(d.r_poi_Hz), "Poisson rate of the stimulated neurons, Hz"},
      {"stimulus.kicks", OptionType::path, "", "CSV 'step,neuron_id': at that step the neuron gets v += f_poi*w_syn"},
      {kGroupIds, OptionType::path, "",
       "a further Poisson group named NAME (letters, digits, '_', '-'): its root IDs, one per line; "
       "like stimulus.ids, refractory period 0; no neuron in two groups. Config files: [stimulus.group.NAME] ids = FILE"},
      {kGroupRate, OptionType::number, "", "the Poisson rate of group NAME, Hz (0 drives nothing but keeps refractory 0)"},
      {"stimulus.silence", OptionType::path, "",
       "root IDs of silenced neurons, one per line: their outgoing synapses carry no weight (the reference model's "
       "silence()); they still receive input, spike and are recorded"},
      {"stimulus.silence-mode", OptionType::choice, "outgoing",
       "which synapses of a silenced neuron carry no weight: outgoing (the reference code) or both (incoming too)",
       {"outgoing", "both"}},
      {"run.duration-ms", OptionType::text, "1000",
       "simulated time per trial, ms (not a whole number of steps: rounded up, as Brian2's run()), or 'forever' (one "
       "trial of 2^29 steps, 14.9 h at dt 0.1 ms, until stopped)"},
      {"run.pace", OptionType::text, "off",
       "'off' (as fast as possible), 'realtime', or simulated seconds per wall second (e.g. 0.5, 10): when epochs run, "
       "never what they compute. A paced or endless run streams its spike file (flushed every 0.2 s)"},
      {"run.trials", OptionType::integer, "1", "trials; each starts at rest and draws its own Poisson input"},
      {"run.batch", OptionType::text, "auto",
       "trials the engine advances together, each with its own state and Poisson input over the shared network; the "
       "spikes are those of the trials run one after another, whatever the batch. 'auto': as many as fit in half the "
       "free memory, on the CPU pool at most one per thread (1 for a paced run, with plasticity, a replay, "
       "checkpoint.every-ms or run.swap-at), or "
       "a number >= 1 (above run.trials it is run.trials)"},
      {"run.seed", OptionType::integer, "1", "seed of the Poisson input (0..2^63-1)"},
      {"run.swap-at", OptionType::text, "",
       "scheduled engine swaps, 'MS:KIND,...' (e.g. 500:cuda,800:cpu): at the first delay-cell boundary at or after MS "
       "of simulated time since the start of the run, hand the state to a new engine of that kind"},
      {"restore", OptionType::path, "", "continue the run saved in this checkpoint file (its plan, stimulus and position)"},
      {"replay", OptionType::path, "",
       "rerun a live run from its journal (output.journal of flysim serve): its options, and its live commands at the same "
       "boundaries, unpaced; the spikes are the live run's, byte for byte"},
      {"output.journal", OptionType::path, "",
       "journal of live commands (JSON lines: the run's options, then each command and the boundary where it applied)"},
      {"output.journal-overwrite", OptionType::boolean, "false",
       "replace an existing output.journal (refused otherwise: a replay needs it)"},
      {"checkpoint.every-ms", OptionType::number, "0", "write a checkpoint every this many simulated ms (0: none)"},
      {"checkpoint.dir", OptionType::path, "checkpoints", "folder of the checkpoint files"},
      {"checkpoint.keep", OptionType::integer, "3", "how many of the newest checkpoints to keep"},
      {"engine.kind", OptionType::choice, "cpu", "the engine; the environment variable FLY_LIF_CUDA=1 (or 0) overrides it",
       {"cpu", "cuda"}},
      {"engine.cuda-device", OptionType::integer, "0",
       "the CUDA device the cuda engine runs on (0..count-1, as CUDA_VISIBLE_DEVICES presents them)"},
      {"engine.threads", OptionType::integer, std::to_string(std::max(1u, std::thread::hardware_concurrency())),
       "threads of the CPU pool engine (a swap to the CPU may ask for another count)"},
      {"engine.fallback-every-ms", OptionType::number, "1000",
       "while the engine may fail (CUDA), keep an in-memory snapshot this often (simulated ms) and after every "
       "command; a failure falls back to the CPU pool from it and recomputes (0: no fallback, a failure stops the run)"},
      {"engine.fault-after-epochs", OptionType::integer, "0",
       "for tests of the fallback: the first engine fails after this many epochs, as a lost GPU does (0: never)"},
      {"output.spikes", OptionType::path, "", "spike CSV (output.spikes-format), sorted by trial, step, neuron; empty: not written"},
      {"output.spikes-format", OptionType::text, "csv",
       "'csv': trial,step,t_ms,neuron_id; 'reference': the reference model's run_exp table t,trial,flywire_id,exp_name "
       "(t in s as Brian2 records it, exp_name the file's name without its extension), for flysim.load_exps and get_rate; "
       "needs output.spikes"},
      {"output.rates", OptionType::path, "", "per-neuron rates CSV 'neuron_id,index,spikes,rate_hz', highest first"},
      {"output.summary", OptionType::path, "",
       "the run's summary as JSON (the figures of the text summary on stdout; fields in README.md); empty: not written"},
      {"output.readouts", OptionType::text, std::to_string(kMn9RootId),
       "root IDs reported on their own in the summary, 'ID,ID,...' (MN9 by default; the live page shows the first); "
       "empty for none. A given ID must be in the network"},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  const auto model = model_options();
  specs.insert(specs.end(), model.begin(), model.end());
  // After engine.cuda-device: the devices a batched run spreads its trials over.
  const auto device = std::find_if(specs.begin(), specs.end(), [](const OptionSpec& s) { return s.key == "engine.cuda-device"; });
  const auto devices = cuda_devices_specs("1");
  specs.insert(device + 1, devices.begin(), devices.end());
  const auto plasticity = plasticity_options();
  specs.insert(specs.end(), plasticity.begin(), plasticity.end());
  const auto realtime = realtime_options();
  specs.insert(specs.end(), realtime.begin(), realtime.end());
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}

std::vector<OptionSpec> model_options() {
  const LifParams d;
  const auto num = [](double x) { return fmt::format("{}", x); };
  return {
      {"model.dt-ms", OptionType::number, num(d.dt_ms), "time step, ms"},
      {"model.v-rest-mV", OptionType::number, num(d.v0_mV), "resting potential v_0, mV"},
      {"model.v-reset-mV", OptionType::number, num(d.v_reset_mV), "reset potential, mV"},
      {"model.v-threshold-mV", OptionType::number, num(d.v_threshold_mV), "threshold (spike when v > it), mV"},
      {"model.tau-m-ms", OptionType::number, num(d.tau_m_ms), "membrane time constant, ms"},
      {"model.tau-g-ms", OptionType::number, num(d.tau_g_ms), "synaptic time constant, ms"},
      {"model.t-ref-ms", OptionType::number, num(d.t_ref_ms), "refractory period of unstimulated neurons, ms"},
      {"model.delay-ms", OptionType::number, num(d.delay_ms), "synaptic delay, ms (at most 32 steps)"},
      {"model.w-syn-mV", OptionType::number, num(d.w_syn_mV), "weight of one synapse, mV"},
      {"model.f-poi", OptionType::number, num(d.f_poi), "Poisson weight factor: one event adds f_poi*w_syn to v"},
  };
}

std::vector<OptionSpec> serve_options() {
  std::vector<OptionSpec> specs = run_options();
  auto control = control_options(kDefaultControlPort);
  control.push_back(web_dir_option());
  specs.insert(specs.end() - static_cast<std::ptrdiff_t>(log_options().size()), control.begin(), control.end());
  for (OptionSpec& spec : specs) {
    if (spec.key == "run.duration-ms") spec.default_value = "forever";
    if (spec.key == "run.pace") spec.default_value = "realtime";
    if (spec.key == "output.journal") {
      spec.default_value = "journal.jsonl";
      spec.help += " (always on for serve)";
    }
  }
  return specs;
}

LifParams model_params(const Options& o) {
  LifParams p;
  p.dt_ms = o.number("model.dt-ms");
  p.v0_mV = o.number("model.v-rest-mV");
  p.v_reset_mV = o.number("model.v-reset-mV");
  p.v_threshold_mV = o.number("model.v-threshold-mV");
  p.tau_m_ms = o.number("model.tau-m-ms");
  p.tau_g_ms = o.number("model.tau-g-ms");
  p.t_ref_ms = o.number("model.t-ref-ms");
  p.delay_ms = o.number("model.delay-ms");
  p.w_syn_mV = o.number("model.w-syn-mV");
  p.f_poi = o.number("model.f-poi");
  p.r_poi_Hz = o.number("stimulus.rate");
  return p;
}

int cuda_device(const Options& o) {
  const int64_t device = o.integer("engine.cuda-device");
  if (device < 0 || device > kMaxCudaDevice)
    o.reject("engine.cuda-device", fmt::format("must be 0..{} (a CUDA device number)", kMaxCudaDevice));
  return static_cast<int>(device);
}

EngineKind engine_kind(const Options& o) {
  if (const char* env = std::getenv("FLY_LIF_CUDA"); env && *env) {
    const std::string v = env;
    if (v == "1") return EngineKind::cuda;
    if (v == "0") return EngineKind::cpu;
    throw input_error("environment variable FLY_LIF_CUDA='" + v + "' must be 1 (cuda) or 0 (cpu)");
  }
  return o.text("engine.kind") == "cuda" ? EngineKind::cuda : EngineKind::cpu;
}

}  // namespace flysim::app
