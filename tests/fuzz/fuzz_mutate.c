/* Mutations of the fuzz driver (fuzz_mutate.h). The choice of values follows what breaks readers
 * of binary formats: HDF5 stores sizes, counts and addresses as 2-, 4- and 8-byte little-endian
 * integers and the scene data as doubles, so the interesting values are the edges of those types
 * (0, -1, the signed limits, powers of two) and the special doubles (NaN, infinities, the extremes). */
#include "fuzz_mutate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sg_rng_seed(sg_rng *r, uint64_t seed) { r->state = seed ^ 0x9e3779b97f4a7c15ULL; }

/* splitmix64: small, fast, and the same sequence everywhere */
uint64_t sg_rng_next(sg_rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

size_t sg_rng_below(sg_rng *r, size_t n) { return (size_t)(sg_rng_next(r) % n); }

/* --- dictionaries -------------------------------------------------------------------------------- */

/* The token between the first and the last quote of line, unescaped into out; its length or -1. */
static long parse_token(const char *line, uint8_t *out) {
  const char *a = strchr(line, '"'), *b = strrchr(line, '"');
  if (!a || b <= a) return -1;
  long n = 0;
  for (const char *c = a + 1; c < b; ++c) {
    if (*c != '\\') {
      out[n++] = (uint8_t)*c;
    } else if (c + 1 < b && c[1] == 'x' && c + 3 < b) {
      char hex[3] = {c[2], c[3], 0};
      out[n++] = (uint8_t)strtoul(hex, NULL, 16);
      c += 3;
    } else if (c + 1 < b) {
      out[n++] = (uint8_t)*++c;
    }
  }
  return n;
}

int sg_dict_load(sg_dict *d, const char *path) {
  memset(d, 0, sizeof *d);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[1024];
  uint8_t tok[1024];
  int cap = 0;
  while (fgets(line, sizeof line, f)) {
    const char *c = line + strspn(line, " \t");
    long n = *c == '#' ? -1 : parse_token(c, tok);
    if (n <= 0) continue;
    if (d->n == cap) {
      cap = cap ? 2 * cap : 64;
      d->token = realloc(d->token, (size_t)cap * sizeof *d->token);
      d->len = realloc(d->len, (size_t)cap * sizeof *d->len);
      if (!d->token || !d->len) exit(1);
    }
    d->token[d->n] = malloc((size_t)n);
    if (!d->token[d->n]) exit(1);
    memcpy(d->token[d->n], tok, (size_t)n);
    d->len[d->n++] = (size_t)n;
  }
  fclose(f);
  return 0;
}

void sg_dict_free(sg_dict *d) {
  for (int k = 0; k < d->n; ++k) free(d->token[k]);
  free(d->token);
  free(d->len);
  memset(d, 0, sizeof *d);
}

/* --- single mutations ---------------------------------------------------------------------------- */

typedef struct {
  sg_rng *r;
  uint8_t *buf;
  size_t *size, cap;
  const uint8_t *other;
  size_t other_size;
  const sg_dict *dict;
} mut;

static const int64_t interesting[] = {0,       1,          -1,          16,          32,         64,
                                      100,     127,        -128,        255,         256,        512,
                                      1000,    1024,       4096,        32767,       -32768,     65535,
                                      65536,   2147483647, -2147483647 - 1, 4294967295LL, 1LL << 32, 1LL << 53,
                                      INT64_MAX, INT64_MIN};

static const double special[] = {0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 1e-308, 5e-324, 1e300, 3.0,
                                 INFINITY, -INFINITY, NAN};

/* A chunk length: mostly short, sometimes up to a quarter of the input. */
static size_t chunk_len(sg_rng *r, size_t limit) {
  if (limit == 0) return 0;
  size_t n = sg_rng_below(r, 4) ? 1 + sg_rng_below(r, 32) : 1 + sg_rng_below(r, limit / 4 + 1);
  return n < limit ? n : limit;
}

/* width bytes of v at pos, little- or big-endian (the input must hold them). */
static void put_int(mut *m, size_t pos, int width, uint64_t v, int big) {
  for (int k = 0; k < width; ++k) m->buf[pos + (size_t)k] = (uint8_t)(v >> (8 * (big ? width - 1 - k : k)));
}

static uint64_t get_int(const mut *m, size_t pos, int width, int big) {
  uint64_t v = 0;
  for (int k = 0; k < width; ++k) v |= (uint64_t)m->buf[pos + (size_t)k] << (8 * (big ? width - 1 - k : k));
  return v;
}

static int pick_width(sg_rng *r, size_t size) {
  static const int widths[] = {1, 2, 4, 8};
  int w = widths[sg_rng_below(r, 4)];
  while ((size_t)w > size) w /= 2;
  return w;
}

static void flip_bit(mut *m) {
  size_t bit = sg_rng_below(m->r, *m->size * 8);
  m->buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

static void set_interesting(mut *m) {
  int w = pick_width(m->r, *m->size);
  size_t pos = sg_rng_below(m->r, *m->size - (size_t)w + 1);
  put_int(m, pos, w, (uint64_t)interesting[sg_rng_below(m->r, sizeof interesting / sizeof interesting[0])],
          (int)sg_rng_below(m->r, 2));
}

static void add_delta(mut *m) {
  int w = pick_width(m->r, *m->size), big = (int)sg_rng_below(m->r, 2);
  size_t pos = sg_rng_below(m->r, *m->size - (size_t)w + 1);
  int64_t delta = 1 + (int64_t)sg_rng_below(m->r, 35);
  if (sg_rng_below(m->r, 2)) delta = -delta;
  put_int(m, pos, w, get_int(m, pos, w, big) + (uint64_t)delta, big);
}

static void random_byte(mut *m) { m->buf[sg_rng_below(m->r, *m->size)] ^= (uint8_t)(1 + sg_rng_below(m->r, 255)); }

static void set_double(mut *m) {
  if (*m->size < 8) {
    flip_bit(m);
    return;
  }
  size_t pos = sg_rng_below(m->r, *m->size - 7);
  memcpy(m->buf + pos, &special[sg_rng_below(m->r, sizeof special / sizeof special[0])], 8);
}

static void erase_chunk(mut *m) {
  if (*m->size < 2) {
    flip_bit(m);
    return;
  }
  size_t n = chunk_len(m->r, *m->size - 1), pos = sg_rng_below(m->r, *m->size - n + 1);
  memmove(m->buf + pos, m->buf + pos + n, *m->size - pos - n);
  *m->size -= n;
}

/* n bytes made room for at pos (n already bounded by the free space). */
static void open_gap(mut *m, size_t pos, size_t n) {
  memmove(m->buf + pos + n, m->buf + pos, *m->size - pos);
  *m->size += n;
}

static void insert_chunk(mut *m) {
  size_t room = m->cap - *m->size;
  if (room == 0) {
    erase_chunk(m);
    return;
  }
  size_t n = chunk_len(m->r, room < *m->size ? room : *m->size), pos = sg_rng_below(m->r, *m->size + 1);
  size_t from = sg_rng_below(m->r, *m->size - n + 1);
  int constant = sg_rng_below(m->r, 4) == 0;
  uint8_t byte = m->buf[from];
  uint8_t *copy = malloc(n);
  if (!copy) return;
  memcpy(copy, m->buf + from, n);
  open_gap(m, pos, n);
  if (constant) memset(m->buf + pos, byte, n);
  else memcpy(m->buf + pos, copy, n);
  free(copy);
}

static void overwrite_chunk(mut *m) {
  size_t n = chunk_len(m->r, *m->size), from = sg_rng_below(m->r, *m->size - n + 1),
         to = sg_rng_below(m->r, *m->size - n + 1);
  memmove(m->buf + to, m->buf + from, n);
}

static void truncate_input(mut *m) { *m->size = sg_rng_below(m->r, *m->size); }

/* The head of this input and the tail of another, cut at the same offset: files of one format
 * keep their layout, so the result mixes two valid structures. */
static void splice(mut *m) {
  if (!m->other || m->other_size < 2) {
    overwrite_chunk(m);
    return;
  }
  size_t cut = sg_rng_below(m->r, (*m->size < m->other_size ? *m->size : m->other_size));
  size_t tail = m->other_size - cut;
  if (cut + tail > m->cap) tail = m->cap - cut;
  memcpy(m->buf + cut, m->other + cut, tail);
  *m->size = cut + tail;
}

static void dict_token(mut *m) {
  if (!m->dict || m->dict->n == 0) {
    set_interesting(m);
    return;
  }
  int k = (int)sg_rng_below(m->r, (size_t)m->dict->n);
  size_t n = m->dict->len[k], pos = sg_rng_below(m->r, *m->size + 1);
  int insert = (int)sg_rng_below(m->r, 2);
  if (insert && n > m->cap - *m->size) insert = 0;
  if (!insert && pos + n > *m->size) {
    if (n > *m->size) return;
    pos = *m->size - n;
  }
  if (insert) open_gap(m, pos, n);
  memcpy(m->buf + pos, m->dict->token[k], n);
}

typedef void (*mutation)(mut *);
static const mutation mutations[] = {flip_bit,     flip_bit,     set_interesting, add_delta,
                                     random_byte,  set_double,   erase_chunk,     insert_chunk,
                                     overwrite_chunk, splice,    dict_token,      dict_token};

void sg_mutate(sg_rng *r, uint8_t *buf, size_t *size, size_t cap, const uint8_t *other, size_t other_size,
               const sg_dict *dict) {
  mut m = {r, buf, size, cap, other, other_size, dict};
  int stack = 1 << sg_rng_below(r, 4); /* 1, 2, 4 or 8: few changes keep most of the structure valid */
  for (int k = 0; k < stack; ++k) {
    if (*size == 0) { /* only growth makes sense */
      if (dict && dict->n) dict_token(&m);
      else if (cap) buf[(*size)++] = (uint8_t)sg_rng_next(r);
      continue;
    }
    if (sg_rng_below(r, 64) == 0) truncate_input(&m); /* rare: it destroys most of a file */
    else mutations[sg_rng_below(r, sizeof mutations / sizeof mutations[0])](&m);
  }
}
