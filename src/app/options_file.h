/* Checks of an -options_file before PETSc reads it (options_file.c). */
#ifndef SG_APP_OPTIONS_FILE_H
#define SG_APP_OPTIONS_FILE_H
#include <stddef.h>

/* 1 when path is a readable regular text file (at most 1 MiB, no NUL byte) whose lines are empty,
 * comments or "-name [value]" and none names another options file; else 0 with the reason in why. */
int sg_options_file_check(const char *path, char *why, size_t len);
#endif
