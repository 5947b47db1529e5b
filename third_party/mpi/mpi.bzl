"""Builds MPI code once per MPI library.

Open MPI handles are pointers and MPICH handles are integers, so code that
touches MPI types is compiled separately for each library. Every macro here
creates `<name>_openmpi` and `<name>_mpich`; `mpi_deps` name other such
targets without their suffix.
"""

MPI_VARIANTS = {
    "openmpi": "@openmpi",
    "mpich": "@mpich",
}

def _variant_deps(deps, mpi_deps, variant):
    return deps + [d + "_" + variant for d in mpi_deps]

def mpi_cc_library(name, mpi_deps = [], deps = [], **kwargs):
    """A cc_library per MPI library, compiled against its headers only."""
    for variant, repo in MPI_VARIANTS.items():
        native.cc_library(
            name = name + "_" + variant,
            deps = _variant_deps(deps, mpi_deps, variant) + [repo + "//:headers"],
            **kwargs
        )

def mpi_cc_binary(name, mpi_deps = [], deps = [], names = None, variants = None, **kwargs):
    """An MPI program per MPI library, linked with it.

    `names` maps a variant to the binary's file name (default `<name>_<variant>`);
    `variants` limits the libraries (default: all).
    """
    for variant, repo in MPI_VARIANTS.items():
        if variants != None and variant not in variants:
            continue
        out = (names or {}).get(variant, name + "_" + variant)
        native.cc_binary(
            name = out,
            deps = _variant_deps(deps, mpi_deps, variant) + [repo + "//:mpi"],
            **kwargs
        )
