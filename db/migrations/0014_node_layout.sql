-- colltune database, migration 14: node layouts. A profile's context gains
-- how ranks were placed on the nodes ('block', 'round_robin', 'scattered')
-- and, where nodes held different numbers of processes, those numbers
-- ('3+1'); common/layout.h. Both are part of the profile's identity, so the
-- table is rebuilt with the wider unique key (SQLite cannot alter a
-- constraint); rows keep their ids, and the profiles stored before this
-- migration get '' for both: not recorded.
CREATE TABLE profiles_v14 (
  id              INTEGER PRIMARY KEY,
  cluster         TEXT    NOT NULL,
  library         TEXT    NOT NULL,
  library_version TEXT    NOT NULL,
  comm_size       INTEGER NOT NULL CHECK (comm_size > 0),
  nodes           INTEGER NOT NULL CHECK (nodes > 0),
  ppn             INTEGER NOT NULL CHECK (ppn > 0),
  created_at      TEXT    NOT NULL,
  updated_at      TEXT    NOT NULL,
  placement       TEXT    NOT NULL DEFAULT '',
  node_sizes      TEXT    NOT NULL DEFAULT '',
  UNIQUE (cluster, library, library_version, comm_size, nodes, ppn, placement,
          node_sizes)
);
INSERT INTO profiles_v14 (id, cluster, library, library_version, comm_size, nodes,
                          ppn, created_at, updated_at)
  SELECT id, cluster, library, library_version, comm_size, nodes, ppn, created_at,
         updated_at
  FROM profiles;
DROP TABLE profiles;
ALTER TABLE profiles_v14 RENAME TO profiles;
