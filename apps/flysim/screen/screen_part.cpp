#include "apps/flysim/screen/screen_part.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>

#include "apps/flysim/screen/screen_manifest.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

// The whole of `text` as an integer, or nothing.
std::optional<long> integer(const std::string& text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Environment variable `name` as an integer; `fallback` when it is not set and not `required`.
long env_integer(const std::string& key, const char* name, bool required, long fallback) {
  const char* value = std::getenv(name);
  if (!value) {
    if (!required) return fallback;
    throw input_error(fmt::format("option {}=auto: {} is not set (run it as a Slurm array task, or give --{}=K/N)", key, name, key));
  }
  const auto number = integer(value);
  if (!number) throw input_error(fmt::format("option {}=auto: {}='{}' is not an integer", key, name, value));
  return *number;
}

// More parts than any screen has experiments; an int holds them.
constexpr long kMaxScreenParts = 1'000'000;

// The part's own lines, after the whole screen's: "parts" first, "part" last.
const char* const kParts = "parts";
const char* const kPart = "part";

}  // namespace

ScreenPart screen_part(const Options& o, const std::string& key) {
  const std::string text = o.text(key);
  if (text.empty()) return {};
  long k = 0, n = 0;
  std::string from;
  if (text == "auto") {
    const long id = env_integer(key, "SLURM_ARRAY_TASK_ID", true, 0);
    n = env_integer(key, "SLURM_ARRAY_TASK_COUNT", true, 0);
    k = id - env_integer(key, "SLURM_ARRAY_TASK_MIN", false, 1) + 1;
    from = fmt::format(" (from SLURM_ARRAY_TASK_ID={}, an array of consecutive task IDs)", id);
  } else {
    const auto slash = text.find('/');
    const auto kk = integer(text.substr(0, slash)), nn = slash == std::string::npos ? std::nullopt : integer(text.substr(slash + 1));
    if (!kk || !nn) o.reject(key, "is not K/N (part K of N, e.g. 2/8) or auto");
    k = *kk, n = *nn;
  }
  if (n < 1 || n > kMaxScreenParts)
    o.reject(key, fmt::format("N must lie in 1..{}, not {}{}", kMaxScreenParts, n, from));
  if (k < 1 || k > n) o.reject(key, fmt::format("part {} is outside 1..{}{}", k, n, from));
  return {static_cast<int>(k), static_cast<int>(n), false};
}

std::string part_manifest(const std::string& whole_manifest, const ScreenPart& part, const ScreenPartFacts& facts) {
  ManifestText text(whole_manifest);
  text.add(kParts, std::to_string(part.n));
  text.add("trial seconds", fmt::format("{:.17g}", facts.trial_s));
  text.add("spikes", facts.spikes ? "true" : "false");
  text.add("plot title", facts.plot_title);
  text.add(kPart, std::to_string(part.k));
  return text.text();
}

ReadPartManifest read_part_manifest(const std::string& path, const std::string& text) {
  const auto parts_at = last_line_of(text, kParts);
  const auto part_at = last_line_of(text, kPart);
  if (parts_at == std::string::npos || part_at == std::string::npos || part_at < parts_at)
    throw input_error(path + ": not the manifest of a screen's part (run with --screen.part=K/N)");
  ReadPartManifest m;
  m.whole = text.substr(0, parts_at + 1);
  m.identity = text.substr(0, part_at + 1);
  std::map<std::string, std::string> fields;
  for (auto& [key, value] : manifest_lines(text.substr(parts_at + 1))) fields[key] = std::move(value);
  const auto n = integer(fields[kParts]), k = integer(fields[kPart]);
  char* end = nullptr;
  m.facts.trial_s = std::strtod(fields["trial seconds"].c_str(), &end);
  if (!n || !k || *n < 1 || *n > kMaxScreenParts || *k < 1 || *k > *n || !end || *end || fields["trial seconds"].empty())
    throw input_error(path + ": a damaged part manifest (parts, part or trial seconds)");
  m.part = {static_cast<int>(*k), static_cast<int>(*n), false};
  m.facts.spikes = fields["spikes"] == "true";
  m.facts.plot_title = fields["plot title"];
  return m;
}

}  // namespace flysim::app
