// colltune flush: sends the job reports spooled by the shim to colltuned.
//
// The shim runs this at MPI_Finalize (as its agent, within the job's
// deadline) and administrators run it after a daemon outage. Reports are
// sent oldest first; a sent report is deleted; a report the daemon refuses,
// or that is no report at all, is moved to rejected/ with the reason, never
// sent again; when the daemon cannot be reached the rest stay for later.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "auth/client_auth.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "client/client.h"
#include "common/histogram.h"
#include "common/report.h"

namespace colltune::cli {
namespace {

struct Spooled {
  std::string path;
  time_t mtime;
};

std::vector<Spooled> List(const std::string& dir) {
  std::vector<Spooled> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 8 || name.compare(name.size() - 7, 7, ".report") != 0) continue;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({path, st.st_mtime});
  }
  closedir(d);
  std::sort(out.begin(), out.end(), [](const Spooled& a, const Spooled& b) {
    return a.mtime != b.mtime ? a.mtime < b.mtime : a.path < b.path;
  });
  return out;
}

void Reject(const std::string& dir, const std::string& path, const std::string& why) {
  const std::string rejected = dir + "/rejected";
  mkdir(rejected.c_str(), 0700);
  const std::string base = path.substr(path.rfind('/') + 1);
  if (rename(path.c_str(), (rejected + "/" + base).c_str()) != 0) unlink(path.c_str());
  std::ofstream(rejected + "/" + base + ".why") << why << "\n";
  fprintf(stderr, "colltune: %s rejected: %s\n", base.c_str(), why.c_str());
}

}  // namespace

std::string DefaultSpoolDir() {
  if (const char* v = getenv("COLLTUNE_SPOOL_DIR"); v && *v) return v;
  if (const char* v = getenv("COLLTUNE_CACHE_DIR"); v && *v) return std::string(v) + "/spool";
  if (const char* v = getenv("XDG_CACHE_HOME"); v && *v) {
    return std::string(v) + "/colltune/spool";
  }
  if (const char* v = getenv("HOME"); v && *v) return std::string(v) + "/.cache/colltune/spool";
  return "";
}

int Flush(const Connection& c, const std::string& spool_dir) {
  const std::string dir = spool_dir.empty() ? DefaultSpoolDir() : spool_dir;
  if (dir.empty()) {
    return Fail(absl::FailedPreconditionError(
        "no spool directory: pass --spool-dir or set COLLTUNE_SPOOL_DIR"));
  }
  auto stub = client::Connect(c.server);
  int sent = 0, rejected = 0, kept = 0;
  bool munge_warned = false;
  const std::vector<Spooled> files = List(dir);
  for (size_t i = 0; i < files.size(); ++i) {
    const Spooled& f = files[i];
    std::ifstream in(f.path, std::ios::binary);
    if (!in) continue;  // sent meanwhile by another flush
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().size() > kMaxReportTextBytes) {
      Reject(dir, f.path, "larger than " + std::to_string(kMaxReportTextBytes) + " bytes");
      ++rejected;
      continue;
    }
    Report report;
    std::string error;
    if (!ParseReport(text.str(), &report, &error)) {
      Reject(dir, f.path, error);
      ++rejected;
      continue;
    }
    v1::ReportJobResponse response;
    const v1::ReportJobRequest request = client::ReportToProto(report);
    auto call = Call(c);
    // A MUNGE credential bound to this request, when munged is here (a
    // daemon with --auth munge requires it and records the uid).
    if (absl::Status m = auth::AttachMunge(call.get(), auth::BindingFor(request));
        !m.ok() && !munge_warned) {
      fprintf(stderr, "colltune: sending without a MUNGE credential: %s\n",
              std::string(m.message()).c_str());
      munge_warned = true;
    }
    grpc::Status s = stub->ReportJob(call.get(), request, &response);
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE ||
        s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      kept = static_cast<int>(files.size() - i);
      fprintf(stderr, "colltune: %s\n",
              std::string(client::FromGrpc(s, c.server).message()).c_str());
      break;
    }
    if (!s.ok()) {
      if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
        Reject(dir, f.path, "colltuned: " + s.error_message());
        ++rejected;
        continue;
      }
      // Anything else (the daemon's own trouble): keep it for later.
      fprintf(stderr, "colltune: %s kept: %s\n", f.path.c_str(),
              s.error_message().c_str());
      ++kept;
      continue;
    }
    // A snapshot may have been replaced by a newer file meanwhile: delete
    // only what was sent.
    std::ifstream again(f.path, std::ios::binary);
    std::ostringstream now;
    now << again.rdbuf();
    if (now.str() == text.str()) unlink(f.path.c_str());
    ++sent;
  }
  printf("flush %s: %d sent, %d rejected, %d kept\n", dir.c_str(), sent, rejected,
         kept);
  return kept > 0 ? 1 : 0;
}

}  // namespace colltune::cli
