#include "messages/control_json.hpp"

#include <nlohmann/json.hpp>

namespace flysim {

namespace {
using ordered_json = nlohmann::ordered_json;

// Paths and messages may hold any bytes; the JSON written must still be valid UTF-8.
std::string dump(const ordered_json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

ordered_json body_of(const LiveCommand& c) {
  ordered_json j = ordered_json::object();
  if (c.action == "swap") {
    j["engine"] = c.engine;
    if (c.threads > 0) j["threads"] = c.threads;
  }
  if (!c.group.empty()) j["group"] = c.group;
  if (c.rate_Hz >= 0) j["rate_hz"] = c.rate_Hz;
  if (c.replace_ids) j["poisson_ids"] = c.poisson_ids;
  for (const LiveKick& k : c.kicks) j["kicks"].push_back({{"neuron_id", k.neuron_id}, {"after_ms", k.after_ms}});
  if (c.replace_silenced) j["silence_ids"] = c.silenced_ids;
  if (!c.silence_mode.empty()) j["silence_mode"] = c.silence_mode;
  return j;
}
}  // namespace

std::string command_body_json(const LiveCommand& c) { return dump(body_of(c)); }

std::string to_json(const LiveCommand& c) { return dump(ordered_json{{"action", c.action}, {"body", body_of(c)}}); }

}  // namespace flysim
