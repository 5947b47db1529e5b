#include "daemon/tuner.h"

#include <map>
#include <tuple>

#include "common/limits.h"
#include "common/stats.h"
#include "daemon/matching.h"
#include "daemon/validate.h"

namespace colltune::daemon {
namespace {

void ToProto(const db::ProfileKey& k, v1::Context* c) {
  c->set_cluster(k.cluster);
  c->set_library(k.library);
  c->set_library_version(k.library_version);
  c->set_comm_size(k.comm_size);
  c->set_nodes(k.nodes);
  c->set_ppn(k.ppn);
}

void ToProto(const Rule& r, v1::Rule* out) {
  out->set_collective(std::string(InfoOf(r.collective).name));
  out->set_algorithm(std::string(InfoOf(r.algorithm).name));
  out->set_min_bytes(static_cast<int64_t>(r.min_bytes));
  out->set_max_bytes(r.max_bytes == kNoUpperBound
                         ? -1
                         : static_cast<int64_t>(r.max_bytes));
  out->set_speedup(r.speedup);
}

void ToProto(const db::Profile& p, const db::TableVersion* table,
             v1::TableSection* out) {
  out->set_comm_size(p.key.comm_size);
  out->set_profile_id(p.id);
  if (table == nullptr) return;
  out->set_version(table->version);
  for (const Rule& r : table->rules) ToProto(r, out->add_rules());
}

}  // namespace

db::ProfileKey Tuner::KeyOf(const v1::Context& c) const {
  db::ProfileKey k;
  k.cluster = c.cluster().empty() ? options_.cluster : c.cluster();
  k.library = c.library();
  k.library_version = c.library_version();
  k.comm_size = c.comm_size();
  k.nodes = c.nodes();
  k.ppn = c.ppn();
  return k;
}

absl::StatusOr<v1::GetTableResponse> Tuner::GetTable(
    const v1::GetTableRequest& r) {
  if (absl::Status s = ValidateGetTable(r); !s.ok()) return s;
  const db::ProfileKey job = KeyOf(r.context());
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::vector<db::Profile>> all = store_->Profiles(job.cluster);
  if (!all.ok()) return all.status();
  absl::StatusOr<std::vector<db::Profile>> chosen =
      ChooseProfiles(*all, job, limits::kMaxSectionsPerTable);
  if (!chosen.ok()) return chosen.status();
  v1::GetTableResponse response;
  v1::DecisionTable* table = response.mutable_table();
  ToProto(job, table->mutable_context());
  for (const db::Profile& p : *chosen) {
    absl::StatusOr<std::optional<db::TableVersion>> t =
        store_->CurrentTable(p.id);
    if (!t.ok()) return t.status();
    if (!t->has_value()) continue;  // measured nothing decidable yet
    ToProto(p, &**t, table->add_sections());
  }
  return response;
}

absl::StatusOr<std::pair<int64_t, bool>> Tuner::Retune(
    int64_t profile_id, const std::string& reason) {
  absl::StatusOr<std::vector<db::LaunchPoint>> points =
      store_->LaunchPoints(profile_id);
  if (!points.ok()) return points.status();
  std::vector<LaunchMedian> medians;
  medians.reserve(points->size());
  for (const db::LaunchPoint& p : *points) {
    // Launch indices stay below limits::kMaxLaunches.
    const int64_t launch = p.campaign_id * limits::kMaxLaunches + p.launch;
    medians.push_back({p.collective, p.algorithm, p.msg_bytes, launch, p.median});
  }
  std::vector<Rule> rules = ComputeRules(medians, options_.engine);
  absl::StatusOr<std::optional<db::TableVersion>> current =
      store_->CurrentTable(profile_id);
  if (!current.ok()) return current.status();
  if (current->has_value() && SameDecisions((*current)->rules, rules)) {
    return std::make_pair((*current)->version, false);
  }
  if (!current->has_value() && rules.empty()) return std::make_pair(int64_t{0}, false);
  absl::StatusOr<int64_t> version = store_->AddTable(profile_id, rules, reason);
  if (!version.ok()) return version.status();
  return std::make_pair(*version, true);
}

absl::StatusOr<v1::UploadMeasurementsResponse> Tuner::UploadMeasurements(
    const v1::UploadMeasurementsRequest& r) {
  if (absl::Status s = ValidateUpload(r); !s.ok()) return s;
  const db::ProfileKey key = KeyOf(r.context());
  v1::UploadMeasurementsResponse response;
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = store_->InTransaction([&]() -> absl::Status {
    absl::StatusOr<int64_t> profile = store_->UpsertProfile(key);
    if (!profile.ok()) return profile.status();
    absl::StatusOr<int64_t> campaign =
        store_->UpsertCampaign(*profile, r.campaign(), r.host());
    if (!campaign.ok()) return campaign.status();
    for (const v1::Measurement& m : r.measurements()) {
      db::MeasurementInput in;
      in.collective = *ParseCollective(m.collective());
      in.algorithm = *ParseAlgorithm(m.algorithm());
      in.msg_bytes = m.msg_bytes();
      in.samples.assign(m.samples().begin(), m.samples().end());
      if (absl::Status e = store_->PutMeasurement(*campaign, r.launch(), in);
          !e.ok()) {
        return e;
      }
    }
    absl::StatusOr<std::pair<int64_t, bool>> tuned = Retune(
        *profile, "campaign '" + r.campaign() + "' launch " +
                      std::to_string(r.launch()) + ": " +
                      std::to_string(r.measurements_size()) + " points");
    if (!tuned.ok()) return tuned.status();
    response.set_profile_id(*profile);
    response.set_campaign_id(*campaign);
    response.set_stored(r.measurements_size());
    response.set_table_version(tuned->first);
    response.set_table_changed(tuned->second);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<v1::ReportJobResponse> Tuner::ReportJob(
    const v1::ReportJobRequest& r) {
  if (absl::Status s = ValidateReport(r); !s.ok()) return s;
  const db::ProfileKey key = KeyOf(r.context());
  std::vector<db::JobTimingInput> timings;
  for (const v1::JobTiming& t : r.timings()) {
    db::JobTimingInput in;
    in.collective = *ParseCollective(t.collective());
    in.algorithm = *ParseAlgorithm(t.algorithm());
    in.min_bytes = t.min_bytes();
    in.max_bytes = t.max_bytes();
    in.calls = t.calls();
    in.timed_calls = t.timed_calls();
    in.total_seconds = t.total_seconds();
    timings.push_back(in);
  }
  v1::ReportJobResponse response;
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = store_->InTransaction([&]() -> absl::Status {
    absl::StatusOr<int64_t> profile = store_->UpsertProfile(key);
    if (!profile.ok()) return profile.status();
    absl::StatusOr<int64_t> id =
        store_->AddJobReport(*profile, r.job_id(), r.table_version(), timings);
    if (!id.ok()) return id.status();
    response.set_report_id(*id);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<v1::ProfileSummary> Tuner::Summarize(const db::Profile& p) {
  v1::ProfileSummary out;
  out.set_id(p.id);
  ToProto(p.key, out.mutable_context());
  out.set_updated_at(p.updated_at);
  absl::StatusOr<db::ProfileCounts> counts = store_->Counts(p.id);
  if (!counts.ok()) return counts.status();
  out.set_campaigns(counts->campaigns);
  out.set_launches(counts->launches);
  out.set_measurements(counts->measurements);
  out.set_job_reports(counts->job_reports);
  absl::StatusOr<std::optional<db::TableVersion>> t = store_->CurrentTable(p.id);
  if (!t.ok()) return t.status();
  if (t->has_value()) {
    out.set_table_version((*t)->version);
    int differing = 0;
    for (const Rule& r : (*t)->rules) {
      if (r.algorithm != Algorithm::kDefault) ++differing;
    }
    out.set_rules_not_default(differing);
  }
  return out;
}

absl::StatusOr<v1::ListProfilesResponse> Tuner::ListProfiles(
    const v1::ListProfilesRequest& r) {
  if (absl::Status s = ValidateListProfiles(r); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::vector<db::Profile>> all =
      store_->Profiles(r.cluster(), r.library());
  if (!all.ok()) return all.status();
  v1::ListProfilesResponse response;
  for (const db::Profile& p : *all) {
    absl::StatusOr<v1::ProfileSummary> s = Summarize(p);
    if (!s.ok()) return s.status();
    *response.add_profiles() = std::move(*s);
  }
  return response;
}

absl::StatusOr<v1::GetProfileResponse> Tuner::GetProfile(
    const v1::GetProfileRequest& r) {
  if (r.id() <= 0) return absl::InvalidArgumentError("id must be positive");
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(r.id());
  if (!p.ok()) return p.status();
  if (!p->has_value()) {
    return absl::NotFoundError("no profile with id " + std::to_string(r.id()));
  }
  v1::GetProfileResponse response;
  absl::StatusOr<v1::ProfileSummary> summary = Summarize(**p);
  if (!summary.ok()) return summary.status();
  *response.mutable_profile() = std::move(*summary);

  absl::StatusOr<std::vector<db::LaunchPoint>> points =
      store_->LaunchPoints(r.id());
  if (!points.ok()) return points.status();
  // (collective, size, algorithm) -> that point's launches
  std::map<std::tuple<int, int64_t, int>, std::vector<const db::LaunchPoint*>>
      grouped;
  for (const db::LaunchPoint& lp : *points) {
    grouped[{IndexOf(lp.collective), lp.msg_bytes, IndexOf(lp.algorithm)}]
        .push_back(&lp);
  }
  for (const auto& [key, launches] : grouped) {
    v1::PointSummary* out = response.add_points();
    out->set_collective(std::string(InfoOf(launches[0]->collective).name));
    out->set_algorithm(std::string(InfoOf(launches[0]->algorithm).name));
    out->set_msg_bytes(launches[0]->msg_bytes);
    out->set_launches(static_cast<int>(launches.size()));
    std::vector<double> medians;
    double lo = launches[0]->min, hi = launches[0]->max;
    int64_t samples = 0;
    for (const db::LaunchPoint* l : launches) {
      medians.push_back(l->median);
      lo = std::min(lo, l->min);
      hi = std::max(hi, l->max);
      samples += l->nrep;
    }
    out->set_samples(samples);
    out->set_median_seconds(Median(medians));
    out->set_min_seconds(lo);
    out->set_max_seconds(hi);
  }
  absl::StatusOr<std::optional<db::TableVersion>> t = store_->CurrentTable(r.id());
  if (!t.ok()) return t.status();
  ToProto(**p, t->has_value() ? &**t : nullptr, response.mutable_table());
  return response;
}

}  // namespace colltune::daemon
