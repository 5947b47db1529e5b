#include "bench/datatype_grid.h"

#include <charconv>
#include <cstddef>

#include "shim/coll/quirks.h"

namespace colltune::bench {
namespace {

constexpr int kMaxBlock = 100000;

// `inner` with the extent `extent`; frees `inner` (MPI keeps what the new
// type needs).
MPI_Datatype Resized(MPI_Datatype inner, MPI_Aint extent) {
  MPI_Datatype out;
  PMPI_Type_create_resized(inner, 0, extent, &out);
  PMPI_Type_free(&inner);
  return out;
}

}  // namespace

std::optional<DatatypeSpec> ParseDatatypeSpec(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::optional<LayoutClass> layout = ParseLayoutClass(text.substr(0, colon));
  if (!layout || !IsRuleLayout(LayoutKey{*layout, -1})) return std::nullopt;
  const std::string_view n = text.substr(colon + 1);
  int block = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), block);
  if (ec != std::errc() || end != n.data() + n.size() || block < 1 || block > kMaxBlock) {
    return std::nullopt;
  }
  return DatatypeSpec{*layout, block};
}

std::string SpecName(const DatatypeSpec& spec) {
  return std::string(NameOf(spec.layout)) + ":" + std::to_string(spec.block);
}

std::vector<std::string> DatatypeGridNames() {
  return {"tiled:2",   "tiled:10",   "tiled:100",   "tiled:1000", "indexed:2",
          "indexed:100", "nested:2", "nested:100", "struct:8"};
}

MPI_Datatype MakeDatatype(const DatatypeSpec& spec, int64_t bytes, int* count) {
  const int a = spec.block;
  const MPI_Aint kInt = sizeof(int);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  switch (spec.layout) {
    case LayoutClass::kTiled: {
      // One element: a block of A ints in an extent of A+2 ints.
      MPI_Datatype v;
      PMPI_Type_vector(1, a, a + 2, MPI_INT, &v);
      t = Resized(v, (a + 2) * kInt);
      break;
    }
    case LayoutClass::kIndexed: {
      // One element: four blocks of A ints with gaps of 1, 2 and 3 ints.
      const int lens[4] = {a, a, a, a};
      const int displs[4] = {0, a + 1, 2 * a + 3, 3 * a + 6};
      MPI_Datatype x;
      PMPI_Type_indexed(4, lens, displs, MPI_INT, &x);
      t = Resized(x, (4 * a + 8) * kInt);
      break;
    }
    case LayoutClass::kNested: {
      // One element: two strided pairs of blocks of A ints, the pairs apart.
      MPI_Datatype inner, outer;
      PMPI_Type_vector(2, a, a + 2, MPI_INT, &inner);
      const MPI_Aint inner_extent = (2 * a + 2) * kInt;
      PMPI_Type_create_hvector(2, 1, inner_extent + 2 * kInt, inner, &outer);
      PMPI_Type_free(&inner);
      t = Resized(outer, 2 * (inner_extent + 2 * kInt));
      break;
    }
    case LayoutClass::kStruct:
    default: {
      // One element: A {int, double} pairs, each with its 4 bytes of padding.
      struct Pair {
        int i;
        double d;
      };
      const int lens[2] = {1, 1};
      const MPI_Aint displs[2] = {offsetof(Pair, i), offsetof(Pair, d)};
      const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
      MPI_Datatype pair;
      PMPI_Type_create_struct(2, lens, displs, types, &pair);
      MPI_Datatype padded = Resized(pair, sizeof(Pair));
      PMPI_Type_contiguous(a, padded, &t);
      PMPI_Type_free(&padded);
      break;
    }
  }
  PMPI_Type_commit(&t);
  int size = 1;
  PMPI_Type_size(t, &size);
  *count = static_cast<int>(bytes / size);
  if (*count < 1) *count = 1;
  return t;
}

bool LibraryRunsLayout(Collective c, const DatatypeSpec& spec) {
  return !(shim::kMixedTypesBreakGatherScatter && spec.layout == LayoutClass::kStruct &&
           (c == Collective::kGather || c == Collective::kScatter));
}

}  // namespace colltune::bench
