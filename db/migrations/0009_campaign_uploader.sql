-- colltune database, migration 9: who uploaded each launch of a campaign.
-- One UploadMeasurements request is (part of) one launch, so the sender is
-- kept per (campaign, launch): launches of one campaign sent by different
-- users keep each their own. uid and gid are the ones munged vouched for
-- (colltuned --auth munge) or the unix socket's peer credentials
-- (SO_PEERCRED), NULL when the daemon identified nobody (--auth none over
-- TCP). A launch sent in several uploads keeps the sender of the newest one
-- that carried points; uploaded_at is when that upload arrived.
CREATE TABLE campaign_launches (
  campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
  launch      INTEGER NOT NULL CHECK (launch >= 0),
  uid         INTEGER,
  gid         INTEGER,
  uploaded_at TEXT    NOT NULL,
  PRIMARY KEY (campaign_id, launch)
) WITHOUT ROWID;

-- Launches stored before this migration: sender unknown (NULL); their own
-- arrival was not kept, uploaded_at is their campaign's creation.
INSERT INTO campaign_launches (campaign_id, launch, uid, gid, uploaded_at)
  SELECT DISTINCT m.campaign_id, m.launch, NULL, NULL, c.created_at
  FROM measurements m JOIN campaigns c ON c.id = m.campaign_id;
