// GL20: MPI_Scan(n) as MPI_Exscan(n), then MPI_Reduce_local of the exclusive
// prefix with the rank's own input.
//
// Rank r must end with x_0 o ... o x_{r-1} o x_r: prefix o own, in that order
// (PGMPITuneLib computes own o prefix, wrong for non-commutative operations).
// MPI_Reduce_local(in, inout) computes inout = in o inout, so:
//  * commutative operation, out of place: Exscan into recvbuf, then
//    Reduce_local(sendbuf, recvbuf) gives own o prefix = prefix o own; no
//    scratch beyond a packing area for rank 0's copy of a non-dense type;
//  * otherwise the own input is kept in scratch (n elements): with a
//    non-commutative operation Reduce_local(prefix, own) gives prefix o own,
//    which is copied to recvbuf; with MPI_IN_PLACE the input must be saved
//    before Exscan overwrites recvbuf.
// Rank 0's Exscan result is undefined; it takes its own input. Whether an
// operation commutes is the same on all ranks (MPI requires the same op), so
// the scratch bound is rank-invariant.
//
// Cost: MPI_Exscan(n) + MPI_Reduce_local(n) (rank 0: a copy); scratch: none
//   for a commutative op out of place, else n; + n to pack a non-dense type.
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

bool Commutes(MPI_Op op) {
  int commute = 0;
  return PMPI_Op_commutative(op, &commute) == MPI_SUCCESS && commute;
}

bool NeedsCopy(const ScanCall& c) {
  return c.sendbuf == MPI_IN_PLACE || !Commutes(c.op);
}

std::optional<uint64_t> Need(const ScanCall& c, const CollEnv&) {
  Layout l;
  if (c.count < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) {
    return std::nullopt;
  }
  const uint64_t temp = AlignUp(CopyTypedTemp(c.count, l));
  return NeedsCopy(c) ? AlignUp(l.Span(c.count)) + temp : temp;
}

int Run(const ScanCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const bool copy = NeedsCopy(c);
  const uint64_t temp_bytes = CopyTypedTemp(c.count, l);
  const uint64_t own_bytes = copy ? l.Span(c.count) : 0;
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(temp_bytes) + AlignUp(own_bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* temp = carve.Take(temp_bytes);
  if (!copy) {
    rc = PMPI_Exscan(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, env.comm);
    if (rc != MPI_SUCCESS) return rc;
    if (env.rank == 0) {
      return CopyTyped(c.sendbuf, c.recvbuf, c.count, c.datatype, l, temp);
    }
    return PMPI_Reduce_local(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op);
  }
  void* own = l.Base(carve.Take(own_bytes));
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  rc = CopyTyped(input, own, c.count, c.datatype, l, temp);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Exscan(own, c.recvbuf, c.count, c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  if (env.rank != 0) {
    if (Commutes(c.op)) {
      // In place and commutative: own o prefix straight into recvbuf.
      return PMPI_Reduce_local(own, c.recvbuf, c.count, c.datatype, c.op);
    }
    rc = PMPI_Reduce_local(c.recvbuf, own, c.count, c.datatype, c.op);
    if (rc != MPI_SUCCESS) return rc;
  }
  return CopyTyped(own, c.recvbuf, c.count, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ScanCall> kScanAsExscanReducelocal = {
    Algorithm::kScanAsExscanReducelocal, Need, Run};

}  // namespace colltune::shim
