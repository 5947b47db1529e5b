// The tuner's read-only requests: tables, profiles, history, violations,
// campaigns, job reports and pins as stored (daemon/tuner.h).
#include "daemon/tuner.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "common/limits.h"
#include "common/quirks.h"
#include "common/regime.h"
#include "common/stats.h"
#include "daemon/matching.h"
#include "daemon/validate.h"
#include "proto/context.h"

namespace colltune::daemon {
namespace {

// The job's own section when no profile measured on its node count exists:
// no rules (the library's default everywhere) and the reason why.
void AddWithheldSection(int comm_size, const std::string& reason,
                        v1::DecisionTable* table) {
  v1::TableSection* section = table->add_sections();
  section->set_comm_size(comm_size);
  section->set_reason(reason);
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
  if (IsRuleLayout(r.layout)) out->set_layout(FormatLayoutKey(r.layout));
  if (r.loop) {
    out->set_loop_algorithm(std::string(InfoOf(*r.loop).name));
    out->set_loop_speedup(r.loop_speedup);
  }
  if (r.imbalance) {
    out->set_imbalance_algorithm(std::string(InfoOf(*r.imbalance).name));
    out->set_imbalance_speedup(r.imbalance_speedup);
  }
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

}  // namespace

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
  absl::StatusOr<ProfileChoice> chosen =
      ChooseProfiles(*all, job, limits::kMaxSectionsPerTable);
  if (!chosen.ok()) return chosen.status();
  v1::GetTableResponse response;
  v1::DecisionTable* table = response.mutable_table();
  *table->mutable_context() = ContextToProto(job);
  table->set_reproducible(options_.reproducible);
  bool withheld_added = chosen->withheld.empty();
  for (const db::Profile& p : chosen->profiles) {
    if (!withheld_added && p.key.comm_size > job.comm_size) {
      AddWithheldSection(job.comm_size, chosen->withheld, table);
      withheld_added = true;
    }
    absl::StatusOr<std::optional<db::TableVersion>> t =
        store_->tables().CurrentTable(p.id);
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
        decision.set_layout(rule.layout());
        rule = std::move(decision);
      }
    }
  }
  if (!withheld_added) AddWithheldSection(job.comm_size, chosen->withheld, table);
  return response;
}

absl::StatusOr<v1::ProfileSummary> Tuner::Summarize(const db::Profile& p) {
  v1::ProfileSummary out;
  out.set_id(p.id);
  *out.mutable_context() = ContextToProto(p.key);
  out.set_updated_at(p.updated_at);
  FromCampaigns& cached = from_campaigns_[p.id];
  if (!cached.counts.has_value()) {
    absl::StatusOr<db::ProfileCounts> c = store_->campaigns().Counts(p.id);
    if (!c.ok()) return c.status();
    cached.counts = *c;
  }
  absl::StatusOr<db::ProfileCounts> counts = store_->reports().Counts(p.id);
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
    absl::StatusOr<std::optional<db::TableVersion>> t = store_->tables().CurrentTable(p->id);
    if (!t.ok()) return t.status();
    ContextState c;
    c.profile_id = p->id;
    c.context = p->key;
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
      store_->campaigns().CampaignLaunches(r.id());
  if (!launches.ok()) return launches.status();
  for (const db::CampaignLaunchRow& l : *launches) {
    v1::CampaignLaunch* out = response.add_campaign_launches();
    out->set_campaign(l.label);
    out->set_launch(l.launch);
    out->set_host(l.host);
    out->set_points(static_cast<int32_t>(l.points));
    out->set_uploaded_at(l.uploaded_at);
    out->set_held_out(l.held_out);
    if (l.uid >= 0) {
      out->set_uid(l.uid);
      if (l.gid >= 0) out->set_gid(l.gid);
    }
  }

  absl::StatusOr<std::vector<db::LaunchPoint>> points =
      store_->campaigns().LaunchPoints(r.id());
  if (!points.ok()) return points.status();
  // (collective, problem, size, algorithm, regime) -> that point's launches
  // and whether held-out launches timed it
  std::map<std::tuple<int, std::string, int64_t, int, int, bool>,
           std::vector<const db::LaunchPoint*>>
      grouped;
  for (const db::LaunchPoint& lp : *points) {
    grouped[{IndexOf(lp.collective), lp.problem, lp.msg_bytes, IndexOf(lp.algorithm),
             IndexOf(lp.regime), lp.held_out}]
        .push_back(&lp);
  }
  for (const auto& [key, launches] : grouped) {
    v1::PointSummary* out = response.add_points();
    out->set_collective(std::string(InfoOf(launches[0]->collective).name));
    out->set_algorithm(std::string(InfoOf(launches[0]->algorithm).name));
    out->set_msg_bytes(launches[0]->msg_bytes);
    out->set_problem(launches[0]->problem);
    out->set_regime(std::string(NameOf(launches[0]->regime)));
    out->set_held_out(launches[0]->held_out);
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
  absl::StatusOr<std::optional<db::TableVersion>> t = store_->tables().CurrentTable(r.id());
  if (!t.ok()) return t.status();
  ToProto(**p, t->has_value() ? &**t : nullptr, response.mutable_table());

  absl::StatusOr<std::vector<db::OnlinePoint>> online = store_->reports().OnlinePoints(
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
      store_->tables().TableHistory(r.profile_id());
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
      store_->tables().TableAt(r.profile_id(), r.version());
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
  absl::StatusOr<std::optional<db::TableVersion>> table =
      store_->tables().CurrentTable(r.profile_id());
  if (!table.ok()) return table.status();
  std::vector<Rule> rules;
  if (table->has_value()) {
    for (const db::StoredRule& rule : (*table)->rules) rules.push_back(rule.rule);
  }
  v1::GetViolationsResponse response;
  for (const ViolationFound& v : FindViolations(**medians, options_.engine, rules)) {
    v1::Violation* out = response.add_violations();
    if (v.kind != ViolationKind::kMonotony) {
      out->set_table_algorithm(std::string(InfoOf(v.table_algorithm).name));
      out->set_not_chosen(v.not_chosen);
    }
    out->set_kind(std::string(ViolationKindName(v.kind)));
    out->set_collective(std::string(InfoOf(v.collective).name));
    out->set_algorithm(std::string(InfoOf(v.algorithm).name));
    out->set_guideline(std::string(InfoOf(v.algorithm).guideline));
    out->set_msg_bytes(v.msg_bytes);
    out->set_larger_bytes(v.larger_bytes);
    out->set_factor(v.factor);
    out->set_p_value(v.p_value);
    out->set_launches(v.launches);
    if (IsRuleLayout(v.layout)) out->set_layout(FormatLayoutKey(v.layout));
  }
  if (absl::Status s = AddDefects(r.profile_id(), &response); !s.ok()) return s;
  return response;
}

absl::Status Tuner::AddDefects(int64_t profile_id, v1::GetViolationsResponse* response) {
  absl::StatusOr<std::optional<db::Profile>> p = store_->GetProfile(profile_id);
  if (!p.ok()) return p.status();
  const uint8_t family = p->has_value() ? NativeLibraryOf((*p)->key.library) : 0;
  if (family == 0) return absl::OkStatus();
  absl::StatusOr<std::optional<db::TableVersion>> table = store_->tables().CurrentTable(profile_id);
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
      store_->campaigns().CampaignPoints((*p)->id, r.campaign());
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
      store_->reports().JobReports(r.profile_id(), limit);
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
  absl::StatusOr<std::vector<db::PinRow>> pins = store_->tables().Pins(r.profile_id());
  if (!pins.ok()) return pins.status();
  v1::ListPinsResponse response;
  for (const db::PinRow& p : *pins) ToProto(p, r.profile_id(), response.add_pins());
  return response;
}

}  // namespace colltune::daemon
