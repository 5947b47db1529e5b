#include "shim/coll/alltoallv/exchange.h"

#include <algorithm>
#include <cstring>

namespace colltune::shim::a2a {
namespace {

// Bytes [lo, hi) that `count` elements of `layout` at `start` touch.
void SpanOf(const char* start, int count, const Layout& l, int64_t* lo, int64_t* hi) {
  const int64_t last = static_cast<int64_t>(count - 1) * l.extent;
  const int64_t base = reinterpret_cast<intptr_t>(start) + l.true_lb;
  *lo = base + std::min<int64_t>(0, last);
  *hi = base + std::max<int64_t>(0, last) + l.true_extent;
}

int64_t BlockBytes(const Side& s, int j) {
  const int64_t size = TypeSize(s.Type(j));
  return size < 0 ? -1 : size * s.counts[j];
}

}  // namespace

int SidesOf(const AlltoallvCall& c, Side* send, Side* recv) {
  Layout l;
  int rc = GetLayout(c.recvtype, &l);
  if (rc != MPI_SUCCESS) return rc;
  *recv = Side{static_cast<char*>(c.recvbuf), c.recvcounts, c.rdispls, c.recvtype, nullptr,
               l.extent};
  if (c.sendbuf == MPI_IN_PLACE) {
    *send = *recv;
    return MPI_SUCCESS;
  }
  rc = GetLayout(c.sendtype, &l);
  if (rc != MPI_SUCCESS) return rc;
  *send = Side{static_cast<char*>(const_cast<void*>(c.sendbuf)), c.sendcounts, c.sdispls,
               c.sendtype, nullptr, l.extent};
  return MPI_SUCCESS;
}

int SidesOf(const AlltoallwCall& c, Side* send, Side* recv) {
  *recv = Side{static_cast<char*>(c.recvbuf), c.recvcounts, c.rdispls, MPI_DATATYPE_NULL,
               c.recvtypes, 1};
  if (c.sendbuf == MPI_IN_PLACE) {
    *send = *recv;
  } else {
    *send = Side{static_cast<char*>(const_cast<void*>(c.sendbuf)), c.sendcounts, c.sdispls,
                 MPI_DATATYPE_NULL, c.sendtypes, 1};
  }
  return MPI_SUCCESS;
}

int CheckSide(const Side& s, int p, void* scratch, int64_t* max_bytes) {
  struct Span {
    int64_t lo, hi;
  };
  static_assert(sizeof(Span) == 16, "SpanScratch");
  Span* spans = static_cast<Span*>(scratch);
  int n = 0;
  Layout l;
  MPI_Datatype known = MPI_DATATYPE_NULL;
  bool have = false;
  for (int j = 0; j < p; ++j) {
    if (s.counts[j] < 0) return MPI_ERR_COUNT;
    const MPI_Datatype t = s.Type(j);
    if (!have || t != known) {
      if (GetLayout(t, &l) != MPI_SUCCESS) return MPI_ERR_TYPE;
      known = t;
      have = true;
    }
    const int64_t bytes = l.size * s.counts[j];
    if (bytes > *max_bytes) *max_bytes = bytes;
    if (spans != nullptr && bytes > 0) {
      SpanOf(s.At(j), s.counts[j], l, &spans[n].lo, &spans[n].hi);
      ++n;
    }
  }
  if (spans == nullptr) return MPI_SUCCESS;
  std::sort(spans, spans + n, [](const Span& a, const Span& b) { return a.lo < b.lo; });
  for (int i = 1; i < n; ++i) {
    if (spans[i].lo < spans[i - 1].hi) return MPI_ERR_BUFFER;
  }
  return MPI_SUCCESS;
}

int Pairwise(const Side& send, const Side& recv, bool in_place, int rank, int p,
             MPI_Comm comm, int tag) {
  int rc = MPI_SUCCESS;
  if (in_place) {
    // Round k pairs ranks whose numbers add up to k (mod p): every pair meets
    // once, and each rank swaps one block with its partner in its place.
    for (int k = 0; k < p && rc == MPI_SUCCESS; ++k) {
      const int partner = ((k - rank) % p + p) % p;
      if (partner == rank || BlockBytes(recv, partner) == 0) continue;
      rc = PMPI_Sendrecv_replace(recv.At(partner), recv.counts[partner], recv.Type(partner),
                                 partner, tag, partner, tag, comm, MPI_STATUS_IGNORE);
    }
    return rc;
  }
  // The own block: memcpy between dense types, else a message to self with
  // the user's types (which may differ, with equal type signatures).
  const int64_t own_out = BlockBytes(send, rank), own_in = BlockBytes(recv, rank);
  if (own_out > 0 || own_in > 0) {
    Layout ls, lr;
    if (own_out == own_in && GetLayout(send.Type(rank), &ls) == MPI_SUCCESS &&
        GetLayout(recv.Type(rank), &lr) == MPI_SUCCESS && ls.dense && lr.dense) {
      memmove(recv.At(rank), send.At(rank), static_cast<size_t>(own_in));
    } else {
      rc = PMPI_Sendrecv(send.At(rank), send.counts[rank], send.Type(rank), rank, tag,
                         recv.At(rank), recv.counts[rank], recv.Type(rank), rank, tag, comm,
                         MPI_STATUS_IGNORE);
    }
  }
  for (int k = 1; k < p && rc == MPI_SUCCESS; ++k) {
    const int dst = (rank + k) % p, src = (rank - k + p) % p;
    const bool out = BlockBytes(send, dst) != 0, in = BlockBytes(recv, src) != 0;
    rc = PMPI_Sendrecv(send.At(dst), out ? send.counts[dst] : 0, send.Type(dst),
                       out ? dst : MPI_PROC_NULL, tag, recv.At(src), in ? recv.counts[src] : 0,
                       recv.Type(src), in ? src : MPI_PROC_NULL, tag, comm, MPI_STATUS_IGNORE);
  }
  return rc;
}

int LocalError(MPI_Comm comm, int rc) {
  PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

}  // namespace colltune::shim::a2a
