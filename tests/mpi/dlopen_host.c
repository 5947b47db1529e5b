/* A program without MPI that loads an MPI plugin with dlopen(RTLD_LOCAL)
   and runs it, as Python does with mpi4py (see mpi_plugin.c).
     dlopen_host PLUGIN.so */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dlopen_host PLUGIN.so\n");
    return 2;
  }
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (plugin == NULL) {
    fprintf(stderr, "dlopen_host: %s\n", dlerror());
    return 3;
  }
  int (*run)(int, char**) = (int (*)(int, char**))dlsym(plugin, "plugin_main");
  if (run == NULL) {
    fprintf(stderr, "dlopen_host: no plugin_main in %s\n", argv[1]);
    return 4;
  }
  return run(argc - 1, argv + 1);
}
