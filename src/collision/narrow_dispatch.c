/* Narrow-phase dispatch on the shape pair. The table holds each pair once, lower shape code
 * first; the other order runs the same entry with the arguments swapped and flips the normals. */
#include "narrow_internal.h"
#include "signorini/scene.h"

static const sg_narrow_fn narrow_table[SG_SHAPE_COUNT][SG_SHAPE_COUNT] = {
    [SG_SHAPE_SPHERE][SG_SHAPE_SPHERE] = sg_collide_sphere_sphere,
    [SG_SHAPE_SPHERE][SG_SHAPE_BOX] = sg_collide_sphere_box,
    [SG_SHAPE_SPHERE][SG_SHAPE_CAPSULE] = sg_collide_sphere_capsule,
    [SG_SHAPE_SPHERE][SG_SHAPE_PLANE] = sg_collide_sphere_plane,
    [SG_SHAPE_SPHERE][SG_SHAPE_CYLINDER] = sg_collide_sphere_revolved,
    [SG_SHAPE_SPHERE][SG_SHAPE_CONE] = sg_collide_sphere_revolved,
    [SG_SHAPE_SPHERE][SG_SHAPE_DISK] = sg_collide_sphere_revolved,
    [SG_SHAPE_SPHERE][SG_SHAPE_MESH] = sg_collide_sphere_mesh,
    [SG_SHAPE_BOX][SG_SHAPE_BOX] = sg_collide_box_box,
    [SG_SHAPE_BOX][SG_SHAPE_CAPSULE] = sg_collide_box_capsule,
    [SG_SHAPE_BOX][SG_SHAPE_PLANE] = sg_collide_box_plane,
    [SG_SHAPE_CAPSULE][SG_SHAPE_CAPSULE] = sg_collide_capsule_capsule,
    [SG_SHAPE_CAPSULE][SG_SHAPE_PLANE] = sg_collide_capsule_plane,
    /* plane-plane: planes are fixed, they never need contacts; walls of revolution and meshes
     * meet spheres only (sg_scene_validate refuses other moving shapes beside them) */
};

int sg_collide(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  int sa = a->shape, sb = b->shape;
  if (sa < 0 || sa >= SG_SHAPE_COUNT || sb < 0 || sb >= SG_SHAPE_COUNT) return 0;
  if (sa <= sb) {
    sg_narrow_fn fn = narrow_table[sa][sb];
    return fn ? fn(a, b, margin, out) : 0;
  }
  sg_narrow_fn fn = narrow_table[sb][sa];
  if (!fn) return 0;
  fn(b, a, margin, out);
  /* The entry's normals point from a toward b: flip them to point from b toward a. */
  for (int i = 0; i < out->n; ++i) v3_scale(out->p[i].normal, out->p[i].normal, -1.0);
  return out->n;
}
