#include "apps/flysim/process/file_roles.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <optional>

#include "io/atomic_file.hpp"
#include "io/input_file.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

struct NamedFile {
  std::string what;  // "option output.spikes", "config file" or "sweep.csv in option output.dir"
  std::string path;
};

// Hard links and symbolic links name the same file: existing files are compared by
// device and inode, the others by their absolute path with links resolved.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), eb);
  return !ea && !eb && ca == cb;
}

bool is_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::vector<NamedFile> named(const Options& o, const std::vector<std::string>& keys) {
  std::vector<NamedFile> files;
  for (const std::string& key : keys)
    if (!o.text(key).empty()) files.push_back({"option " + key, o.text(key)});
  return files;
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

void report_removed(const std::vector<std::string>& removed) {
  for (const std::string& path : removed)
    spdlog::warn("removed {}: an unfinished file left by a flysim process that was killed while writing", path);
}

}  // namespace

void check_file_roles(const Options& o, const FileRoles& roles) {
  for (const std::string& key : roles.input_keys) {
    const std::string& path = o.text(key);
    if (path.empty() || !o.given(key)) continue;
    if (const std::string kind = special_file_kind(path); !kind.empty()) o.reject(key, "is " + kind + ", expected a regular file");
    if (::access(path.c_str(), R_OK) != 0) {
      const std::string why = std::strerror(errno);
      const bool ids = path.find_first_not_of("0123456789,; ") == std::string::npos;
      o.reject(key, "names a file flysim cannot open: " + why +
                        (ids ? " (it looks like neuron IDs: the option takes a file of root IDs, one per line)" : ""));
    }
  }
  std::vector<NamedFile> inputs = named(o, roles.input_keys);
  for (NamedFile& file : named(o, roles.self_checked_input_keys)) inputs.push_back(std::move(file));
  for (const std::string& config : o.config_files()) inputs.push_back({"config file", config});
  std::vector<NamedFile> outputs = named(o, roles.output_keys);
  for (const FolderOutput& f : roles.folder_outputs)
    if (!o.text(f.folder_key).empty())
      outputs.push_back({f.name + " in option " + f.folder_key, (std::filesystem::path(o.text(f.folder_key)) / f.name).string()});
  const std::vector<NamedFile> folders = named(o, roles.folder_keys);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const NamedFile& out = outputs[k];
    for (const NamedFile& in : inputs)
      if (same_file(out.path, in.path))
        throw input_error(out.what + "=" + out.path + " is also the input of " + in.what + " (" + in.path +
                          "): writing it would destroy that input; choose another output path");
    for (std::size_t j = 0; j < k; ++j)
      if (same_file(out.path, outputs[j].path) && !is_device(out.path))
        throw input_error(out.what + " and " + outputs[j].what + " both name " + out.path +
                          ": the second would overwrite the first; give each output its own file");
    for (const NamedFile& folder : folders)
      if (same_file(out.path, folder.path))
        throw input_error(out.what + "=" + out.path + " is the folder of " + folder.what + "; give a file name");
  }
  for (const NamedFile& folder : folders) {
    std::error_code ec;
    if (std::filesystem::exists(folder.path, ec) && !std::filesystem::is_directory(folder.path, ec))
      throw input_error(folder.what + "=" + folder.path + " exists and is not a folder");
  }
}

void clean_up_leftovers(const Options& o, const FileRoles& roles) {
  for (const NamedFile& out : named(o, roles.output_keys))
    report_removed(remove_stale_temporaries(folder_of(out.path), std::filesystem::path(out.path).filename().string()));
  for (const NamedFile& folder : named(o, roles.folder_keys)) report_removed(remove_stale_temporaries(folder.path, ""));
}

}  // namespace flysim::app
