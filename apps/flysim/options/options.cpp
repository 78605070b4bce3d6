#include "apps/flysim/options/options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "model/errors.hpp"
#include "io/input_file.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

namespace {
std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

bool parse_integer(const std::string& s, int64_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

bool parse_number(const std::string& s, double& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty() && std::isfinite(out);
}

bool parse_boolean(const std::string& s, bool& out) {
  if (s == "true" || s == "1" || s == "yes" || s == "on") return out = true, true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return out = false, true;
  return false;
}

// Whether `key` is `pattern`, where the pattern's one NAME stands for a Poisson group's
// name (is_group_name: letters, digits, '_' and '-').
bool matches_spec_key(const std::string& pattern, const std::string& key) {
  const std::size_t at = pattern.find(kOptionName);
  if (at == std::string::npos) return pattern == key;
  const std::string head = pattern.substr(0, at), tail = pattern.substr(at + kOptionName.size());
  if (key.size() <= head.size() + tail.size() || key.compare(0, head.size(), head) != 0 ||
      key.compare(key.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  return is_group_name(key.substr(head.size(), key.size() - head.size() - tail.size()));
}

const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, const std::string& key) {
  for (const auto& s : specs)
    if (matches_spec_key(s.key, key)) return &s;
  return nullptr;
}

std::string type_word(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::integer: return "an integer";
    case OptionType::number: return "a number";
    case OptionType::boolean: return "true or false";
    case OptionType::choice: {
      std::string s = "one of";
      for (const auto& c : spec.choices) s += " " + c;
      return s;
    }
    default: return "text";
  }
}

// Throws input_error naming the option and `origin` unless `text` is a value of the spec's type.
void check_value(const OptionSpec& spec, const std::string& key, const std::string& text, const std::string& origin) {
  bool valid = true;
  int64_t i;
  double d;
  bool b;
  switch (spec.type) {
    case OptionType::integer: valid = parse_integer(text, i); break;
    case OptionType::number: valid = parse_number(text, d); break;
    case OptionType::boolean: valid = parse_boolean(text, b); break;
    case OptionType::choice: valid = std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end(); break;
    default: break;
  }
  if (!valid) throw input_error(origin + ": option " + key + ": '" + printable(text) + "' is not " + type_word(spec));
}
}  // namespace

void Options::set(const std::vector<OptionSpec>& specs, const std::string& key, const std::string& text,
                  const std::string& origin, bool from_command_line) {
  const OptionSpec* spec = find_spec(specs, key);
  if (!spec) throw input_error(origin + ": unknown option '" + printable(key) + "' (see --help for the options of this command)");
  if (const Value& earlier = values_[key]; earlier.given && earlier.from_command_line == from_command_line)
    throw input_error(origin + ": option " + key + " is set twice (first at " + earlier.origin + "); set it once");
  check_value(*spec, key, text, origin);
  values_[key] = Value{text, origin, true, from_command_line};
}

bool starts_with_any(const std::string& key, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return key.rfind(p, 0) == 0; });
}

OverrideRule override_prefixes(const std::vector<std::string>& prefixes) {
  return {[prefixes](const std::string& key) { return starts_with_any(key, prefixes); },
          fmt::format("only options starting {} may be given", fmt::join(prefixes, ", "))};
}

Options Options::parse(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args) {
  return parse(specs, args, {}, "", {});
}

Options Options::parse(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& adopted, const std::string& adopted_origin,
                       const OverrideRule& overridable) {
  Options o;
  for (const auto& spec : specs)
    if (spec.key.find(kOptionName) == std::string::npos) o.values_[spec.key] = Value{spec.default_value, "default", false};
  std::vector<std::pair<std::string, std::string>> command_line;
  for (const auto& arg : args) {
    if (arg.rfind("--", 0) != 0 || arg.find('=') == std::string::npos)
      throw input_error("command line: '" + printable(arg) + "' is not of the form --key=value (see --help)");
    const auto eq = arg.find('=');
    command_line.emplace_back(arg.substr(2, eq - 2), arg.substr(eq + 1));
  }
  for (const auto& [key, value] : command_line)
    if (key == "config") o.read_config(specs, value);
  const auto may_override = [&](const std::string& key) { return overridable.allows && overridable.allows(key); };
  // Only what does not change the result may be given besides the adopted values.
  const auto refuse_unless_overridable = [&](const std::string& key, const std::string& origin) {
    if (adopted_origin.empty() || may_override(key)) return;
    throw input_error(origin + ": option " + key + (adopted.count(key) ? " comes from " + adopted_origin + " and" : "") +
                      " cannot change (it would change the result); with " + adopted_origin + " " + overridable.allowed);
  };
  for (const auto& [key, v] : o.values_)
    if (v.given) refuse_unless_overridable(key, v.origin);
  for (const auto& [key, value] : adopted) {
    const OptionSpec* spec = find_spec(specs, key);
    if (!spec) throw input_error(adopted_origin + ": option '" + printable(key) + "' is unknown to this flysim");
    check_value(*spec, key, value, adopted_origin);
    if (!o.values_[key].given) o.values_[key] = Value{value, adopted_origin, true, false};
  }
  for (const auto& [key, value] : command_line) {
    if (key == "config") continue;
    refuse_unless_overridable(key, "command line");
    if (adopted.count(key)) o.values_[key].given = false;  // the command line overrides the journal
    o.set(specs, key, value, "command line", true);
  }
  return o;
}

void Options::read_config(const std::vector<OptionSpec>& specs, const std::string& path) {
  for (const std::string& earlier : config_files_)
    if (earlier == path) throw input_error("command line: --config=" + path + " is given twice");
  config_files_.push_back(path);
  std::string bytes;
  try {
    bytes = read_input_file(path, "the config file");
  } catch (const input_error& e) {
    throw input_error(std::string("command line: --config=") + e.what());
  }
  std::istringstream in{std::string(strip_utf8_bom(bytes))};
  std::string line, section;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string origin = path + ":" + std::to_string(number);
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.find('\0') != std::string::npos) throw input_error(origin + ": a NUL byte; a config file is text");
    if (line.front() == '[') {
      if (line.back() != ']') throw input_error(origin + ": section header '" + printable(line) + "' lacks its ']'");
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw input_error(origin + ": expected 'key = value', got '" + printable(line) + "'");
    const std::string key = trim(line.substr(0, eq));
    set(specs, section.empty() ? key : section + "." + key, trim(line.substr(eq + 1)), origin, false);
  }
}

const Options::Value& Options::value(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("option " + key + " is not declared for this command");
  return it->second;
}

const std::string& Options::text(const std::string& key) const { return value(key).text; }

int64_t Options::integer(const std::string& key) const {
  int64_t i = 0;
  if (!parse_integer(text(key), i)) reject(key, "is not an integer");
  return i;
}

double Options::number(const std::string& key) const {
  double d = 0;
  if (!parse_number(text(key), d)) reject(key, "is not a number");
  return d;
}

bool Options::boolean(const std::string& key) const {
  bool b = false;
  if (!parse_boolean(text(key), b)) reject(key, "is not true or false (nor yes/no, on/off, 1/0)");
  return b;
}

std::vector<std::string> Options::keys_of(const OptionSpec& spec) const {
  if (spec.key.find(kOptionName) == std::string::npos) return {spec.key};
  std::vector<std::string> keys;
  for (const auto& [key, value] : values_)
    if (value.given && matches_spec_key(spec.key, key)) keys.push_back(key);
  return keys;
}

std::vector<std::string> Options::names_of(const std::string& pattern) const {
  std::vector<std::string> names;
  const std::size_t at = pattern.find(kOptionName);
  const std::string head = pattern.substr(0, at), tail = pattern.substr(at + kOptionName.size());
  for (const auto& [key, value] : values_)
    if (value.given && matches_spec_key(pattern, key))
      names.push_back(key.substr(head.size(), key.size() - head.size() - tail.size()));
  return names;
}

bool Options::given(const std::string& key) const { return value(key).given; }
std::string Options::origin(const std::string& key) const { return value(key).origin; }

void Options::reject(const std::string& key, const std::string& why) const {
  // A default the user never wrote is named as such, not as a place it came from.
  if (origin(key) == "default") throw input_error("option " + key + " (default '" + printable(text(key)) + "') " + why);
  throw input_error(origin(key) + ": option " + key + "='" + printable(text(key)) + "' " + why);
}


OptionSpec spec_of(const std::vector<OptionSpec>& specs, const std::string& key, const std::string& help) {
  const auto it = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.key == key; });
  if (it == specs.end()) throw std::logic_error("no option spec named " + key);
  OptionSpec spec = *it;
  if (!help.empty()) spec.help = help;
  return spec;
}

bool print_help_if_asked(const std::vector<std::string>& args, const std::string& usage, const std::string& description,
                         const std::vector<OptionSpec>& specs) {
  const bool asked = std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
  if (asked) std::cout << format_help(usage, description, specs);
  return asked;
}

std::string format_help(const std::string& usage, const std::string& description, const std::vector<OptionSpec>& specs) {
  std::string out = "usage: " + usage + "\n\n" + description + "\n\noptions (--key=value on the command line, or 'key = value'\n"
                    "lines, optionally under [section] headers, in a file given with --config=FILE):\n";
  for (const auto& spec : specs) {
    out += "  --" + spec.key + "=<" + (spec.type == OptionType::path ? "path" : spec.type == OptionType::integer ? "int"
                                       : spec.type == OptionType::number ? "number" : spec.type == OptionType::boolean ? "bool"
                                       : spec.type == OptionType::choice ? "choice" : "text") + ">\n";
    out += "      " + spec.help;
    if (spec.type == OptionType::choice) out += " (" + type_word(spec) + ")";
    out += spec.default_value.empty() ? " [default: none]\n" : " [default: " + spec.default_value + "]\n";
  }
  out += "  --config=<path>\n      read options from a file first; the command line overrides it\n";
  return out;
}

}  // namespace flysim::app
