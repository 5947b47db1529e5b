-- colltune database, migration 2: the evidence behind each decision, a
-- summary of what each table version changed, and administrators' pins.

ALTER TABLE decision_rules ADD COLUMN p_value REAL NOT NULL DEFAULT 1;
ALTER TABLE decision_rules ADD COLUMN launches_default INTEGER NOT NULL DEFAULT 0;
ALTER TABLE decision_rules ADD COLUMN launches_algorithm INTEGER NOT NULL DEFAULT 0;
-- Comma-separated campaign labels the evidence came from.
ALTER TABLE decision_rules ADD COLUMN campaigns TEXT NOT NULL DEFAULT '';
ALTER TABLE decision_rules ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;

ALTER TABLE decision_tables ADD COLUMN changes TEXT NOT NULL DEFAULT '';

-- An administrator's decision for a byte range, which the engine respects.
CREATE TABLE pins (
  id         INTEGER PRIMARY KEY,
  profile_id INTEGER NOT NULL REFERENCES profiles(id),
  collective TEXT    NOT NULL,
  min_bytes  INTEGER NOT NULL CHECK (min_bytes >= 0),
  max_bytes  INTEGER NOT NULL,  -- inclusive; -1: no upper bound
  algorithm  TEXT    NOT NULL,
  note       TEXT    NOT NULL,
  created_at TEXT    NOT NULL
);

CREATE INDEX pins_by_profile ON pins(profile_id);
