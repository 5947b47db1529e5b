// What the unit tests send alike over colltune.v1 (proto/colltune.proto):
// the context of the job they run as (Open MPI 4.1.4), a final report of
// it, and one call of the daemon's stub. Each test still says the values
// it checks.
#ifndef COLLTUNE_TESTS_UNIT_TEST_REQUESTS_H_
#define COLLTUNE_TESTS_UNIT_TEST_REQUESTS_H_

#include <string>

#include <grpcpp/grpcpp.h>

#include "proto/colltune.grpc.pb.h"
#include "proto/colltune.pb.h"

namespace colltune::test_data {

// Open MPI 4.1.4, `comm_size` processes on `nodes` nodes, at most `ppn` on
// one; no cluster (the daemon's own).
inline v1::Context OpenMpiContext(int comm_size, int nodes, int ppn) {
  v1::Context c;
  c.set_library("Open MPI");
  c.set_library_version("4.1.4");
  c.set_comm_size(comm_size);
  c.set_nodes(nodes);
  c.set_ppn(ppn);
  return c;
}

// A final report of run `run_id` of job `job_id` on one node, one rank per
// process; no timings yet.
inline v1::ReportJobRequest FinalReportRequest(const std::string& job_id,
                                               const std::string& run_id, int ranks) {
  v1::ReportJobRequest r;
  *r.mutable_context() = OpenMpiContext(ranks, 1, ranks);
  r.set_job_id(job_id);
  r.set_run_id(run_id);
  r.set_final(true);
  r.set_ranks(ranks);
  return r;
}

// One call of `stub`'s `method`, in a client context of its own.
template <typename Request, typename Response>
grpc::Status Call(v1::Tuning::Stub& stub,
                  grpc::Status (v1::Tuning::Stub::*method)(grpc::ClientContext*, const Request&,
                                                           Response*),
                  const Request& request, Response* out) {
  grpc::ClientContext ctx;
  return (stub.*method)(&ctx, request, out);
}

}  // namespace colltune::test_data

#endif  // COLLTUNE_TESTS_UNIT_TEST_REQUESTS_H_
