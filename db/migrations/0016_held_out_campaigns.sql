-- colltune database, migration 16: held-out campaigns.
-- A campaign's validation (colltune campaign --validate) uploads its
-- launches as a campaign of their own whose points time a table's choices
-- against default; the engine never decides from them and takes a choice
-- back where they time it slower (docs/architecture.md, "Held-out
-- validation"). Every campaign stored before this migration made decisions.
ALTER TABLE campaigns ADD COLUMN held_out INTEGER NOT NULL DEFAULT 0
  CHECK (held_out IN (0, 1));
