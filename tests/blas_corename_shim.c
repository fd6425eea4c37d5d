/* An OpenBLAS that does not know this CPU, for tests/blas_core.sh: loaded
 * with LD_PRELOAD, openblas_get_corename() says "Prescott", as OpenBLAS did
 * on a VM reporting "Intel Xeon Processor" with AVX-512 (issue #24), until
 * OPENBLAS_CORETYPE is set; then it passes the call to OpenBLAS, which has
 * taken that core. So dpbo's second start (src/app/main.c) can be tested on
 * any x86-64 host. Test-only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

char *openblas_get_corename(void) {
  static char prescott[] = "Prescott";
  const char *forced = getenv("OPENBLAS_CORETYPE");
  if (!forced || !*forced) return prescott;
  char *(*real)(void) = (char *(*)(void))dlsym(RTLD_NEXT, "openblas_get_corename");
  return real ? real() : prescott;
}
