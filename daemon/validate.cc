#include "daemon/validate.h"

#include <cmath>
#include <set>
#include <string>
#include <tuple>

#include "common/catalog.h"
#include "common/counted.h"
#include "common/histogram.h"
#include "common/layout.h"
#include "common/limits.h"
#include "common/layout_class.h"
#include "common/problems.h"
#include "common/regime.h"
#include "proto/context.h"

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
  const std::string layout = LayoutError(ContextFromProto(c));
  if (!layout.empty()) return Invalid("context." + layout);
  if (!c.node_sizes().empty() && (c.nodes() == 0 || c.ppn() == 0)) {
    return Invalid("context.node_sizes needs nodes and ppn");
  }
  return absl::OkStatus();
}

// Known collective and an algorithm of it; a native algorithm must be one
// the context's library is known to have (a library colltune knows no native
// algorithms of, e.g. a derivative, is given the benefit of the doubt: the
// shim asks the running library). Measurements of another library's
// algorithm could only come from a mislabelled upload.
absl::Status CheckNames(const std::string& where, const std::string& collective,
                        const std::string& algorithm, const std::string& library = "") {
  auto c = ParseCollective(collective);
  if (!c) return Invalid(where + ".collective: unknown collective '" +
                         collective.substr(0, 64) + "'");
  auto a = ParseAlgorithm(algorithm, *c);
  if (!a && !IsAlgorithmName(algorithm)) {
    return Invalid(where + ".algorithm: unknown algorithm '" + algorithm.substr(0, 64) +
                   "'");
  }
  if (a && IsNative(*a)) {
    const uint8_t family = NativeLibraryOf(library);
    if (family != 0 && !(InfoOf(*a).libraries & family)) {
      return Invalid(where + ".algorithm: '" + algorithm + "' is not an algorithm of " +
                     library.substr(0, 64));
    }
  }
  if (!a) {
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
  std::set<std::tuple<std::string, std::string, int64_t, std::string, std::string>> seen;
  if (request.regimes_size() > kNumRegimes) {
    return Invalid("regimes must name each regime at most once, got " +
                   std::to_string(request.regimes_size()) + " entries");
  }
  RegimeSet declared = 0;
  for (const std::string& name : request.regimes()) {
    const std::optional<Regime> r = ParseRegime(name);
    if (!r || name.empty() || (declared & Bit(*r))) {
      return Invalid("regimes must be distinct names of sync, loop and imbalance, got '" +
                     name.substr(0, 64) + "'");
    }
    declared |= Bit(*r);
  }
  for (int i = 0; i < n; ++i) {
    const v1::Measurement& m = request.measurements(i);
    const std::string where = "measurements[" + std::to_string(i) + "]";
    if (absl::Status s =
            CheckNames(where, m.collective(), m.algorithm(), request.context().library());
        !s.ok())
      return s;
    if (m.msg_bytes() < 0 || m.msg_bytes() > lim::kMaxMessageBytes) {
      return Invalid(where + ".msg_bytes must be in 0.." +
                     std::to_string(lim::kMaxMessageBytes) + ", got " +
                     std::to_string(m.msg_bytes()));
    }
    // Irregular collectives' points are (distribution, size); a point may
    // instead name a derived datatype's layout ("@tiled/8B", seed 003's
    // grid) where the collective has datatype forms (its points time those
    // and the plain candidates).
    const Collective c = *ParseCollective(m.collective());
    const bool irregular = InfoOf(c).irregular;
    const bool layout = HasDatatypeForms(c) && ParseLayoutProblem(m.problem());
    if (irregular && !layout && !ParseProblem(m.problem())) {
      return Invalid(where + ".problem must name a block-size distribution of " +
                     m.collective() +
                     " (same, random, spikes, decreasing, alternating, "
                     "two_blocks) or a derived datatype's layout ('@tiled/8B'), got '" +
                     m.problem().substr(0, 64) + "'");
    }
    if (!irregular && !m.problem().empty() && !layout) {
      return Invalid(where + ".problem is for irregular collectives, and for a derived "
                     "datatype's layout ('@tiled/8B') of a collective with datatype forms "
                     "(bcast, allgather, gather, scatter, alltoall and the v-variants); got '" +
                     m.problem().substr(0, 64) + "' for " + m.collective());
    }
    if (!ParseRegime(m.regime())) {
      return Invalid(where + ".regime must be sync, loop or imbalance, got '" +
                     m.regime().substr(0, 64) + "'");
    }
    const std::string regime(NameOf(*ParseRegime(m.regime())));
    if (!seen.insert({m.collective(), m.algorithm(), m.msg_bytes(), m.problem(), regime})
             .second) {
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

// The online part of a job timing: a size bucket, a histogram whose counts
// and bounds agree with the call counts and the total time.
static absl::Status CheckOnlineTiming(const std::string& where,
                                      const v1::JobTiming& t) {
  namespace h = histogram;
  if (t.comm_size() < 1 || t.comm_size() > lim::kMaxCommSize) {
    return Invalid(where + ".comm_size must be in 1.." +
                   std::to_string(lim::kMaxCommSize));
  }
  if (t.profile_id() < 0) return Invalid(where + ".profile_id is negative");
  const int bucket = h::BucketOf(static_cast<uint64_t>(t.min_bytes()));
  if (static_cast<uint64_t>(t.min_bytes()) != h::BucketMin(bucket) ||
      static_cast<uint64_t>(t.max_bytes()) != h::BucketMax(bucket)) {
    return Invalid(where + " is no size bucket: [" + std::to_string(t.min_bytes()) +
                   ", " + std::to_string(t.max_bytes()) +
                   "] (buckets are [0, 0] and [2^(b-1), 2^b - 1])");
  }
  if (t.bins_size() < 1 || t.first_bin() < 0 ||
      t.first_bin() + t.bins_size() > h::kNumBins) {
    return Invalid(where + " has a histogram outside bins 0.." +
                   std::to_string(h::kNumBins - 1));
  }
  uint64_t counted = 0;
  double low = 0, high = 0;  // bounds of the total time, in ns
  for (int b = 0; b < t.bins_size(); ++b) {
    const uint64_t n = t.bins(b);
    if (n > static_cast<uint64_t>(lim::kMaxCalls) ||
        counted > static_cast<uint64_t>(lim::kMaxCalls)) {
      return Invalid(where + ".bins[" + std::to_string(b) + "] is too large");
    }
    counted += n;
    low += static_cast<double>(n) * h::BinLow(t.first_bin() + b);
    high += static_cast<double>(n) * h::BinLow(t.first_bin() + b + 1);
  }
  if (counted != static_cast<uint64_t>(t.timed_calls())) {
    return Invalid(where + ": the histogram counts " + std::to_string(counted) +
                   " calls, timed_calls says " + std::to_string(t.timed_calls()));
  }
  const double total_ns = t.total_seconds() * 1e9;
  if (total_ns < low * (1 - 1e-9) - 1 || total_ns > high * (1 + 1e-9) + 1) {
    return Invalid(where + ".total_seconds disagrees with the histogram");
  }
  if (t.explored_calls() < 0 || t.explored_calls() > t.timed_calls()) {
    return Invalid(where + ".explored_calls must be in 0..timed_calls");
  }
  return absl::OkStatus();
}

// The counted calls of a report: known collectives of the kind stated, size
// buckets, sane counts, each (collective, bucket) once.
static absl::Status CheckCounted(const v1::ReportJobRequest& request) {
  namespace h = histogram;
  if (request.counted_size() > lim::kMaxCountedPerReport) {
    return Invalid("more than " + std::to_string(lim::kMaxCountedPerReport) +
                   " counted entries in one report");
  }
  std::set<std::pair<std::string, int64_t>> seen;
  for (int i = 0; i < request.counted_size(); ++i) {
    const v1::CountedCalls& c = request.counted(i);
    const std::string where = "counted[" + std::to_string(i) + "]";
    const std::optional<int> id = ParseCounted(c.collective());
    if (!id) {
      if (absl::Status s = CheckName(where + ".collective", c.collective(), true); !s.ok()) {
        return s;
      }
      return Invalid(where + ".collective '" + c.collective() +
                     "' is no non-blocking, persistent or neighbourhood collective");
    }
    const std::optional<CallKind> kind = ParseKind(c.kind());
    if (!kind || *kind != CountedInfoOf(*id).kind) {
      return Invalid(where + ".kind must be '" +
                     std::string(KindName(CountedInfoOf(*id).kind)) + "' for " +
                     c.collective());
    }
    if (c.min_bytes() < 0 || c.min_bytes() > lim::kMaxMessageBytes) {
      return Invalid(where + " has an invalid byte range");
    }
    const int bucket = h::BucketOf(static_cast<uint64_t>(c.min_bytes()));
    if (static_cast<uint64_t>(c.min_bytes()) != h::BucketMin(bucket) ||
        static_cast<uint64_t>(c.max_bytes()) != h::BucketMax(bucket)) {
      return Invalid(where + " is no size bucket: [" + std::to_string(c.min_bytes()) +
                     ", " + std::to_string(c.max_bytes()) +
                     "] (buckets are [0, 0] and [2^(b-1), 2^b - 1])");
    }
    if (c.calls() < 1 || c.calls() > lim::kMaxCalls) {
      return Invalid(where + ".calls must be in 1.." + std::to_string(lim::kMaxCalls));
    }
    if (!seen.emplace(c.collective(), c.min_bytes()).second) {
      return Invalid(where + " repeats an earlier entry's collective and size bucket");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateReport(const v1::ReportJobRequest& request,
                            ReportRejection* why) {
  ReportRejection ignored;
  if (why == nullptr) why = &ignored;
  auto refuse = [why](ReportRejection reason, absl::Status s) {
    *why = reason;
    return s;
  };
  using R = ReportRejection;
  if (!request.has_context()) return refuse(R::kContext, Invalid("context is required"));
  if (!request.source().empty() && request.source() != "online" &&
      request.source() != "campaign") {
    return refuse(R::kJobFields, Invalid("source must be online or campaign"));
  }
  if (absl::Status s = CheckContext(request.context(), true); !s.ok()) {
    return refuse(R::kContext, s);
  }
  if (request.ranks() < 0 || request.ranks() > request.context().comm_size()) {
    return refuse(R::kJobFields, Invalid("ranks must be in 1..comm_size"));
  }
  if (absl::Status s = CheckName("run_id", request.run_id(), false); !s.ok()) {
    return refuse(R::kJobFields, s);
  }
  std::set<std::string> cells;
  if (absl::Status s = CheckName("job_id", request.job_id(), true); !s.ok())
    return refuse(R::kJobFields, s);
  if (request.table_version() < 0) {
    return refuse(R::kJobFields, Invalid("table_version must not be negative"));
  }
  if (request.timings_size() > lim::kMaxTimingsPerReport) {
    return refuse(R::kTooManyEntries,
                  Invalid("more than " + std::to_string(lim::kMaxTimingsPerReport) +
                          " timings in one report"));
  }
  for (int i = 0; i < request.timings_size(); ++i) {
    const v1::JobTiming& t = request.timings(i);
    const std::string where = "timings[" + std::to_string(i) + "]";
    if (absl::Status s =
            CheckNames(where, t.collective(), t.algorithm(), request.context().library());
        !s.ok())
      return refuse(R::kUnknownName, s);
    if (t.min_bytes() < 0 || t.max_bytes() < t.min_bytes() ||
        t.max_bytes() > lim::kMaxMessageBytes) {
      return refuse(R::kBadTiming,
                    Invalid(where + " has an invalid byte range [" +
                            std::to_string(t.min_bytes()) + ", " +
                            std::to_string(t.max_bytes()) + "]"));
    }
    if (t.calls() < 0 || t.calls() > lim::kMaxCalls || t.timed_calls() < 0 ||
        t.timed_calls() > t.calls()) {
      return refuse(R::kBadTiming, Invalid(where + " has invalid call counts"));
    }
    const double s = t.total_seconds();
    if (!std::isfinite(s) || s < 0 || s > lim::kMaxReportSeconds) {
      return refuse(R::kBadTiming,
                    Invalid(where + ".total_seconds is not a time in [0, " +
                            std::to_string(lim::kMaxReportSeconds) + "]"));
    }
    if (absl::Status e = CheckOnlineTiming(where, t); !e.ok()) {
      return refuse(R::kBadTiming, e);
    }
    const std::string cell = std::to_string(t.comm_size()) + "/" +
                             std::to_string(t.profile_id()) + "/" + t.collective() +
                             "/" + t.algorithm() + "/" + std::to_string(t.min_bytes());
    if (!cells.insert(cell).second) {
      return refuse(R::kDuplicate,
                    Invalid(where + " repeats an earlier entry's communicator size, "
                                    "profile, collective, algorithm and size bucket"));
    }
  }
  if (request.counted_size() > lim::kMaxCountedPerReport) {
    return refuse(R::kTooManyEntries,
                  Invalid("more than " + std::to_string(lim::kMaxCountedPerReport) +
                          " counted entries in one report"));
  }
  if (absl::Status s = CheckCounted(request); !s.ok()) return refuse(R::kBadCounted, s);
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
  if (AtLaunchOnly(*ParseAlgorithm(p.algorithm(), *ParseCollective(p.collective())))) {
    return Invalid("pin.algorithm: '" + p.algorithm() +
                   "' is chosen for a whole job when it starts (Open MPI: --mca "
                   "coll_han_priority 100), not per call: it cannot be pinned");
  }
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
