/* Checks of an -options_file before PETSc reads it: PETSc reads the file on rank 0 only and stops
 * there on a line it rejects while the other ranks wait for the contents (a hang), follows a
 * nested -options_file without limit (a file that includes itself overflows the stack), and reads
 * whatever the path names (a FIFO or /proc/self/mem blocks). So rank 0 checks the file first and
 * every rank learns the verdict. */
#include "options_file.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define SG_OPTIONS_FILE_MAX (1 << 20)

/* What PETSc takes for an option name: '-' (or "--") and a letter, unless the word reads as a number
 * followed by something that is not a letter, digit or '_' ("-inf-x"). A value that is such a word
 * is a second option to PETSc. */
static int petsc_name(const char *word) {
  const char *s = word[0] == '-' && word[1] == '-' ? word + 1 : word;
  if (s[0] != '-' || !isalpha((unsigned char)s[1])) return 0;
  char *end = NULL;
  (void)strtod(s, &end);
  return end == s || *end == '_' || isalnum((unsigned char)*end);
}

/* One line: empty, a comment, or "-name" with at most one value. */
static int line_ok(char *line, long number, const char *path, char *why, size_t len) {
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  /* PETSc reads "..." as one token (an unclosed one stops its parser); words here have no quotes */
  if (strchr(line, '"')) {
    snprintf(why, len, "malformed options file %s, line %ld (each line: -name [value], no quotes)", path, number);
    return 0;
  }
  char *save = NULL, *name = strtok_r(line, " \t\r", &save);
  if (!name) return 1;
  char *value = strtok_r(NULL, " \t\r", &save), *extra = strtok_r(NULL, " \t\r", &save);
  /* "-", "-=x" or "-1" as a name, or "-x" as a value, would pass here and be refused by PETSc with a
   * message that names no line */
  if (!petsc_name(name) || extra || (value && petsc_name(value))) {
    snprintf(why, len, "malformed options file %s, line %ld (each line: -name [value])", path, number);
    return 0;
  }
  /* PETSc's names ignore case and a second leading dash */
  const char *bare = name[1] == '-' ? name + 1 : name;
  /* PETSc's prefix stack and YAML strings: a push without a value, a pop without a push or bad YAML
   * stops PETSc's parser */
  if (!strcasecmp(bare, "-prefix_push") || !strcasecmp(bare, "-prefix_pop") || !strcasecmp(bare, "-options_string_yaml")) {
    snprintf(why, len, "options file %s, line %ld: %s is not supported (write each option's full name)", path, number, name);
    return 0;
  }
  if (!strcasecmp(bare, "-options_file") || !strcasecmp(bare, "-options_file_yaml")) {
    snprintf(why, len, "options file %s, line %ld: an options file may not name another (%s)", path, number, value ? value : "");
    return 0;
  }
  return 1;
}

int sg_options_file_check(const char *path, char *why, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(why, len, "cannot read options file %s: %s", path, strerror(errno));
    return 0;
  }
  if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > SG_OPTIONS_FILE_MAX) {
    snprintf(why, len, "options file %s is not a text file of at most 1 MiB (%s)", path,
             !S_ISREG(st.st_mode) ? "not a regular file" : st.st_size <= 0 ? "empty or of unknown size" : "too large");
    return 0;
  }
  FILE *f = fopen(path, "rb");
  char *text = malloc((size_t)st.st_size + 1);
  size_t got = f && text ? fread(text, 1, (size_t)st.st_size, f) : 0;
  if (f) fclose(f);
  int ok = text && got == (size_t)st.st_size;
  if (!ok) snprintf(why, len, "cannot read options file %s", path);
  if (ok && memchr(text, 0, got)) {
    snprintf(why, len, "options file %s is not a text file (it holds NUL bytes)", path);
    ok = 0;
  }
  if (ok) text[got] = 0;
  long number = 1;
  for (char *line = ok ? text : NULL; line && ok; ++number) {
    char *end = strchr(line, '\n');
    if (end) *end = 0;
    ok = line_ok(line, number, path, why, len);
    line = end ? end + 1 : NULL;
  }
  free(text);
  return ok;
}
