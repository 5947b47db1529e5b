-- colltune database, migration 15: decision rules for derived datatypes.
-- A rule may be for calls whose data is a derived datatype of one layout
-- (common/layout_class.h: 'tiled/8B', 'struct/4B'); '' is the plain rules',
-- every rule stored before this migration. The layout is part of a rule's
-- identity, so the table is rebuilt with the wider primary key (SQLite
-- cannot alter a constraint); every other column stays.
--
-- Campaign points measured with derived-datatype data need no new column:
-- their problem is '@' and the layout key (proto Measurement.problem), which
-- is already part of a point's identity.
CREATE TABLE decision_rules_v15 (
  table_id           INTEGER NOT NULL REFERENCES decision_tables(id),
  collective         TEXT    NOT NULL,
  layout             TEXT    NOT NULL DEFAULT '',
  min_bytes          INTEGER NOT NULL CHECK (min_bytes >= 0),
  max_bytes          INTEGER NOT NULL,  -- inclusive; -1: no upper bound
  algorithm          TEXT    NOT NULL,
  speedup            REAL    NOT NULL,
  p_value            REAL    NOT NULL DEFAULT 1,
  launches_default   INTEGER NOT NULL DEFAULT 0,
  launches_algorithm INTEGER NOT NULL DEFAULT 0,
  campaigns          TEXT    NOT NULL DEFAULT '',
  pinned             INTEGER NOT NULL DEFAULT 0,
  source             TEXT    NOT NULL DEFAULT 'campaign',
  regimes            TEXT,
  PRIMARY KEY (table_id, collective, layout, min_bytes)
);
INSERT INTO decision_rules_v15 (table_id, collective, layout, min_bytes, max_bytes,
                                algorithm, speedup, p_value, launches_default,
                                launches_algorithm, campaigns, pinned, source, regimes)
  SELECT table_id, collective, '', min_bytes, max_bytes, algorithm, speedup, p_value,
         launches_default, launches_algorithm, campaigns, pinned, source, regimes
  FROM decision_rules;
DROP TABLE decision_rules;
ALTER TABLE decision_rules_v15 RENAME TO decision_rules;
