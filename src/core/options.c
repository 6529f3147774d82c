/* Strict option parsing on top of the PETSc options database, with a registry for -help. */
#include <errno.h>
#include <math.h>
#include <petscsys.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "signorini/options.h"

#define SG_MAX_OPTS 256
typedef struct {
  char name[64];
  char def[64];
  char help[192];
} opt_entry;
static opt_entry g_opts[SG_MAX_OPTS];
static int g_nopts;

static void remember(const char *name, const char *def, const char *help) {
  for (int i = 0; i < g_nopts; ++i)
    if (!strcmp(g_opts[i].name, name)) return;
  if (g_nopts == SG_MAX_OPTS) return;
  opt_entry *e = &g_opts[g_nopts++];
  snprintf(e->name, sizeof e->name, "%s", name);
  snprintf(e->def, sizeof e->def, "%s", def);
  snprintf(e->help, sizeof e->help, "%s", help);
}

/* Options put in by sg_opt_set_default: they may stay unused (a scene's SubADMM settings in a run
 * with another solver). */
#define SG_MAX_DEFAULTS 64
static char g_defaults[SG_MAX_DEFAULTS][64];
static int g_ndefaults;

void sg_opt_reset_registry(void) {
  g_nopts = 0;
  g_ndefaults = 0;
}

/* The prefix of the object whose options are being read (PETSc's per-object prefixes): "-tol" is
 * looked up as "-<prefix>tol". */
static char g_prefix[32];

sg_err sg_opt_push_prefix(const char *prefix) {
  if (g_prefix[0]) return sg_error_set(SG_ERR_ARG, "options prefix '%s' is already set", g_prefix);
  if (strlen(prefix) >= sizeof g_prefix) return sg_error_set(SG_ERR_ARG, "options prefix '%s' is too long", prefix);
  snprintf(g_prefix, sizeof g_prefix, "%s", prefix);
  return SG_OK;
}

void sg_opt_pop_prefix(void) { g_prefix[0] = 0; }

static const char *prefixed(const char *name, char *buf, size_t len) {
  if (!g_prefix[0] || name[0] != '-') return name;
  snprintf(buf, len, "-%s%s", g_prefix, name + 1);
  return buf;
}

/* Raw string value; *found = 0 when absent. A flag given without a value reads as "". */
static sg_err get_raw(const char *name, char *buf, size_t len, int *found) {
  PetscBool set = PETSC_FALSE;
  buf[0] = 0;
  PetscErrorCode ierr = PetscOptionsGetString(NULL, NULL, name, buf, len, &set);
  if (ierr) return sg_error_set(SG_ERR_ARG, "cannot read option %s", name);
  *found = set ? 1 : 0;
  return SG_OK;
}

/* Register the option for -help and fetch its text; *found = 0 leaves the caller's default. */
static sg_err lookup(const char *name, const char *def_text, const char *help, char *buf, size_t len, int *found) {
  remember(name, def_text, help);
  return get_raw(name, buf, len, found);
}

sg_err sg_opt_real(const char *name, double def, double lo, double hi, const char *help, double *out) {
  char full[96];
  name = prefixed(name, full, sizeof full);
  char d[64], buf[256];
  int found = 0;
  snprintf(d, sizeof d, "%g", def);
  SG_CHECK(lookup(name, d, help, buf, sizeof buf, &found));
  *out = def;
  if (!found) return SG_OK;
  char *end = NULL;
  errno = 0;
  double v = strtod(buf, &end);
  if (buf[0] == 0 || *end != 0 || errno == ERANGE || !isfinite(v))
    return sg_error_set(SG_ERR_ARG, "option %s: '%s' is not a finite number", name, buf);
  if (v < lo || v > hi)
    return sg_error_set(SG_ERR_ARG, "option %s: %g is outside [%g, %g]", name, v, lo, hi);
  *out = v;
  return SG_OK;
}

sg_err sg_opt_int(const char *name, long def, long lo, long hi, const char *help, long *out) {
  char full[96];
  name = prefixed(name, full, sizeof full);
  char d[64], buf[256];
  int found = 0;
  snprintf(d, sizeof d, "%ld", def);
  SG_CHECK(lookup(name, d, help, buf, sizeof buf, &found));
  *out = def;
  if (!found) return SG_OK;
  char *end = NULL;
  errno = 0;
  long v = strtol(buf, &end, 10);
  if (buf[0] == 0 || *end != 0 || errno == ERANGE)
    return sg_error_set(SG_ERR_ARG, "option %s: '%s' is not an integer", name, buf);
  if (v < lo || v > hi) return sg_error_set(SG_ERR_ARG, "option %s: %ld is outside [%ld, %ld]", name, v, lo, hi);
  *out = v;
  return SG_OK;
}

sg_err sg_opt_bool(const char *name, int def, const char *help, int *out) {
  char full[96];
  name = prefixed(name, full, sizeof full);
  char buf[64];
  int found = 0;
  remember(name, def ? "true" : "false", help);
  SG_CHECK(get_raw(name, buf, sizeof buf, &found));
  if (!found) {
    *out = def;
    return SG_OK;
  }
  if (!buf[0] || !strcasecmp(buf, "1") || !strcasecmp(buf, "true") || !strcasecmp(buf, "yes")) *out = 1;
  else if (!strcasecmp(buf, "0") || !strcasecmp(buf, "false") || !strcasecmp(buf, "no")) *out = 0;
  else return sg_error_set(SG_ERR_ARG, "option %s: '%s' is not a boolean (true/false)", name, buf);
  return SG_OK;
}

sg_err sg_opt_string(const char *name, const char *def, const char *help, char *out, size_t len, int *set) {
  char full[96];
  name = prefixed(name, full, sizeof full);
  char buf[4096];
  int found = 0;
  remember(name, def ? def : "", help);
  SG_CHECK(get_raw(name, buf, sizeof buf, &found));
  if (set) *set = found;
  if (found && !buf[0]) return sg_error_set(SG_ERR_ARG, "option %s needs a value", name);
  const char *v = found ? buf : (def ? def : "");
  if (strlen(v) >= len) return sg_error_set(SG_ERR_ARG, "option %s: value too long", name);
  snprintf(out, len, "%s", v);
  return SG_OK;
}

sg_err sg_opt_choice(const char *name, const char *def, const char *choices, const char *help,
                     char *out, size_t len) {
  char h[192], full[96];
  snprintf(h, sizeof h, "%s (%s)", help, choices);
  SG_CHECK(sg_opt_string(name, def, h, out, len, NULL));
  name = prefixed(name, full, sizeof full);
  const char *c = choices;
  size_t n = strlen(out);
  while (*c) {
    const char *bar = strchr(c, '|');
    size_t w = bar ? (size_t)(bar - c) : strlen(c);
    if (w == n && !strncmp(c, out, n)) return SG_OK;
    if (!bar) break;
    c = bar + 1;
  }
  return sg_error_set(SG_ERR_ARG, "option %s: unknown value '%s' (choose from %s)", name, out, choices);
}

int sg_opt_help_requested(void) {
  PetscBool h = PETSC_FALSE, h2 = PETSC_FALSE;
  PetscOptionsHasName(NULL, NULL, "-help", &h);
  PetscOptionsHasName(NULL, NULL, "-h", &h2);
  return h || h2;
}

void sg_opt_print_help(FILE *f, const char *title) {
  fprintf(f, "%s\n", title);
  for (int i = 0; i < g_nopts; ++i)
    fprintf(f, "  %-28s %s (default: %s)\n", g_opts[i].name, g_opts[i].help, g_opts[i].def[0] ? g_opts[i].def : "none");
}

sg_err sg_opt_set_default(const char *name, const char *value, int *set) {
  PetscBool given = PETSC_FALSE;
  *set = 0;
  if (PetscOptionsHasName(NULL, NULL, name, &given)) return sg_error_set(SG_ERR_LIB, "cannot look up option %s", name);
  if (given) return SG_OK;
  if (g_ndefaults == SG_MAX_DEFAULTS || strlen(name) >= sizeof g_defaults[0])
    return sg_error_set(SG_ERR_ARG, "too many default options (at %s)", name);
  if (PetscOptionsSetValue(NULL, name, value)) return sg_error_set(SG_ERR_LIB, "cannot set option %s", name);
  snprintf(g_defaults[g_ndefaults++], sizeof g_defaults[0], "%s", name + 1);
  *set = 1;
  return SG_OK;
}

static int set_as_default(const char *name) {
  for (int i = 0; i < g_ndefaults; ++i)
    if (!strcasecmp(g_defaults[i], name)) return 1;
  return 0;
}

/* Options PETSc itself consumes at initialization or finalization. */
static int petsc_internal(const char *name) {
  static const char *prefixes[] = {"help", "h", "log", "malloc", "options_", "info", "on_error", "no_signal",
                                   "fp_trap", "check_pointer", "mpi_", "skip_petscrc", "memory_view", "objects_dump"};
  for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; ++k) {
    size_t n = strlen(prefixes[k]);
    if (!strncmp(name, prefixes[k], n) && (prefixes[k][n - 1] == '_' || name[n] == 0 || name[n] == '_')) return 1;
  }
  return 0;
}

sg_err sg_opt_check_unused(void) {
  PetscInt n = 0;
  char **names = NULL, **values = NULL;
  if (PetscOptionsLeftGet(NULL, &n, &names, &values)) return sg_error_set(SG_ERR_LIB, "cannot list options");
  sg_err err = SG_OK;
  for (PetscInt i = 0; i < n && !err; ++i)
    if (!petsc_internal(names[i]) && !set_as_default(names[i]))
      err = sg_error_set(SG_ERR_ARG, "unknown option -%s (see -help)", names[i]);
  PetscOptionsLeftRestore(NULL, &n, &names, &values);
  return err;
}
