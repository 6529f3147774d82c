/* Run options a scene carries (the attribute run_options of /world, written by `signorini generate`):
 * the solver settings its kind runs best with, taken below the command line and -options_file, as a
 * MuJoCo model's <option> element carries its solver settings. Only options of the numerical method may
 * be carried (the solver and its settings, the contact model, -dt, -theta): never files or output. */
#ifndef SIGNORINI_SCENE_OPTIONS_H
#define SIGNORINI_SCENE_OPTIONS_H
#include <stddef.h>
#include "signorini/error.h"

/* Is text ("-name [value] ..." separated by blanks) a valid run_options value? why: the reason when not. */
int sg_scene_options_valid(const char *text, char *why, size_t len);
/* Each option of text that was not given on the command line or in an options file goes into the
 * options database (sg_opt_set_default); taken lists those (for the log; may be NULL). */
sg_err sg_scene_options_apply(const char *text, char *taken, size_t len);

#endif
