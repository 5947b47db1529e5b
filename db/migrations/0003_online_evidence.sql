-- colltune database, migration 3: online evidence. Jobs running under the
-- shim report latency histograms per (collective, algorithm, size bucket);
-- the engine reads each job's median per cell.

-- A job (scheduler allocation) may run several times (runs: mpirun
-- launches); a run's later report replaces its earlier ones (periodic
-- snapshots, then the final report). Older databases held one report per
-- run already; they get an empty run id.
ALTER TABLE job_reports ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE job_reports ADD COLUMN source TEXT NOT NULL DEFAULT 'online';
ALTER TABLE job_reports ADD COLUMN final INTEGER NOT NULL DEFAULT 1;
ALTER TABLE job_reports ADD COLUMN ranks INTEGER NOT NULL DEFAULT 1;
UPDATE job_reports SET run_id = 'report-' || id;
CREATE UNIQUE INDEX job_reports_by_run ON job_reports(profile_id, job_id, run_id);

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
