#include "messages/field_json.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include "io/input_file.hpp"
#include "io/json_depth.hpp"

namespace flysim::field_json {

namespace {
// nlohmann's message less its "[json.exception.parse_error.101] " prefix, as printable()
// quotes input (its "last read" may be megabytes).
std::string without_exception_id(const std::string& what) {
  const auto end = what.find("] ");
  return printable(what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what);
}

// The one check nlohmann's parser does not make, a key given twice in an object, as a
// pass of its own over the events (its parser's callback mode takes time quadratic in an
// array of objects). It stops at the first error, which the parse then reports; `last_key`
// is the field whose value was being read there.
class RepeatedKeys : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_of_open_objects_.emplace_back();
    return true;
  }
  bool key(string_t& key) override {
    last_key = key;
    if (!keys_of_open_objects_.back().insert(key).second) throw bad_request(fmt::format("field \"{}\" is given twice", key));
    return true;
  }
  bool end_object() override {
    keys_of_open_objects_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  std::string last_key;

 private:
  std::vector<std::set<std::string>> keys_of_open_objects_;
};
}  // namespace

std::string dump(const ordered_json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json parse_object(const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  if (const std::string problem = json_depth_problem(text); !problem.empty()) throw bad_request("the body is refused: " + problem);
  RepeatedKeys keys;
  json j;
  try {
    json::sax_parse(text, &keys);
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw bad_request("the body is not valid JSON: " + without_exception_id(e.what()));
  } catch (const json::out_of_range& e) {
    throw bad_request(fmt::format("field \"{}\" is out of range: {}", keys.last_key, without_exception_id(e.what())));
  }
  if (!j.is_object()) throw bad_request(fmt::format("the body must be a JSON object, got {}", j.type_name()));
  return j;
}

void wrong_type(const std::string& name, const std::string& expected, const json& value) {
  const std::string got = value.is_null() ? "null" : fmt::format("{} {}", value.type_name(), printable(value.dump()));
  throw bad_request(fmt::format("field \"{}\" must be {}, got {}", name, expected, got));
}

void refuse_unknown_fields(const json& j, const std::string& where, const std::vector<std::string>& names,
                           const std::string& prefix) {
  for (const auto& [key, value] : j.items())
    if (std::find(names.begin(), names.end(), key) == names.end())
      throw bad_request(names.empty() ? fmt::format("unknown field \"{}{}\": {} takes no fields", prefix, key, where)
                                      : fmt::format("unknown field \"{}{}\": {} takes {}", prefix, key, where, fmt::join(names, ", ")));
}

const json& required(const json& j, const std::string& name, const std::string& what) {
  if (!j.contains(name)) throw bad_request(fmt::format("field \"{}\" is missing ({})", name, what));
  return j.at(name);
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

std::string string_field(const json& value, const std::string& name, const char* expected) {
  if (!value.is_string()) wrong_type(name, expected, value);
  return value.get<std::string>();
}

const json& array_field(const json& value, const std::string& name) {
  if (!value.is_array()) wrong_type(name, "an array", value);
  return value;
}

SilenceMode silence_mode_field(const json& value, const std::string& name) {
  const auto mode = value.is_string() ? parse_silence_mode(value.get<std::string>()) : std::nullopt;
  if (!mode) wrong_type(name, "\"outgoing\" or \"both\"", value);
  return *mode;
}

json parse_untrusted(const std::string& body) {
  return json_depth_problem(body).empty() ? json::parse(body, nullptr, false) : json(json::value_t::discarded);
}

json parse_answer(const std::string& body, const char* what) {
  json j = parse_untrusted(body);
  if (!j.is_object()) throw std::runtime_error(fmt::format("the service's {} is not a JSON object", what));
  return j;
}

}  // namespace flysim::field_json
