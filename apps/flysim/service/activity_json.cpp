#include "apps/flysim/service/activity_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

#include "apps/flysim/service/control_json.hpp"

namespace flysim::app {

namespace {
using ordered_json = nlohmann::ordered_json;

// The raster rows the page asks for when a script says nothing: as many as it draws.
constexpr int64_t kDefaultRasterRows = 64;
// The top responders when a script says nothing: as many as flysim run's summary lists.
constexpr int64_t kDefaultTopNeurons = 10;
// Positions are bins since step 0; 2^53 keeps them exact in JavaScript.
constexpr int64_t kMaxPosition = int64_t{1} << 53;

QueryParameter since_parameter() { return {"since", 0, kMaxPosition, 0}; }
QueryParameter neurons_parameter(int64_t fallback) { return {"neurons", 1, kMaxActivityNeurons, fallback}; }

std::string dump(const ordered_json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

void put_span(ordered_json& j, const ActivitySpan& span) {
  j["bin_ms"] = span.bin_ms;
  j["first"] = span.first;
  j["next"] = span.next;
  j["window_bins"] = span.window_bins;
}

ordered_json neuron_json(const ActivityNeuron& n) {
  return {{"id", std::to_string(n.root_id)}, {"index", n.index},          {"spikes", n.spikes},
          {"rate_hz", n.rate_Hz},            {"stimulated", n.stimulated}, {"readout", n.readout}};
}

ordered_json neurons_json(const std::vector<ActivityNeuron>& neurons) {
  ordered_json list = ordered_json::array();
  for (const ActivityNeuron& n : neurons) list.push_back(neuron_json(n));
  return list;
}
}  // namespace

std::vector<QueryParameter> spikes_parameters() { return {since_parameter(), neurons_parameter(kDefaultRasterRows)}; }
std::vector<QueryParameter> rates_parameters() { return {since_parameter()}; }
std::vector<QueryParameter> top_parameters() { return {neurons_parameter(kDefaultTopNeurons)}; }

std::map<std::string, int64_t> read_query(const std::string& endpoint, const std::multimap<std::string, std::string>& params,
                                          const std::vector<QueryParameter>& takes) {
  std::vector<std::string> names;
  for (const QueryParameter& p : takes) names.push_back(p.name);
  for (const auto& [name, value] : params) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw bad_request(fmt::format("unknown query parameter \"{}\": GET {} takes {}", name, endpoint, fmt::join(names, ", ")));
    if (params.count(name) > 1) throw bad_request(fmt::format("query parameter \"{}\" is given twice", name));
  }
  std::map<std::string, int64_t> values;
  for (const QueryParameter& p : takes) {
    const auto it = params.find(p.name);
    if (it == params.end()) {
      values[p.name] = p.fallback;
      continue;
    }
    const std::string& text = it->second;
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < p.min || value > p.max)
      throw bad_request(fmt::format("query parameter \"{}\" must be an integer {}..{}, got \"{}\"", p.name, p.min, p.max, text));
    values[p.name] = value;
  }
  return values;
}

std::string raster_to_json(const RasterReport& report) {
  ordered_json j;
  put_span(j, report.span);
  j["rows"] = neurons_json(report.rows);
  j["bins"] = ordered_json::array();
  for (const RasterBin& bin : report.bins) j["bins"].push_back({{"pos", bin.pos}, {"t_ms", bin.t_ms}, {"counts", bin.counts}});
  return dump(j);
}

std::string rates_to_json(const RatesReport& report) {
  ordered_json j;
  put_span(j, report.span);
  j["neurons"] = report.neurons;
  j["readout"] = report.has_readout ? neuron_json(report.readout) : ordered_json(nullptr);
  j["bins"] = ordered_json::array();
  for (const RateBin& bin : report.bins)
    j["bins"].push_back({{"pos", bin.pos},
                         {"t_ms", bin.t_ms},
                         {"spikes", bin.spikes},
                         {"active", bin.active},
                         {"population_hz", bin.population_Hz},
                         {"readout_hz", bin.readout_Hz}});
  return dump(j);
}

std::string top_to_json(const TopReport& report) {
  ordered_json j;
  put_span(j, report.span);
  j["window_ms"] = report.window_ms;
  j["top"] = neurons_json(report.top);
  return dump(j);
}

}  // namespace flysim::app
