#pragma once
// flysim's options: one table of keys shared by config files and the command line.
// The key names are a contract (other tools drive flysim through them).
//
// Written here rather than with CAF's actor_system_config because CAF 0.17 silently
// ignores unknown keys in a config file (docs/CAF-0.17.md), and a typo
// in `run.duration-ms` must be an error naming the file and line, not a default.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace flysim::app {

enum class OptionType { text, path, integer, number, boolean, choice };

// In a spec's key, stands for a name the user picks: `stimulus.group.NAME.rate` takes
// `stimulus.group.bitter.rate` (names of letters, digits, '_' and '-').
inline const std::string kOptionName = "NAME";

struct OptionSpec {
  std::string key;
  OptionType type;
  std::string default_value;
  std::string help;
  std::vector<std::string> choices = {};  // for OptionType::choice
};

// Whether `key` starts with one of `prefixes` (option families: "network.", "log.").
bool starts_with_any(const std::string& key, const std::vector<std::string>& prefixes);

// Which options may be set besides adopted ones, and how a refusal names them.
struct OverrideRule {
  std::function<bool(const std::string& key)> allows;
  std::string allowed;  // ends "with ORIGIN ...": "only options starting port, bind may be given"
};
// The rule allowing the keys that start with one of `prefixes`.
OverrideRule override_prefixes(const std::vector<std::string>& prefixes);

class Options {
 public:
  // Parses `--key=value` arguments and `--config=FILE` (read first; the command line
  // wins). Throws input_error naming the option and where it came from.
  static Options parse(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args);
  // The same, with `adopted` values from another source (a journal being replayed) read
  // after the config files; the command line and config files may set only keys that
  // `overridable` allows (outputs, logging: what does not change the result), whether
  // adopted or not.
  static Options parse(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& adopted, const std::string& adopted_origin,
                       const OverrideRule& overridable);

  const std::string& text(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool boolean(const std::string& key) const;
  // The keys `spec` stands for: its key, or for a key with NAME each key the user gave.
  std::vector<std::string> keys_of(const OptionSpec& spec) const;
  // The names the user gave for the NAME of `pattern` (a spec key with NAME), sorted.
  std::vector<std::string> names_of(const std::string& pattern) const;
  // True when the user set the key (config file or command line).
  bool given(const std::string& key) const;
  // "command line", "FILE:LINE" or "default": where the value came from.
  std::string origin(const std::string& key) const;
  // The files given with --config, in the order they were read.
  const std::vector<std::string>& config_files() const { return config_files_; }
  // An input_error that names the option, its value and its origin.
  [[noreturn]] void reject(const std::string& key, const std::string& why) const;

 private:
  struct Value {
    std::string text;
    std::string origin;
    bool given = false;
    bool from_command_line = false;
  };
  // A key set twice by the same kind of source (two config lines, two arguments) is an
  // error naming both places; the command line may override a config file.
  void set(const std::vector<OptionSpec>& specs, const std::string& key, const std::string& value, const std::string& origin,
           bool from_command_line);
  void read_config(const std::vector<OptionSpec>& specs, const std::string& path);
  const Value& value(const std::string& key) const;
  std::map<std::string, Value> values_;
  std::vector<std::string> config_files_;
};


// The spec of `key` among `specs` (a command borrowing another's option keeps its name and
// default), its help replaced by `help` when that is not empty.
OptionSpec spec_of(const std::vector<OptionSpec>& specs, const std::string& key, const std::string& help = "");

// When args hold --help or -h: prints format_help(...) to stdout and returns true.
bool print_help_if_asked(const std::vector<std::string>& args, const std::string& usage, const std::string& description,
                         const std::vector<OptionSpec>& specs);

// `--help` text for a command: usage line, description, and every option.
std::string format_help(const std::string& usage, const std::string& description, const std::vector<OptionSpec>& specs);

}  // namespace flysim::app
