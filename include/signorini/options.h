/* Options through the PETSc options database (command line and -options_file). Each accessor
 * records the option for -help, parses the value strictly (a malformed or out-of-range value is
 * an error naming the option), and marks it used; sg_opt_check_unused rejects unknown options. */
#ifndef SIGNORINI_OPTIONS_H
#define SIGNORINI_OPTIONS_H
#include <stdio.h>
#include "signorini/error.h"

sg_err sg_opt_real(const char *name, double def, double lo, double hi, const char *help, double *out);
sg_err sg_opt_int(const char *name, long def, long lo, long hi, const char *help, long *out);
sg_err sg_opt_bool(const char *name, int def, const char *help, int *out);
/* String option; *set tells whether it was given (may be NULL). */
sg_err sg_opt_string(const char *name, const char *def, const char *help, char *out, size_t len, int *set);
/* One of a fixed list of words (choices separated by '|'). */
sg_err sg_opt_choice(const char *name, const char *def, const char *choices, const char *help,
                     char *out, size_t len);

/* Until the pop, every accessor reads "-<prefix>name" for "-name" (one object's options, as a PETSc
 * object's prefix); one prefix at a time. */
sg_err sg_opt_push_prefix(const char *prefix);
void sg_opt_pop_prefix(void);

int sg_opt_help_requested(void);
void sg_opt_print_help(FILE *f, const char *title);
/* Put "-name [value]" into the options database unless it is there already (*set: whether it was
 * put); sg_opt_check_unused lets such a default stay unused. */
sg_err sg_opt_set_default(const char *name, const char *value, int *set);
/* Error (SG_ERR_ARG) naming the first option given but never queried. */
sg_err sg_opt_check_unused(void);
void sg_opt_reset_registry(void);

#endif
