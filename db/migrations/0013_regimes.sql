-- colltune database, migration 13: the regimes a point was timed in.
-- Campaigns time each point synchronized ('sync', what every point stored
-- before this migration is), back to back ('loop') and after uneven work
-- ('imbalance'), common/regime.h. The regime is part of a point's identity,
-- so the table is rebuilt with the wider unique key (SQLite cannot alter a
-- constraint); rows keep their ids and every other column.
CREATE TABLE measurements_v13 (
  id                    INTEGER PRIMARY KEY,
  campaign_id           INTEGER NOT NULL REFERENCES campaigns(id),
  launch                INTEGER NOT NULL CHECK (launch >= 0),
  collective            TEXT    NOT NULL,
  algorithm             TEXT    NOT NULL,
  msg_bytes             INTEGER NOT NULL CHECK (msg_bytes >= 0),
  problem               TEXT    NOT NULL DEFAULT '',
  nrep                  INTEGER NOT NULL CHECK (nrep > 0),
  median_s              REAL    NOT NULL,
  mean_s                REAL    NOT NULL,
  min_s                 REAL    NOT NULL,
  max_s                 REAL    NOT NULL,
  stddev_s              REAL    NOT NULL,
  samples               BLOB    NOT NULL,
  p_faster_than_default REAL,
  upper_quartile_s      REAL,
  lower_quartile_s      REAL,
  regime                TEXT    NOT NULL DEFAULT 'sync',
  UNIQUE (campaign_id, launch, collective, algorithm, msg_bytes, problem, regime)
);
INSERT INTO measurements_v13 (id, campaign_id, launch, collective, algorithm,
                              msg_bytes, problem, nrep, median_s, mean_s, min_s,
                              max_s, stddev_s, samples, p_faster_than_default,
                              upper_quartile_s, lower_quartile_s, regime)
  SELECT id, campaign_id, launch, collective, algorithm, msg_bytes, problem, nrep,
         median_s, mean_s, min_s, max_s, stddev_s, samples, p_faster_than_default,
         upper_quartile_s, lower_quartile_s, 'sync'
  FROM measurements;
DROP TABLE measurements;
ALTER TABLE measurements_v13 RENAME TO measurements;
CREATE INDEX measurements_by_campaign ON measurements(campaign_id);

-- The regimes a launch declared it times every point in, comma-separated;
-- 'sync' for launches stored before this migration. A point of the launch
-- is decided on only where default was stored in all of them (daemon/engine.h).
ALTER TABLE campaign_launches ADD COLUMN regimes TEXT NOT NULL DEFAULT 'sync';

-- Each rule's evidence per regime (proto RegimeEvidence), as
-- "regime:speedup:p_value:won" items separated by commas; NULL for rules
-- decided on synchronized measurements only (every rule stored before this
-- migration), pins and online ranges.
ALTER TABLE decision_rules ADD COLUMN regimes TEXT;
