#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include <thread>

#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/options/plasticity_options.hpp"
#include "apps/flysim/process/standard_output.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "io/atomic_file.hpp"
#include "model/errors.hpp"

namespace flysim::app {

void require_writable(const Options& o, const std::string& key) {
  const std::string& path = o.text(key);
  if (path.empty()) return;
  if (names_standard_output(path)) return leave_standard_output_to_data();
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) o.reject(key, "names a file in " + dir.string() + ", which is not an existing folder");
  if (::access(dir.c_str(), W_OK) != 0) o.reject(key, "names a file in " + dir.string() + ", which is not writable");
  if (std::filesystem::is_directory(path, ec)) o.reject(key, "is a folder; give a file name");
  // Every output is plain text; a name that promises a binary or compressed format would mislead pandas.
  const std::string extension = std::filesystem::path(path).extension().string();
  std::string lower = extension;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* binary : {".parquet", ".pq", ".feather", ".arrow", ".h5", ".hdf5", ".gz", ".bz2", ".xz", ".zst", ".zip"})
    if (lower == binary)
      o.reject(key, "names a " + extension + " file, but flysim writes plain text (CSV or JSON); name it .csv (or .json) "
                    "and convert it afterwards (pandas: pd.read_csv(FILE).to_parquet(...))");
}

std::vector<OptionSpec> run_options() {
  std::vector<OptionSpec> specs = network_options();
  const auto stimulus = stimulus_options();
  specs.insert(specs.end(), stimulus.begin(), stimulus.end());
  const std::vector<OptionSpec> own = {
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
      {"restore", OptionType::path, "",
       "continue the run saved in this checkpoint file (its plan, stimulus and position); run.trials, run.duration-ms, "
       "run.seed and stimulus.* given with it must be the checkpoint's"},
      {"replay", OptionType::path, "",
       "rerun a live run from its journal (output.journal of flysim serve): its options, and its live commands at the same "
       "boundaries, unpaced; the spikes are the live run's, byte for byte"},
      {"output.journal", OptionType::path, "",
       "journal of live commands (JSON lines: the run's options, then each command and the boundary where it applied)"},
      {"output.journal-overwrite", OptionType::boolean, "false",
       "replace an existing output.journal (refused otherwise: a replay needs it)"},
      {"checkpoint.every-ms", OptionType::number, "0", "write a checkpoint every this many simulated ms (0: none)"},
      {"checkpoint.dir", OptionType::path, "checkpoints", "folder of the checkpoint files"},
      {"checkpoint.keep", OptionType::integer, "3", "how many of the newest checkpoint.every-ms files to keep (one asked for through the control API is never removed)"},
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

}  // namespace flysim::app
