-- colltune database, migration 3: online evidence. Jobs running under the
-- shim report latency histograms per (collective, algorithm, size bucket);
-- the engine reads each job's median per cell.

-- A report replaces the earlier one of the same job (periodic snapshots,
-- then the final report): keep only the newest before making that a rule.
DELETE FROM job_timings WHERE report_id IN (
  SELECT r.id FROM job_reports r WHERE EXISTS (
    SELECT 1 FROM job_reports n
    WHERE n.profile_id = r.profile_id AND n.job_id = r.job_id AND n.id > r.id));
DELETE FROM job_reports WHERE EXISTS (
  SELECT 1 FROM job_reports n
  WHERE n.profile_id = job_reports.profile_id AND n.job_id = job_reports.job_id
    AND n.id > job_reports.id);
CREATE UNIQUE INDEX job_reports_by_job ON job_reports(profile_id, job_id);

ALTER TABLE job_reports ADD COLUMN source TEXT NOT NULL DEFAULT 'online';
ALTER TABLE job_reports ADD COLUMN final INTEGER NOT NULL DEFAULT 1;
ALTER TABLE job_reports ADD COLUMN ranks INTEGER NOT NULL DEFAULT 1;

-- The profile the evidence belongs to (NULL: none could take it; kept, not
-- used), the communicator size, and the histogram: `bins` holds little-endian
-- uint64 counts of histogram bins first_bin, first_bin + 1, ...
-- (common/histogram.h); median_s is the job's median latency of the cell.
ALTER TABLE job_timings ADD COLUMN profile_id INTEGER REFERENCES profiles(id);
ALTER TABLE job_timings ADD COLUMN comm_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_timings ADD COLUMN explored_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_timings ADD COLUMN first_bin INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_timings ADD COLUMN bins BLOB NOT NULL DEFAULT x'';
ALTER TABLE job_timings ADD COLUMN median_s REAL NOT NULL DEFAULT 0;

CREATE INDEX job_timings_by_profile
  ON job_timings(profile_id, collective, min_bytes, algorithm);

-- Where each decision's evidence came from: campaign, online or pin.
ALTER TABLE decision_rules ADD COLUMN source TEXT NOT NULL DEFAULT 'campaign';
UPDATE decision_rules SET source = 'pin' WHERE pinned = 1;
