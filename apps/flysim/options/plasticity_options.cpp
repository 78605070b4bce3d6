#include "apps/flysim/options/plasticity_options.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "apps/flysim/remote/node_list.hpp"
#include "apps/flysim/remote/token_certificate.hpp"
#include "apps/flysim/remote/user_token.hpp"
#include "io/stimulus_files.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

std::vector<OptionSpec> plasticity_options() {
  const StdpParams d;
  const auto num = [](double x) { return fmt::format("{}", x); };
  return {
      {"plasticity.enabled", OptionType::boolean, "false", "run STDP observers that change the plastic connections' weights"},
      {"plasticity.shards", OptionType::integer, "1",
       "observer shards; each owns the plastic connections onto a fixed set of postsynaptic neurons (post % shards). "
       "Changes speed, never results"},
      {"plasticity.nodes", OptionType::text, "",
       "where the shards run, 'HOST:PORT,...' of `flysim shard` nodes, or 'local'; shard k goes to item k mod count. "
       "Empty: all in this process"},
      {"plasticity.token-file", OptionType::path, "",
       "the secret file the nodes were started with (flysim shard --token-file): connections to them use TLS and "
       "authenticate both sides. Empty: this user's own token (~/.cache/flysim/shard-token), as a node without "
       "token-file takes"},
      {"plasticity.connections", OptionType::choice, "excitatory", "which connections learn (then narrowed by pre-ids and post-ids)",
       {"all", "excitatory"}},
      {"plasticity.pre-ids", OptionType::path, "", "root IDs of the presynaptic neurons whose connections learn; empty: all"},
      {"plasticity.post-ids", OptionType::path, "", "root IDs of the postsynaptic neurons whose connections learn; empty: all"},
      {"plasticity.a-plus", OptionType::number, num(d.a_plus),
       "potentiation per pre-before-post pairing at presynaptic trace 1, fixed-point units (65536 = one synapse)"},
      {"plasticity.a-minus", OptionType::number, num(d.a_minus),
       "depression per post-before-pre pairing at postsynaptic trace 1, fixed-point units"},
      {"plasticity.tau-plus-ms", OptionType::number, num(d.tau_plus_ms), "presynaptic trace time constant, ms"},
      {"plasticity.tau-minus-ms", OptionType::number, num(d.tau_minus_ms), "postsynaptic trace time constant, ms"},
      {"plasticity.w-min", OptionType::integer, std::to_string(d.w_min), "smallest magnitude |w| of a plastic connection, units"},
      {"plasticity.w-max", OptionType::integer, std::to_string(d.w_max), "largest magnitude |w| of a plastic connection, units"},
      {"plasticity.period-ms", OptionType::number, num(d.period_steps * LifParams{}.dt_ms),
       "plasticity period, rounded up to whole delay cells: the weights one period learns are applied one period "
       "after it ends. Checkpoints fall on period boundaries"},
      {"plasticity.weights-out", OptionType::path, "",
       "CSV 'pre_id,post_id,initial_units,final_units' of every plastic connection at the end; empty: not written"},
  };
}


PlasticityRequest plasticity_request(const Options& o, double dt_ms, int32_t delay_steps) {
  PlasticityRequest r;
  r.enabled = o.boolean("plasticity.enabled");
  if (!r.enabled) {
    for (const OptionSpec& spec : plasticity_options())
      if (spec.key != "plasticity.enabled" && o.given(spec.key)) o.reject(spec.key, "needs plasticity.enabled=true");
    return r;
  }
  const int64_t shards = o.integer("plasticity.shards");
  if (shards < 1 || shards > 256) o.reject("plasticity.shards", "must be 1..256");
  r.shards = static_cast<uint32_t>(shards);
  r.params.a_plus = o.number("plasticity.a-plus");
  r.params.a_minus = o.number("plasticity.a-minus");
  r.params.tau_plus_ms = o.number("plasticity.tau-plus-ms");
  r.params.tau_minus_ms = o.number("plasticity.tau-minus-ms");
  for (const char* key : {"plasticity.w-min", "plasticity.w-max"})
    if (o.integer(key) < 0 || o.integer(key) > INT32_MAX) o.reject(key, "must be 0..2147483647 units");
  r.params.w_min = static_cast<int32_t>(o.integer("plasticity.w-min"));
  r.params.w_max = static_cast<int32_t>(o.integer("plasticity.w-max"));
  try {
    r.rule = derive_stdp_rule(r.params, dt_ms);
  } catch (const std::invalid_argument& e) {
    // derive_stdp_rule names the parameter first ("tau-plus-ms must ..."): the option's suffix.
    const std::string what = e.what();
    const std::size_t space = what.find(' ');
    o.reject("plasticity." + what.substr(0, space), what.substr(space + 1));
  }
  const double period_ms = o.number("plasticity.period-ms");
  if (!(period_ms > 0 && period_ms <= 1e5)) o.reject("plasticity.period-ms", "must lie in (0, 1e5] ms");
  const double steps = steps_at_least(period_ms, dt_ms);
  const double cells = std::ceil(steps / delay_steps);
  if (!(cells >= 1 && cells * delay_steps <= static_cast<double>(kMaxRunSteps)))
    o.reject("plasticity.period-ms", "gives " + std::to_string(cells) + " delay cells of " + std::to_string(delay_steps) +
                                         " steps; allowed 1 cell .. 2^29 steps");
  r.params.period_steps = static_cast<int32_t>(cells) * delay_steps;
  const std::vector<ShardPlace> nodes = parse_node_list(o, "plasticity.nodes");
  if (nodes.size() > r.shards)
    spdlog::warn("plasticity.nodes lists {} places for {} shard(s): the last {} get no shard", nodes.size(), r.shards,
                 nodes.size() - r.shards);
  for (uint32_t k = 0; k < r.shards; ++k) r.places.push_back(nodes.empty() ? ShardPlace{} : nodes[k % nodes.size()]);
  r.weights_out = o.text("plasticity.weights-out");
  if (!o.text("plasticity.token-file").empty())
    r.token = read_token_file(o.text("plasticity.token-file"), "plasticity.token-file");
  else if (!nodes.empty())
    r.token = user_token();
  return r;
}

std::vector<uint64_t> plastic_edges_from_options(const Options& o, const Network& net) {
  PlasticSelection selection;
  selection.excitatory_only = o.text("plasticity.connections") == "excitatory";
  if (!o.text("plasticity.pre-ids").empty()) selection.pre = load_id_list_as_indices(o.text("plasticity.pre-ids"), net);
  if (!o.text("plasticity.post-ids").empty()) selection.post = load_id_list_as_indices(o.text("plasticity.post-ids"), net);
  std::vector<uint64_t> edges = select_plastic_edges(net, selection);
  if (edges.size() >= (uint64_t{1} << 32)) o.reject("plasticity.connections", "selects 2^32 or more connections");
  return edges;
}

}  // namespace flysim::app
