/* Meshes for the mesh tests: a tessellated square in the z = 0 plane. */
#ifndef SG_MESH_TEST_UTIL_H
#define SG_MESH_TEST_UTIL_H
#include <stdlib.h>
#include "signorini/mesh.h"

/* n x n squares of side h from (-n h / 2, -n h / 2), each cut along its diagonal (alternating
 * directions, so that vertices meet 4, 6 or 8 triangles). */
static inline sg_mesh *mesh_tessellated_square(int n, double h) {
  const int nv = (n + 1) * (n + 1), nt = 2 * n * n;
  double *v = malloc(3 * (size_t)nv * sizeof *v);
  int *t = malloc(3 * (size_t)nt * sizeof *t), k = 0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      double *p = v + 3 * (j * (n + 1) + i);
      p[0] = (i - 0.5 * n) * h;
      p[1] = (j - 0.5 * n) * h;
      p[2] = 0;
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int a = j * (n + 1) + i, b = a + 1, c = a + n + 2, d = a + n + 1;
      int q[6] = {a, b, c, a, c, d};
      if ((i + j) % 2) { q[0] = a; q[1] = b; q[2] = d; q[3] = b; q[4] = c; q[5] = d; }
      for (int m = 0; m < 6; ++m) t[k++] = q[m];
    }
  sg_mesh *m = NULL;
  sg_mesh_build("tessellated square", nv, v, nt, t, &m);
  free(v);
  free(t);
  return m;
}
#endif
