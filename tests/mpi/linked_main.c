/* mpi_plugin.c's program as an ordinary executable linked with the shim
   (-lcolltune before -lmpi) instead of preloading it. */
int plugin_main(int argc, char** argv);

int main(int argc, char** argv) { return plugin_main(argc, argv); }
