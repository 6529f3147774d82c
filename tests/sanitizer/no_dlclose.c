/* Preloaded into every test of the sanitizer build (tests/sanitizer/CMakeLists.txt): dlclose does
 * nothing, so that the Open MPI components loaded with dlopen stay mapped until the process exits
 * and LeakSanitizer can name the library of what they keep (suppressed by lsan.supp); after a real
 * dlclose their frames read "<unknown module>" and no suppression can match them. Built without
 * the sanitizers: it is also preloaded into mpiexec, bash and python. */
int dlclose(void *handle);

int dlclose(void *handle) {
  (void)handle;
  return 0;
}
