-- colltune database, migration 1: profiles, measurements, decision tables
-- and job reports. Timestamps are UTC ISO 8601 text; sizes are bytes
-- (count * MPI_Type_size); times are seconds.

-- One measured context: where a profile's measurements were taken.
CREATE TABLE profiles (
  id              INTEGER PRIMARY KEY,
  cluster         TEXT    NOT NULL,
  library         TEXT    NOT NULL,
  library_version TEXT    NOT NULL,
  comm_size       INTEGER NOT NULL CHECK (comm_size > 0),
  nodes           INTEGER NOT NULL CHECK (nodes > 0),
  ppn             INTEGER NOT NULL CHECK (ppn > 0),
  created_at      TEXT    NOT NULL,
  updated_at      TEXT    NOT NULL,
  UNIQUE (cluster, library, library_version, comm_size, nodes, ppn)
);

-- A tuning campaign: one or more mpirun launches of colltune-bench.
CREATE TABLE campaigns (
  id         INTEGER PRIMARY KEY,
  profile_id INTEGER NOT NULL REFERENCES profiles(id),
  label      TEXT    NOT NULL,
  host       TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  UNIQUE (profile_id, label)
);

-- One (collective, algorithm, size) point of one launch. The raw
-- per-repetition latencies are kept so that decisions can be recomputed
-- with other statistics: `samples` holds nrep little-endian float32 values.
CREATE TABLE measurements (
  id          INTEGER PRIMARY KEY,
  campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
  launch      INTEGER NOT NULL CHECK (launch >= 0),
  collective  TEXT    NOT NULL,
  algorithm   TEXT    NOT NULL,
  msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
  nrep        INTEGER NOT NULL CHECK (nrep > 0),
  median_s    REAL    NOT NULL,
  mean_s      REAL    NOT NULL,
  min_s       REAL    NOT NULL,
  max_s       REAL    NOT NULL,
  stddev_s    REAL    NOT NULL,
  samples     BLOB    NOT NULL,
  UNIQUE (campaign_id, launch, collective, algorithm, msg_bytes)
);

-- Every decision table a profile ever had; the highest version is current.
CREATE TABLE decision_tables (
  id         INTEGER PRIMARY KEY,
  profile_id INTEGER NOT NULL REFERENCES profiles(id),
  version    INTEGER NOT NULL CHECK (version > 0),
  created_at TEXT    NOT NULL,
  reason     TEXT    NOT NULL,
  UNIQUE (profile_id, version)
);

CREATE TABLE decision_rules (
  table_id   INTEGER NOT NULL REFERENCES decision_tables(id),
  collective TEXT    NOT NULL,
  min_bytes  INTEGER NOT NULL CHECK (min_bytes >= 0),
  max_bytes  INTEGER NOT NULL,  -- inclusive; -1: no upper bound
  algorithm  TEXT    NOT NULL,
  speedup    REAL    NOT NULL,
  PRIMARY KEY (table_id, collective, min_bytes)
);

-- What jobs running under the shim observed.
CREATE TABLE job_reports (
  id            INTEGER PRIMARY KEY,
  profile_id    INTEGER NOT NULL REFERENCES profiles(id),
  job_id        TEXT    NOT NULL,
  table_version INTEGER NOT NULL,
  received_at   TEXT    NOT NULL
);

CREATE TABLE job_timings (
  report_id     INTEGER NOT NULL REFERENCES job_reports(id),
  collective    TEXT    NOT NULL,
  algorithm     TEXT    NOT NULL,
  min_bytes     INTEGER NOT NULL,
  max_bytes     INTEGER NOT NULL,
  calls         INTEGER NOT NULL,
  timed_calls   INTEGER NOT NULL,
  total_seconds REAL    NOT NULL
);

CREATE INDEX measurements_by_campaign ON measurements(campaign_id);
CREATE INDEX campaigns_by_profile ON campaigns(profile_id);
CREATE INDEX job_reports_by_profile ON job_reports(profile_id);
CREATE INDEX job_timings_by_report ON job_timings(report_id);
