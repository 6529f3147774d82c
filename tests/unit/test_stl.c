/* STL reading: an ASCII and a binary square (2 triangles) give the same welded mesh (4 vertices,
 * 5 edges), scaled; malformed files are refused with a message naming the file and what is
 * wrong: missing, empty, a bad keyword, a bad number, a truncated binary file, a triangle without
 * area. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "signorini/mesh.h"
#include "test_util.h"

static char dir[] = "/tmp/sg_stl_test_XXXXXX";

static const char *path_of(const char *name) {
  static char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

static void write_text(const char *name, const char *text) {
  FILE *f = fopen(path_of(name), "w");
  fputs(text, f);
  fclose(f);
}

static const float square[2][9] = {{0, 0, 0, 1, 0, 0, 1, 1, 0}, {0, 0, 0, 1, 1, 0, 0, 1, 0}};

static void write_binary(const char *name, int n_claimed, int n_written) {
  FILE *f = fopen(path_of(name), "wb");
  char head[80] = "binary square";
  uint32_t n = (uint32_t)n_claimed;
  fwrite(head, 1, 80, f);
  fwrite(&n, 4, 1, f);
  for (int t = 0; t < n_written; ++t) {
    float normal[3] = {0, 0, 1};
    uint16_t attr = 0;
    fwrite(normal, 4, 3, f);
    fwrite(square[t], 4, 9, f);
    fwrite(&attr, 2, 1, f);
  }
  fclose(f);
}

static const char *ascii_square =
    "solid square\n"
    " facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 1 1 0\n  endloop\n endfacet\n"
    " facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 1 0\n   vertex 0 1 0\n  endloop\n endfacet\n"
    "endsolid square\n";

static void expect_error(const char *name, const char *words) {
  sg_mesh *m = NULL;
  sg_error_clear();
  sg_err err = sg_stl_read(path_of(name), 1.0, &m);
  const char *msg = sg_error_message();
  printf("  %s -> %s\n", name, msg);
  CHECK(err != SG_OK && m == NULL);
  CHECK(strstr(msg, name) != NULL);
  CHECK(strstr(msg, words) != NULL);
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  write_text("square.stl", ascii_square);
  write_binary("square_bin.stl", 2, 2);
  sg_mesh *a = NULL, *b = NULL;
  CHECK_OK(sg_stl_read(path_of("square.stl"), 0.5, &a));
  CHECK_OK(sg_stl_read(path_of("square_bin.stl"), 0.5, &b));
  for (int k = 0; a && b && k < 2; ++k) {
    const sg_mesh *m = k ? b : a;
    CHECK(m->n_vertices == 4 && m->n_triangles == 2 && m->n_edges == 5);
    CHECK(fabs(m->bound_radius - 0.5 * sqrt(2.0)) < 1e-15);
  }
  if (a && b) CHECK(memcmp(a->vertices, b->vertices, 12 * sizeof(double)) == 0);
  sg_mesh_release(&a);
  sg_mesh_release(&b);

  write_text("empty.stl", "solid nothing\nendsolid nothing\n");
  expect_error("empty.stl", "no triangles");
  write_text("keyword.stl", "solid s\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertx 1 0 0\n");
  expect_error("keyword.stl", "line 5: expected 'vertex', found 'vertx'");
  write_text("number.stl", "solid s\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 zero 0\n");
  expect_error("number.stl", "line 5: 'zero' is not a finite number");
  write_text("cut.stl", "solid s\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n");
  expect_error("cut.stl", "the file ends");
  write_binary("truncated.stl", 3, 2);
  expect_error("truncated.stl", "neither");
  write_text("flat.stl",
             "solid s\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 2 0 0\n  endloop\n endfacet\nendsolid\n");
  expect_error("flat.stl", "has no area");
  expect_error("missing.stl", "cannot open");
  const char *made[] = {"square.stl", "square_bin.stl", "empty.stl", "keyword.stl", "number.stl", "cut.stl", "truncated.stl", "flat.stl"};
  for (size_t k = 0; k < sizeof made / sizeof made[0]; ++k) unlink(path_of(made[k]));
  rmdir(dir);
  return sg_test_exit();
}
