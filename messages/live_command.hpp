#pragma once
// The live commands of flysim serve: one struct per action, with std::optional for what
// a command may leave unchanged. The action is which struct a LiveCommand holds; its
// name is the struct's `action`, the path of `POST /<action>` and the journal's
// "action". Each struct lists its fields once (fields(), with their JSON keys): CAF,
// the JSON codec (messages/control_json.hpp) and the rules (messages/control_rules.hpp)
// read that list. Adding a command: a struct here, in LiveCommandTypes, and its handler
// in the sim loop (actors/sim_loop_live.cpp).
#include <caf/all.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "messages/inspect_fields.hpp"
#include "model/named_field.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// A timed kick asked for live: `after_ms` after the boundary where the command applies.
struct LiveKick {
  static constexpr const char* noun = "a kick";  // what messages about its fields call it
  int64_t neuron_id = 0;
  double after_ms = 0.0;
};
template <same_unqualified<LiveKick> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("neuron_id", x.neuron_id).described("the root ID to kick"),
           named("after_ms", x.after_ms).described("ms after the boundary where the command applies"));
}

// Moves the run to another engine.
struct SwapCommand {
  static constexpr const char* action = "swap";
  std::string engine;                // "cpu" or "cuda"
  std::optional<int64_t> threads{};  // cpu: pool threads (none: engine.threads); any integer, the rules bound it
};
template <same_unqualified<SwapCommand> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("engine", x.engine).described("\"cpu\" or \"cuda\""), named("threads", x.threads));
}

// Writes a checkpoint.
struct CheckpointCommand {
  static constexpr const char* action = "checkpoint";
};

// Changes the stimulus; what it leaves out stays as it is.
struct StimulusCommand {
  static constexpr const char* action = "stimulus";
  std::optional<double> rate_Hz{};                    // the Poisson rate
  std::optional<std::vector<int64_t>> poisson_ids{};  // root IDs: the new Poisson set
  std::optional<std::vector<LiveKick>> kicks{};       // kicks to add
  std::optional<std::string> group{};                 // rate_Hz and poisson_ids are this Poisson group's (none: the default group)
  std::optional<std::vector<int64_t>> silence_ids{};  // root IDs: the new silenced set
  std::optional<SilenceMode> silence_mode{};
};
template <same_unqualified<StimulusCommand> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("rate_hz", x.rate_Hz), named("poisson_ids", x.poisson_ids), named("kicks", x.kicks),
           named("group", x.group).expecting("a group name (a string)"), named("silence_ids", x.silence_ids),
           named("silence_mode", x.silence_mode));
}

// Holds the run at the next boundary, until a resume.
struct PauseCommand {
  static constexpr const char* action = "pause";
};
struct ResumeCommand {
  static constexpr const char* action = "resume";
};
// Ends the run at the next boundary, writing what was recorded.
struct StopCommand {
  static constexpr const char* action = "stop";
};

// Every command, in the order the API documents them.
using LiveCommandTypes = std::variant<SwapCommand, CheckpointCommand, StimulusCommand, PauseCommand, ResumeCommand, StopCommand>;

template <class T, class Variant>
inline constexpr bool is_alternative_v = false;
template <class T, class... Ts>
inline constexpr bool is_alternative_v<T, std::variant<Ts...>> = (std::is_same_v<T, Ts> || ...);
template <class T>
concept live_command_type = is_alternative_v<std::remove_const_t<T>, LiveCommandTypes>;

// A command that takes no fields.
template <live_command_type T, class F>
  requires std::is_empty_v<T>
decltype(auto) fields(T&, F&& f) {
  return f();
}

// One live command. A struct, not an alias: CAF 0.17 cannot inspect a std::variant, so
// inspect() below writes the alternative's index, then the alternative. std::visit,
// std::get_if and std::holds_alternative take it as the variant it is.
struct LiveCommand : LiveCommandTypes {
  using LiveCommandTypes::LiveCommandTypes;
};

// The actions, in the order of LiveCommandTypes.
inline const std::vector<std::string> kLiveActions = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::vector<std::string>{std::variant_alternative_t<I, LiveCommandTypes>::action...};
}(std::make_index_sequence<std::variant_size_v<LiveCommandTypes>>{});

// The command of `action` with every field at its default; none for an unknown action.
std::optional<LiveCommand> live_command_named(const std::string& action);
// The command of alternative `index` with every field at its default; none past the last.
std::optional<LiveCommand> live_command_at(std::size_t index);

inline const char* action_name(const LiveCommand& command) {
  return std::visit([](const auto& c) { return std::remove_cvref_t<decltype(c)>::action; }, command);
}

template <class Inspector, live_command_type T>
typename Inspector::result_type inspect(Inspector& f, T& x) {
  return inspect_fields(f, T::action, x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveKick& x) {
  return inspect_fields(f, "flysim.live_kick", x);
}

// What CAF loads after a LiveCommand's index: the alternative the index names.
struct LiveCommandAlternative {
  uint8_t& index;
  LiveCommand& command;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveCommandAlternative& x) {
  std::optional<LiveCommand> loaded = live_command_at(x.index);
  if (!loaded) return caf::make_error(caf::sec::invalid_argument, "live command index " + std::to_string(x.index) + " names no command");
  x.command = std::move(*loaded);
  return std::visit([&](auto& alternative) { return f(alternative); }, x.command);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveCommand& x) {
  const auto name = caf::meta::type_name("flysim.live_command");
  if constexpr (Inspector::reads_state) {
    uint8_t index = static_cast<uint8_t>(x.index());
    return std::visit([&](auto& alternative) { return f(name, index, alternative); }, x);
  } else {
    uint8_t index = 0;
    LiveCommandAlternative alternative{index, x};
    return f(name, index, alternative);
  }
}

}  // namespace flysim
