-- colltune database, migration 11: each stored point's upper quartile.
-- The upper quartile of the launch's repetitions (the median of the slower
-- half), computed as the point is stored. The engine ranks candidates whose
-- medians are within a few percent of each other by it (daemon/engine.h,
-- tie_band): an algorithm that runs in a slow mode for more than a quarter
-- of its calls loses the tie to a steadier one. NULL for points stored before
-- this migration, which then break no ties.
ALTER TABLE measurements ADD COLUMN upper_quartile_s REAL;
