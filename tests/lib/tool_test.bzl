"""tool_test: a shell test run with the paths of the programs it drives."""

# The shim built for each library, Open MPI's first (the order tests take them in).
SHIMS = ["//shim:libcolltune.so", "//shim:libcolltune-mpich.so"]

# colltune-bench built for each library, Open MPI's first.
BENCHES = ["//bench:colltune-bench", "//bench:colltune-bench-mpich"]

def per_library(target):
    """An mpi_cc_binary's two programs, Open MPI's first.

    Args:
      target: the label mpi_cc_binary was given as name.

    Returns:
      [target_openmpi, target_mpich].
    """
    return [target + "_openmpi", target + "_mpich"]

def tool_test(name, script, tools, data = [], **kwargs):
    """An sh_test of `script`, called with the path of each of `tools` in order.

    The script takes them with testlib.sh's args_as; naming each tool once
    keeps the arguments and the runfiles from drifting apart.

    Args:
      name: the test's name.
      script: the shell script.
      tools: labels of the programs and files passed as arguments, in order.
      data: further runfiles the script reads without being told their path.
      **kwargs: passed to sh_test (size, tags, timeout, ...).
    """
    native.sh_test(
        name = name,
        srcs = [script],
        args = ["$(rootpath %s)" % t for t in tools],
        data = tools + [d for d in data if d not in tools] + ["//tests/lib:testlib"],
        **kwargs
    )
