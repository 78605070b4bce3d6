// flysim screen merge: checks that the folders hold every part of one screen, each part
// with all its experiments, then gathers the parts into OUT/.screen-parts (the progress of
// the whole screen, as a screen run at once leaves it) and writes the screen's own files.
#include "apps/flysim/screen/screen_merge.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "apps/flysim/run/plot_script.hpp"
#include "apps/flysim/screen/screen_manifest.hpp"
#include "apps/flysim/screen/screen_outputs.hpp"
#include "apps/flysim/screen/screen_part.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

const char* const kUsage = "flysim screen merge DIR... --output.dir=OUT";

std::vector<OptionSpec> merge_options() {
  std::vector<OptionSpec> specs = {{"output.dir", OptionType::path, "", "folder for the whole screen's files and .screen-parts/"}};
  for (const OptionSpec& spec : plot_options("screen", "plot_screen.py", "screen.png")) specs.push_back(spec);
  for (const OptionSpec& spec : log_options()) specs.push_back(spec);
  return specs;
}

struct Part {
  std::string dir;
  ReadPartManifest manifest;
};

}  // namespace

int screen_merge_command(const std::vector<std::string>& args) {
  const auto specs = merge_options();
  if (print_help_if_asked(args, kUsage,
                          "Joins the parts of a screen run as a job array (flysim screen --screen.part=K/N or auto, each "
                          "into its own DIR) into OUT: rates.csv, readouts.csv, spikes.csv (when the parts kept spikes) and "
                          "screen.png, the files of the screen run at once, byte for byte, and OUT/.screen-parts. Refuses, "
                          "naming them, parts of different screens, a part given twice, and missing parts or experiments.",
                          specs))
    return 0;
  std::vector<std::string> dirs, options;
  for (const auto& a : args) (a.rfind("--", 0) == 0 ? options : dirs).push_back(a);
  if (dirs.empty()) throw input_error(std::string("screen merge: no part folders given; usage: ") + kUsage);
  const Options o = Options::parse(specs, options);
  configure_logging(o);
  const std::string out = o.text("output.dir");
  if (out.empty()) o.reject("output.dir", "must name a folder for the whole screen's files");
  const bool plot = plot_wanted(o, "screen");

  std::vector<Part> parts;
  std::map<int, std::string> dir_of;  // part K -> its folder
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (std::filesystem::equivalent(dir, out, ec))
      o.reject("output.dir", "is the part folder " + dir + ": merge into a folder of its own");
    Part part{dir, read_part_manifest(dir + "/.screen-parts/manifest.txt", ScreenParts::manifest_of(dir))};
    if (!parts.empty())
      if (const std::string diff = first_manifest_difference(parts.front().manifest.identity, part.manifest.identity); !diff.empty())
        throw input_error(fmt::format("{} and {} are parts of different screens: {}", parts.front().dir, dir, diff));
    const int k = part.manifest.part.k;
    if (const auto at = dir_of.find(k); at != dir_of.end())
      throw input_error(fmt::format("part {}/{} is given twice: {} and {}", k, part.manifest.part.n, at->second, dir));
    dir_of[k] = dir;
    parts.push_back(std::move(part));
  }
  const ReadPartManifest& first = parts.front().manifest;
  std::vector<std::string> missing;
  for (int k = 1; k <= first.part.n; ++k)
    if (!dir_of.count(k)) missing.push_back(fmt::format("{}/{}", k, first.part.n));
  if (!missing.empty())
    throw input_error(fmt::format("screen merge: part{} {} of the screen in {} {} missing", missing.size() > 1 ? "s" : "",
                                  fmt::join(missing, ", "), parts.front().dir, missing.size() > 1 ? "are" : "is"));

  const std::vector<std::string> names = manifest_keys(first.whole, "experiment ");
  std::vector<ScreenParts> sources;
  for (std::size_t i = 0; i < names.size(); ++i) sources.push_back(ScreenParts::existing(dir_of[static_cast<int>(i % first.part.n) + 1]));
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!sources[i].done(i, first.facts.spikes))
      throw input_error(fmt::format("experiment '{}' of part {}/{} is not done in {}: finish that part (--screen.resume=true)", names[i],
                                    i % first.part.n + 1, first.part.n, sources[i].folder()));
  // A damaged part is named where it lies, before anything of OUT is written.
  for (std::size_t i = 0; i < names.size(); ++i) sources[i].check(i, first.facts.spikes, true);
  if (!first.facts.spikes) refuse_spikes_not_written(o, "output.dir", out);
  const ScreenParts whole(out, first.whole, true, "output.dir");
  for (std::size_t i = 0; i < names.size(); ++i) whole.adopt(i, sources[i], first.facts.spikes);
  const std::vector<int64_t> readouts = manifest_readouts(first.whole);
  write_screen_files(whole, screen_files(out, names, readouts, first.facts.trial_s, first.facts.spikes));
  const bool drawn = plot && draw_screen_plot(o, out, first.facts.plot_title, readouts);
  if (!drawn) warn_of_earlier_output(out, "screen.png");
  std::cout << fmt::format("flysim screen merge: {} parts, {} experiments\n  written     {}/rates.csv, {}/readouts.csv{}{}\n", first.part.n,
                           names.size(), out, out, first.facts.spikes ? ", " + out + "/spikes.csv" : "", drawn ? ", " + out + "/screen.png" : "");
  return 0;
}

}  // namespace flysim::app
