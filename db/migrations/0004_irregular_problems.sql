-- colltune database, migration 4: measurements of the irregular collectives
-- (gatherv, scatterv) name their block-size distribution (seed 000 §5:
-- same, random, spikes, decreasing, alternating, two_blocks), msg_bytes then
-- being the average block size; other collectives have ''. The distribution
-- is part of a point's identity, so the table is rebuilt with the wider
-- unique key (SQLite cannot alter a constraint); rows keep their ids.
CREATE TABLE measurements_v4 (
  id          INTEGER PRIMARY KEY,
  campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
  launch      INTEGER NOT NULL CHECK (launch >= 0),
  collective  TEXT    NOT NULL,
  algorithm   TEXT    NOT NULL,
  msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
  problem     TEXT    NOT NULL DEFAULT '',
  nrep        INTEGER NOT NULL CHECK (nrep > 0),
  median_s    REAL    NOT NULL,
  mean_s      REAL    NOT NULL,
  min_s       REAL    NOT NULL,
  max_s       REAL    NOT NULL,
  stddev_s    REAL    NOT NULL,
  samples     BLOB    NOT NULL,
  UNIQUE (campaign_id, launch, collective, algorithm, msg_bytes, problem)
);
INSERT INTO measurements_v4 (id, campaign_id, launch, collective, algorithm,
                             msg_bytes, problem, nrep, median_s, mean_s, min_s,
                             max_s, stddev_s, samples)
  SELECT id, campaign_id, launch, collective, algorithm, msg_bytes, '', nrep,
         median_s, mean_s, min_s, max_s, stddev_s, samples
  FROM measurements;
DROP TABLE measurements;
ALTER TABLE measurements_v4 RENAME TO measurements;
CREATE INDEX measurements_by_campaign ON measurements(campaign_id);
