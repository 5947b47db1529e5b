#include "daemon/tuner.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/histogram.h"
#include "common/limits.h"
#include "common/quirks.h"
#include "common/regime.h"
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

// One median per (collective, bucket, algorithm, job): the runs of a job
// (several mpirun launches in one allocation) count once, as the median of
// their medians.
std::vector<JobMedian> PerJob(const std::vector<db::OnlinePoint>& runs) {
  std::map<std::string, int64_t> job_index;
  std::map<int64_t, int64_t> uids;  // job -> uid
  std::map<std::tuple<int, int64_t, int, int64_t>, std::vector<double>> cells;
  std::map<std::tuple<int, int64_t, int, int64_t>, int64_t> max_bytes;
  std::map<std::tuple<int, int64_t, int, int64_t>, std::pair<int64_t, int64_t>> counts;
  for (const db::OnlinePoint& o : runs) {
    // A job is its id and its sender: another uid naming the same job id is
    // another job, not more runs of this one.
    const int64_t job =
        job_index
            .emplace(o.job_id + '\x1f' + std::to_string(o.uid),
                     static_cast<int64_t>(job_index.size()))
            .first->second;
    uids[job] = o.uid;
    const auto key = std::make_tuple(IndexOf(o.collective), o.min_bytes,
                                     IndexOf(o.algorithm), job);
    cells[key].push_back(o.median_seconds);
    max_bytes[key] = o.max_bytes;
    counts[key].first += o.timed_calls;
    counts[key].second += o.explored_calls;
  }
  std::vector<JobMedian> out;
  for (const auto& [key, medians] : cells) {
    out.push_back({static_cast<Collective>(std::get<0>(key)),
                   static_cast<Algorithm>(std::get<2>(key)),
                   static_cast<uint64_t>(std::get<1>(key)),
                   static_cast<uint64_t>(max_bytes[key]), std::get<3>(key),
                   Median(medians), uids[std::get<3>(key)], counts[key].first,
                   counts[key].second});
  }
  return out;
}

int64_t ProtoMax(uint64_t max_bytes) {
  return max_bytes == kNoUpperBound ? -1 : static_cast<int64_t>(max_bytes);
}

void ToProto(const db::StoredRule& s, v1::Rule* out) {
  const Rule& r = s.rule;
  out->set_collective(std::string(InfoOf(r.collective).name));
  out->set_algorithm(std::string(InfoOf(r.algorithm).name));
  out->set_min_bytes(static_cast<int64_t>(r.min_bytes));
  out->set_max_bytes(ProtoMax(r.max_bytes));
  out->set_speedup(r.speedup);
  out->set_p_value(s.p_value);
  out->set_launches_default(s.launches_default);
  out->set_launches_algorithm(s.launches_algorithm);
  size_t start = 0;
  while (start < s.campaigns.size()) {
    size_t end = s.campaigns.find(',', start);
    if (end == std::string::npos) end = s.campaigns.size();
    if (end > start) out->add_campaigns(s.campaigns.substr(start, end - start));
    start = end + 1;
  }
  out->set_pinned(s.pinned);
  out->set_source(s.source);
  for (const RegimeEvidence& e : s.regimes) {
    v1::RegimeEvidence* re = out->add_regimes();
    re->set_regime(std::string(NameOf(e.regime)));
    re->set_speedup(e.speedup);
    re->set_p_value(e.p_value);
    re->set_won(e.won);
  }
}

void ToProto(const db::Profile& p, const db::TableVersion* table,
             v1::TableSection* out) {
  out->set_comm_size(p.key.comm_size);
  out->set_profile_id(p.id);
  if (table == nullptr) return;
  out->set_version(table->version);
  out->set_created_at(table->created_at);
  out->set_reason(table->reason);
  for (const db::StoredRule& r : table->rules) ToProto(r, out->add_rules());
}

void ToProto(const db::PinRow& p, int64_t profile_id, v1::Pin* out) {
  out->set_id(p.id);
  out->set_profile_id(profile_id);
  out->set_collective(std::string(InfoOf(p.collective).name));
  out->set_min_bytes(p.min_bytes);
  out->set_max_bytes(p.max_bytes);
  out->set_algorithm(std::string(InfoOf(p.algorithm).name));
  out->set_note(p.note);
  out->set_created_at(p.created_at);
}

// Whether storing `b` over `a` (the same rule) would change what is served;
// regimes compare as stored (formatted).
bool SameEvidence(const db::StoredRule& a, const db::StoredRule& b) {
  return a.rule.speedup == b.rule.speedup && a.p_value == b.p_value &&
         a.launches_default == b.launches_default &&
         a.launches_algorithm == b.launches_algorithm && a.campaigns == b.campaigns &&
         a.pinned == b.pinned && a.source == b.source &&
         FormatRegimeEvidence(a.regimes) == FormatRegimeEvidence(b.regimes);
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

absl::Status Tuner::RequireProfile(int64_t id) {
  if (id <= 0) return absl::InvalidArgumentError("profile_id must be positive");
  absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(id);
  if (!p.ok()) return p.status();
  if (!p->has_value()) {
    return absl::NotFoundError("no profile with id " + std::to_string(id));
  }
  return absl::OkStatus();
}

void Tuner::TablesChanged() {
  decisions_generation_.fetch_add(1, std::memory_order_acq_rel);
  evidence_generation_.fetch_add(1, std::memory_order_acq_rel);
}

uint64_t Tuner::TablesGeneration(const v1::GetTableRequest& r) const {
  return (r.decisions_only() ? decisions_generation_ : evidence_generation_)
      .load(std::memory_order_acquire);
}

absl::StatusOr<v1::GetTableResponse> Tuner::GetTable(
    const v1::GetTableRequest& r) {
  if (absl::Status s = ValidateGetTable(r); !s.ok()) return s;
  std::string key;
  r.SerializeToString(&key);
  {
    // A hit needs no mu_: a writer that changes a table bumps the
    // generation before its transaction ends, so an equal generation means
    // the committed tables the answer was computed from.
    std::lock_guard<std::mutex> lock(table_cache_mu_);
    auto it = table_cache_.find(key);
    if (it != table_cache_.end() && it->second.generation == TablesGeneration(r)) {
      return it->second.response;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t generation = TablesGeneration(r);
  absl::StatusOr<v1::GetTableResponse> response = ComputeTable(r);
  if (!response.ok()) return response.status();
  std::lock_guard<std::mutex> cache_lock(table_cache_mu_);
  if (table_cache_.size() >= kMaxCachedTables) table_cache_.clear();
  table_cache_[std::move(key)] = CachedTable{generation, *response};
  return response;
}

absl::StatusOr<v1::GetTableResponse> Tuner::ComputeTable(
    const v1::GetTableRequest& r) {
  const db::ProfileKey job = KeyOf(r.context());
  absl::StatusOr<std::vector<db::Profile>> all = store_->Profiles(job.cluster);
  if (!all.ok()) return all.status();
  absl::StatusOr<std::vector<db::Profile>> chosen =
      ChooseProfiles(*all, job, limits::kMaxSectionsPerTable);
  if (!chosen.ok()) return chosen.status();
  v1::GetTableResponse response;
  v1::DecisionTable* table = response.mutable_table();
  ToProto(job, table->mutable_context());
  table->set_reproducible(options_.reproducible);
  for (const db::Profile& p : *chosen) {
    absl::StatusOr<std::optional<db::TableVersion>> t =
        store_->CurrentTable(p.id);
    if (!t.ok()) return t.status();
    if (!t->has_value()) continue;  // measured nothing decidable yet
    v1::TableSection* section = table->add_sections();
    ToProto(p, &**t, section);
    if (r.decisions_only()) {
      for (v1::Rule& rule : *section->mutable_rules()) {
        v1::Rule decision;
        decision.set_collective(rule.collective());
        decision.set_min_bytes(rule.min_bytes());
        decision.set_max_bytes(rule.max_bytes());
        decision.set_algorithm(rule.algorithm());
        rule = std::move(decision);
      }
    }
  }
  return response;
}

absl::StatusOr<const std::vector<LaunchMedian>*> Tuner::Medians(int64_t profile_id) {
  FromCampaigns& cached = from_campaigns_[profile_id];
  if (cached.medians.has_value()) return &*cached.medians;
  absl::StatusOr<std::vector<db::LaunchPoint>> points =
      store_->LaunchPoints(profile_id);
  if (!points.ok()) return points.status();
  absl::StatusOr<std::optional<db::Profile>> profile = store_->GetProfile(profile_id);
  if (!profile.ok()) return profile.status();
  uint8_t family = 0, measured = kFormAny;
  std::string version;
  if (profile->has_value()) {
    const db::ProfileKey& key = (*profile)->key;
    family = NativeLibraryOf(key.library);
    version = key.library_version;
    if ((key.comm_size & (key.comm_size - 1)) != 0) measured |= kFormSizeNotPowerOfTwo;
  }
  std::vector<LaunchMedian> medians;
  medians.reserve(points->size());
  for (const db::LaunchPoint& p : *points) {
    if (family != 0 && (QuirkFormsOf(p.algorithm, family, version) & measured)) continue;
    // Launch indices stay below limits::kMaxLaunches.
    const int64_t launch = p.campaign_id * limits::kMaxLaunches + p.launch;
    medians.push_back({p.collective, p.algorithm, p.msg_bytes, launch,
                       p.campaign_id, p.median, p.problem, p.p_faster_than_default,
                       p.upper_quartile, p.lower_quartile, p.regime, p.launch_regimes});
  }
  cached.medians = std::move(medians);
  return &*cached.medians;
}

absl::Status Tuner::Write(const std::function<absl::Status()>& body) {
  absl::Status s = store_->InTransaction(body);
  // What the body cached may not have committed.
  if (!s.ok()) current_tables_.clear();
  return s;
}

absl::StatusOr<const std::optional<db::TableVersion>*> Tuner::CurrentTable(
    int64_t profile_id) {
  auto cached = current_tables_.find(profile_id);
  if (cached == current_tables_.end()) {
    absl::StatusOr<std::optional<db::TableVersion>> t = store_->CurrentTable(profile_id);
    if (!t.ok()) return t.status();
    cached = current_tables_.emplace(profile_id, std::move(*t)).first;
  }
  return &cached->second;
}

absl::StatusOr<std::vector<PinnedRange>> Tuner::PinsOf(int64_t profile_id) {
  absl::StatusOr<std::vector<db::PinRow>> rows = store_->Pins(profile_id);
  if (!rows.ok()) return rows.status();
  std::vector<PinnedRange> pins;
  for (const db::PinRow& p : *rows) {
    pins.push_back({p.collective, static_cast<uint64_t>(p.min_bytes),
                    p.max_bytes < 0 ? kNoUpperBound
                                    : static_cast<uint64_t>(p.max_bytes),
                    p.algorithm});
  }
  return pins;
}

absl::StatusOr<std::pair<int64_t, bool>> Tuner::StoreIfChanged(
    int64_t profile_id, const std::optional<db::TableVersion>& current,
    const std::vector<Decision>& decisions, const std::string& reason) {
  FromCampaigns& cached = from_campaigns_[profile_id];
  if (!cached.labels.has_value()) {
    absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> campaigns =
        store_->Campaigns(profile_id);
    if (!campaigns.ok()) return campaigns.status();
    cached.labels.emplace(campaigns->begin(), campaigns->end());
  }
  std::map<int64_t, std::string>& label = *cached.labels;
  std::vector<db::StoredRule> rules;
  std::vector<Rule> after;
  for (const Decision& d : decisions) {
    db::StoredRule s;
    s.rule = d.rule;
    s.p_value = d.evidence.p_value;
    s.launches_default = d.evidence.launches_default;
    s.launches_algorithm = d.evidence.launches_algorithm;
    s.pinned = d.evidence.pinned;
    s.source = std::string(SourceName(d.evidence.source));
    s.regimes = d.evidence.regimes;
    for (int64_t c : d.evidence.campaigns) {
      if (!s.campaigns.empty()) s.campaigns += ",";
      s.campaigns += label[c];
    }
    rules.push_back(std::move(s));
    after.push_back(d.rule);
  }
  const std::vector<Rule> before =
      current.has_value() ? current->Rules() : std::vector<Rule>();
  if (current.has_value() && SameDecisions(before, after)) {
    // Same decisions, newer evidence: the current version shows what is
    // known now; versions mark changes of decisions only.
    // Only the rules whose evidence moved are written: a job report
    // usually moves one range's, if any.
    std::vector<db::StoredRule> moved;
    for (size_t i = 0; i < rules.size(); ++i) {
      if (i >= current->rules.size() || !SameEvidence(current->rules[i], rules[i])) {
        moved.push_back(rules[i]);
      }
    }
    if (moved.empty()) return std::make_pair(current->version, false);
    evidence_generation_.fetch_add(1, std::memory_order_acq_rel);
    const int64_t version = current->version;
    if (absl::Status e = store_->RefreshEvidence(profile_id, version, moved); !e.ok()) {
      return e;
    }
    if (auto c = current_tables_.find(profile_id);
        c != current_tables_.end() && c->second.has_value()) {
      c->second->rules = std::move(rules);
    }
    return std::make_pair(version, false);
  }
  if (!current.has_value() && rules.empty()) {
    return std::make_pair(int64_t{0}, false);
  }
  TablesChanged();
  current_tables_.erase(profile_id);
  absl::StatusOr<int64_t> version = store_->AddTable(
      profile_id, rules, reason, DescribeChanges(before, after));
  if (!version.ok()) return version.status();
  return std::make_pair(*version, true);
}

absl::StatusOr<std::pair<int64_t, bool>> Tuner::Retune(
    int64_t profile_id, const std::string& reason) {
  absl::StatusOr<const std::vector<LaunchMedian>*> medians = Medians(profile_id);
  if (!medians.ok()) return medians.status();
  // StoreIfChanged updates or drops the cached table after its last use.
  absl::StatusOr<const std::optional<db::TableVersion>*> current = CurrentTable(profile_id);
  if (!current.ok()) return current.status();
  absl::StatusOr<std::vector<PinnedRange>> pins = PinsOf(profile_id);
  if (!pins.ok()) return pins.status();
  absl::StatusOr<std::vector<db::OnlinePoint>> online = store_->OnlinePoints(
      profile_id, options_.online_window, options_.min_job_samples);
  if (!online.ok()) return online.status();
  const std::vector<JobMedian> jobs = PerJob(*online);
  const std::vector<Rule> before =
      (*current)->has_value() ? (**current)->Rules() : std::vector<Rule>();
  FromCampaigns& cached = from_campaigns_[profile_id];
  if (!cached.decided.has_value() || !SameDecisions(cached.decided->current, before)) {
    cached.decided = CampaignDecided{before, CampaignDecisions(**medians, before, options_.engine)};
  }
  return StoreIfChanged(
      profile_id, **current,
      FinishDecisions(cached.decided->decisions, jobs, before, *pins, options_.engine), reason);
}

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
            store_->Campaigns((*found)->id);
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
        store_->UpsertCampaign(*profile, r.campaign(), r.host());
    if (!campaign.ok()) return campaign.status();
    for (const v1::Measurement& m : r.measurements()) {
      db::MeasurementInput in;
      in.collective = *ParseCollective(m.collective());
      in.algorithm = *ParseAlgorithm(m.algorithm(), in.collective);
      in.msg_bytes = m.msg_bytes();
      in.problem = m.problem();
      in.regime = *ParseRegime(m.regime());  // validated
      in.samples.assign(m.samples().begin(), m.samples().end());
      if (absl::Status e = store_->PutMeasurement(*campaign, r.launch(), in);
          !e.ok()) {
        return e;
      }
    }
    // The launch's sender is that of its newest upload with points: a
    // closing upload without any leaves it as it is.
    if (r.measurements_size() > 0) {
      RegimeSet declared = kSyncOnly;
      for (const std::string& name : r.regimes()) declared |= Bit(*ParseRegime(name));
      if (absl::Status e = store_->PutCampaignLaunch(
              *campaign, r.launch(), from.uid, from.uid >= 0 ? from.gid : -1, declared);
          !e.ok()) {
        return e;
      }
    }
    absl::StatusOr<std::pair<int64_t, bool>> tuned;
    if (r.partial()) {
      absl::StatusOr<std::optional<db::TableVersion>> t =
          store_->CurrentTable(*profile);
      if (!t.ok()) return t.status();
      tuned = std::make_pair(t->has_value() ? (*t)->version : int64_t{0}, false);
    } else {
      tuned = Retune(*profile, "campaign '" + r.campaign() + "' launch " +
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
  absl::StatusOr<std::pair<int64_t, bool>> stored = store_->PutJobReport(report);
  if (!stored.ok()) return stored.status();
  response->set_report_id(stored->first);
  response->set_replaced(stored->second);
  return absl::OkStatus();
}

absl::StatusOr<v1::ProfileSummary> Tuner::Summarize(const db::Profile& p) {
  v1::ProfileSummary out;
  out.set_id(p.id);
  ToProto(p.key, out.mutable_context());
  out.set_updated_at(p.updated_at);
  FromCampaigns& cached = from_campaigns_[p.id];
  if (!cached.counts.has_value()) {
    absl::StatusOr<db::ProfileCounts> c = store_->CampaignCounts(p.id);
    if (!c.ok()) return c.status();
    cached.counts = *c;
  }
  absl::StatusOr<db::ProfileCounts> counts = store_->ReportCounts(p.id);
  if (!counts.ok()) return counts.status();
  counts->campaigns = cached.counts->campaigns;
  counts->launches = cached.counts->launches;
  counts->measurements = cached.counts->measurements;
  out.set_campaigns(counts->campaigns);
  out.set_launches(counts->launches);
  out.set_measurements(counts->measurements);
  out.set_job_reports(counts->job_reports);
  out.set_last_report_at(counts->last_report_at);
  absl::StatusOr<const std::optional<db::TableVersion>*> t = CurrentTable(p.id);
  if (!t.ok()) return t.status();
  if ((*t)->has_value()) {
    out.set_table_version((**t)->version);
    out.set_rules_not_default((**t)->RulesNotDefault());
  }
  absl::StatusOr<const std::map<std::string, int64_t>*> by_kind = ViolationCounts(p.id);
  if (!by_kind.ok()) return by_kind.status();
  int64_t violations = 0;
  for (const auto& [kind, n] : **by_kind) violations += n;
  out.set_violations(static_cast<int>(violations));
  return out;
}

absl::StatusOr<const std::map<std::string, int64_t>*> Tuner::ViolationCounts(
    int64_t profile_id) {
  absl::StatusOr<const std::vector<LaunchMedian>*> medians = Medians(profile_id);
  if (!medians.ok()) return medians.status();
  FromCampaigns& cached = from_campaigns_[profile_id];
  if (!cached.violations.has_value()) {
    std::map<std::string, int64_t> counts;
    for (const ViolationFound& v : FindViolations(**medians, options_.engine)) {
      ++counts[std::string(ViolationKindName(v.kind))];
    }
    cached.violations = std::move(counts);
  }
  return &*cached.violations;
}

absl::StatusOr<TunerState> Tuner::State() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::vector<db::Profile>> all = store_->Profiles();
  if (!all.ok()) return all.status();
  TunerState state;
  state.profiles = static_cast<int64_t>(all->size());
  for (ViolationKind k : {ViolationKind::kGuideline, ViolationKind::kSelection,
                          ViolationKind::kMonotony}) {
    state.violations[std::string(ViolationKindName(k))] = 0;
  }
  // Newest first (updated_at is an ISO timestamp); ties by id.
  std::vector<const db::Profile*> order;
  for (const db::Profile& p : *all) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const db::Profile* a, const db::Profile* b) {
    return std::tie(a->updated_at, a->id) > std::tie(b->updated_at, b->id);
  });
  for (const db::Profile* p : order) {
    absl::StatusOr<const std::map<std::string, int64_t>*> counts = ViolationCounts(p->id);
    if (!counts.ok()) return counts.status();
    for (const auto& [kind, n] : **counts) state.violations[kind] += n;
    if (state.contexts.size() >= static_cast<size_t>(kMaxContextsExported)) continue;
    absl::StatusOr<std::optional<db::TableVersion>> t = store_->CurrentTable(p->id);
    if (!t.ok()) return t.status();
    ContextState c;
    c.profile_id = p->id;
    c.cluster = p->key.cluster;
    c.library = p->key.library;
    c.library_version = p->key.library_version;
    c.comm_size = p->key.comm_size;
    c.nodes = p->key.nodes;
    c.ppn = p->key.ppn;
    c.table_version = t->has_value() ? (*t)->version : 0;
    state.contexts.push_back(std::move(c));
  }
  return state;
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
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.id()); !s.ok()) return s;
  absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(r.id());
  if (!p.ok()) return p.status();
  v1::GetProfileResponse response;
  absl::StatusOr<v1::ProfileSummary> summary = Summarize(**p);
  if (!summary.ok()) return summary.status();
  *response.mutable_profile() = std::move(*summary);

  absl::StatusOr<std::vector<db::CampaignLaunchRow>> launches =
      store_->CampaignLaunches(r.id());
  if (!launches.ok()) return launches.status();
  for (const db::CampaignLaunchRow& l : *launches) {
    v1::CampaignLaunch* out = response.add_campaign_launches();
    out->set_campaign(l.label);
    out->set_launch(l.launch);
    out->set_host(l.host);
    out->set_points(static_cast<int32_t>(l.points));
    out->set_uploaded_at(l.uploaded_at);
    if (l.uid >= 0) {
      out->set_uid(l.uid);
      if (l.gid >= 0) out->set_gid(l.gid);
    }
  }

  absl::StatusOr<std::vector<db::LaunchPoint>> points =
      store_->LaunchPoints(r.id());
  if (!points.ok()) return points.status();
  // (collective, problem, size, algorithm, regime) -> that point's launches
  std::map<std::tuple<int, std::string, int64_t, int, int>,
           std::vector<const db::LaunchPoint*>>
      grouped;
  for (const db::LaunchPoint& lp : *points) {
    grouped[{IndexOf(lp.collective), lp.problem, lp.msg_bytes, IndexOf(lp.algorithm),
             IndexOf(lp.regime)}]
        .push_back(&lp);
  }
  for (const auto& [key, launches] : grouped) {
    v1::PointSummary* out = response.add_points();
    out->set_collective(std::string(InfoOf(launches[0]->collective).name));
    out->set_algorithm(std::string(InfoOf(launches[0]->algorithm).name));
    out->set_msg_bytes(launches[0]->msg_bytes);
    out->set_problem(launches[0]->problem);
    out->set_regime(std::string(NameOf(launches[0]->regime)));
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
    out->set_launch_min_seconds(*std::min_element(medians.begin(), medians.end()));
    out->set_launch_max_seconds(*std::max_element(medians.begin(), medians.end()));
  }
  absl::StatusOr<std::optional<db::TableVersion>> t = store_->CurrentTable(r.id());
  if (!t.ok()) return t.status();
  ToProto(**p, t->has_value() ? &**t : nullptr, response.mutable_table());

  absl::StatusOr<std::vector<db::OnlinePoint>> online = store_->OnlinePoints(
      r.id(), options_.online_window, options_.min_job_samples);
  if (!online.ok()) return online.status();
  // (collective, bucket, algorithm) -> its jobs
  std::map<std::tuple<int, int64_t, int>, std::vector<const db::OnlinePoint*>> cells;
  for (const db::OnlinePoint& o : *online) {
    cells[{IndexOf(o.collective), o.min_bytes, IndexOf(o.algorithm)}].push_back(&o);
  }
  for (const auto& [cell, jobs] : cells) {
    v1::OnlineSummary* out = response.add_online();
    out->set_collective(std::string(InfoOf(jobs[0]->collective).name));
    out->set_algorithm(std::string(InfoOf(jobs[0]->algorithm).name));
    out->set_min_bytes(jobs[0]->min_bytes);
    out->set_max_bytes(jobs[0]->max_bytes);
    std::map<std::string, std::vector<double>> per_job;
    int64_t timed = 0, explored = 0;
    for (const db::OnlinePoint* j : jobs) {
      per_job[j->job_id].push_back(j->median_seconds);
      timed += j->timed_calls;
      explored += j->explored_calls;
    }
    std::vector<double> medians;
    for (const auto& [job, runs] : per_job) medians.push_back(Median(runs));
    out->set_jobs(static_cast<int>(per_job.size()));
    out->set_timed_calls(timed);
    out->set_explored_calls(explored);
    out->set_median_seconds(Median(medians));
  }
  return response;
}

absl::StatusOr<v1::GetTableHistoryResponse> Tuner::GetTableHistory(
    const v1::GetTableHistoryRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  absl::StatusOr<std::vector<db::TableVersionInfo>> history =
      store_->TableHistory(r.profile_id());
  if (!history.ok()) return history.status();
  v1::GetTableHistoryResponse response;
  for (const db::TableVersionInfo& v : *history) {
    v1::TableVersionSummary* out = response.add_versions();
    out->set_version(v.version);
    out->set_created_at(v.created_at);
    out->set_reason(v.reason);
    out->set_changes(v.changes);
    out->set_rules_not_default(v.rules_not_default);
  }
  return response;
}

absl::StatusOr<v1::GetTableVersionResponse> Tuner::GetTableVersion(
    const v1::GetTableVersionRequest& r) {
  if (r.version() < 0) return absl::InvalidArgumentError("version must not be negative");
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(r.profile_id());
  if (!p.ok()) return p.status();
  absl::StatusOr<std::optional<db::TableVersion>> t =
      store_->TableAt(r.profile_id(), r.version());
  if (!t.ok()) return t.status();
  if (!t->has_value()) {
    return absl::NotFoundError("profile " + std::to_string(r.profile_id()) +
                               " has no table version " +
                               std::to_string(r.version()));
  }
  v1::GetTableVersionResponse response;
  ToProto(**p, &**t, response.mutable_table());
  return response;
}

absl::StatusOr<v1::GetViolationsResponse> Tuner::GetViolations(
    const v1::GetViolationsRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  absl::StatusOr<const std::vector<LaunchMedian>*> medians = Medians(r.profile_id());
  if (!medians.ok()) return medians.status();
  v1::GetViolationsResponse response;
  for (const ViolationFound& v : FindViolations(**medians, options_.engine)) {
    v1::Violation* out = response.add_violations();
    out->set_kind(std::string(ViolationKindName(v.kind)));
    out->set_collective(std::string(InfoOf(v.collective).name));
    out->set_algorithm(std::string(InfoOf(v.algorithm).name));
    out->set_guideline(std::string(InfoOf(v.algorithm).guideline));
    out->set_msg_bytes(v.msg_bytes);
    out->set_larger_bytes(v.larger_bytes);
    out->set_factor(v.factor);
    out->set_p_value(v.p_value);
    out->set_launches(v.launches);
  }
  if (absl::Status s = AddDefects(r.profile_id(), &response); !s.ok()) return s;
  return response;
}

absl::Status Tuner::AddDefects(int64_t profile_id, v1::GetViolationsResponse* response) {
  absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(profile_id);
  if (!p.ok()) return p.status();
  const uint8_t family = p->has_value() ? NativeLibraryOf((*p)->key.library) : 0;
  if (family == 0) return absl::OkStatus();
  absl::StatusOr<std::optional<db::TableVersion>> table = store_->CurrentTable(profile_id);
  if (!table.ok()) return table.status();
  for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
    if (!(q->library & family) || !QuirkApplies(*q, (*p)->key.library_version)) continue;
    bool in_table = false;
    if (table->has_value()) {
      for (const db::StoredRule& rule : (*table)->rules) {
        in_table = in_table ||
                   QuirkHolds(*q, rule.rule.algorithm, family, (*p)->key.library_version);
      }
    }
    v1::Violation* out = response->add_violations();
    out->set_kind("defect");
    out->set_collective(std::string(InfoOf(q->collective).name));
    out->set_algorithm("native:" + std::string(q->algorithm));
    out->set_forms(QuirkFormNames(q->forms));
    out->set_evidence(std::string((*p)->key.library) + " " + std::string(q->seen_in) + ": " +
                      std::string(q->evidence));
    out->set_in_table(in_table);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::GetCampaignResponse> Tuner::GetCampaign(
    const v1::GetCampaignRequest& r) {
  if (absl::Status s = ValidateGetCampaign(r); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::optional<db::Profile>> p =
      store_->FindProfile(KeyOf(r.context()));
  if (!p.ok()) return p.status();
  v1::GetCampaignResponse response;
  if (!p->has_value()) return response;
  absl::StatusOr<std::vector<db::StoredPointRow>> points =
      store_->CampaignPoints((*p)->id, r.campaign());
  if (!points.ok()) return points.status();
  for (const db::StoredPointRow& sp : *points) {
    v1::StoredPoint* out = response.add_points();
    out->set_launch(sp.launch);
    out->set_collective(std::string(InfoOf(sp.collective).name));
    out->set_algorithm(std::string(InfoOf(sp.algorithm).name));
    out->set_msg_bytes(sp.msg_bytes);
    out->set_problem(sp.problem);
    out->set_samples(static_cast<int32_t>(sp.samples));
    out->set_regime(std::string(NameOf(sp.regime)));
  }
  return response;
}

absl::StatusOr<v1::ListJobReportsResponse> Tuner::ListJobReports(
    const v1::ListJobReportsRequest& r) {
  if (r.limit() < 0 || r.limit() > limits::kMaxJobReportsListed) {
    return absl::InvalidArgumentError(
        "limit must be 1.." + std::to_string(limits::kMaxJobReportsListed) + " (0 means 50)");
  }
  const int limit = r.limit() == 0 ? 50 : r.limit();
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  absl::StatusOr<std::pair<std::vector<db::JobReportRow>, int>> reports =
      store_->JobReports(r.profile_id(), limit);
  if (!reports.ok()) return reports.status();
  v1::ListJobReportsResponse response;
  response.set_total(reports->second);
  for (const db::JobReportRow& row : reports->first) {
    v1::JobReportSummary* out = response.add_reports();
    out->set_id(row.id);
    out->set_job_id(row.job_id);
    out->set_run_id(row.run_id);
    out->set_received_at(row.received_at);
    out->set_table_version(row.table_version);
    out->set_source(row.source);
    out->set_final(row.final);
    out->set_ranks(row.ranks);
    if (row.uid >= 0) {
      out->set_uid(row.uid);
      out->set_gid(row.gid);
    }
    out->set_slurm_job_id(row.slurm_job_id);
    for (const CollectiveObserved& o : ObserveCollectives(row.timings)) {
      v1::CollectiveObservation* c = out->add_collectives();
      c->set_collective(std::string(InfoOf(o.collective).name));
      c->set_calls(o.calls);
      c->set_tuned_calls(o.tuned_calls);
      c->set_speedup(o.speedup);
      c->set_compared_calls(o.compared_calls);
    }
    for (const db::CountedCallsRow& c : row.counted) {
      v1::CountedCalls* o = out->add_counted();
      o->set_kind(c.kind);
      o->set_collective(c.collective);
      o->set_min_bytes(c.min_bytes);
      o->set_max_bytes(c.max_bytes);
      o->set_calls(c.calls);
    }
  }
  return response;
}

absl::StatusOr<v1::ListPinsResponse> Tuner::ListPins(
    const v1::ListPinsRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = RequireProfile(r.profile_id()); !s.ok()) return s;
  absl::StatusOr<std::vector<db::PinRow>> pins = store_->Pins(r.profile_id());
  if (!pins.ok()) return pins.status();
  v1::ListPinsResponse response;
  for (const db::PinRow& p : *pins) ToProto(p, r.profile_id(), response.add_pins());
  return response;
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
        store_->TableAt(r.profile_id(), r.version());
    if (!old.ok()) return old.status();
    if (!old->has_value()) {
      return absl::NotFoundError("profile " + std::to_string(r.profile_id()) +
                                 " has no table version " +
                                 std::to_string(r.version()));
    }
    absl::StatusOr<std::optional<db::TableVersion>> current =
        store_->CurrentTable(r.profile_id());
    if (!current.ok()) return current.status();
    absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> campaigns =
        store_->Campaigns(r.profile_id());
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
    absl::StatusOr<int64_t> id = store_->AddPin(pin.profile_id(), row);
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
    absl::StatusOr<bool> found = store_->DeletePin(r.profile_id(), r.pin_id());
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
