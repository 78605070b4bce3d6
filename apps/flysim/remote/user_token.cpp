#include "apps/flysim/remote/user_token.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "apps/flysim/remote/token_certificate.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
std::string home() {
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) return pw->pw_dir;
  throw input_error("no shard token file given and no home folder for the user's own (set HOME or give a token file)");
}

std::string random_token() {
  std::random_device device;  // /dev/urandom
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int k = 0; k < 32; ++k) token += kHex[device() % 16];
  return token;
}

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw input_error("cannot create the user's shard token " + path + ": " + what + ": " + std::strerror(errno));
}
}  // namespace

std::string user_token_path() { return home() + "/.cache/flysim/shard-token"; }

std::string user_token() {
  const std::string path = user_token_path();
  if (::access(path.c_str(), F_OK) != 0) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    ::chmod(dir.c_str(), 0700);
    // Written under a name of its own, then linked: the token appears whole or not at all.
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("open", temp);
    const std::string line = random_token() + "\n";
    const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (!written) fail("write", temp);
    const int linked = ::link(temp.c_str(), path.c_str());
    const int link_errno = errno;
    ::unlink(temp.c_str());
    errno = link_errno;
    if (linked != 0 && link_errno != EEXIST) fail("link", path);
  }
  return read_token_file(path, "the user's shard token");
}

}  // namespace flysim::app
