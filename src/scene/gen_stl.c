/* An STL wall in any generated scene: `signorini generate <scenario> ... -stl bin.stl` adds the
 * file's triangles as one fixed mesh body (mesh.h), scaled by -stl_scale and placed at
 * -stl_position (its file coordinates are the body frame). */
#include <stdio.h>
#include "signorini/generate.h"
#include "signorini/options.h"

/* "x,y,z" into p; anything else is refused naming the option. */
static sg_err parse_point(const char *text, const char *option, double p[3]) {
  int used = 0;
  if (sscanf(text, "%lf,%lf,%lf%n", &p[0], &p[1], &p[2], &used) != 3 || text[used])
    return sg_error_set(SG_ERR_ARG, "%s '%s' is not a point x,y,z", option, text);
  return SG_OK;
}

sg_err sg_add_stl_wall_from_options(sg_scene *s) {
  char path[4096], where[256];
  int given = 0;
  double scale, pos[3];
  SG_CHECK(sg_opt_string("-stl", "", "an STL file (ASCII or binary) added as a fixed mesh wall", path, sizeof path, &given));
  SG_CHECK(sg_opt_real("-stl_scale", 1.0, 1e-12, 1e12, "scale of the STL file's coordinates (e.g. 0.001 for millimetres)", &scale));
  SG_CHECK(sg_opt_string("-stl_position", "0,0,0", "where the STL file's origin goes (m): x,y,z", where, sizeof where, NULL));
  SG_CHECK(parse_point(where, "-stl_position", pos));
  if (!given || !path[0]) return SG_OK;
  sg_mesh *m = NULL;
  int index;
  SG_CHECK(sg_stl_read(path, scale, &m));
  sg_err err = sg_scene_add_mesh(s, m, &index);
  sg_mesh_release(&m);
  const double size[3] = {index, 0, 0};
  if (!err) err = sg_scene_add_body(s, SG_SHAPE_MESH, size, 0, 1, 0, pos, NULL, NULL, NULL);
  if (!err) s->next_gid = s->n;
  return err;
}
