/* signorini generate <scenario> [options] -o scene.h5 */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "signorini/generate.h"
#include "signorini/io.h"
#include "signorini/options.h"

/* The run options the scene carries: its kind's (scene_options.h), or none. A value that starts
 * with "-" cannot follow an option in PETSc's command line, so other options are written into the file
 * (docs/FORMATS.md). */
static sg_err read_scene_run_options(const sg_scenario *sc, sg_scene *s) {
  char which[16], help[192];
  snprintf(help, sizeof help, "solver settings the scene carries for its runs, below their command line: its kind's (%s), or none",
           sc->run_options ? sc->run_options : "none");
  SG_CHECK(sg_opt_choice("-run_options", "kind", "kind|none", help, which, sizeof which));
  s->run_options[0] = 0;
  if (!strcmp(which, "kind") && sc->run_options) snprintf(s->run_options, sizeof s->run_options, "%s", sc->run_options);
  return SG_OK;
}

sg_err sg_cmd_generate(MPI_Comm comm, const char *scenario) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char names[256], out[4096];
  sg_scenario_list(names, sizeof names);
  const sg_scenario *sc = scenario ? sg_scenario_find(scenario) : NULL;
  if (!sc && !sg_opt_help_requested())
    return sg_error_set(SG_ERR_ARG, "generate: %s scenario '%s' (choose from %s)", scenario ? "unknown" : "missing",
                        scenario ? scenario : "", names);
  sg_scene s;
  SG_CHECK(sg_scene_create(&s, 16, 1));
  sg_err err = sg_opt_string("-o", "scene.h5", "output scene file", out, sizeof out, NULL);
  if (!err && sc) err = sc->build(&s);
  if (!err && sc) err = read_scene_run_options(sc, &s);
  if (!err) err = sg_add_stl_wall_from_options(&s);
  if (!err && sg_opt_help_requested()) {
    if (rank == 0) {
      char title[512];
      snprintf(title, sizeof title, "signorini generate <%s> [options]%s%s", names, sc ? ": " : "", sc ? sc->description : "");
      sg_opt_print_help(stdout, title);
    }
    sg_scene_destroy(&s);
    return SG_OK;
  }
  if (!err) err = sg_opt_check_unused();
  if (!err) err = sg_scene_validate(&s, scenario);
  if (!err) err = sg_scene_update_mass(&s);
  if (!err) err = sg_scene_write(comm, out, &s);
  if (!err && rank == 0) printf("generated %s: %d bodies -> %s\n", scenario, s.n, out);
  sg_scene_destroy(&s);
  return err;
}
