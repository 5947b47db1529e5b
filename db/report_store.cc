#include "db/report_store.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "db/rows.h"

namespace colltune::db {

absl::StatusOr<std::pair<int64_t, bool>> ReportStore::PutJobReport(
    const JobReportInput& r) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  bool replaced = false;
  {
    absl::StatusOr<Statement> old = c_->db->Query(
        "SELECT id FROM job_reports WHERE profile_id = ? AND job_id = ? AND "
        "run_id = ?",
        r.profile_id, r.job_id, r.run_id);
    if (!old.ok()) return old.status();
    absl::StatusOr<bool> row = old->Step();
    if (!row.ok()) return row.status();
    if (*row) {
      const int64_t id = old->Int(0);
      for (const char* sql : {"DELETE FROM job_timings WHERE report_id = ?",
                              "DELETE FROM job_counted_calls WHERE report_id = ?",
                              "DELETE FROM job_reports WHERE id = ?"}) {
        absl::StatusOr<Statement> del = c_->db->Query(sql, id);
        if (!del.ok()) return del.status();
        if (absl::Status e = del->Run(); !e.ok()) return e;
      }
      replaced = true;
    }
  }
  absl::StatusOr<Statement> st = c_->db->Query(
      absl::StrCat("INSERT INTO job_reports (profile_id, job_id, table_version, "
                   "received_at, source, final, ranks, run_id, uid, gid, slurm_job_id) "
                   "VALUES (?, ?, ?, ",
                   kNow, ", ?, ?, ?, ?, ?, ?, ?) RETURNING id"),
      r.profile_id, r.job_id, r.table_version, r.source, r.final ? 1 : 0, r.ranks,
      r.run_id);
  if (!st.ok()) return st.status();
  if (r.uid >= 0) {
    st->Bind(8, r.uid).Bind(9, r.gid);
  } else {
    st->BindNull(8).BindNull(9);
  }
  if (!r.slurm_job_id.empty()) {
    st->Bind(10, r.slurm_job_id);
  } else {
    st->BindNull(10);
  }
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  const int64_t report_id = st->Int(0);
  for (const JobTimingInput& t : r.timings) {
    absl::StatusOr<Statement> ins = c_->db->Prepare(
        "INSERT INTO job_timings (report_id, collective, algorithm, "
        "min_bytes, max_bytes, calls, timed_calls, total_seconds, profile_id, "
        "comm_size, explored_calls, first_bin, bins, median_s) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!ins.ok()) return ins.status();
    std::string blob(t.bins.size() * 8, '\0');
    for (size_t i = 0; i < t.bins.size(); ++i) {
      for (int byte = 0; byte < 8; ++byte) {
        blob[i * 8 + byte] = static_cast<char>((t.bins[i] >> (8 * byte)) & 0xff);
      }
    }
    ins->Bind(1, report_id)
        .Bind(2, Name(t.collective))
        .Bind(3, Name(t.algorithm))
        .Bind(4, t.min_bytes)
        .Bind(5, t.max_bytes)
        .Bind(6, t.calls)
        .Bind(7, t.timed_calls)
        .Bind(8, t.total_seconds);
    if (t.profile_id > 0) {
      ins->Bind(9, t.profile_id);
    } else {
      ins->BindNull(9);
    }
    absl::Status s = ins->Bind(10, int64_t{t.comm_size})
                         .Bind(11, t.explored_calls)
                         .Bind(12, int64_t{t.first_bin})
                         .BindBlob(13, blob.data(), blob.size())
                         .Bind(14, t.median_seconds)
                         .Run();
    if (!s.ok()) return s;
  }
  for (const CountedCallsRow& c : r.counted) {
    absl::StatusOr<Statement> ins = c_->db->Query(
        "INSERT INTO job_counted_calls (report_id, kind, collective, min_bytes, "
        "max_bytes, calls) VALUES (?, ?, ?, ?, ?, ?)",
        report_id, c.kind, c.collective, c.min_bytes, c.max_bytes, c.calls);
    if (!ins.ok()) return ins.status();
    absl::Status s = ins->Run();
    if (!s.ok()) return s;
  }
  return std::make_pair(report_id, replaced);
}

absl::StatusOr<std::vector<OnlinePoint>> ReportStore::OnlinePoints(int64_t profile_id,
                                                            int window,
                                                            int64_t min_timed) {
  // Every report retunes its profile, so this must not cost in proportion
  // to the reports kept: the profile's cells come from job_cells, and each
  // cell's newest `window` timings by report from job_timings_by_cell
  // (migration 8).
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT t.collective, t.algorithm, t.min_bytes, t.max_bytes, t.report_id, "
      "  t.median_s, t.timed_calls, t.explored_calls, r.job_id, COALESCE(r.uid, -1) "
      "FROM job_cells c "
      "JOIN job_timings t ON t.rowid IN ("
      "  SELECT rowid FROM job_timings WHERE profile_id = ?1 AND"
      "    collective = c.collective AND min_bytes = c.min_bytes AND"
      "    algorithm = c.algorithm AND timed_calls >= ?3"
      "  ORDER BY report_id DESC LIMIT ?2) "
      "JOIN job_reports r ON r.id = t.report_id "
      "WHERE c.profile_id = ?1 "
      "ORDER BY t.collective, t.min_bytes, t.algorithm, t.report_id",
      profile_id, window, min_timed);
  if (!st.ok()) return st.status();
  std::vector<OnlinePoint> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    auto c = ParseCollective(row.Text(0));
    auto a = c ? ParseAlgorithm(row.Text(1), *c) : std::nullopt;
    if (!c || !a) return;  // written by a newer colltuned
    OnlinePoint p;
    p.collective = *c;
    p.algorithm = *a;
    p.min_bytes = row.Int(2);
    p.max_bytes = row.Int(3);
    p.report_id = row.Int(4);
    p.median_seconds = row.Real(5);
    p.timed_calls = row.Int(6);
    p.explored_calls = row.Int(7);
    p.job_id = row.Text(8);
    p.uid = row.Int(9);
    out.push_back(p);
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<ProfileCounts> ReportStore::Counts(int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT (SELECT COUNT(*) FROM job_reports WHERE profile_id = ?1),"
      " (SELECT COALESCE(MAX(received_at), '') FROM job_reports"
      "    WHERE profile_id = ?1)",
      profile_id);
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  ProfileCounts c;
  c.job_reports = static_cast<int>(st->Int(0));
  c.last_report_at = st->Text(1);
  return c;
}

absl::StatusOr<std::pair<std::vector<JobReportRow>, int>> ReportStore::JobReports(
    int64_t profile_id, int limit) {
  absl::StatusOr<Statement> count =
      c_->db->Query("SELECT COUNT(*) FROM job_reports WHERE profile_id = ?", profile_id);
  if (!count.ok()) return count.status();
  absl::StatusOr<bool> counted = count->Step();
  if (!counted.ok()) return counted.status();
  const int total = static_cast<int>(count->Int(0));

  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT id, job_id, run_id, received_at, source, table_version, final, "
      "ranks, COALESCE(uid, -1), COALESCE(gid, -1), COALESCE(slurm_job_id, '') "
      "FROM job_reports WHERE profile_id = ? "
      "ORDER BY received_at DESC, id DESC LIMIT ?",
      profile_id, limit);
  if (!st.ok()) return st.status();
  std::vector<JobReportRow> reports;
  std::map<int64_t, size_t> index;  // report id -> position
  absl::Status each = st->EachRow([&](const Statement& row) {
    JobReportRow r;
    r.id = row.Int(0);
    r.job_id = row.Text(1);
    r.run_id = row.Text(2);
    r.received_at = row.Text(3);
    r.source = row.Text(4);
    r.table_version = row.Int(5);
    r.final = row.Int(6) != 0;
    r.ranks = static_cast<int>(row.Int(7));
    r.uid = row.Int(8);
    r.gid = row.Int(9);
    r.slurm_job_id = row.Text(10);
    index[r.id] = reports.size();
    reports.push_back(std::move(r));
  });
  if (!each.ok()) return each;
  if (reports.empty()) return std::make_pair(std::move(reports), total);

  // One query for all the reports' timings: the ids form a contiguous
  // prefix of the same ordering, so the subquery repeats it.
  absl::StatusOr<Statement> t = c_->db->Query(
      "SELECT report_id, collective, algorithm, min_bytes, max_bytes, calls, "
      "timed_calls, explored_calls, median_s FROM job_timings WHERE report_id "
      "IN (SELECT id FROM job_reports WHERE profile_id = ? "
      "ORDER BY received_at DESC, id DESC LIMIT ?) AND profile_id IS NOT NULL "
      "ORDER BY report_id, collective, min_bytes, algorithm",
      profile_id, limit);
  if (!t.ok()) return t.status();
  absl::Status timing_rows = t->EachRow([&](const Statement& row) -> absl::Status {
    auto it = index.find(row.Int(0));
    if (it == index.end()) return absl::OkStatus();
    JobReportRow::Timing timing;
    absl::Status names = ReadNames(row, 1, 2, &timing.collective, &timing.algorithm);
    if (!names.ok()) return names;
    timing.min_bytes = row.Int(3);
    timing.max_bytes = row.Int(4);
    timing.calls = row.Int(5);
    timing.timed_calls = row.Int(6);
    timing.explored_calls = row.Int(7);
    timing.median_seconds = row.Real(8);
    reports[it->second].timings.push_back(timing);
    return absl::OkStatus();
  });
  if (!timing_rows.ok()) return timing_rows;

  absl::StatusOr<Statement> c = c_->db->Query(
      "SELECT report_id, kind, collective, min_bytes, max_bytes, calls "
      "FROM job_counted_calls WHERE report_id IN (SELECT id FROM job_reports "
      "WHERE profile_id = ? ORDER BY received_at DESC, id DESC LIMIT ?) "
      "ORDER BY report_id, collective, min_bytes",
      profile_id, limit);
  if (!c.ok()) return c.status();
  absl::Status counted_rows = c->EachRow([&](const Statement& row) {
    auto it = index.find(row.Int(0));
    if (it == index.end()) return;
    CountedCallsRow counted;
    counted.kind = row.Text(1);
    counted.collective = row.Text(2);
    counted.min_bytes = row.Int(3);
    counted.max_bytes = row.Int(4);
    counted.calls = row.Int(5);
    reports[it->second].counted.push_back(std::move(counted));
  });
  if (!counted_rows.ok()) return counted_rows;
  return std::make_pair(std::move(reports), total);
}

}  // namespace colltune::db
