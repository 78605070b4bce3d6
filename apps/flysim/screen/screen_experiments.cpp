#include "apps/flysim/screen/screen_experiments.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "apps/flysim/options/sweep_rates.hpp"
#include "io/stimulus_files.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

namespace {

// One experiment per ID of the list file in option `key`.
std::vector<ListedId> listed(const Options& o, const std::string& key) {
  const std::vector<ListedId> ids = read_id_list(o.text(key));
  if (ids.empty()) o.reject(key, "lists no neuron IDs");
  // One experiment per neuron: a neuron listed twice is a slip in the list, named where it is.
  std::unordered_map<int64_t, std::size_t> first_line;
  for (const ListedId& id : ids)
    if (const auto [at, fresh] = first_line.emplace(id.id, id.line); !fresh)
      throw input_error_at(o.text(key), id.line, "neuron ID " + std::to_string(id.id) + " is listed twice (first on line " +
                                                     std::to_string(at->second) + "): one experiment per neuron");
  return ids;
}

std::vector<double> rates_of(const Options& o, const std::string& key) {
  try {
    return parse_sweep_rates(o.text(key));
  } catch (const std::invalid_argument& e) {
    o.reject(key, e.what());
  }
}

// FNV-1a over the bytes of 64-bit values, from its offset basis.
constexpr uint64_t kFnvOffset = 1469598103934665603ull;
uint64_t fnv(uint64_t h, uint64_t value) {
  for (int b = 0; b < 8; ++b) h = (h ^ ((value >> (8 * b)) & 0xff)) * 1099511628211ull;
  return h;
}

// A short fingerprint of a list of model indices: its size and a hash.
std::string fingerprint(const std::vector<uint32_t>& neurons) {
  uint64_t h = kFnvOffset;
  for (uint32_t n : neurons) h = fnv(h, n);
  return fmt::format("{}#{:016x}", neurons.size(), h);
}

// The same of timed kicks, each neuron and step hashed on its own.
std::string fingerprint(const std::vector<Kick>& kicks) {
  uint64_t h = kFnvOffset;
  for (const Kick& k : kicks) h = fnv(fnv(h, k.neuron), static_cast<uint32_t>(k.step));
  return fmt::format("{}#{:016x}", kicks.size(), h);
}

std::vector<uint32_t> indices(const ScreenIds& ids, const RootIdIndex& net) {
  return listed_ids_as_indices(ids.file, ids.ids, net, ids.column.empty() ? "" : "column '" + ids.column + "'");
}

uint32_t threshold_of(const ScreenExperiment& e, double rate_Hz, double dt_ms, const std::string& column) {
  try {
    return poisson_threshold(rate_Hz, dt_ms);
  } catch (const input_error& error) {
    throw input_error(e.origin() + ": " + column + ": " + error.what());
  }
}

}  // namespace

std::vector<OptionSpec> screen_experiment_options() {
  return {
      {"screen.experiments", OptionType::path, "",
       "CSV of experiments: header 'name' and any of excite, rate_hz, excite2, rate2_hz, silence; IDs separated by ';' "
       "or @FILE (an ID list beside the CSV); an empty field takes the run's option (stimulus.ids, stimulus.rate, "
       "stimulus.silence); excite2 at rate2_hz is a Poisson group named excite2"},
      {"screen.baseline", OptionType::boolean, "false", "first, experiment 'baseline': the run's stimulus alone"},
      {"screen.activate-each", OptionType::path, "",
       "ID list: one experiment per neuron, named by its root ID: that neuron alone at stimulus.rate (no stimulus.ids, "
       "groups or kicks; stimulus.silence stays)"},
      {"screen.silence-each", OptionType::path, "",
       "ID list: one experiment per neuron, named silence-ID: the run's stimulus with that neuron silenced too"},
      {"screen.rates", OptionType::text, "", "a grid: the stimulus.ids group at each rate (FROM:TO:STEP or R1,R2,...), Hz"},
      {"screen.rates2", OptionType::text, "", "with screen.rates and screen.excite2: the excite2 group at each rate, Hz"},
      {"screen.excite2", OptionType::path, "", "ID list of the grid's second group (named excite2)"},
  };
}

std::vector<ScreenExperiment> screen_experiments(const Options& o) {
  std::vector<ScreenExperiment> all;
  if (o.boolean("screen.baseline")) all.push_back({"baseline", "option screen.baseline", 0, {}, {}, {}, {}, {}});
  if (!o.text("screen.experiments").empty())
    for (ScreenExperiment& e : read_screen_table(o.text("screen.experiments"))) all.push_back(std::move(e));
  if (!o.text("screen.activate-each").empty()) {
    const std::string file = o.text("screen.activate-each");
    for (const ListedId& id : listed(o, "screen.activate-each")) {
      ScreenExperiment e{std::to_string(id.id), file, id.line, ScreenIds{file, {id}, ""}, {}, {}, {}, {}};
      e.base_stimulus = false;
      all.push_back(std::move(e));
    }
  }
  if (!o.text("screen.silence-each").empty()) {
    const std::string file = o.text("screen.silence-each");
    for (const ListedId& id : listed(o, "screen.silence-each")) {
      ScreenExperiment e{"silence-" + std::to_string(id.id), file, id.line, {}, {}, ScreenIds{file, {id}, ""}, {}, {}};
      e.silence_adds = true;
      all.push_back(std::move(e));
    }
  }
  const bool grid2 = !o.text("screen.rates2").empty();
  if (grid2 && o.text("screen.rates").empty()) o.reject("screen.rates2", "needs screen.rates (the grid's first axis)");
  if (grid2 != !o.text("screen.excite2").empty())
    o.reject(grid2 ? "screen.rates2" : "screen.excite2",
             grid2 ? "needs screen.excite2 (the second group's neurons)" : "needs screen.rates2 (the second group's rates)");
  if (!o.text("screen.rates").empty()) {
    const std::vector<double> rates = rates_of(o, "screen.rates");
    const std::vector<double> rates2 = grid2 ? rates_of(o, "screen.rates2") : std::vector<double>{};
    const std::optional<ScreenIds> excite2 =
        grid2 ? std::optional<ScreenIds>(ScreenIds{o.text("screen.excite2"), listed(o, "screen.excite2"), ""}) : std::nullopt;
    for (double rate : rates) {
      if (!grid2) {
        all.push_back({fmt::format("r{}", rate), "option screen.rates", 0, {}, {}, {}, rate, {}});
        continue;
      }
      for (double rate2 : rates2)
        all.push_back({fmt::format("r{}_r2={}", rate, rate2), "options screen.rates, screen.rates2", 0, {}, excite2, {}, rate, rate2});
    }
  }
  if (all.empty())
    throw input_error("no experiments: give screen.experiments, screen.activate-each, screen.silence-each, screen.rates or screen.baseline=true");
  refuse_duplicate_names(all);
  // An option that no experiment reads is a mistake to say, not to drop.
  if (o.given("stimulus.ids") && !o.text("stimulus.ids").empty() &&
      std::none_of(all.begin(), all.end(), [](const ScreenExperiment& e) { return e.base_stimulus && !e.excite; }))
    o.reject("stimulus.ids", "is read by no experiment of this screen (screen.activate-each drives each neuron alone, "
                             "and a table's excite column replaces it); leave it out, or add screen.baseline=true");
  return all;
}

ScreenRun resolve_experiment(const ScreenExperiment& e, const StimulusPlan& base, double base_rate_Hz, const RootIdIndex& net,
                             double dt_ms) {
  ScreenRun run{e.name, base, e.rate_Hz.value_or(base_rate_Hz), ""};
  StimulusPlan& plan = run.plan;
  if (!e.base_stimulus) {
    plan.poisson_neurons.clear();
    plan.groups.clear();
    plan.kicks.clear();
  }
  if (e.excite) plan.poisson_neurons = indices(*e.excite, net);
  if (e.excite2) {
    for (const PoissonGroup& group : plan.groups)
      if (group.name == "excite2") throw input_error(e.origin() + ": the run already has a group named excite2 (stimulus.group.excite2)");
    plan.groups.push_back({"excite2", indices(*e.excite2, net), *e.rate2_Hz, threshold_of(e, *e.rate2_Hz, dt_ms, "rate2_hz")});
  }
  if (e.silence) {
    std::vector<uint32_t> silenced = indices(*e.silence, net);
    if (e.silence_adds) silenced.insert(silenced.end(), plan.silenced.begin(), plan.silenced.end());
    std::sort(silenced.begin(), silenced.end());
    silenced.erase(std::unique(silenced.begin(), silenced.end()), silenced.end());
    plan.silenced = std::move(silenced);
  }
  threshold_of(e, run.rate_Hz, dt_ms, "rate_hz");
  if (const std::string problem = groups_and_silence_problem(plan, net.network().neuron_count(), net.network().root_ids); !problem.empty())
    throw input_error(e.origin() + ": experiment '" + e.name + "': " + problem);
  run.description = fmt::format("driven {} at {} Hz; silenced {} ({}); kicks {}", fingerprint(plan.poisson_neurons), run.rate_Hz,
                                fingerprint(plan.silenced), silence_mode_name(plan.silence_mode), fingerprint(plan.kicks));
  for (const PoissonGroup& g : plan.groups) run.description += fmt::format("; group {} {} at {} Hz", g.name, fingerprint(g.neurons), g.rate_Hz);
  return run;
}

}  // namespace flysim::app
