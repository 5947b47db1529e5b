#include "common/report.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "common/histogram.h"

namespace colltune {
namespace {

bool Printable(const std::string& s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

bool ParseU64(const std::string& word, uint64_t max, uint64_t* out) {
  if (word.empty() || word.size() > 20 || word[0] < '0' || word[0] > '9') {
    return false;
  }
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(word.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

std::string FormatReport(const Report& r) {
  std::ostringstream out;
  out << "colltune-report " << kReportFormatVersion << "\n"
      << "job " << r.job_id << "\n"
      << "run " << r.run_id << "\n"
      << "library " << r.context.library << "\n"
      << "library_version " << r.context.library_version << "\n"
      << "comm_size " << r.context.comm_size << "\n"
      << "nodes " << r.context.nodes << "\n"
      << "ppn " << r.context.ppn << "\n";
  // Written only when known, so that spool files stay readable both ways.
  if (!r.context.placement.empty()) out << "placement " << r.context.placement << "\n";
  if (!r.context.node_sizes.empty()) out << "node_sizes " << r.context.node_sizes << "\n";
  out << "table_version " << r.table_version << "\n"
      << "final " << (r.final ? 1 : 0) << "\n"
      << "ranks " << r.ranks << "\n";
  for (const ReportTiming& t : r.timings) {
    out << "timing " << t.comm_size << " " << t.profile_id << " "
        << InfoOf(t.collective).name << " " << InfoOf(t.algorithm).name << " "
        << t.bucket << " " << t.calls << " " << t.timed << " " << t.explored
        << " " << t.sum_ns << " " << t.first_bin << " " << t.bins.size();
    for (uint64_t b : t.bins) out << " " << b;
    out << "\n";
  }
  for (const ReportCount& c : r.counts) {
    out << "counted " << CountedInfoOf(c.id).name << " " << c.bucket << " " << c.calls
        << "\n";
  }
  out << "end\n";
  return out.str();
}

bool ParseReport(const std::string& text, Report* report, std::string* error) {
  if (text.size() > kMaxReportTextBytes) {
    *error = "report larger than " + std::to_string(kMaxReportTextBytes) + " bytes";
    return false;
  }
  Report r;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool header = false, ended = false;
  auto fail = [&](const std::string& why) {
    *error = "line " + std::to_string(number) + ": " + why;
    return false;
  };
  constexpr uint64_t kMaxCount = uint64_t{1} << 50;
  while (std::getline(in, line)) {
    ++number;
    if (ended) return fail("text after 'end'");
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (!header) {
      if (line != "colltune-report " + std::to_string(kReportFormatVersion)) {
        return fail("not a colltune report (version " +
                    std::to_string(kReportFormatVersion) + ")");
      }
      header = true;
      continue;
    }
    uint64_t v = 0;
    if (key == "job" || key == "run" || key == "library" ||
        key == "library_version") {
      if (!Printable(rest, 128)) return fail(key + " must be 1..128 printable characters");
      (key == "job" ? r.job_id : key == "run" ? r.run_id
                       : key == "library" ? r.context.library : r.context.library_version) = rest;
    } else if (key == "placement" || key == "node_sizes") {
      if (!Printable(rest, 64)) return fail(key + " must be 1..64 printable characters");
      (key == "placement" ? r.context.placement : r.context.node_sizes) = rest;
    } else if (key == "comm_size" || key == "nodes" || key == "ppn" ||
               key == "ranks") {
      if (!ParseU64(rest, 1 << 24, &v) || v == 0) return fail(key + " must be in 1..2^24");
      (key == "comm_size" ? r.context.comm_size : key == "nodes" ? r.context.nodes
                          : key == "ppn" ? r.context.ppn : r.ranks) = static_cast<int>(v);
    } else if (key == "table_version") {
      if (!ParseU64(rest, uint64_t{1} << 62, &v)) return fail("bad table_version");
      r.table_version = static_cast<int64_t>(v);
    } else if (key == "final") {
      if (rest != "0" && rest != "1") return fail("final must be 0 or 1");
      r.final = rest == "1";
    } else if (key == "timing") {
      std::istringstream words(rest);
      std::vector<std::string> w;
      for (std::string x; words >> x;) w.push_back(x);
      if (w.size() < 11) return fail("a timing needs at least 11 fields");
      ReportTiming t;
      uint64_t n = 0;
      std::optional<Collective> c = ParseCollective(w[2]);
      if (!c) return fail("unknown collective '" + w[2].substr(0, 64) + "'");
      std::optional<Algorithm> a = ParseAlgorithm(w[3], *c);
      if (!a) return fail("unknown algorithm '" + w[3].substr(0, 64) + "'");
      uint64_t comm = 0, profile = 0, bucket = 0, first = 0;
      if (!ParseU64(w[0], 1 << 24, &comm) || comm == 0 ||
          !ParseU64(w[1], uint64_t{1} << 62, &profile) ||
          !ParseU64(w[4], histogram::kNumBuckets - 1, &bucket) ||
          !ParseU64(w[5], kMaxCount, &t.calls) ||
          !ParseU64(w[6], kMaxCount, &t.timed) ||
          !ParseU64(w[7], kMaxCount, &t.explored) ||
          !ParseU64(w[8], ~uint64_t{0} >> 1, &t.sum_ns) ||
          !ParseU64(w[9], histogram::kNumBins - 1, &first) ||
          !ParseU64(w[10], histogram::kNumBins, &n) || n == 0 ||
          first + n > static_cast<uint64_t>(histogram::kNumBins) ||
          w.size() != 11 + n) {
        return fail("malformed timing");
      }
      t.comm_size = static_cast<int>(comm);
      t.profile_id = static_cast<int64_t>(profile);
      t.collective = *c;
      t.algorithm = *a;
      t.bucket = static_cast<int>(bucket);
      t.first_bin = static_cast<int>(first);
      for (size_t i = 0; i < n; ++i) {
        uint64_t count = 0;
        if (!ParseU64(w[11 + i], kMaxCount, &count)) return fail("malformed bin count");
        t.bins.push_back(count);
      }
      r.timings.push_back(std::move(t));
    } else if (key == "counted") {
      std::istringstream words(rest);
      std::vector<std::string> w;
      for (std::string x; words >> x;) w.push_back(x);
      if (w.size() != 3) return fail("a counted line needs 3 fields");
      const std::optional<int> id = ParseCounted(w[0]);
      if (!id) return fail("unknown counted collective '" + w[0].substr(0, 64) + "'");
      uint64_t bucket = 0, calls = 0;
      if (!ParseU64(w[1], histogram::kNumBuckets - 1, &bucket) ||
          !ParseU64(w[2], kMaxCount, &calls) || calls == 0) {
        return fail("malformed counted line");
      }
      for (const ReportCount& c : r.counts) {
        if (c.id == *id && c.bucket == static_cast<int>(bucket)) {
          return fail("counted line repeats " + w[0] + " bucket " + w[1]);
        }
      }
      if (r.counts.size() >= static_cast<size_t>(kNumCounted) * histogram::kNumBuckets) {
        return fail("too many counted lines");
      }
      r.counts.push_back({*id, static_cast<int>(bucket), calls});
    } else if (line == "end") {
      ended = true;
    } else {
      return fail("unknown line '" + key.substr(0, 64) + "'");
    }
  }
  if (!header) {
    *error = "empty report";
    return false;
  }
  if (!ended) {
    *error = "report cut short (no 'end' line)";
    return false;
  }
  if (r.job_id.empty() || r.run_id.empty() || r.context.library.empty() ||
      r.context.comm_size == 0 || r.context.nodes == 0 || r.context.ppn == 0) {
    *error = "report lacks job, run, library, comm_size, nodes or ppn";
    return false;
  }
  *report = std::move(r);
  return true;
}

}  // namespace colltune
