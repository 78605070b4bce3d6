#include "apps/flysim/screen/screen_manifest.hpp"

#include <sstream>

#include "model/errors.hpp"

namespace flysim::app {

namespace {

constexpr const char* kSeparator = " = ";
constexpr std::size_t kSeparatorSize = 3;

struct Line {
  std::string key, value;
};

Line split(const std::string& line) {
  const auto at = line.find(kSeparator);
  if (at == std::string::npos) return {line, ""};
  return {line.substr(0, at), line.substr(at + kSeparatorSize)};
}

std::vector<Line> lines_with_prefix(const std::string& manifest, const std::string& prefix) {
  std::vector<Line> out;
  std::istringstream lines(manifest);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) {
      Line l = split(line);
      l.key.erase(0, prefix.size());
      out.push_back(std::move(l));
    }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> manifest_lines(const std::string& manifest) {
  std::vector<std::pair<std::string, std::string>> out;
  for (Line& l : lines_with_prefix(manifest, "")) out.emplace_back(std::move(l.key), std::move(l.value));
  return out;
}

std::size_t last_line_of(const std::string& manifest, const std::string& key) {
  return manifest.rfind("\n" + key + kSeparator);
}

bool fits_manifest_key(const std::string& name) { return name.find(kSeparator) == std::string::npos; }

void ManifestText::add(const std::string& key, const std::string& value, const std::string& what) {
  if (!fits_manifest_key(key)) throw input_error(what + " '" + key + "' holds ' = ', which the screen's manifest cannot keep");
  text_ += key + kSeparator + value + "\n";
}

std::vector<std::string> manifest_keys(const std::string& manifest, const std::string& prefix) {
  std::vector<std::string> keys;
  for (Line& l : lines_with_prefix(manifest, prefix)) keys.push_back(std::move(l.key));
  return keys;
}

std::vector<std::string> manifest_values(const std::string& manifest, const std::string& prefix) {
  std::vector<std::string> values;
  for (Line& l : lines_with_prefix(manifest, prefix)) values.push_back(std::move(l.value));
  return values;
}

std::vector<int64_t> manifest_readouts(const std::string& manifest) {
  std::vector<int64_t> ids;
  for (const std::string& list : manifest_values(manifest, "readouts present")) {
    std::istringstream fields(list);
    for (std::string id; std::getline(fields, id, ',');) ids.push_back(std::stoll(id));
  }
  return ids;
}

std::string first_manifest_difference(const std::string& before, const std::string& now) {
  std::istringstream a(before), b(now);
  std::string la, lb;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "";
    const Line was = split(la), is = split(lb);
    if (!more_a) return is.key + " is new";
    if (!more_b) return was.key + " is no longer there";
    if (la == lb) continue;
    if (was.key != is.key) return was.key + " is now " + is.key;
    return was.key + " was '" + was.value + "', now '" + is.value + "'";
  }
}

}  // namespace flysim::app
