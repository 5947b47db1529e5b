// The tuner's writes: campaign uploads, job reports (group commit),
// rollbacks and pins (daemon/tuner.h).
#include "daemon/tuner.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/histogram.h"
#include "common/limits.h"
#include "common/regime.h"
#include "daemon/validate.h"

namespace colltune::daemon {
namespace {

// The Slurm job of a job id the shim made from SLURM_JOB_ID ("slurm:1234",
// shim/runtime/config.cc), else "".
std::string SlurmJobId(const std::string& job_id) {
  if (job_id.rfind("slurm:", 0) != 0 || job_id.size() == 6 || job_id.size() > 38) {
    return "";
  }
  for (size_t i = 6; i < job_id.size(); ++i) {
    const char c = job_id[i];
    if (!((c >= '0' && c <= '9') || c == '_' || c == '+')) return "";
  }
  return job_id.substr(6);
}

}  // namespace

absl::StatusOr<v1::UploadMeasurementsResponse> Tuner::UploadMeasurements(
    const v1::UploadMeasurementsRequest& r, const Uploader& from) {
  if (absl::Status s = ValidateUpload(r); !s.ok()) return s;
  const db::ProfileKey key = KeyOf(r.context());
  v1::UploadMeasurementsResponse response;
  std::lock_guard<std::mutex> lock(mu_);
  from_campaigns_.clear();
  // Retunes inside the transaction cache what it holds, committed or not.
  struct ClearAfter {
    Tuner* tuner;
    ~ClearAfter() {
      tuner->from_campaigns_.clear();
      tuner->current_tables_.clear();
    }
  } clear_after{this};
  // A closing upload may add a profile's first table (and cannot be told
  // from one that does not before its transaction).
  TablesChanged();
  absl::Status s = store_->InTransaction([&]() -> absl::Status {
    if (r.measurements_size() == 0) {
      // A closing upload with no points only makes sense after partial ones;
      // refusing it otherwise keeps empty profiles out of the store.
      absl::StatusOr<std::optional<db::Profile>> found = store_->FindProfile(key);
      if (!found.ok()) return found.status();
      bool known = false;
      if (found->has_value()) {
        absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> campaigns =
            store_->campaigns().Campaigns((*found)->id);
        if (!campaigns.ok()) return campaigns.status();
        for (const auto& c : *campaigns) known = known || c.second == r.campaign();
      }
      if (!known) {
        return absl::FailedPreconditionError(
            "upload without measurements closes a launch, but nothing of campaign '" +
            r.campaign() + "' is stored for this context");
      }
    }
    absl::StatusOr<int64_t> profile = store_->UpsertProfile(key);
    if (!profile.ok()) return profile.status();
    absl::StatusOr<int64_t> campaign =
        store_->campaigns().UpsertCampaign(*profile, r.campaign(), r.host(), r.held_out());
    if (!campaign.ok()) return campaign.status();
    for (const v1::Measurement& m : r.measurements()) {
      db::MeasurementInput in;
      in.collective = *ParseCollective(m.collective());
      in.algorithm = *ParseAlgorithm(m.algorithm(), in.collective);
      in.msg_bytes = m.msg_bytes();
      in.problem = m.problem();
      in.regime = *ParseRegime(m.regime());  // validated
      in.samples.assign(m.samples().begin(), m.samples().end());
      if (absl::Status e = store_->campaigns().PutMeasurement(*campaign, r.launch(), in);
          !e.ok()) {
        return e;
      }
    }
    // The launch's sender is that of its newest upload with points: a
    // closing upload without any leaves it as it is.
    if (r.measurements_size() > 0) {
      RegimeSet declared = kSyncOnly;
      for (const std::string& name : r.regimes()) declared |= Bit(*ParseRegime(name));
      if (absl::Status e = store_->campaigns().PutCampaignLaunch(
              *campaign, r.launch(), from.uid, from.uid >= 0 ? from.gid : -1, declared);
          !e.ok()) {
        return e;
      }
    }
    absl::StatusOr<std::pair<int64_t, bool>> tuned;
    if (r.partial()) {
      absl::StatusOr<std::optional<db::TableVersion>> t =
          store_->tables().CurrentTable(*profile);
      if (!t.ok()) return t.status();
      tuned = std::make_pair(t->has_value() ? (*t)->version : int64_t{0}, false);
    } else {
      tuned = Retune(*profile, std::string(r.held_out() ? "held-out validation '" : "campaign '") +
                                   r.campaign() + "' launch " +
                                   std::to_string(r.launch()));
    }
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
    const v1::ReportJobRequest& r, const Uploader& from) {
  ReportRejection why = ReportRejection::kStoreError;
  if (absl::Status s = ValidateReport(r, &why); !s.ok()) {
    if (metrics_ != nullptr) metrics_->ReportRejected(why);
    return s;
  }
  // Group commit (LevelDB's writers): reports queue up; the one at the front
  // stores every report queued behind it in one transaction, then retunes
  // each profile they name once, and hands each sender its answer.
  PendingReport me;
  me.request = &r;
  me.from = &from;
  std::unique_lock<std::mutex> queue_lock(queue_mu_);
  reports_.push_back(&me);
  while (!me.done && &me != reports_.front()) me.cv.wait(queue_lock);
  if (me.done) return std::move(me.result);
  std::vector<PendingReport*> batch;
  for (PendingReport* p : reports_) {
    if (batch.size() == kMaxReportsPerCommit) break;
    batch.push_back(p);
  }
  queue_lock.unlock();
  StoreReports(batch);
  queue_lock.lock();
  for (size_t i = 0; i < batch.size(); ++i) {
    PendingReport* p = reports_.front();
    reports_.pop_front();
    if (p != &me) {
      p->done = true;
      p->cv.notify_one();
    }
  }
  if (!reports_.empty()) reports_.front()->cv.notify_one();
  return std::move(me.result);
}

void Tuner::StoreReports(const std::vector<PendingReport*>& batch) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = CommitReports(batch);
  if (!s.ok() && batch.size() > 1) {
    // One report's failure must not fail the others': each alone.
    for (PendingReport* p : batch) {
      p->result = v1::ReportJobResponse();
      absl::Status alone = CommitReports({p});
      if (!alone.ok()) p->result = alone;
    }
  } else if (!s.ok()) {
    batch[0]->result = s;
  }
  for (PendingReport* p : batch) {
    if (metrics_ == nullptr) continue;
    if (!p->result.ok()) {
      metrics_->ReportRejected(ReportRejection::kStoreError);
      continue;
    }
    int64_t timed = 0, explored = 0;
    for (const v1::JobTiming& t : p->request->timings()) {
      timed += t.timed_calls();
      explored += t.explored_calls();
    }
    metrics_->ReportIngested(p->request->source(), p->result->timings_stored(),
                             p->result->timings_unattributed(), timed, explored);
  }
}

absl::Status Tuner::CommitReports(const std::vector<PendingReport*>& batch) {
  return Write([&]() -> absl::Status {
    // profile -> the reports whose evidence it takes, in order
    std::map<int64_t, std::vector<PendingReport*>> by_profile;
    for (PendingReport* p : batch) {
      p->result = v1::ReportJobResponse();
      std::set<int64_t> targets;
      if (absl::Status e = StoreReport(*p->request, *p->from, &*p->result, &targets);
          !e.ok()) {
        return e;
      }
      for (int64_t t : targets) by_profile[t].push_back(p);
    }
    for (const auto& [profile, reports] : by_profile) {
      std::string reason = "online: job '" + reports.front()->request->job_id() + "'";
      if (reports.size() > 1) {
        reason += " and " + std::to_string(reports.size() - 1) + " more";
      }
      absl::StatusOr<std::pair<int64_t, bool>> tuned = Retune(profile, reason);
      if (!tuned.ok()) return tuned.status();
      if (!tuned->second) continue;
      for (PendingReport* p : reports) p->result->add_retuned_profiles(profile);
    }
    return absl::OkStatus();
  });
}

absl::Status Tuner::StoreReport(const v1::ReportJobRequest& r, const Uploader& from,
                                v1::ReportJobResponse* response,
                                std::set<int64_t>* targets) {
  const db::ProfileKey key = KeyOf(r.context());
  absl::StatusOr<int64_t> own = store_->UpsertProfile(key);
  if (!own.ok()) return own.status();
  db::JobReportInput report;
  report.profile_id = *own;
  report.job_id = r.job_id();
  report.run_id = r.run_id();
  report.table_version = r.table_version();
  report.source = r.source().empty() ? "online" : r.source();
  report.final = r.final();
  report.ranks = std::max(1, r.ranks());
  report.uid = from.uid;
  report.gid = from.uid >= 0 ? from.gid : -1;
  report.slurm_job_id = SlurmJobId(r.job_id());
  for (const v1::JobTiming& t : r.timings()) {
    db::JobTimingInput in;
    in.collective = *ParseCollective(t.collective());
    in.algorithm = *ParseAlgorithm(t.algorithm(), in.collective);
    in.min_bytes = t.min_bytes();
    in.max_bytes = t.max_bytes();
    in.calls = t.calls();
    in.timed_calls = t.timed_calls();
    in.total_seconds = t.total_seconds();
    in.comm_size = t.comm_size();
    in.explored_calls = t.explored_calls();
    in.first_bin = t.first_bin();
    in.bins.assign(t.bins().begin(), t.bins().end());
    in.median_seconds =
        histogram::Quantile(in.bins.data(), static_cast<int>(in.bins.size()),
                            in.first_bin, 0.5) * 1e-9;
    // The evidence belongs to the profile of exactly these communicators:
    // the section's profile if it has their size (same cluster and
    // library), else the job's own profile if they span the job.
    if (t.profile_id() > 0) {
      absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(t.profile_id());
      if (!p.ok()) return p.status();
      if (p->has_value() && (*p)->key.comm_size == t.comm_size() &&
          (*p)->key.cluster == key.cluster && (*p)->key.library == key.library &&
          (*p)->key.library_version == key.library_version) {
        in.profile_id = (*p)->id;
      }
    }
    if (in.profile_id == 0 && t.comm_size() == key.comm_size) in.profile_id = *own;
    if (in.profile_id > 0) {
      targets->insert(in.profile_id);
      response->set_timings_stored(response->timings_stored() + 1);
    } else {
      response->set_timings_unattributed(response->timings_unattributed() + 1);
    }
    report.timings.push_back(std::move(in));
  }
  for (const v1::CountedCalls& c : r.counted()) {
    db::CountedCallsRow row;
    row.kind = c.kind();
    row.collective = c.collective();
    row.min_bytes = c.min_bytes();
    row.max_bytes = c.max_bytes();
    row.calls = c.calls();
    report.counted.push_back(std::move(row));
  }
  absl::StatusOr<std::pair<int64_t, bool>> stored = store_->reports().PutJobReport(report);
  if (!stored.ok()) return stored.status();
  response->set_report_id(stored->first);
  response->set_replaced(stored->second);
  return absl::OkStatus();
}

absl::StatusOr<v1::RollbackTableResponse> Tuner::RollbackTable(
    const v1::RollbackTableRequest& r) {
  if (r.version() <= 0) return absl::InvalidArgumentError("version must be positive");
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  v1::RollbackTableResponse response;
  TablesChanged();
  current_tables_.erase(r.profile_id());
  absl::Status s = Write([&]() -> absl::Status {
    absl::StatusOr<std::optional<db::TableVersion>> old =
        store_->tables().TableAt(r.profile_id(), r.version());
    if (!old.ok()) return old.status();
    if (!old->has_value()) {
      return absl::NotFoundError("profile " + std::to_string(r.profile_id()) +
                                 " has no table version " +
                                 std::to_string(r.version()));
    }
    absl::StatusOr<std::optional<db::TableVersion>> current =
        store_->tables().CurrentTable(r.profile_id());
    if (!current.ok()) return current.status();
    absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> campaigns =
        store_->campaigns().Campaigns(r.profile_id());
    if (!campaigns.ok()) return campaigns.status();
    std::map<std::string, int64_t> id_of;
    for (const auto& [id, label] : *campaigns) id_of[label] = id;
    // The old rules with their old evidence become the incumbent; today's
    // pins still hold over them. Later retunes replace a rolled-back choice
    // only on significant new evidence (the engine's hysteresis); a choice
    // that must stay regardless of evidence is a pin.
    std::vector<Decision> decisions;
    for (const db::StoredRule& stored : (*old)->rules) {
      Decision d;
      d.rule = stored.rule;
      d.evidence.p_value = stored.p_value;
      d.evidence.launches_default = stored.launches_default;
      d.evidence.launches_algorithm = stored.launches_algorithm;
      d.evidence.pinned = stored.pinned;
      d.evidence.source = stored.source == "online" ? Source::kOnline
                          : stored.pinned           ? Source::kPin
                                                    : Source::kCampaign;
      size_t start = 0;
      while (start < stored.campaigns.size()) {
        size_t end = stored.campaigns.find(',', start);
        if (end == std::string::npos) end = stored.campaigns.size();
        auto it = id_of.find(stored.campaigns.substr(start, end - start));
        if (it != id_of.end()) d.evidence.campaigns.push_back(it->second);
        start = end + 1;
      }
      decisions.push_back(std::move(d));
    }
    absl::StatusOr<std::vector<PinnedRange>> pins = PinsOf(r.profile_id());
    if (!pins.ok()) return pins.status();
    ApplyPins(*pins, &decisions);
    absl::StatusOr<std::pair<int64_t, bool>> stored = StoreIfChanged(
        r.profile_id(), *current, decisions,
        "rollback to version " + std::to_string(r.version()));
    if (!stored.ok()) return stored.status();
    response.set_table_version(stored->first);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<v1::PinResponse> Tuner::Pin(const v1::PinRequest& r) {
  if (absl::Status s = ValidatePin(r); !s.ok()) return s;
  const v1::Pin& pin = r.pin();
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(pin.profile_id()); !s.ok()) return s;
  v1::PinResponse response;
  absl::Status s = Write([&]() -> absl::Status {
    db::PinRow row;
    row.collective = *ParseCollective(pin.collective());
    row.algorithm = *ParseAlgorithm(pin.algorithm(), row.collective);
    row.min_bytes = pin.min_bytes();
    row.max_bytes = pin.max_bytes();
    row.note = pin.note();
    absl::StatusOr<int64_t> id = store_->tables().AddPin(pin.profile_id(), row);
    if (!id.ok()) return id.status();
    absl::StatusOr<std::pair<int64_t, bool>> tuned = Retune(
        pin.profile_id(), "pin #" + std::to_string(*id) + ": " +
                              pin.collective() + " " +
                              std::to_string(pin.min_bytes()) + "-" +
                              (pin.max_bytes() < 0
                                   ? std::string("inf")
                                   : std::to_string(pin.max_bytes())) +
                              " " + pin.algorithm());
    if (!tuned.ok()) return tuned.status();
    response.set_pin_id(*id);
    response.set_table_version(tuned->first);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<v1::UnpinResponse> Tuner::Unpin(const v1::UnpinRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  v1::UnpinResponse response;
  absl::Status s = Write([&]() -> absl::Status {
    absl::StatusOr<bool> found = store_->tables().DeletePin(r.profile_id(), r.pin_id());
    if (!found.ok()) return found.status();
    if (!*found) {
      return absl::NotFoundError("profile " + std::to_string(r.profile_id()) +
                                 " has no pin " + std::to_string(r.pin_id()));
    }
    absl::StatusOr<std::pair<int64_t, bool>> tuned =
        Retune(r.profile_id(), "unpin #" + std::to_string(r.pin_id()));
    if (!tuned.ok()) return tuned.status();
    response.set_table_version(tuned->first);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return response;
}

}  // namespace colltune::daemon
