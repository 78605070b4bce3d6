#include "apps/flysim/options/ctl_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_set>

#include "messages/control_rules.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"
#include "io/stimulus_files.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

namespace {
// `text`, a part of the argument `arg`, as a number; the error shows the whole argument.
template <class Number>
Number parse_number(const std::string& arg, const std::string& text, const char* what) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw input_error(fmt::format("command line: {}: '{}' is not {}", printable(arg), printable(text), what));
  if constexpr (std::is_floating_point_v<Number>)
    if (!std::isfinite(value)) throw input_error(fmt::format("command line: {}: '{}' is not a finite number", printable(arg), printable(text)));
  return value;
}

// ID@MS: the root ID to kick, ms after the boundary where the command applies.
LiveKick parse_kick(const std::string& arg, const std::string& text) {
  const auto at = text.find('@');
  if (at == std::string::npos)
    throw input_error(fmt::format("command line: {} is not ID@MS (a root ID, '@', ms after the boundary where "
                                  "the command applies)", printable(arg)));
  return {parse_number<int64_t>(arg, text.substr(0, at), "a neuron ID"), parse_number<double>(arg, text.substr(at + 1), "a number of ms")};
}

// Root IDs, one per line, as stimulus.ids reads them; a repeated ID is named by its line.
std::vector<int64_t> read_poisson_ids(const std::string& path) {
  std::vector<int64_t> ids;
  std::unordered_set<int64_t> seen;
  for (const ListedId& listed : read_id_list(path)) {
    if (!seen.insert(listed.id).second) throw input_error_at(path, listed.line, fmt::format("neuron ID {} is listed twice", listed.id));
    ids.push_back(listed.id);
  }
  if (ids.empty())
    throw input_error(path + ": no neuron IDs in the file (to stop the Poisson input, give --rate=0; to remove a group, "
                             "--group=NAME --ids= with no file)");
  return ids;
}

bool is_request_flag(const std::string& flag) {
  for (const char* known : {"threads", "rate", "ids", "group", "silence", "silence-mode", "kick"})
    if (flag == known) return true;
  return false;
}

bool is_action(const std::string& word) {
  return word == "status" || std::find(kLiveActions.begin(), kLiveActions.end(), word) != kLiveActions.end();
}
}  // namespace

CtlRequest parse_ctl_args(const std::vector<std::string>& args) {
  CtlRequest r;
  std::vector<std::string> words;
  std::vector<std::string> stimulus_flags;  // for the message when they come with another action
  SwapCommand swap;
  StimulusCommand stimulus;
  std::unordered_set<std::string> given;  // flags that take one value (--kick repeats)
  for (const std::string& arg : args) {
    const auto eq = arg.find('=');
    const std::string flag = arg.rfind("--", 0) == 0 ? arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2) : "";
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (eq != std::string::npos && is_request_flag(flag) && flag != "kick" && !given.insert(flag).second)
      throw input_error("command line: --" + flag + " is given twice");
    if (flag.empty()) {
      words.push_back(arg);
    } else if (flag == "json") {
      if (eq != std::string::npos) throw input_error("command line: --json takes no value (give --json alone)");
      r.json = true;
    } else if (flag == "threads" && eq != std::string::npos) {
      swap.threads = parse_number<int64_t>(arg, value, "an integer");  // its range is command_problem's
    } else if (flag == "rate" && eq != std::string::npos) {
      stimulus.rate_Hz = parse_number<double>(arg, value, "a number");
      stimulus_flags.push_back("--rate");
    } else if (flag == "ids" && eq != std::string::npos) {
      stimulus.poisson_ids = value.empty() ? std::vector<int64_t>{} : read_poisson_ids(value);
      stimulus_flags.push_back("--ids");
    } else if (flag == "group" && eq != std::string::npos) {
      if (value.empty()) throw input_error("command line: --group needs a group name (--group=NAME)");
      stimulus.group = value;
      stimulus_flags.push_back("--group");
    } else if (flag == "silence" && eq != std::string::npos) {
      stimulus.silence_ids = value.empty() ? std::vector<int64_t>{} : read_poisson_ids(value);
      stimulus_flags.push_back("--silence");
    } else if (flag == "silence-mode" && eq != std::string::npos) {
      stimulus.silence_mode = parse_silence_mode(value);
      if (!stimulus.silence_mode) throw input_error("command line: --silence-mode=" + printable(value) + " must be outgoing or both");
      stimulus_flags.push_back("--silence-mode");
    } else if (flag == "kick" && eq != std::string::npos) {
      if (!stimulus.kicks) stimulus.kicks.emplace();
      stimulus.kicks->push_back(parse_kick(arg, value));
      stimulus_flags.push_back("--kick");
    } else {
      r.option_args.push_back(arg);
    }
  }
  if (words.empty() || !is_action(words[0]))
    throw input_error(words.empty() ? "command line: flysim ctl needs a request: status, swap, checkpoint, stimulus, pause, resume or stop"
                                    : fmt::format("command line: '{}' is not a request of flysim ctl (status, swap, checkpoint, "
                                                  "stimulus, pause, resume, stop)", printable(words[0])));
  r.action = words[0];
  const std::size_t expected_words = r.action == "swap" ? 2 : 1;
  if (r.action == "swap" && words.size() < 2) throw input_error("command line: flysim ctl swap needs the engine: cpu or cuda");
  if (words.size() > expected_words)
    throw input_error(fmt::format("command line: unexpected '{}' after flysim ctl {}", printable(words[expected_words]),
                                  fmt::join(words.begin(), words.begin() + expected_words, " ")));
  if (r.action == "swap") swap.engine = words[1];
  if (swap.threads && !(r.action == "swap" && swap.engine == "cpu"))
    throw input_error("command line: --threads belongs to flysim ctl swap cpu");
  if (!stimulus_flags.empty() && r.action != "stimulus")
    throw input_error(fmt::format("command line: {} belongs to flysim ctl stimulus", stimulus_flags.front()));
  if (r.action == "stimulus" && stimulus_flags.empty())
    throw input_error("command line: flysim ctl stimulus needs --rate=HZ, --ids=FILE, --kick=ID@MS, --silence=FILE or --silence-mode=MODE");
  if (r.action == "status") return r;
  r.command = r.action == "swap" ? LiveCommand(swap) : r.action == "stimulus" ? LiveCommand(stimulus) : *live_command_named(r.action);
  if (const std::string problem = command_problem(r.command); !problem.empty())
    throw input_error("command line: flysim ctl " + r.action + ": " + problem);
  return r;
}

}  // namespace flysim::app
