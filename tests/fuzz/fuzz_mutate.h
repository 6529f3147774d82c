/* Seeded, deterministic mutations of a byte buffer (fuzz_mutate.c), in the manner of AFL's havoc
 * stage: the same seed and the same corpus give the same inputs on every machine. */
#ifndef SG_FUZZ_MUTATE_H
#define SG_FUZZ_MUTATE_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t state;
} sg_rng;

void sg_rng_seed(sg_rng *r, uint64_t seed);
uint64_t sg_rng_next(sg_rng *r);
/* Uniform in [0, n), n > 0. */
size_t sg_rng_below(sg_rng *r, size_t n);

/* Tokens a mutation may insert or write over the input (option names, keywords). */
typedef struct {
  int n;
  uint8_t **token;
  size_t *len;
} sg_dict;

/* Read a dictionary in libFuzzer's format: one quoted token per line, optionally "name=" before it,
 * with \\, \" and \xNN escapes; '#' starts a comment line. 0 on success. */
int sg_dict_load(sg_dict *d, const char *path);
void sg_dict_free(sg_dict *d);

/* Apply a stack of 1 to 8 random mutations to buf[0..*size), which has room for cap bytes (*size
 * never exceeds cap). `other` (may be NULL) is another corpus input to splice with; `dict` may be
 * NULL or empty. */
void sg_mutate(sg_rng *r, uint8_t *buf, size_t *size, size_t cap, const uint8_t *other, size_t other_size,
               const sg_dict *dict);
#endif
