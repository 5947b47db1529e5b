-- The online window (Store::OnlinePoints) is read on every job report's
-- retune, so its cost must not grow with the reports kept.
--
-- job_cells lists each profile's (collective, bucket, algorithm) cells that
-- ever got a timing, kept by a trigger; OnlinePoints walks it (a few dozen
-- rows) and takes each cell's newest timings by report from
-- job_timings_by_cell (a seek and a short scan). Before, it ranked every
-- timing the profile ever got: ingest fell from 7500 to 2100 reports a
-- minute over 3000 reports (scripts/daemon_load.sh).
DROP INDEX IF EXISTS job_timings_by_profile;
CREATE INDEX job_timings_by_cell
  ON job_timings(profile_id, collective, min_bytes, algorithm, report_id);

CREATE TABLE job_cells (
  profile_id INTEGER NOT NULL REFERENCES profiles(id),
  collective TEXT NOT NULL,
  min_bytes INTEGER NOT NULL,
  algorithm TEXT NOT NULL,
  PRIMARY KEY (profile_id, collective, min_bytes, algorithm)
) WITHOUT ROWID;

INSERT OR IGNORE INTO job_cells
  SELECT DISTINCT profile_id, collective, min_bytes, algorithm
  FROM job_timings WHERE profile_id IS NOT NULL;

CREATE TRIGGER job_cells_of_new_timings AFTER INSERT ON job_timings
  WHEN NEW.profile_id IS NOT NULL
BEGIN
  INSERT OR IGNORE INTO job_cells
    VALUES (NEW.profile_id, NEW.collective, NEW.min_bytes, NEW.algorithm);
END;
