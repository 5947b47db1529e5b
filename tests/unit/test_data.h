// What the unit tests build alike: the job they run as (Open MPI 4.1.4)
// and the shim's report of it (common/report.h). Each test still says the
// values it checks: these only spare it the fields' assignments.
#ifndef COLLTUNE_TESTS_UNIT_TEST_DATA_H_
#define COLLTUNE_TESTS_UNIT_TEST_DATA_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/job_context.h"
#include "common/report.h"

namespace colltune::test_data {

// Open MPI 4.1.4, `comm_size` processes on `nodes` nodes, at most `ppn` on
// one; the cluster left empty (the daemon's own).
inline JobContext OpenMpiJob(int32_t comm_size, int32_t nodes, int32_t ppn) {
  JobContext c;
  c.library = "Open MPI";
  c.library_version = "4.1.4";
  c.comm_size = comm_size;
  c.nodes = nodes;
  c.ppn = ppn;
  return c;
}

// A final report of run `run_id` of job `job_id`, one rank per process of
// `context`, under table version `table_version`; no timings or counts yet.
inline Report FinalReport(const std::string& job_id, const std::string& run_id,
                          const JobContext& context, int64_t table_version) {
  Report r;
  r.job_id = job_id;
  r.run_id = run_id;
  r.context = context;
  r.table_version = table_version;
  r.final = true;
  r.ranks = context.comm_size;
  return r;
}

// A timing of allreduce as reduce+bcast in `bucket` (common/histogram.h) of
// a communicator of `comm_size`, decided by section `profile_id`: `calls`
// estimated, `timed` of them timed in `sum_ns`, their histogram from
// `first_bin` on, `explored` exploring.
inline ReportTiming ReduceBcastTiming(int comm_size, int64_t profile_id, int bucket,
                                      uint64_t calls, uint64_t timed, uint64_t explored,
                                      uint64_t sum_ns, int first_bin,
                                      std::vector<uint64_t> bins) {
  ReportTiming t;
  t.comm_size = comm_size;
  t.profile_id = profile_id;
  t.collective = Collective::kAllreduce;
  t.algorithm = Algorithm::kAllreduceAsReduceBcast;
  t.bucket = bucket;
  t.calls = calls;
  t.timed = timed;
  t.explored = explored;
  t.sum_ns = sum_ns;
  t.first_bin = first_bin;
  t.bins = std::move(bins);
  return t;
}

}  // namespace colltune::test_data

#endif  // COLLTUNE_TESTS_UNIT_TEST_DATA_H_
