/* First-error message buffer and the collective error check. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/error.h"

#define SG_MSG_LEN 512
static char g_message[SG_MSG_LEN];
static int g_have_message;

sg_err sg_error_set(sg_err code, const char *fmt, ...) {
  if (!g_have_message) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    /* One line only: messages may embed names from files. */
    for (char *c = g_message; *c; ++c)
      if (*c == '\n' || *c == '\r') *c = ' ';
    g_have_message = 1;
  }
  return code;
}

void sg_error_append(const char *fmt, ...) {
  size_t used = strlen(g_message);
  if (!g_have_message || used + 1 >= sizeof g_message) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_message + used, sizeof g_message - used, fmt, ap);
  va_end(ap);
  for (char *c = g_message; *c; ++c)
    if (*c == '\n' || *c == '\r') *c = ' ';
}

const char *sg_error_message(void) { return g_have_message ? g_message : "unknown error"; }

void sg_error_clear(void) {
  g_have_message = 0;
  g_message[0] = 0;
}

sg_err sg_error_collective(MPI_Comm comm, sg_err local) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1) return local;
  /* Lowest failing rank: min over (failed ? rank : size). */
  int mine = local ? rank : size, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return SG_OK;
  int code = local;
  char buf[SG_MSG_LEN];
  if (rank == first) memcpy(buf, g_message, SG_MSG_LEN);
  MPI_Bcast(&code, 1, MPI_INT, first, comm);
  MPI_Bcast(buf, SG_MSG_LEN, MPI_CHAR, first, comm);
  memcpy(g_message, buf, SG_MSG_LEN);
  g_message[SG_MSG_LEN - 1] = 0;
  g_have_message = 1;
  return code;
}

void *sg_calloc(size_t count, size_t size, const char *what) {
  if (count == 0) return NULL;
  void *p = calloc(count, size);
  if (!p) sg_error_set(SG_ERR_MEM, "out of memory allocating %zu x %zu bytes (%s)", count, size, what);
  return p;
}

sg_err sg_grow(void **ptr, int *cap, int n, size_t elem, const char *what) {
  if (n <= *cap) return SG_OK;
  int nc = *cap > 0 ? *cap : 16;
  while (nc < n) nc *= 2;
  void *p = realloc(*ptr, (size_t)nc * elem);
  if (!p) return sg_error_set(SG_ERR_MEM, "out of memory growing %s to %d entries", what, nc);
  *ptr = p;
  *cap = nc;
  return SG_OK;
}
