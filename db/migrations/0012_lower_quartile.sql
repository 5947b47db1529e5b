-- colltune database, migration 12: each stored point's lower quartile.
-- The lower quartile of the launch's repetitions (the median of the faster
-- half), computed as the point is stored. An algorithm replaces default by
-- being steadier only if it is not slower in default's fast mode, which the
-- lower quartile measures (daemon/engine.h). The store fills it in for the
-- points already stored from their samples as this migration runs
-- (db/store.cc, Store::Migrate), so no profile loses that rule on upgrade.
ALTER TABLE measurements ADD COLUMN lower_quartile_s REAL;
