#include "messages/live_command.hpp"

#include <algorithm>

namespace flysim {

namespace {
template <std::size_t... I>
std::optional<LiveCommand> command_at(std::size_t index, std::index_sequence<I...>) {
  std::optional<LiveCommand> command;
  ((index == I ? void(command.emplace(std::in_place_index<I>)) : void()), ...);
  return command;
}
}  // namespace

std::optional<LiveCommand> live_command_at(std::size_t index) {
  return command_at(index, std::make_index_sequence<std::variant_size_v<LiveCommandTypes>>{});
}

std::optional<LiveCommand> live_command_named(const std::string& action) {
  const auto it = std::find(kLiveActions.begin(), kLiveActions.end(), action);
  return live_command_at(static_cast<std::size_t>(it - kLiveActions.begin()));
}

}  // namespace flysim
