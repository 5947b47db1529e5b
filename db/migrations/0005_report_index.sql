-- colltune database, migration 5: the web view lists a context's newest job
-- reports first; without this index that is a sort of all its reports.
CREATE INDEX job_reports_by_time ON job_reports(profile_id, received_at);
