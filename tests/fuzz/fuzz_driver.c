/* The project's fuzz driver: a main() for any target with libFuzzer's entry point, so that the
 * harnesses build with gcc alone (no clang, no new package). It loads a seed corpus, mutates it
 * with a seeded, deterministic havoc stage (fuzz_mutate.c), keeps the inputs that reach new edges
 * of the instrumented readers (fuzz_coverage.c), and turns every failure into a saved input:
 *   crash (a signal, or a sanitizer report)  -> <prefix>crash-<hash>, the process dies as it would
 *   hang (one input past -timeout seconds)   -> <prefix>timeout-<hash>, exit 70
 *   memory (peak RSS past -rss_limit_mb)     -> <prefix>oom-<hash>, exit 71
 * Flags are libFuzzer's, spelled as it spells them, so one command line fits both drivers:
 *   fuzz_scene [-runs=N] [-max_total_time=S] [-seed=N] [-timeout=S] [-rss_limit_mb=M] [-max_len=B]
 *              [-dict=FILE] [-artifact_prefix=P] [-print_every=S] CORPUS_DIR... | INPUT_FILE...
 * Given files only (no directory), it runs each once and stops: the way to replay a finding. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "fuzz_coverage.h"
#include "fuzz_mutate.h"
#include "fuzz_target.h"

/* Weak: a target need not define it, and the sanitizer hook exists only in sanitized builds. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);
__attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));

/* --- sanitizer defaults: a UBSan report stops the run (it would scroll past otherwise), and the
 * leak check at exit ignores what Open MPI, PETSc and HDF5 keep inside themselves --------------- */
/* A huge request returns NULL, as it does without ASan (HDF5 asks for what a corrupted size says,
 * then fails cleanly); real growth still meets -rss_limit_mb. (A leak report's stacks stop at the
 * libraries, built without frame pointers: ASAN_OPTIONS=fast_unwind_on_malloc=0 gives full ones,
 * at a third of the speed.) */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
#ifdef SG_LSAN_SUPP
  return "suppressions=" SG_LSAN_SUPP ":print_suppressions=0";
#else
  return "";
#endif
}

typedef struct {
  long long runs;      /* -runs: mutated inputs to run (-1: until the time is up) */
  double total_time;   /* -max_total_time, s (0: no limit) */
  unsigned long long seed;
  unsigned timeout;    /* -timeout, s per input */
  long rss_limit_mb;
  size_t max_len;      /* 0: from the corpus */
  double print_every;  /* s between status lines */
  const char *dict, *prefix;
} flags;

typedef struct {
  uint8_t *data;
  size_t size;
} input;

typedef struct {
  input *in;
  int n, cap;
} corpus;

/* --- the input running now, for the handlers that save it ---------------------------------------- */

static const uint8_t *g_cur;
static size_t g_cur_size;
static const char *g_prefix = "";
static volatile sig_atomic_t g_dumped;

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t k = 0; k < n; ++k) h = (h ^ p[k]) * 0x100000001b3ULL;
  return h;
}

/* Async-signal-safe: only write(2), open(2) and arithmetic. */
static void say(const char *s) {
  ssize_t w = write(2, s, strlen(s));
  (void)w;
}

static void dump_input(const char *kind) {
  if (g_dumped || !g_cur) return;
  g_dumped = 1;
  char name[600];
  size_t n = 0;
  for (const char *c = g_prefix; *c && n < 500; ++c) name[n++] = *c;
  for (const char *c = kind; *c; ++c) name[n++] = *c;
  name[n++] = '-';
  uint64_t h = fnv1a(g_cur, g_cur_size);
  for (int k = 15; k >= 0; --k) name[n++] = "0123456789abcdef"[(h >> (4 * k)) & 15];
  name[n] = 0;
  int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ssize_t w = fd >= 0 ? write(fd, g_cur, g_cur_size) : -1;
  if (fd >= 0) close(fd);
  say(w == (ssize_t)g_cur_size ? "fuzz: the input is saved as " : "fuzz: could not save the input as ");
  say(name);
  say("\n");
}

static void on_crash_signal(int sig) {
  say("fuzz: CRASH: the target died of a signal\n");
  dump_input("crash");
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_sanitizer_death(void) {
  say("fuzz: CRASH: a sanitizer report (above)\n");
  dump_input("crash");
}

static void on_alarm(int sig) {
  (void)sig;
  say("fuzz: HANG: one input ran past -timeout\n");
  dump_input("timeout");
  _exit(70);
}

/* The sanitizers handle memory faults themselves (with a report) and call us back; without them
 * these signals are ours. SIGABRT is ours in both cases: sg_fuzz_fail and failed assertions. */
static void install_handlers(void) {
  int sanitized = __sanitizer_set_death_callback != NULL;
  if (sanitized) __sanitizer_set_death_callback(on_sanitizer_death);
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; ++k)
    if (!sanitized || sigs[k] == SIGABRT) signal(sigs[k], on_crash_signal);
  signal(SIGALRM, on_alarm);
}

/* --- running one input ---------------------------------------------------------------------------- */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check_rss(long limit_mb) {
  struct rusage u;
  if (limit_mb <= 0 || getrusage(RUSAGE_SELF, &u) != 0 || u.ru_maxrss / 1024 <= limit_mb) return;
  fprintf(stderr, "fuzz: OUT OF MEMORY: peak RSS %ld MB is over -rss_limit_mb=%ld\n", u.ru_maxrss / 1024, limit_mb);
  dump_input("oom");
  exit(71);
}

static void run_one(const flags *f, const uint8_t *data, size_t size) {
  g_cur = data;
  g_cur_size = size;
  struct itimerval t = {{0, 0}, {(time_t)f->timeout, 0}}, off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &t, NULL);
  sg_cov_reset();
  LLVMFuzzerTestOneInput(data, size);
  setitimer(ITIMER_REAL, &off, NULL);
  check_rss(f->rss_limit_mb);
  g_cur = NULL;
}

/* --- the corpus ----------------------------------------------------------------------------------- */

static void corpus_add(corpus *c, const uint8_t *data, size_t size) {
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->in = realloc(c->in, (size_t)c->cap * sizeof *c->in);
    if (!c->in) exit(1);
  }
  input *e = &c->in[c->n++];
  e->data = malloc(size ? size : 1);
  if (!e->data) exit(1);
  memcpy(e->data, data, size);
  e->size = size;
}

static int load_file(corpus *c, const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  rewind(fp);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  size_t got = buf && n >= 0 ? fread(buf, 1, (size_t)n, fp) : 0;
  fclose(fp);
  if (buf && got == (size_t)n) corpus_add(c, buf, got);
  free(buf);
  return got == (size_t)n ? 0 : -1;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file of dir, in name order (the same corpus order on every machine). */
static int load_dir(corpus *c, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char **names = NULL;
  int n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap && !(names = realloc(names, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *names))) exit(1);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, name_cmp);
  for (int k = 0; k < n; ++k) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && load_file(c, path) != 0)
      fprintf(stderr, "fuzz: cannot read %s\n", path);
    free(names[k]);
  }
  free(names);
  return 0;
}

/* --- command line --------------------------------------------------------------------------------- */

static int flag_value(const char *arg, const char *name, const char **value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return 0;
  *value = arg + n + 1;
  return 1;
}

/* Flags into f; the other arguments (corpus folders and files) stay in argv[0..*n). */
static int parse_flags(int argc, char **argv, flags *f, char **paths, int *n) {
  *f = (flags){-1, 0, 1, 10, 2048, 0, 10, NULL, ""};
  *n = 0;
  for (int k = 1; k < argc; ++k) {
    const char *v;
    if (argv[k][0] != '-') paths[(*n)++] = argv[k];
    else if (flag_value(argv[k], "-runs", &v)) f->runs = atoll(v);
    else if (flag_value(argv[k], "-max_total_time", &v)) f->total_time = atof(v);
    else if (flag_value(argv[k], "-seed", &v)) f->seed = strtoull(v, NULL, 10);
    else if (flag_value(argv[k], "-timeout", &v)) f->timeout = (unsigned)atoi(v);
    else if (flag_value(argv[k], "-rss_limit_mb", &v)) f->rss_limit_mb = atol(v);
    else if (flag_value(argv[k], "-max_len", &v)) f->max_len = (size_t)atoll(v);
    else if (flag_value(argv[k], "-print_every", &v)) f->print_every = atof(v);
    else if (flag_value(argv[k], "-dict", &v)) f->dict = v;
    else if (flag_value(argv[k], "-artifact_prefix", &v)) f->prefix = v;
    else {
      fprintf(stderr, "fuzz: unknown flag %s (see the head of tests/fuzz/fuzz_driver.c)\n", argv[k]);
      return -1;
    }
  }
  if (f->timeout < 1) f->timeout = 1;
  return 0;
}

/* --- the two modes -------------------------------------------------------------------------------- */

static int replay(const flags *f, char **paths, int n) {
  for (int k = 0; k < n; ++k) {
    corpus c = {0};
    if (load_file(&c, paths[k]) != 0) {
      fprintf(stderr, "fuzz: cannot read %s\n", paths[k]);
      return 1;
    }
    run_one(f, c.in[0].data, c.in[0].size);
    printf("fuzz: %s: no crash, hang or finding\n", paths[k]);
    free(c.in[0].data);
    free(c.in);
  }
  return 0;
}

typedef struct {
  long long execs;
  int added;
  long edges;
  double start, last_print;
} stats;

static void print_status(const char *what, const stats *s, const corpus *c) {
  double t = now() - s->start;
  printf("fuzz: %s %lld execs in %.0f s (%.0f execs/s), corpus %d inputs (%d new), %ld edges\n", what, s->execs, t,
         t > 0 ? (double)s->execs / t : 0.0, c->n, s->added, s->edges);
  fflush(stdout);
}

static size_t default_max_len(const corpus *c) {
  size_t big = 4096;
  for (int k = 0; k < c->n; ++k)
    if (2 * c->in[k].size > big) big = 2 * c->in[k].size;
  return big < (1u << 20) ? big : (1u << 20);
}

static int fuzz(const flags *f, corpus *c) {
  static uint8_t seen[SG_COV_SIZE];
  stats s = {0, 0, 0, now(), now()};
  if (c->n == 0) corpus_add(c, (const uint8_t *)"", 0);
  for (int k = 0; k < c->n; ++k) { /* the seeds first, as they are */
    run_one(f, c->in[k].data, c->in[k].size);
    sg_cov_merge(seen, &s.edges);
    s.execs++;
  }
  size_t cap = f->max_len ? f->max_len : default_max_len(c);
  uint8_t *buf = malloc(cap);
  sg_dict dict = {0};
  if (!buf || (f->dict && sg_dict_load(&dict, f->dict) != 0)) {
    fprintf(stderr, "fuzz: %s\n", buf ? "cannot read the dictionary" : "out of memory");
    return 1;
  }
  printf("fuzz: %d seed inputs, %ld edges, %d dictionary tokens, seed %llu, max_len %zu\n", c->n, s.edges, dict.n,
         f->seed, cap);
  sg_rng r;
  sg_rng_seed(&r, f->seed);
  for (long long run = 0; f->runs < 0 || run < f->runs; ++run) {
    if (f->total_time > 0 && now() - s.start >= f->total_time) break;
    const input *base = &c->in[sg_rng_below(&r, (size_t)c->n)], *other = &c->in[sg_rng_below(&r, (size_t)c->n)];
    size_t size = base->size < cap ? base->size : cap;
    memcpy(buf, base->data, size);
    sg_mutate(&r, buf, &size, cap, other->data, other->size, &dict);
    run_one(f, buf, size);
    s.execs++;
    if (sg_cov_merge(seen, &s.edges) && c->n < 100000) {
      corpus_add(c, buf, size);
      s.added++;
    }
    if (now() - s.last_print >= f->print_every) {
      print_status("status:", &s, c);
      s.last_print = now();
    }
  }
  print_status("done:", &s, c);
  printf("fuzz: no crash, hang, sanitizer report or finding\n");
  sg_dict_free(&dict);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  flags f;
  char **paths = malloc(((size_t)argc + 1) * sizeof *paths);
  int n = 0;
  if (!paths || parse_flags(argc, argv, &f, paths, &n) != 0) return 2;
  setvbuf(stdout, NULL, _IOLBF, 0); /* status lines reach a log even when a crash ends the run */
  g_prefix = f.prefix;
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  install_handlers(); /* after the target's start-up: MPI and PETSc install handlers of their own */
  corpus c = {0};
  int dirs = 0;
  for (int k = 0; k < n; ++k) {
    struct stat st;
    if (stat(paths[k], &st) == 0 && S_ISDIR(st.st_mode)) {
      dirs++;
      load_dir(&c, paths[k]);
    }
  }
  int rc = n > 0 && dirs == 0 ? replay(&f, paths, n) : fuzz(&f, &c);
  for (int k = 0; k < c.n; ++k) free(c.in[k].data);
  free(c.in);
  free(paths);
  return rc;
}
