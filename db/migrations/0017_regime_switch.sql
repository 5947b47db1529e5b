-- colltune database, migration 17: regime switches.
-- A plain rule may name what its range runs where a job calls it back to
-- back or after uneven work (common/table.h, Rule::loop and ::imbalance),
-- as "loop <algorithm> <speedup>" and "imbalance <algorithm> <speedup>"
-- items separated by ';' (the speedup over the rule's algorithm in that
-- regime); NULL for no switch, as every rule stored before this migration.
ALTER TABLE decision_rules ADD COLUMN regime_switch TEXT;
