#include "daemon/validate.h"

#include <cmath>
#include <set>
#include <string>
#include <tuple>

#include "common/catalog.h"
#include "common/limits.h"

namespace colltune::daemon {
namespace {

namespace lim = colltune::limits;

absl::Status Invalid(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

// Names are shown in the web view and the CLI: printable ASCII only.
absl::Status CheckName(const std::string& field, const std::string& value,
                       bool required) {
  if (required && value.empty()) return Invalid(field + " is required");
  if (value.size() > static_cast<size_t>(lim::kMaxNameLength)) {
    return Invalid(field + " is longer than " +
                   std::to_string(lim::kMaxNameLength) + " bytes");
  }
  for (unsigned char c : value) {
    if (c < 0x20 || c > 0x7e) {
      return Invalid(field + " contains a byte that is not printable ASCII");
    }
  }
  return absl::OkStatus();
}

// `complete`: an upload or report must say everything about its context; a
// table request may leave nodes and ppn at 0 (unknown) and library empty.
absl::Status CheckContext(const v1::Context& c, bool complete) {
  if (absl::Status s = CheckName("context.cluster", c.cluster(), false); !s.ok())
    return s;
  if (absl::Status s = CheckName("context.library", c.library(), complete);
      !s.ok())
    return s;
  if (absl::Status s =
          CheckName("context.library_version", c.library_version(), false);
      !s.ok())
    return s;
  if (c.comm_size() < 1 || c.comm_size() > lim::kMaxCommSize) {
    return Invalid("context.comm_size must be in 1.." +
                   std::to_string(lim::kMaxCommSize) + ", got " +
                   std::to_string(c.comm_size()));
  }
  const int min_topology = complete ? 1 : 0;
  if (c.nodes() < min_topology || c.nodes() > c.comm_size()) {
    return Invalid("context.nodes must be in " + std::to_string(min_topology) +
                   "..comm_size, got " + std::to_string(c.nodes()));
  }
  if (c.ppn() < min_topology || c.ppn() > c.comm_size()) {
    return Invalid("context.ppn must be in " + std::to_string(min_topology) +
                   "..comm_size, got " + std::to_string(c.ppn()));
  }
  if (c.nodes() > 0 && c.ppn() > 0 &&
      static_cast<int64_t>(c.nodes()) * c.ppn() < c.comm_size()) {
    return Invalid("context.nodes * context.ppn is less than comm_size");
  }
  return absl::OkStatus();
}

// Known collective and an algorithm of it.
absl::Status CheckNames(const std::string& where, const std::string& collective,
                        const std::string& algorithm) {
  auto c = ParseCollective(collective);
  if (!c) return Invalid(where + ".collective: unknown collective '" +
                         collective.substr(0, 64) + "'");
  auto a = ParseAlgorithm(algorithm);
  if (!a) return Invalid(where + ".algorithm: unknown algorithm '" +
                         algorithm.substr(0, 64) + "'");
  if (!Implements(*a, *c)) {
    return Invalid(where + ".algorithm: '" + algorithm +
                   "' does not implement '" + collective + "'");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateGetTable(const v1::GetTableRequest& request) {
  if (!request.has_context()) return Invalid("context is required");
  return CheckContext(request.context(), /*complete=*/false);
}

absl::Status ValidateUpload(const v1::UploadMeasurementsRequest& request) {
  if (!request.has_context()) return Invalid("context is required");
  if (absl::Status s = CheckContext(request.context(), true); !s.ok()) return s;
  if (absl::Status s = CheckName("campaign", request.campaign(), true); !s.ok())
    return s;
  if (absl::Status s = CheckName("host", request.host(), false); !s.ok())
    return s;
  if (request.launch() < 0 || request.launch() >= lim::kMaxLaunches) {
    return Invalid("launch must be in 0.." +
                   std::to_string(lim::kMaxLaunches - 1) + ", got " +
                   std::to_string(request.launch()));
  }
  const int n = request.measurements_size();
  const int least = request.partial() ? 1 : 0;
  if (n < least || n > lim::kMaxMeasurementsPerUpload) {
    return Invalid("measurements must hold " + std::to_string(least) + ".." +
                   std::to_string(lim::kMaxMeasurementsPerUpload) +
                   " points, got " + std::to_string(n));
  }
  int64_t total_samples = 0;
  std::set<std::tuple<std::string, std::string, int64_t>> seen;
  for (int i = 0; i < n; ++i) {
    const v1::Measurement& m = request.measurements(i);
    const std::string where = "measurements[" + std::to_string(i) + "]";
    if (absl::Status s = CheckNames(where, m.collective(), m.algorithm());
        !s.ok())
      return s;
    if (m.msg_bytes() < 0 || m.msg_bytes() > lim::kMaxMessageBytes) {
      return Invalid(where + ".msg_bytes must be in 0.." +
                     std::to_string(lim::kMaxMessageBytes) + ", got " +
                     std::to_string(m.msg_bytes()));
    }
    if (!seen.insert({m.collective(), m.algorithm(), m.msg_bytes()}).second) {
      return Invalid(where + " repeats an earlier point of this upload");
    }
    const int ns = m.samples_size();
    if (ns < 1 || ns > lim::kMaxSamplesPerMeasurement) {
      return Invalid(where + ".samples must hold 1.." +
                     std::to_string(lim::kMaxSamplesPerMeasurement) +
                     " values, got " + std::to_string(ns));
    }
    total_samples += ns;
    if (total_samples > lim::kMaxSamplesPerUpload) {
      return Invalid("more than " + std::to_string(lim::kMaxSamplesPerUpload) +
                     " samples in one upload");
    }
    for (int j = 0; j < ns; ++j) {
      const double v = m.samples(j);
      if (!std::isfinite(v) || v < 0 || v > lim::kMaxSampleSeconds) {
        return Invalid(where + ".samples[" + std::to_string(j) + "] = " +
                       (std::isnan(v) ? std::string("NaN") : std::to_string(v)) +
                       " is not a time in [0, " +
                       std::to_string(lim::kMaxSampleSeconds) + "] seconds");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateReport(const v1::ReportJobRequest& request) {
  if (!request.has_context()) return Invalid("context is required");
  if (absl::Status s = CheckContext(request.context(), true); !s.ok()) return s;
  if (absl::Status s = CheckName("job_id", request.job_id(), true); !s.ok())
    return s;
  if (request.table_version() < 0) {
    return Invalid("table_version must not be negative");
  }
  if (request.timings_size() > lim::kMaxTimingsPerReport) {
    return Invalid("more than " + std::to_string(lim::kMaxTimingsPerReport) +
                   " timings in one report");
  }
  for (int i = 0; i < request.timings_size(); ++i) {
    const v1::JobTiming& t = request.timings(i);
    const std::string where = "timings[" + std::to_string(i) + "]";
    if (absl::Status s = CheckNames(where, t.collective(), t.algorithm());
        !s.ok())
      return s;
    if (t.min_bytes() < 0 || t.max_bytes() < t.min_bytes() ||
        t.max_bytes() > lim::kMaxMessageBytes) {
      return Invalid(where + " has an invalid byte range [" +
                     std::to_string(t.min_bytes()) + ", " +
                     std::to_string(t.max_bytes()) + "]");
    }
    if (t.calls() < 0 || t.calls() > lim::kMaxCalls || t.timed_calls() < 0 ||
        t.timed_calls() > t.calls()) {
      return Invalid(where + " has invalid call counts");
    }
    const double s = t.total_seconds();
    if (!std::isfinite(s) || s < 0 || s > lim::kMaxReportSeconds) {
      return Invalid(where + ".total_seconds is not a time in [0, " +
                     std::to_string(lim::kMaxReportSeconds) + "]");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateGetCampaign(const v1::GetCampaignRequest& request) {
  if (!request.has_context()) return Invalid("context is required");
  if (absl::Status s = CheckContext(request.context(), true); !s.ok()) return s;
  return CheckName("campaign", request.campaign(), true);
}

absl::Status ValidatePin(const v1::PinRequest& request) {
  const v1::Pin& p = request.pin();
  if (p.profile_id() <= 0) return Invalid("pin.profile_id must be positive");
  if (absl::Status s = CheckNames("pin", p.collective(), p.algorithm()); !s.ok())
    return s;
  if (p.min_bytes() < 0 || p.min_bytes() > lim::kMaxMessageBytes ||
      (p.max_bytes() != -1 &&
       (p.max_bytes() < p.min_bytes() || p.max_bytes() > lim::kMaxMessageBytes))) {
    return Invalid("pin has an invalid byte range [" +
                   std::to_string(p.min_bytes()) + ", " +
                   std::to_string(p.max_bytes()) + "]");
  }
  return CheckName("pin.note", p.note(), false);
}

absl::Status ValidateListProfiles(const v1::ListProfilesRequest& request) {
  if (absl::Status s = CheckName("cluster", request.cluster(), false); !s.ok())
    return s;
  return CheckName("library", request.library(), false);
}

}  // namespace colltune::daemon
