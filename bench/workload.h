// One benchmark point: a collective at a message size, with buffers, ready to
// run any of its algorithms through the shim's own code (shim/coll), exactly
// as the shim would run them in a job, but without the dispatch.
//
// Message sizes are the contract's keys: per-process block bytes for
// allgather, alltoall, gather, scatter and reduce_scatter_block; the whole
// vector for the others; 0 for barrier. Irregular collectives take a
// block-size distribution (common/problems.h; without one every block has
// the same size): gatherv, scatterv, alltoallv and alltoallw with the size as
// its average block (alltoallv's rank i sends to rank j the j-th block of the
// distribution drawn for i), allgatherv and reduce_scatter with the size as
// the total of all blocks (their key), the distribution scaled to it. Data movement uses MPI_BYTE; reductions use MPI_SUM
// on MPI_DOUBLE (or --reduce-type), so their sizes round up to whole elements.
#ifndef COLLTUNE_BENCH_WORKLOAD_H_
#define COLLTUNE_BENCH_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <optional>
#include <string>

#include "bench/datatype_grid.h"
#include "common/catalog.h"
#include "common/problems.h"
#include "shim/coll/env.h"

namespace colltune::bench {

struct ReduceType {
  MPI_Datatype type;
  MPI_Op op;
};

class Workload {
 public:
  // Null if the collective cannot be run by this benchmark.
  // `root`: of the rooted collectives (bench/options.h, RootOfLaunch).
  static std::unique_ptr<Workload> Make(Collective c, int64_t requested_bytes,
                                        ReduceType reduce,
                                        const shim::CollEnv& env,
                                        std::optional<Problem> problem = {}, int root = 0);

  // The collective moving data described by a derived datatype of `spec`'s
  // layout (bench/datatype_grid.h), `requested` bytes of it rounded down to
  // whole elements (the v-variants: equal blocks of it, allgatherv's all of
  // them together), the datatype forms run as a layout rule runs them on
  // each rank (the packed form through the type's dense twin). Null if the
  // collective has no datatype form.
  static std::unique_ptr<Workload> MakeDerived(Collective c, int64_t requested,
                                               const DatatypeSpec& spec,
                                               shim::CollEnv env, int root = 0);
  ~Workload();
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  Collective collective() const { return collective_; }
  // "@" and the layout key of the derived datatype (common/layout_class.h),
  // the point's problem; empty for contiguous data.
  const std::string& layout_problem() const { return layout_problem_; }
  // The derived datatype of a MakeDerived workload, else MPI_DATATYPE_NULL.
  MPI_Datatype derived() const { return derived_; }
  // The size key actually measured (requested size rounded to elements).
  int64_t bytes() const { return bytes_; }
  // The same verdict on every rank.
  bool Eligible(Algorithm a) const { return eligible_(a); }
  int Run(Algorithm a) { return run_(a); }

 private:
  Workload() = default;
  Collective collective_ = Collective::kAllgather;
  int64_t bytes_ = 0;
  std::vector<char> send_, recv_;
  std::vector<int> counts_, displs_, rcounts_, rdispls_;
  std::vector<MPI_Datatype> types_;
  MPI_Datatype derived_ = MPI_DATATYPE_NULL;  // owned
  std::string layout_problem_;
  std::function<bool(Algorithm)> eligible_;
  std::function<int(Algorithm)> run_;
};

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_WORKLOAD_H_
