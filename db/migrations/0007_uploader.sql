-- colltune database, migration 7: who sent a job report. uid and gid are
-- the ones munged vouched for (colltuned --auth munge), NULL when the
-- daemon authenticates nothing (--auth none). slurm_job_id is the Slurm job
-- the report names (its job id "slurm:N", from SLURM_JOB_ID in the job's
-- environment), bound to the credential like the rest of the request, NULL
-- for jobs outside Slurm.
ALTER TABLE job_reports ADD COLUMN uid INTEGER;
ALTER TABLE job_reports ADD COLUMN gid INTEGER;
ALTER TABLE job_reports ADD COLUMN slurm_job_id TEXT;
