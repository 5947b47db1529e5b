// The shim's datatype classifier (shim/coll/datatype_class.h) on seed 003's
// layouts, on freed and re-created handles, and on user types with names and
// attributes. Every rank checks on its own; prints "PASS name" or
// "FAIL name: why" per check and "checks: N failed" at the end (exit 1 if any
// failed).
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "shim/coll/datatype_class.h"
#include "shim/mpi/mpi.h"

namespace {

using colltune::shim::ClassOf;
using colltune::shim::DatatypeClass;
using colltune::shim::Describe;
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
