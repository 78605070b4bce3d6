#include "apps/flysim/screen/screen_parts.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "io/atomic_file.hpp"
#include "model/errors.hpp"

namespace flysim::app {

SpikePartSeal read_spike_part(const std::string& path, const std::function<void(const char*, std::size_t)>& take) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot be read");
  SpikePartSealer sealer;
  std::vector<char> block(1 << 20);
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    sealer.add(block.data(), got);
    take(block.data(), got);
  }
  if (in.bad()) throw input_error(path + ": cannot be read");
  return sealer.seal();
}

namespace {

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The manifest at `path`, refused when an earlier flysim wrote it in another format.
std::string read_manifest(const std::string& path, const std::string& folder) {
  std::string text = read_whole(path);
  if (text.rfind(kManifestFormatLine, 0) != 0)
    throw input_error(folder + " holds a screen written by an earlier flysim (another manifest format): finish it with "
                      "the flysim that began it, or delete the folder to start over");
  return text;
}

}  // namespace

ScreenParts::ScreenParts(const std::string& dir, const std::string& manifest, bool resume, const std::string& resume_key)
    : folder_(dir + "/.screen-parts") {
  const std::string manifest_path = folder_ + "/manifest.txt";
  if (std::filesystem::exists(manifest_path)) {
    if (!resume)
      throw input_error(folder_ + " holds an earlier screen's progress: --" + resume_key +
                        "=true continues it (or re-assembles a finished one); delete the folder to start over");
    if (const std::string diff = first_manifest_difference(read_manifest(manifest_path, folder_), manifest); !diff.empty())
      throw input_error("option " + resume_key + ": the screen in " + folder_ + " differs: " + diff +
                        (resume_key == "output.dir" ? "; merge into another folder, or delete this one to start over"
                                                    : "; resume with its options, or delete the folder to start over"));
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  if (ec) throw input_error(folder_ + ": cannot be created: " + ec.message());
  write_atomically(manifest_path, manifest);
  created_ = true;
}

void ScreenParts::discard_if_unused() const {
  if (!created_) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder_, ec))
    if (entry.path().filename() != "manifest.txt") return;
  if (ec) return;
  std::filesystem::remove(folder_ + "/manifest.txt", ec);
  std::filesystem::remove(folder_, ec);
}

ScreenParts ScreenParts::existing(const std::string& dir) {
  ScreenParts parts;
  parts.folder_ = dir + "/.screen-parts";
  return parts;
}

std::string ScreenParts::manifest_of(const std::string& dir) {
  const std::string path = dir + "/.screen-parts/manifest.txt";
  if (!std::filesystem::exists(path)) throw input_error(dir + ": holds no screen (no .screen-parts/manifest.txt)");
  return read_manifest(path, dir + "/.screen-parts");
}

std::string ScreenParts::counts_path(std::size_t index) const { return fmt::format("{}/{:05}.counts", folder_, index); }
std::string ScreenParts::spikes_path(std::size_t index) const { return fmt::format("{}/{:05}.spikes.csv", folder_, index); }

bool ScreenParts::done(std::size_t index, bool with_spikes) const {
  return std::filesystem::exists(counts_path(index)) && (!with_spikes || std::filesystem::exists(spikes_path(index)));
}

void ScreenParts::commit(std::size_t index, const ExperimentCounts& counts, const std::string* spike_lines) const {
  std::optional<SpikePartSeal> seal;
  if (spike_lines) {
    write_atomically(spikes_path(index), *spike_lines);
    seal = seal_of(*spike_lines);
  }
  write_atomically(counts_path(index), counts_part_text(counts, seal));
}

void ScreenParts::adopt(std::size_t index, const ScreenParts& from, bool with_spikes) const {
  const auto link = [](const std::string& source, const std::string& target) {
    std::error_code ec;
    std::filesystem::remove(target, ec);
    std::filesystem::create_hard_link(source, target, ec);
    if (!ec) return;
    // Another file system: copied a block at a time (a spike part may exceed memory).
    AtomicFile copy(target);
    read_spike_part(source, [&](const char* data, std::size_t bytes) { copy.write(data, bytes); });
    copy.commit();
  };
  if (with_spikes) link(from.spikes_path(index), spikes_path(index));
  link(from.counts_path(index), counts_path(index));
}

CountsPart ScreenParts::counts_part(std::size_t index) const {
  const std::string path = counts_path(index);
  return parse_counts_part(path, read_whole(path));
}

ExperimentCounts ScreenParts::counts(std::size_t index) const { return counts_part(index).counts; }

SpikePartSeal ScreenParts::spike_seal(std::size_t index, const CountsPart& part) const {
  const std::optional<SpikePartSeal>& seal = part.spikes;
  if (!seal)
    throw input_error(counts_path(index) + ": records no spike part: the screen's part file is damaged (delete it to run "
                      "that experiment again)");
  return *seal;
}

void ScreenParts::check(std::size_t index, bool with_spikes, bool read_spikes) const {
  if (!with_spikes) {
    counts_part(index);
    return;
  }
  const SpikePartSeal seal = spike_seal(index, counts_part(index));
  const std::string path = spikes_path(index);
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw input_error(path + ": cannot be read: " + ec.message());
  SpikePartSeal found{bytes, seal.hash};
  if (read_spikes && bytes == seal.bytes) found = read_spike_part(path, [](const char*, std::size_t) {});
  if (found != seal) throw spike_part_damaged(index, found, seal);
}

input_error ScreenParts::spike_part_damaged(std::size_t index, const SpikePartSeal& found, const SpikePartSeal& seal) const {
  return input_error(fmt::format("{}: {} bytes{}, where its counts part records {}: the spike part is damaged (delete it "
                                 "and {} to run that experiment again)",
                                 spikes_path(index), found.bytes, found.bytes == seal.bytes ? " of other content" : "",
                                 seal.bytes, std::filesystem::path(counts_path(index)).filename().string()));
}

}  // namespace flysim::app
