/* First-error message buffer and the collective error check. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/error.h"

#define SG_MSG_LEN 512
static char g_message[SG_MSG_LEN];
static int g_have_message;

/* One printable line: messages may embed names from files, and a message that crossed ranks must
 * not carry bytes that would garble a terminal (UTF-8 in file names stays). */
static void make_one_line(char *msg) {
  for (unsigned char *c = (unsigned char *)msg; *c; ++c)
    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    else if (*c < 0x20 || *c == 0x7f) *c = '?';
}

sg_err sg_error_set(sg_err code, const char *fmt, ...) {
  if (!g_have_message) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    make_one_line(g_message);
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
  make_one_line(g_message);
}

const char *sg_error_message(void) { return g_have_message ? g_message : "unknown error"; }

void sg_error_clear(void) {
  g_have_message = 0;
  g_message[0] = 0;
}

/* The private channel of a communicator for its checks: a duplicate made at the first check on it
 * (collective, as the check is), kept in a fixed pool so that no rank can fail to get one while
 * the others do, found again through an MPI attribute and released when the communicator is freed. */
typedef struct {
  int in_use;
  MPI_Comm comm;
  long long checks; /* checks made on it so far: equal on every rank while the ranks are in step */
} check_channel;

#define SG_MAX_CHANNELS 64
static check_channel g_channels[SG_MAX_CHANNELS];
static int g_channel_key = MPI_KEYVAL_INVALID;

static int release_channel(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)extra;
  check_channel *ch = value;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&ch->comm); /* at finalization MPI releases it itself */
  ch->in_use = 0;
  return MPI_SUCCESS;
}

/* NULL when no channel can be had (on every rank alike): the check then runs on comm itself. */
static check_channel *channel_of(MPI_Comm comm) {
  if (g_channel_key == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_channel, &g_channel_key, NULL) != MPI_SUCCESS)
    return NULL;
  check_channel *ch = NULL;
  int found = 0;
  MPI_Comm_get_attr(comm, g_channel_key, &ch, &found);
  if (found) return ch;
  for (int k = 0; k < SG_MAX_CHANNELS && !ch; ++k)
    if (!g_channels[k].in_use) ch = &g_channels[k];
  if (!ch || MPI_Comm_dup(comm, &ch->comm) != MPI_SUCCESS) return NULL;
  ch->in_use = 1;
  ch->checks = 0;
  MPI_Comm_set_attr(comm, g_channel_key, ch);
  return ch;
}

/* Every rank gets the code and the message of rank `first`, in one transfer of a fixed size. */
static sg_err share_error(MPI_Comm via, int first, int rank, sg_err local) {
  struct {
    int code;
    char text[SG_MSG_LEN];
  } e;
  memset(&e, 0, sizeof e);
  if (rank == first) {
    e.code = local;
    if (g_have_message) memcpy(e.text, g_message, sizeof e.text);
    else snprintf(e.text, sizeof e.text, "error %d on rank %d, with no message", local, rank);
  }
  MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, via);
  e.text[SG_MSG_LEN - 1] = 0;
  memcpy(g_message, e.text, sizeof g_message);
  make_one_line(g_message);
  g_have_message = 1;
  return e.code ? e.code : SG_ERR_LIB;
}

sg_err sg_error_collective(MPI_Comm comm, sg_err local) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1) return local;
  check_channel *ch = channel_of(comm);
  MPI_Comm via = ch ? ch->comm : comm;
  long long n = ch ? ++ch->checks : 0;
  /* the lowest failing rank (size: none), and the least and the most checks made so far */
  long long mine[3] = {local ? rank : size, n, -n}, all[3];
  MPI_Allreduce(mine, all, 3, MPI_LONG_LONG, MPI_MIN, via);
  if (all[0] < size) return share_error(via, (int)all[0], rank, local);
  if (all[1] == -all[2]) return SG_OK;
  /* a rank skipped a check that the others made: a bug, reported rather than left to hang later */
  sg_error_clear();
  return sg_error_set(SG_ERR_LIB, "internal error: ranks out of step at a collective error check (check %lld on one rank, %lld on another)",
                      all[1], -all[2]);
}

/* At least one element, so that an empty array is never NULL: memcpy and memset of 0 bytes are
 * undefined on NULL (UBSan stops a rank with no subsystem there), and a caller need not tell an
 * empty array from a failed allocation. */
void *sg_calloc(size_t count, size_t size, const char *what) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) sg_error_set(SG_ERR_MEM, "out of memory allocating %zu x %zu bytes (%s)", count, size, what);
  return p;
}

sg_err sg_grow(void **ptr, int *cap, int n, size_t elem, const char *what) {
  if (n <= *cap && *ptr) return SG_OK; /* a buffer even for n = 0, as sg_calloc gives */
  int nc = *cap > 0 ? *cap : 16;
  while (nc < n) nc *= 2;
  void *p = realloc(*ptr, (size_t)nc * elem);
  if (!p) return sg_error_set(SG_ERR_MEM, "out of memory growing %s to %d entries", what, nc);
  *ptr = p;
  *cap = nc;
  return SG_OK;
}
