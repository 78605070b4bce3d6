#include "apps/flysim/service/control_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <concepts>
#include <limits>
#include <type_traits>
#include <set>
#include <vector>

#include "actors/control_rules.hpp"
#include "apps/flysim/service/status_parts_json.hpp"
#include "io/input_file.hpp"
#include "io/json_depth.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

namespace {
using json = nlohmann::json;
// Output keeps the order of the struct's members, so a reader sees them as documented.
using ordered_json = nlohmann::ordered_json;

// Messages and paths may hold any bytes; the JSON written must still be valid UTF-8.
std::string dump(const ordered_json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// nlohmann's message less its "[json.exception.parse_error.101] " prefix, as printable()
// quotes input (its "last read" may be megabytes).
std::string without_exception_id(const std::string& what) {
  const auto end = what.find("] ");
  return printable(what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what);
}

// Parses strictly: a key given twice in one object is refused (nlohmann keeps the last).
json parse_body(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  if (const std::string problem = json_depth_problem(body); !problem.empty()) throw bad_request("the body is refused: " + problem);
  std::vector<std::set<std::string>> keys_of_open_objects;
  std::string last_key;  // the field whose value is being read (a number too large names it)
  const json::parser_callback_t refuse_repeated_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys_of_open_objects.emplace_back();
    if (event == json::parse_event_t::object_end) keys_of_open_objects.pop_back();
    if (event == json::parse_event_t::key) last_key = parsed.get<std::string>();
    if (event == json::parse_event_t::key && !keys_of_open_objects.back().insert(last_key).second)
      throw bad_request(fmt::format("field \"{}\" is given twice", last_key));
    return true;
  };
  json j;
  try {
    j = json::parse(body, refuse_repeated_keys);
  } catch (const json::parse_error& e) {
    throw bad_request("the body is not valid JSON: " + without_exception_id(e.what()));
  } catch (const json::out_of_range& e) {
    throw bad_request(fmt::format("field \"{}\" is out of range: {}", last_key, without_exception_id(e.what())));
  }
  if (!j.is_object()) throw bad_request(fmt::format("the body must be a JSON object, got {}", j.type_name()));
  return j;
}

// Refuses fields the action does not take, naming the ones it does.
void refuse_unknown_fields(const json& j, const std::string& where, const std::vector<std::string>& fields) {
  for (const auto& [key, value] : j.items())
    if (std::find(fields.begin(), fields.end(), key) == fields.end())
      throw bad_request(fields.empty() ? fmt::format("unknown field \"{}\": {} takes no fields", key, where)
                                       : fmt::format("unknown field \"{}\": {} takes {}", key, where, fmt::join(fields, ", ")));
}

const json& required(const json& j, const std::string& name, const std::string& what) {
  if (!j.contains(name)) throw bad_request(fmt::format("field \"{}\" is missing ({})", name, what));
  return j.at(name);
}

[[noreturn]] void wrong_type(const std::string& name, const std::string& expected, const json& value) {
  throw bad_request(fmt::format("field \"{}\" must be {}, got {} {}", name, expected, value.type_name(), printable(value.dump())));
}

int64_t integer_field(const json& value, const std::string& name) {
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw bad_request(fmt::format("field \"{}\" is out of range: {}", name, printable(value.dump())));
  if (!value.is_number_integer()) wrong_type(name, "an integer", value);
  return value.get<int64_t>();
}

double number_field(const json& value, const std::string& name) {
  if (!value.is_number()) wrong_type(name, "a number", value);
  return value.get<double>();
}

std::string string_field(const json& value, const std::string& name) {
  if (!value.is_string()) wrong_type(name, "a string", value);
  return value.get<std::string>();
}

const json& array_field(const json& value, const std::string& name) {
  if (!value.is_array()) wrong_type(name, "an array", value);
  return value;
}

void read_swap(const json& j, LiveCommand& c) {
  refuse_unknown_fields(j, "POST /swap", {"engine", "threads"});
  c.engine = string_field(required(j, "engine", "\"cpu\" or \"cuda\""), "engine");
  if (j.contains("threads")) {
    const int64_t threads = integer_field(j.at("threads"), "threads");
    // 0 would mean engine.threads in a LiveCommand: an explicit 0 is refused here.
    if (threads < 1 || threads > kMaxLiveThreads) throw bad_request(fmt::format("threads must be 1..{}, got {}", kMaxLiveThreads, threads));
    c.threads = static_cast<int32_t>(threads);
  }
}

LiveKick read_kick(const json& j, std::size_t k) {
  const std::string where = fmt::format("kicks[{}]", k);
  if (!j.is_object()) wrong_type(where, "an object {\"neuron_id\": ..., \"after_ms\": ...}", j);
  for (const auto& [key, value] : j.items())
    if (key != "neuron_id" && key != "after_ms")
      throw bad_request(fmt::format("unknown field \"{}.{}\": a kick takes neuron_id, after_ms", where, key));
  LiveKick kick;
  kick.neuron_id = integer_field(required(j, "neuron_id", where + ": the root ID to kick"), where + ".neuron_id");
  kick.after_ms = number_field(required(j, "after_ms", where + ": ms after the boundary where the command applies"),
                               where + ".after_ms");
  return kick;
}

void read_stimulus(const json& j, LiveCommand& c) {
  refuse_unknown_fields(j, "POST /stimulus", {"rate_hz", "poisson_ids", "kicks", "group", "silence_ids", "silence_mode"});
  if (j.contains("group")) {
    if (!j.at("group").is_string()) wrong_type("group", "a group name (a string)", j.at("group"));
    c.group = j.at("group").get<std::string>();
    if (c.group.empty()) throw bad_request("group must name a Poisson group; leave it out for the default group");
  }
  if (j.contains("silence_ids")) {
    c.replace_silenced = true;
    const json& ids = array_field(j.at("silence_ids"), "silence_ids");
    for (std::size_t k = 0; k < ids.size(); ++k) c.silenced_ids.push_back(integer_field(ids[k], fmt::format("silence_ids[{}]", k)));
  }
  if (j.contains("silence_mode")) {
    if (!j.at("silence_mode").is_string() || !parse_silence_mode(j.at("silence_mode").get<std::string>()))
      wrong_type("silence_mode", "\"outgoing\" or \"both\"", j.at("silence_mode"));
    c.silence_mode = j.at("silence_mode").get<std::string>();
  }
  if (j.contains("rate_hz")) {
    c.rate_Hz = number_field(j.at("rate_hz"), "rate_hz");
    // A negative rate would mean "unchanged" in a LiveCommand: refused here.
    if (c.rate_Hz < 0) throw bad_request(fmt::format("rate_hz must be a finite number >= 0, got {}", j.at("rate_hz").dump()));
  }
  if (j.contains("poisson_ids")) {
    c.replace_ids = true;
    const json& ids = array_field(j.at("poisson_ids"), "poisson_ids");
    for (std::size_t k = 0; k < ids.size(); ++k) c.poisson_ids.push_back(integer_field(ids[k], fmt::format("poisson_ids[{}]", k)));
  }
  if (j.contains("kicks")) {
    const json& kicks = array_field(j.at("kicks"), "kicks");
    if (kicks.empty()) throw bad_request("kicks is empty; give at least one kick or leave the field out");
    for (std::size_t k = 0; k < kicks.size(); ++k) c.kicks.push_back(read_kick(kicks[k], k));
  }
}

template <class Status, class Visit>
void for_each_status_field(Status& s, Visit&& visit) {
  visit("state", s.state);
  visit("trial", s.trial);
  visit("step", s.step);
  visit("trials", s.trials);
  visit("simulated_s", s.simulated_s);
  visit("wall_s", s.wall_s);
  visit("wall_per_simulated", s.wall_per_simulated);
  visit("pace", s.pace);
  visit("lag_ms", s.lag_ms);
  visit("engine", s.engine);
  visit("threads", s.threads);
  visit("host_cpu_s", s.host_cpu_s);
  visit("host_cores", s.host_cores);
  visit("spikes", s.spikes);
  visit("spikes_per_simulated_s", s.spikes_per_simulated_s);
  visit("shards", s.shards);
  visit("last_checkpoint", s.last_checkpoint);
  visit("stimulus_rate_hz", s.stimulus_rate_Hz);
  visit("poisson_neurons", s.poisson_neurons);
  visit("lag_p99_ms", s.lag_p99_ms);
  visit("lag_max_ms", s.lag_max_ms);
  visit("max_lag_ms", s.max_lag_ms);
  visit("window_s", s.window_s);
  visit("engine_cores_needed", s.engine_cores_needed);
  visit("warnings", s.warnings);
  visit("cpus_engine", s.cpus_engine);
  visit("cpus_plasticity", s.cpus_plasticity);
  visit("cpus_other", s.cpus_other);
  visit("cpus_freed", s.cpus_freed);
  visit("cost", s.cost);
  visit("gpu_note", s.gpu_note);
  visit("gpu_neighbours", s.gpu_neighbours);
}

template <class Reply, class Visit>
void for_each_reply_field(Reply& r, Visit&& visit) {
  visit("ok", r.ok);
  visit("message", r.message);
  visit("trial", r.trial);
  visit("step", r.step);
  visit("file", r.file);
}

// What the service answered, or a discarded value when it is not JSON within the depth limit.
json parse_untrusted(const std::string& body) {
  return json_depth_problem(body).empty() ? json::parse(body, nullptr, false) : json(json::value_t::discarded);
}

json parse_answer(const std::string& body, const char* what) {
  json j = parse_untrusted(body);
  if (!j.is_object()) throw std::runtime_error(fmt::format("the service's {} is not a JSON object", what));
  return j;
}

template <class T>
const char* type_word() {
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  else if constexpr (std::is_same_v<T, bool>) return "a boolean";
  else if constexpr (std::is_arithmetic_v<T>) return "a number";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) return "a list of strings";
  else return "an object or list of the form status reports";
}

// A field the client reads: absent leaves the default; the wrong type is an error.
template <class T>
void read_answer_field(const json& j, const char* key, T& out, const char* what) {
  if (!j.contains(key)) return;
  try {
    out = j.at(key).get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(fmt::format("the service's {} has {} = {}, not {}", what, key, j.at(key).dump(), type_word<T>()));
  }
}
}  // namespace

LiveCommand command_from_json(const std::string& action, const std::string& body) {
  const json j = parse_body(body);
  LiveCommand c;
  c.action = action;
  if (action == "swap") read_swap(j, c);
  else if (action == "stimulus") read_stimulus(j, c);
  else refuse_unknown_fields(j, "POST /" + action, {});
  if (const std::string problem = command_problem(c); !problem.empty()) throw bad_request(problem);
  return c;
}

JournaledCommand journal_entry_from_json(const std::string& line) {
  const json j = parse_body(line);
  refuse_unknown_fields(j, "a journal entry", {"seq", "trial", "step", "command"});
  JournaledCommand e;
  e.seq = integer_field(required(j, "seq", "the entry's number"), "seq");
  const auto position = [&](const char* name) {
    const int64_t value = integer_field(required(j, name, "where the command applied"), name);
    if (value < 0 || value > std::numeric_limits<int32_t>::max())
      throw bad_request(fmt::format("{} must be 0..{}, got {}", name, std::numeric_limits<int32_t>::max(), value));
    return static_cast<int32_t>(value);
  };
  e.trial = position("trial");
  e.step = position("step");
  const json& command = required(j, "command", "the command applied");
  if (!command.is_object()) wrong_type("command", "an object", command);
  refuse_unknown_fields(command, "a journaled command", {"action", "body"});
  const std::string action = string_field(required(command, "action", "the command's action"), "action");
  const json& body = required(command, "body", "the body of POST /" + action);
  if (!body.is_object()) wrong_type("body", "an object", body);
  e.command = command_from_json(action, body.dump());
  return e;
}

std::string status_to_json(const ServiceStatus& status) {
  ordered_json j;
  for_each_status_field(status, [&](const char* key, const auto& value) { j[key] = value; });
  return dump(j);
}

std::string reply_to_json(const LiveReply& reply) {
  ordered_json j;
  for_each_reply_field(reply, [&](const char* key, const auto& value) { j[key] = value; });
  return dump(j);
}

std::string error_to_json(const std::string& message) { return dump(ordered_json{{"error", message}}); }

ServiceStatus status_from_json(const std::string& body) {
  const json j = parse_answer(body, "status");
  ServiceStatus status;
  for_each_status_field(status, [&](const char* key, auto& value) { read_answer_field(j, key, value, "status"); });
  return status;
}

LiveReply reply_from_json(const std::string& body) {
  const json j = parse_answer(body, "reply");
  LiveReply reply;
  for_each_reply_field(reply, [&](const char* key, auto& value) { read_answer_field(j, key, value, "reply"); });
  return reply;
}

std::string error_from_json(const std::string& body) {
  const json j = parse_untrusted(body);
  if (j.is_object() && j.contains("error") && j.at("error").is_string()) return j.at("error").get<std::string>();
  return body;
}

}  // namespace flysim::app
