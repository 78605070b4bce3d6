#pragma once
// The screen's manifest: what a screen is, as "KEY = VALUE" lines (split at the first
// " = "), written into its progress folder and compared when it resumes or its parts
// merge. The one place that knows the lines' form.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace flysim::app {

// The first line; a manifest of another format is refused (the folder's parts may differ).
inline constexpr const char* kManifestFormatLine = "manifest format = 3\n";

// Builds a manifest line by line.
class ManifestText {
 public:
  ManifestText() : text_(kManifestFormatLine) {}
  // Goes on after the lines of `manifest`.
  explicit ManifestText(std::string manifest) : text_(std::move(manifest)) {}
  // Adds "KEY = VALUE\n"; KEY may not hold " = " (input_error naming `what`).
  void add(const std::string& key, const std::string& value, const std::string& what = "a manifest key");
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// Whether `name` can be (part of) a KEY: it holds no " = ".
bool fits_manifest_key(const std::string& name);

// Where the last line of KEY `key` (not the first line) begins, less one: the place of
// the newline before it; npos when there is none.
std::size_t last_line_of(const std::string& manifest, const std::string& key);

// Every line as (KEY, VALUE), in order.
std::vector<std::pair<std::string, std::string>> manifest_lines(const std::string& manifest);

// The KEYs after `prefix` of the lines whose KEY starts with it, in order ("experiment "
// gives the experiments' names), or their VALUEs.
std::vector<std::string> manifest_keys(const std::string& manifest, const std::string& prefix);
std::vector<std::string> manifest_values(const std::string& manifest, const std::string& prefix);

// The readouts a manifest names ("readouts present = ID,ID,...").
std::vector<int64_t> manifest_readouts(const std::string& manifest);

// The first line that differs, in words ("run.trials was '30', now '20'"); empty when
// the manifests are the same.
std::string first_manifest_difference(const std::string& before, const std::string& now);

}  // namespace flysim::app
