// The shim's datatype classifier (shim/coll/datatype_class.h) on seed 003's
// layouts, on freed and re-created handles, and on user types with names and
// attributes. Every rank checks on its own; prints "PASS name" or
// "FAIL name: why" per check and "checks: N failed" at the end (exit 1 if any
// failed).
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include <vector>

#include "shim/coll/datatype_class.h"
#include "shim/coll/normal_form.h"
#include "shim/coll/whole_type.h"
#include "shim/mpi/mpi.h"

namespace {

using colltune::shim::ClassOf;
using colltune::shim::DatatypeClass;
using colltune::shim::Describe;
using colltune::shim::MixesBasicTypes;
using colltune::shim::NormalFormOf;
using colltune::shim::WholeOf;
using colltune::LayoutClass;

int g_failed = 0;
int g_rank = 0;

void Expect(const std::string& name, MPI_Datatype t, const std::string& want) {
  const std::string got = Describe(ClassOf(t));
  if (got == want) {
    if (g_rank == 0) std::printf("PASS %s: %s\n", name.c_str(), got.c_str());
  } else {
    ++g_failed;
    std::printf("FAIL %s (rank %d): %s, expected %s\n", name.c_str(), g_rank, got.c_str(),
                want.c_str());
  }
}

void Check(const std::string& name, bool ok, const std::string& why) {
  if (ok) {
    if (g_rank == 0) std::printf("PASS %s\n", name.c_str());
  } else {
    ++g_failed;
    std::printf("FAIL %s (rank %d): %s\n", name.c_str(), g_rank, why.c_str());
  }
}

MPI_Datatype Commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

// Seed 003's tiled layout: A ints a block, extent A+2 ints.
MPI_Datatype Tiled(int a) {
  MPI_Datatype v, t;
  MPI_Type_vector(1, a, a + 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, static_cast<MPI_Aint>(a + 2) * sizeof(int), &t);
  MPI_Type_free(&v);
  return Commit(t);
}

MPI_Datatype IntDoublePair() {
  struct Pair {
    int i;
    double d;
  };
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {offsetof(Pair, i), offsetof(Pair, d)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
  MPI_Type_create_struct(2, lens, displs, types, &t);
  return Commit(t);
}

// The normal form of `t` (shim/coll/normal_form.h): a type of its own
// unless `same`, with the same size and bounds, and the same type map: 3
// elements packed through either type give the same bytes, and unpacked
// through either they land at the same places, leaving gaps alone.
void ExpectNormalForm(const std::string& name, MPI_Datatype t, bool same) {
  const MPI_Datatype n = NormalFormOf(t);
  const MPI_Datatype again = NormalFormOf(t);
  if (same) {
    Check("normal form of " + name + " is the type itself", n == t, "a new type");
    return;
  }
  MPI_Aint lb, extent, nlb, nextent, tlb, textent, ntlb, ntextent;
  int size = 0, nsize = 0;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_extent(n, &nlb, &nextent);
  MPI_Type_get_true_extent(t, &tlb, &textent);
  MPI_Type_get_true_extent(n, &ntlb, &ntextent);
  MPI_Type_size(t, &size);
  MPI_Type_size(n, &nsize);
  std::string why;
  if (n == t) why = "no normal form";
  if (again != n) why = "built twice";
  if (size != nsize || lb != nlb || extent != nextent || tlb != ntlb || textent != ntextent) {
    why = "size or bounds differ";
  }
  if (why.empty()) {
    constexpr int kCount = 3;
    const size_t span = static_cast<size_t>((kCount - 1) * extent + textent);
    std::vector<char> data(span), a(size * kCount), b(size * kCount);
    for (size_t i = 0; i < span; ++i) data[i] = static_cast<char>(i * 7 + 1);
    char* base = data.data() - tlb;
    int pa = 0, pb = 0;
    MPI_Pack(base, kCount, t, a.data(), static_cast<int>(a.size()), &pa, MPI_COMM_SELF);
    MPI_Pack(base, kCount, n, b.data(), static_cast<int>(b.size()), &pb, MPI_COMM_SELF);
    if (a != b) why = "packs differently";
    std::vector<char> ua(span, 0x55), ub(span, 0x55);
    pa = pb = 0;
    MPI_Unpack(a.data(), static_cast<int>(a.size()), &pa, ua.data() - tlb, kCount, t,
               MPI_COMM_SELF);
    MPI_Unpack(a.data(), static_cast<int>(a.size()), &pb, ub.data() - tlb, kCount, n,
               MPI_COMM_SELF);
    if (ua != ub) why = "unpacks differently";
  }
  Check("normal form of " + name + ": same type map and bounds", why.empty(), why);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);

  Expect("predefined int", MPI_INT, "contiguous");
  Expect("predefined double", MPI_DOUBLE, "contiguous");

  MPI_Datatype t;
  MPI_Type_contiguous(10, MPI_INT, &t);
  Commit(t);
  Expect("contiguous of ints", t, "contiguous");
  MPI_Type_free(&t);

  t = Tiled(2);
  Expect("tiled A=2", t, "tiled/8B");
  MPI_Type_free(&t);
  t = Tiled(100);
  Expect("tiled A=100", t, "tiled/256B");  // 400 bytes: the 256 B bucket
  MPI_Type_free(&t);

  MPI_Type_vector(10, 2, 5, MPI_DOUBLE, &t);
  Commit(t);
  Expect("vector of doubles", t, "tiled/16B");
  // A vector of that vector: nested.
  MPI_Datatype nested;
  MPI_Type_create_hvector(3, 1, 1000, t, &nested);
  Commit(nested);
  Expect("vector of vectors", nested, "nested/16B");
  MPI_Type_free(&nested);
  MPI_Type_free(&t);

  int lens[2] = {1, 3}, displs[2] = {0, 5};
  MPI_Type_indexed(2, lens, displs, MPI_INT, &t);
  Commit(t);
  Expect("index list", t, "indexed/4B");
  MPI_Type_free(&t);

  t = IntDoublePair();
  Expect("heterogeneous struct", t, "struct/4B,mixed");
  MPI_Type_free(&t);

  int slens[2] = {1, 1};
  MPI_Aint sdispls[2] = {0, 8};
  MPI_Datatype stypes[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, slens, sdispls, stypes, &t);
  Commit(t);
  Expect("struct of one basic type", t, "indexed/4B");
  MPI_Type_free(&t);

  int sizes[2] = {8, 8}, subsizes[2] = {4, 2}, starts[2] = {1, 1};
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
  Commit(t);
  Expect("2-d subarray", t, "nested/16B");
  MPI_Type_free(&t);

  MPI_Type_create_resized(MPI_INT, 0, 8, &t);
  Commit(t);
  Expect("int resized to 8 bytes", t, "tiled/4B");
  MPI_Type_free(&t);

  // Absolute addresses (used with MPI_BOTTOM): left alone.
  static int where[4];
  MPI_Aint address;
  MPI_Get_address(where, &address);
  int one = 2;
  MPI_Type_create_hindexed(1, &one, &address, MPI_INT, &t);
  Commit(t);
  Expect("absolute addresses", t, "other");
  MPI_Type_free(&t);

  // A duplicate is classified on its own.
  MPI_Datatype tiled = Tiled(10), dup;
  Expect("tiled A=10", tiled, "tiled/32B");
  MPI_Type_dup(tiled, &dup);
  Expect("duplicate of tiled A=10", dup, "tiled/32B");
  MPI_Type_free(&dup);
  MPI_Type_free(&tiled);

  // Freed handles that MPI gives out again never keep an old class.
  bool stale = false;
  std::string why;
  for (int i = 0; i < 20; ++i) {
    MPI_Datatype a = i % 2 ? Tiled(2) : IntDoublePair();
    const std::string got = Describe(ClassOf(a));
    const std::string want = i % 2 ? "tiled/8B" : "struct/4B,mixed";
    if (got != want) {
      stale = true;
      why = "round " + std::to_string(i) + ": " + got + ", expected " + want;
    }
    MPI_Type_free(&a);
  }
  Check("re-created handles classified anew", !stale, why);

  // Normal forms (seed 003's GL4): multi-level descriptions flattened, flat
  // and predefined ones kept, absolute addresses never read.
  ExpectNormalForm("int", MPI_INT, true);
  t = Tiled(2);
  ExpectNormalForm("a resized vector of ints", t, true);
  MPI_Type_free(&t);
  {
    MPI_Datatype inner, outer;
    MPI_Type_vector(2, 2, 4, MPI_INT, &inner);
    MPI_Type_create_hvector(3, 1, 40, inner, &outer);
    Commit(outer);
    ExpectNormalForm("a vector of vectors", outer, false);
    MPI_Datatype resized;
    MPI_Type_create_resized(outer, -8, 200, &resized);
    Commit(resized);
    ExpectNormalForm("a vector of vectors resized to a negative lower bound", resized, false);
    MPI_Type_free(&resized);
    MPI_Type_free(&outer);
    MPI_Type_free(&inner);
    int sizes[3] = {4, 5, 6}, subsizes[3] = {2, 3, 2}, starts[3] = {1, 1, 3};
    MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    Commit(t);
    ExpectNormalForm("a 3-d subarray (C order)", t, false);
    MPI_Type_free(&t);
    MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_FLOAT, &t);
    Commit(t);
    ExpectNormalForm("a 3-d subarray (Fortran order)", t, false);
    MPI_Type_free(&t);
    t = IntDoublePair();
    MPI_Datatype pairs;
    MPI_Type_contiguous(4, t, &pairs);
    Commit(pairs);
    ExpectNormalForm("contiguous int-double pairs", pairs, false);
    MPI_Type_free(&pairs);
    MPI_Type_free(&t);
    // Adjacent blocks, out of order: merged where they touch, kept in
    // type-map order.
    int ilens[3] = {2, 2, 1}, idispls[3] = {6, 8, 0};
    MPI_Datatype index;
    MPI_Type_indexed(3, ilens, idispls, MPI_INT, &index);
    MPI_Type_contiguous(2, index, &t);
    Commit(t);
    ExpectNormalForm("contiguous index lists", t, false);
    MPI_Type_free(&t);
    MPI_Type_free(&index);
    int x[4] = {0, 0, 0, 0};
    MPI_Aint where;
    MPI_Get_address(&x[1], &where);
    int one = 1;
    MPI_Datatype abs_inner, absolute;
    MPI_Type_create_hindexed(1, &one, &where, MPI_INT, &abs_inner);
    MPI_Type_contiguous(2, abs_inner, &absolute);
    Commit(absolute);
    ExpectNormalForm("a type on absolute addresses", absolute, true);
    MPI_Type_free(&absolute);
    MPI_Type_free(&abs_inner);
  }

  // Counts as one contiguous type (seed 003's GL1): the same bytes packed,
  // one handle per (type, count), none for dense types, at most 8 counts.
  {
    t = Tiled(3);
    const MPI_Datatype whole = WholeOf(t, 5);
    int size = 0, wsize = 0;
    MPI_Type_size(t, &size);
    if (whole != MPI_DATATYPE_NULL) MPI_Type_size(whole, &wsize);
    std::vector<int> data(5 * 5), a(15), b(15);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int>(i);
    int pa = 0, pb = 0;
    if (whole != MPI_DATATYPE_NULL) {
      MPI_Pack(data.data(), 5, t, a.data(), 60, &pa, MPI_COMM_SELF);
      MPI_Pack(data.data(), 1, whole, b.data(), 60, &pb, MPI_COMM_SELF);
    }
    Check("5 tiles as one contiguous type: the same bytes",
          whole != MPI_DATATYPE_NULL && wsize == 5 * size && a == b, "differs or none");
    Check("... built once per count", WholeOf(t, 5) == whole && WholeOf(t, 6) != whole,
          "rebuilt or shared");
    bool capped = true;
    for (int c = 7; c < 20; ++c) {
      const MPI_Datatype w = WholeOf(t, c);
      capped = capped && (c < 13 ? w != MPI_DATATYPE_NULL : w == MPI_DATATYPE_NULL);
    }
    Check("... for at most 8 counts a type", capped, "not capped at 8");
    Check("... and none for dense types or one element",
          WholeOf(MPI_INT, 5) == MPI_DATATYPE_NULL && WholeOf(t, 1) == MPI_DATATYPE_NULL,
          "made one");
    MPI_Type_free(&t);
  }

  // Mixed signatures (common/quirks.h's kFormMixedTypes): int and double
  // with a gap or without one, and the pairs of two types; not one basic
  // type, with gaps or not, nor MPI_2INT.
  {
    int lens[2] = {1, 1};
    MPI_Aint gapped[2] = {0, 8}, tight[2] = {0, 4};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE}, with_gap, inner, no_gap;
    MPI_Type_create_struct(2, lens, gapped, members, &with_gap);
    MPI_Type_create_struct(2, lens, tight, members, &inner);
    MPI_Type_create_resized(inner, 0, 12, &no_gap);
    MPI_Type_commit(&with_gap);
    MPI_Type_commit(&no_gap);
    MPI_Datatype tiles = Tiled(4);
    Check("int and double mix, with a gap or without",
          MixesBasicTypes(with_gap) && MixesBasicTypes(no_gap), "not mixed");
    Check("MPI_DOUBLE_INT mixes, MPI_2INT and MPI_INT do not",
          MixesBasicTypes(MPI_DOUBLE_INT) && !MixesBasicTypes(MPI_2INT) &&
              !MixesBasicTypes(MPI_INT),
          "wrong");
    Check("tiles of ints do not mix", !MixesBasicTypes(tiles), "mixed");
    // The dense struct moves as contiguous data, and its class (kept on the
    // type) still says that it mixes; asked again, the same.
    const DatatypeClass dense = ClassOf(no_gap), again = ClassOf(no_gap);
    Check("the dense struct's class: contiguous, not homogeneous",
          dense.layout == LayoutClass::kContiguous && !dense.homogeneous &&
              again.layout == LayoutClass::kContiguous && !again.homogeneous &&
              MixesBasicTypes(no_gap),
          Describe(dense) + (dense.homogeneous ? " homogeneous" : " mixed"));
    Check("MPI_INT's class: contiguous, homogeneous",
          ClassOf(MPI_INT).layout == LayoutClass::kContiguous && ClassOf(MPI_INT).homogeneous,
          Describe(ClassOf(MPI_INT)));
    MPI_Type_free(&with_gap);
    MPI_Type_free(&inner);
    MPI_Type_free(&no_gap);
    MPI_Type_free(&tiles);
  }

  // The user's name and attributes stay.
  MPI_Datatype named = Tiled(4);
  MPI_Type_set_name(named, "user tile");
  int keyval = MPI_KEYVAL_INVALID;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval, nullptr);
  static int token = 42;
  MPI_Type_set_attr(named, keyval, &token);
  ClassOf(named);
  ClassOf(named);
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0, found = 0;
  void* value = nullptr;
  MPI_Type_get_name(named, name, &len);
  MPI_Type_get_attr(named, keyval, &value, &found);
  Check("the user's name stays", std::strcmp(name, "user tile") == 0, name);
  Check("the user's attribute stays", found && value == &token, "attribute lost");
  Expect("classified twice, same class", named, "tiled/16B");
  MPI_Type_free(&named);
  MPI_Type_free_keyval(&keyval);

  int failed = 0;
  MPI_Allreduce(&g_failed, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("checks: %d failed\n", failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
