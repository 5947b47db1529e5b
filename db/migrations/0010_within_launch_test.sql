-- colltune database, migration 10: the within-launch comparison with default.
-- For each stored point of a launch other than default's, the one-sided
-- Mann-Whitney p-value that this algorithm's repetitions are faster than
-- default's repetitions of the same point in the same launch (measured
-- interleaved, so the launch's placement and drift touch both alike). The
-- engine's paired rule (daemon/engine.h) needs it in every launch of an
-- algorithm. The store fills it as either side arrives; NULL where default
-- was not measured in that launch, for default itself, and for launches
-- stored before this migration (those keep the rank test over launches).
ALTER TABLE measurements ADD COLUMN p_faster_than_default REAL;
