/* Meshes in scene files: two meshes placed by three bodies (one mesh used twice) are written once
 * each and read back identical, by the whole reader and by the block reader, their bodies naming
 * the same meshes; a body naming a mesh the file lacks, a triangle naming a vertex outside its
 * mesh and counts that disagree with the extents are refused naming the file. */
#include "io_scratch.h"
#include "mesh_test_util.h"

static void make_mesh_scene(sg_scene *s) {
  CHECK_OK(sg_scene_create(s, 8, 1));
  sg_mesh *plane = mesh_tessellated_square(3, 0.2), *tri = NULL;
  const double v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const int t[3] = {0, 1, 2};
  CHECK_OK(sg_mesh_build("triangle", 3, v, 1, t, &tri));
  int a, b;
  CHECK_OK(sg_scene_add_mesh(s, plane, &a));
  CHECK_OK(sg_scene_add_mesh(s, tri, &b));
  sg_mesh_release(&plane);
  sg_mesh_release(&tri);
  const double sa[3] = {a, 0, 0}, sb[3] = {b, 0, 0}, p0[3] = {0, 0, 0}, p1[3] = {0, 0, 1}, p2[3] = {2, 0, 0};
  const double r[3] = {0.05, 0, 0}, ps[3] = {0, 0, 0.5};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_MESH, sa, 0, 1, 0, p0, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_MESH, sa, 0, 1, 0, p1, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_MESH, sb, 0, 1, 0, p2, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, r, 0, 0, 1000, ps, NULL, NULL, NULL));
  CHECK_OK(sg_scene_validate(s, "test"));
  CHECK_OK(sg_scene_update_mass(s));
}

static int same_meshes(const sg_scene *a, const sg_scene *b) {
  if (a->n_meshes != b->n_meshes) return 0;
  for (int k = 0; k < a->n_meshes; ++k) {
    const sg_mesh *x = a->meshes[k], *y = b->meshes[k];
    if (x->n_vertices != y->n_vertices || x->n_triangles != y->n_triangles ||
        memcmp(x->vertices, y->vertices, 3 * (size_t)x->n_vertices * sizeof(double)) ||
        memcmp(x->triangles, y->triangles, 3 * (size_t)x->n_triangles * sizeof(int)))
      return 0;
  }
  return 1;
}

static void expect_fail(const char *path, const char *words) {
  sg_scene s;
  sg_error_clear();
  sg_err err = sg_scene_read(MPI_COMM_WORLD, path, &s);
  if (test_rank() == 0) printf("  %s\n", sg_error_message());
  CHECK(err != SG_OK);
  CHECK(strstr(sg_error_message(), words) != NULL);
  CHECK(strstr(sg_error_message(), path) != NULL);
  if (!err) sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  scratch_make();
  sg_scene s, whole, block;
  make_mesh_scene(&s);
  const char *p = scratch("meshes.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s));
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &whole));
  CHECK_OK(sg_scene_read_block(MPI_COMM_WORLD, p, &block));
  CHECK(same_meshes(&s, &whole) && same_meshes(&s, &block));
  CHECK(whole.n == 4 && whole.size[3 * 1] == 0 && whole.size[3 * 2] == 1);
  CHECK(sg_body_bounding_radius(&whole, 2) == s.meshes[1]->bound_radius);
  sg_scene_destroy(&whole);
  sg_scene_destroy(&block);

  int two = 2, nine = 9;
  const char *q = scratch("bad_index.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, q, &s));
  double index = 2;
  h5_poke(q, "/bodies/size", H5T_NATIVE_DOUBLE, 2, 0, &index);
  expect_fail(q, "mesh index 2 is not one of the scene's 2 meshes");
  q = scratch("bad_vertex.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, q, &s));
  h5_poke(q, "/meshes/triangles", H5T_NATIVE_INT, 18, 2, &nine);
  expect_fail(q, "names vertex 9, not in [0, 3)");
  q = scratch("bad_count.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, q, &s));
  h5_poke(q, "/meshes/triangle_count", H5T_NATIVE_INT, 1, 0, &two);
  expect_fail(q, "meshes/triangles");
  sg_scene_destroy(&s);
  scratch_remove();
  MPI_Finalize();
  return sg_test_exit();
}
