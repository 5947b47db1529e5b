#include "shim/runtime/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace colltune::shim {
namespace {

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

bool MakeDirs(const std::string& dir) {
  if (dir.empty()) return false;
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace

std::string CachePath(const std::string& dir, const std::string& key) {
  char name[40];
  snprintf(name, sizeof name, "table-%016llx.txt",
           static_cast<unsigned long long>(Fnv1a(key)));
  return dir + "/" + name;
}

bool ReadFileLimited(const std::string& path, size_t max_bytes,
                     std::string* contents, std::string* error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + strerror(errno);
    return false;
  }
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = "cannot read " + path + ": " + strerror(errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    if (data.size() + n > max_bytes) {
      *error = path + " is larger than " + std::to_string(max_bytes) + " bytes";
      close(fd);
      return false;
    }
    data.append(buf, n);
  }
  close(fd);
  *contents = std::move(data);
  return true;
}

bool WriteFileAtomic(const std::string& path, const std::string& contents,
                     std::string* error) {
  size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0 &&
      !MakeDirs(path.substr(0, slash))) {
    *error = "cannot create " + path.substr(0, slash) + ": " + strerror(errno);
    return false;
  }
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + tmp + ": " + strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += n;
  }
  if (close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace colltune::shim
