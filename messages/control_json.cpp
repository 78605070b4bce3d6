#include "messages/control_json.hpp"

#include <nlohmann/json.hpp>

#include "messages/json_depth.hpp"
#include "model/errors.hpp"

namespace flysim {

std::string to_json(const LiveCommand& c) {
  nlohmann::json kicks = nlohmann::json::array();
  for (const LiveKick& k : c.kicks) kicks.push_back({{"neuron_id", k.neuron_id}, {"after_ms", k.after_ms}});
  const nlohmann::json j = {{"action", c.action},           {"engine", c.engine},
                            {"threads", c.threads},         {"rate_hz", c.rate_Hz},
                            {"replace_ids", c.replace_ids}, {"poisson_ids", c.poisson_ids},
                            {"kicks", kicks}};
  return j.dump();
}

LiveCommand live_command_from_json(const std::string& json, const std::string& where) {
  if (const std::string problem = json_depth_problem(json); !problem.empty())
    throw input_error(where + ": not a live command: " + problem);
  try {
    const nlohmann::json j = nlohmann::json::parse(json);
    LiveCommand c;
    c.action = j.at("action").get<std::string>();
    c.engine = j.at("engine").get<std::string>();
    c.threads = j.at("threads").get<int32_t>();
    c.rate_Hz = j.at("rate_hz").get<double>();
    c.replace_ids = j.at("replace_ids").get<bool>();
    c.poisson_ids = j.at("poisson_ids").get<std::vector<int64_t>>();
    for (const auto& k : j.at("kicks")) c.kicks.push_back({k.at("neuron_id").get<int64_t>(), k.at("after_ms").get<double>()});
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw input_error(where + ": not a live command: " + e.what());
  }
}

}  // namespace flysim
