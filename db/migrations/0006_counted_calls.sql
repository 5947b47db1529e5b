-- colltune database, migration 6: what job reports counted of the
-- collectives the shim passes through without tuning (non-blocking,
-- persistent and neighbourhood ones, common/counted.h): calls per collective
-- and message-size bucket, summed over the job's ranks. `kind` is
-- nonblocking, persistent or neighborhood; `collective` the lower-case MPI
-- name without MPI_ (iallreduce, allreduce_init, neighbor_alltoallv).
CREATE TABLE job_counted_calls (
  report_id  INTEGER NOT NULL REFERENCES job_reports(id),
  kind       TEXT    NOT NULL,
  collective TEXT    NOT NULL,
  min_bytes  INTEGER NOT NULL,
  max_bytes  INTEGER NOT NULL,
  calls      INTEGER NOT NULL,
  PRIMARY KEY (report_id, collective, min_bytes)
);
