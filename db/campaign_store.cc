#include "db/campaign_store.h"

#include "absl/strings/str_cat.h"
#include "common/stats.h"
#include "db/rows.h"
#include "db/samples.h"

namespace colltune::db {

absl::StatusOr<int64_t> CampaignStore::UpsertCampaign(int64_t profile_id,
                                              std::string_view label,
                                              std::string_view host, bool held_out) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = c_->db->Query(
      absl::StrCat("INSERT INTO campaigns (profile_id, label, host, created_at, held_out) "
                   "VALUES (?, ?, ?, ",
                   kNow,
                   ", ?) ON CONFLICT (profile_id, label) DO UPDATE SET host = host "
                   "RETURNING id, held_out"),
      profile_id, label, host, int64_t{held_out ? 1 : 0});
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if ((st->Int(1) != 0) != held_out) {
    return absl::FailedPreconditionError(absl::StrCat(
        "campaign '", std::string(label), "' is stored as ",
        held_out ? "a campaign: its label cannot name a held-out validation"
                 : "a held-out validation: its label cannot name a campaign"));
  }
  return st->Int(0);
}

absl::Status CampaignStore::PutMeasurement(int64_t campaign_id, int launch,
                                   const MeasurementInput& m) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  const Summary sum = Summarize(m.samples);
  const std::string blob = EncodeSamples(m.samples);
  absl::StatusOr<Statement> st = c_->db->Prepare(
      "INSERT OR REPLACE INTO measurements (campaign_id, launch, collective, "
      "algorithm, msg_bytes, nrep, median_s, mean_s, min_s, max_s, stddev_s, "
      "samples, problem, upper_quartile_s, lower_quartile_s, regime) VALUES (?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!st.ok()) return st.status();
  const absl::Status inserted = st->Bind(1, campaign_id)
      .Bind(2, int64_t{launch})
      .Bind(3, Name(m.collective))
      .Bind(4, Name(m.algorithm))
      .Bind(5, m.msg_bytes)
      .Bind(6, sum.n)
      .Bind(7, sum.median)
      .Bind(8, sum.mean)
      .Bind(9, sum.min)
      .Bind(10, sum.max)
      .Bind(11, sum.stddev)
      .BindBlob(12, blob.data(), blob.size())
      .Bind(13, m.problem)
      .Bind(14, UpperQuartile(m.samples))
      .Bind(15, LowerQuartile(m.samples))
      .Bind(16, std::string(NameOf(m.regime)))
      .Run();
  if (!inserted.ok()) return inserted;
  return UpdateWithinLaunchTests(campaign_id, launch, m);
}

// The within-launch comparison (migration 10): whichever of default and an
// algorithm arrives second completes the pair, so upload order and uploads
// split across requests do not matter. Both sides are compared as stored
// (float32), so a value never depends on which side came first.
absl::Status CampaignStore::UpdateWithinLaunchTests(int64_t campaign_id, int launch,
                                            const MeasurementInput& m) {
  absl::StatusOr<Statement> others = c_->db->Prepare(absl::StrCat(
      "SELECT algorithm, samples FROM measurements WHERE campaign_id = ? AND "
      "launch = ? AND collective = ? AND msg_bytes = ? AND problem = ? AND "
      "regime = ? AND algorithm ",
      m.algorithm == Algorithm::kDefault ? "!=" : "=", " ?"));
  if (!others.ok()) return others.status();
  const std::string regime(NameOf(m.regime));
  others->Bind(1, campaign_id)
      .Bind(2, int64_t{launch})
      .Bind(3, Name(m.collective))
      .Bind(4, m.msg_bytes)
      .Bind(5, m.problem)
      .Bind(6, regime)
      .Bind(7, Name(Algorithm::kDefault));
  const std::vector<double> mine = DecodeSamples(EncodeSamples(m.samples));
  std::vector<std::pair<std::string, double>> updates;  // algorithm, p
  absl::Status each = others->EachRow([&](const Statement& row) {
    const std::vector<double> theirs = DecodeSamples(row.Blob(1));
    if (m.algorithm == Algorithm::kDefault) {
      updates.push_back({row.Text(0), MannWhitneyLess(theirs, mine)});
    } else {
      updates.push_back({std::string(Name(m.algorithm)), MannWhitneyLess(mine, theirs)});
    }
  });
  if (!each.ok()) return each;
  for (const auto& [algorithm, p] : updates) {
    absl::StatusOr<Statement> st = c_->db->Query(
        "UPDATE measurements SET p_faster_than_default = ? WHERE campaign_id = "
        "? AND launch = ? AND collective = ? AND msg_bytes = ? AND problem = ? "
        "AND regime = ? AND algorithm = ?",
        p, campaign_id, launch, Name(m.collective), m.msg_bytes, m.problem, regime,
        algorithm);
    if (!st.ok()) return st.status();
    if (absl::Status s = st->Run(); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status CampaignStore::PutCampaignLaunch(int64_t campaign_id, int launch,
                                      int64_t uid, int64_t gid, RegimeSet regimes) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = c_->db->Prepare(absl::StrCat(
      "INSERT INTO campaign_launches (campaign_id, launch, uid, gid, "
      "uploaded_at, regimes) VALUES (?, ?, ?, ?, ",
      kNow,
      ", ?5) ON CONFLICT (campaign_id, launch) DO UPDATE SET uid = excluded.uid, "
      "gid = excluded.gid, uploaded_at = excluded.uploaded_at, "
      "regimes = excluded.regimes"));
  if (!st.ok()) return st.status();
  st->Bind(1, campaign_id).Bind(2, int64_t{launch}).Bind(5, FormatRegimeSet(regimes));
  if (uid >= 0) {
    st->Bind(3, uid);
    if (gid >= 0) {
      st->Bind(4, gid);
    } else {
      st->BindNull(4);
    }
  } else {
    st->BindNull(3).BindNull(4);
  }
  return st->Run();
}

absl::StatusOr<ProfileCounts> CampaignStore::Counts(int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT "
      " (SELECT COUNT(*) FROM campaigns WHERE profile_id = ?1),"
      " (SELECT COUNT(*) FROM (SELECT DISTINCT m.campaign_id, m.launch"
      "    FROM measurements m JOIN campaigns c ON c.id = m.campaign_id"
      "    WHERE c.profile_id = ?1)),"
      " (SELECT COUNT(*) FROM measurements m JOIN campaigns c"
      "    ON c.id = m.campaign_id WHERE c.profile_id = ?1 AND m.regime = 'sync')",
      profile_id);
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  ProfileCounts c;
  c.campaigns = static_cast<int>(st->Int(0));
  c.launches = static_cast<int>(st->Int(1));
  c.measurements = static_cast<int>(st->Int(2));
  return c;
}

absl::StatusOr<std::vector<LaunchPoint>> CampaignStore::LaunchPoints(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT m.campaign_id, m.launch, m.collective, m.algorithm, "
      "m.msg_bytes, m.nrep, m.median_s, m.mean_s, m.min_s, m.max_s, "
      "m.stddev_s, m.problem, m.p_faster_than_default, m.upper_quartile_s, "
      "m.lower_quartile_s, m.regime, COALESCE(l.regimes, 'sync'), c.held_out "
      "FROM measurements m "
      "JOIN campaigns c ON c.id = m.campaign_id "
      "LEFT JOIN campaign_launches l ON l.campaign_id = m.campaign_id AND "
      "l.launch = m.launch WHERE c.profile_id = ? ORDER BY m.collective, m.problem, "
      "m.msg_bytes, m.algorithm, m.regime, m.campaign_id, m.launch",
      profile_id);
  if (!st.ok()) return st.status();
  std::vector<LaunchPoint> out;
  absl::Status each = st->EachRow([&](const Statement& row) -> absl::Status {
    LaunchPoint p;
    p.campaign_id = row.Int(0);
    p.launch = static_cast<int>(row.Int(1));
    absl::Status names = ReadNames(row, 2, 3, &p.collective, &p.algorithm);
    if (!names.ok()) return names;
    p.msg_bytes = row.Int(4);
    p.nrep = row.Int(5);
    p.median = row.Real(6);
    p.mean = row.Real(7);
    p.min = row.Real(8);
    p.max = row.Real(9);
    p.stddev = row.Real(10);
    p.problem = row.Text(11);
    p.p_faster_than_default = row.IsNull(12) ? -1 : row.Real(12);
    p.upper_quartile = row.IsNull(13) ? 0 : row.Real(13);
    p.lower_quartile = row.IsNull(14) ? 0 : row.Real(14);
    const std::optional<Regime> regime = ParseRegime(row.Text(15));
    if (!regime) {
      return absl::DataLossError(absl::StrCat("stored regime '", row.Text(15),
                                              "' is not one colltune knows"));
    }
    p.regime = *regime;
    if (!ParseRegimeSet(row.Text(16), &p.launch_regimes)) p.launch_regimes = kSyncOnly;
    p.held_out = row.Int(17) != 0;
    out.push_back(p);
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<StoredPointRow>> CampaignStore::CampaignPoints(
    int64_t profile_id, std::string_view label) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT m.launch, m.collective, m.algorithm, m.msg_bytes, m.nrep, "
      "m.problem, m.regime FROM measurements m JOIN campaigns c ON c.id = "
      "m.campaign_id WHERE c.profile_id = ? AND c.label = ? ORDER BY m.launch, "
      "m.collective, m.problem, m.msg_bytes, m.algorithm, m.regime",
      profile_id, label);
  if (!st.ok()) return st.status();
  std::vector<StoredPointRow> out;
  absl::Status each = st->EachRow([&](const Statement& row) -> absl::Status {
    StoredPointRow p;
    p.launch = static_cast<int>(row.Int(0));
    absl::Status names = ReadNames(row, 1, 2, &p.collective, &p.algorithm);
    if (!names.ok()) return names;
    p.msg_bytes = row.Int(3);
    p.samples = row.Int(4);
    p.problem = row.Text(5);
    p.regime = ParseRegime(row.Text(6)).value_or(Regime::kSync);
    out.push_back(p);
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> CampaignStore::Campaigns(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT id, label FROM campaigns WHERE profile_id = ? ORDER BY id", profile_id);
  if (!st.ok()) return st.status();
  std::vector<std::pair<int64_t, std::string>> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    out.emplace_back(row.Int(0), row.Text(1));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<CampaignLaunchRow>> CampaignStore::CampaignLaunches(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT c.id, c.label, c.host, l.launch, "
      "(SELECT COUNT(*) FROM measurements m WHERE m.campaign_id = c.id AND "
      "m.launch = l.launch AND m.regime = 'sync'), COALESCE(l.uid, -1), "
      "COALESCE(l.gid, -1), l.uploaded_at, l.regimes, c.held_out FROM campaign_launches l "
      "JOIN campaigns c ON c.id = "
      "l.campaign_id WHERE c.profile_id = ? ORDER BY c.id, l.launch",
      profile_id);
  if (!st.ok()) return st.status();
  std::vector<CampaignLaunchRow> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    CampaignLaunchRow l;
    l.campaign_id = row.Int(0);
    l.label = row.Text(1);
    l.host = row.Text(2);
    l.launch = static_cast<int>(row.Int(3));
    l.points = row.Int(4);
    l.uid = row.Int(5);
    l.gid = row.Int(6);
    l.uploaded_at = row.Text(7);
    if (!ParseRegimeSet(row.Text(8), &l.regimes)) l.regimes = kSyncOnly;
    l.held_out = row.Int(9) != 0;
    out.push_back(std::move(l));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<double>> CampaignStore::Samples(int64_t campaign_id,
                                                   int launch, Collective c,
                                                   Algorithm a,
                                                   int64_t msg_bytes,
                                                   std::string_view problem,
                                                   Regime regime) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT samples FROM measurements WHERE campaign_id = ? AND launch = ? "
      "AND collective = ? AND algorithm = ? AND msg_bytes = ? AND problem = ? "
      "AND regime = ?",
      campaign_id, launch, Name(c), Name(a), msg_bytes, problem,
      std::string(NameOf(regime)));
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError("no such measurement");
  return DecodeSamples(st->Blob(0));
}

}  // namespace colltune::db
