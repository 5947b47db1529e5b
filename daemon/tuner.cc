#include "daemon/tuner.h"

#include <map>
#include <tuple>

#include "common/limits.h"
#include "common/quirks.h"
#include "common/regime.h"
#include "common/stats.h"
#include "proto/context.h"

namespace colltune::daemon {
namespace {

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
  db::ProfileKey k = ContextFromProto(c);
  if (k.cluster.empty()) k.cluster = options_.cluster;
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

absl::StatusOr<const std::vector<LaunchMedian>*> Tuner::Medians(int64_t profile_id) {
  FromCampaigns& cached = from_campaigns_[profile_id];
  if (cached.medians.has_value()) return &*cached.medians;
  absl::StatusOr<std::vector<db::LaunchPoint>> points =
      store_->campaigns().LaunchPoints(profile_id);
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
                       p.upper_quartile, p.lower_quartile, p.regime, p.launch_regimes,
                       p.held_out});
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
    absl::StatusOr<std::optional<db::TableVersion>> t = store_->tables().CurrentTable(profile_id);
    if (!t.ok()) return t.status();
    cached = current_tables_.emplace(profile_id, std::move(*t)).first;
  }
  return &cached->second;
}

absl::StatusOr<std::vector<PinnedRange>> Tuner::PinsOf(int64_t profile_id) {
  absl::StatusOr<std::vector<db::PinRow>> rows = store_->tables().Pins(profile_id);
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
        store_->campaigns().Campaigns(profile_id);
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
    if (absl::Status e = store_->tables().RefreshEvidence(profile_id, version, moved); !e.ok()) {
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
  absl::StatusOr<int64_t> version = store_->tables().AddTable(
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
  absl::StatusOr<std::vector<db::OnlinePoint>> online = store_->reports().OnlinePoints(
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

}  // namespace colltune::daemon
