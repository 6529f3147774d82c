/* signorini partition scene.h5 -parts P[,P2,...] [-method auto|kway|rb] [-seed S]
 *                   [-graph proximity|contacts]
 * Builds the subsystem graph once and prints, for each P, the statistics of its METIS partition:
 * edge cut, imbalance, halo fraction, neighbour parts, estimated memory per rank and the time taken.
 * The work runs on rank 0 (the other ranks only help read the file). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "commands.h"
#include "signorini/collision.h"
#include "signorini/io.h"
#include "signorini/options.h"
#include "signorini/partition.h"
#include "signorini/partition_dist.h"

#define MAX_PART_COUNTS 64

typedef struct {
  int nparts[MAX_PART_COUNTS];
  int n;
  int method, seed, contacts, sfc; /* sfc: -method sfc, the Hilbert curve in place of METIS */
  double factor;
} partition_options;

/* "64,256,1024": positive integers separated by commas */
static sg_err parse_parts(const char *text, partition_options *o) {
  o->n = 0;
  const char *p = text;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char word[64];
    if (len == 0 || len >= sizeof word)
      return sg_error_set(SG_ERR_ARG, "option -parts: '%s' is not a list of positive integers (e.g. 4 or 64,256)", text);
    memcpy(word, p, len);
    word[len] = 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(word, &end, 10);
    if (*end != 0 || errno == ERANGE || v < 1 || v > INT_MAX)
      return sg_error_set(SG_ERR_ARG, "option -parts: '%s' is not a positive integer", word);
    if (o->n == MAX_PART_COUNTS) return sg_error_set(SG_ERR_ARG, "option -parts: more than %d values", MAX_PART_COUNTS);
    o->nparts[o->n++] = (int)v;
    if (!comma) break;
    p = comma + 1;
  }
  return SG_OK;
}

static sg_err read_options(partition_options *o) {
  char parts[4096], method[16], graph[16];
  int set = 0;
  long seed;
  SG_CHECK(sg_opt_string("-parts", "", "numbers of parts, a comma list (e.g. 64,256,1024)", parts, sizeof parts, &set));
  SG_CHECK(sg_opt_choice("-method", "auto", "auto|kway|rb|sfc",
                         "METIS method (auto: recursive bisection up to 8 parts, k-way beyond), or sfc: stretches of a Hilbert curve (run -partition_method sfc)",
                         method, sizeof method));
  SG_CHECK(sg_opt_int("-seed", 1, 0, IDX_MAX, "METIS random seed (results are reproducible for a given seed)", &seed));
  SG_CHECK(sg_opt_choice("-graph", "proximity", "proximity|contacts",
                         "graph: neighbours within a margin, or the contacts of one collision detection", graph,
                         sizeof graph));
  SG_CHECK(sg_opt_real("-proximity_factor", SG_PARTITION_PROXIMITY_FACTOR, 1e-6, 1e3,
                       "proximity graph margin in median bounding radii", &o->factor));
  if (sg_opt_help_requested()) return SG_OK;
  if (!set) return sg_error_set(SG_ERR_ARG, "partition: missing -parts P (e.g. -parts 4 or -parts 64,256,1024)");
  SG_CHECK(parse_parts(parts, o));
  o->method = !strcmp(method, "kway") ? SG_PARTITION_KWAY : !strcmp(method, "rb") ? SG_PARTITION_RB : SG_PARTITION_AUTO;
  o->seed = (int)seed;
  o->contacts = !strcmp(graph, "contacts");
  o->sfc = !strcmp(method, "sfc");
  return SG_OK;
}

static double peak_rss_mb(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru)) return 0;
  return ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

/* The graph's vertex parts from the Hilbert curve (the run's -partition_method sfc, on one rank). */
static sg_err split_sfc(const sg_scene *s, const sg_partition_graph *g, int nparts, int *vpart) {
  int *owner = sg_calloc((size_t)s->n + 1, sizeof *owner, "owners");
  if (!owner) return SG_ERR_MEM;
  sg_err err = sg_partition_sfc(MPI_COMM_SELF, s, nparts, owner);
  for (int v = 0; v < g->nvtx && !err; ++v) vpart[v] = owner[g->body_of_vertex[v]];
  free(owner);
  return err;
}

static sg_err run_partition(sg_scene *s, const partition_options *o, double margin, const char *path) {
  double t0 = MPI_Wtime();
  sg_partition_graph g;
  sg_contacts c = {0};
  sg_broadphase bp = {0};
  double t_collide = 0;
  if (o->contacts) {
    /* one collision detection as the stepper does it: default margin, sweep over one 1/240 s step */
    sg_images images = {0}; /* contacts across periodic boundaries are edges too */
    sg_err err = sg_find_contacts_periodic(s, margin, 1.0 / 240.0, &bp, &images, &c);
    sg_broadphase_destroy(&bp);
    sg_images_destroy(&images);
    if (!err) {
      t_collide = MPI_Wtime() - t0;
      err = sg_partition_graph_from_contacts(s, &c, &g);
    }
    sg_contacts_destroy(&c);
    SG_CHECK(err);
  } else {
    SG_CHECK(sg_partition_graph_proximity(s, o->factor, &g));
  }
  double t_graph = MPI_Wtime() - t0;
  for (int k = 0; k < o->n; ++k)
    if (o->nparts[k] > 1 && o->nparts[k] > g.nvtx) {
      int nv = g.nvtx;
      sg_partition_graph_destroy(&g);
      return sg_error_set(SG_ERR_ARG, "partition: %d parts for %d moving bodies (at most one part per body)",
                          o->nparts[k], nv);
    }
  printf("partition %s: %d moving bodies, %d fixed\n", path, g.nvtx, g.n_bodies - g.nvtx);
  if (o->contacts)
    printf("graph: contacts (margin %.4g m, dt 1/240 s): %lld contacts, %lld edges%s; collision %.2f s, graph %.2f s\n",
           margin, g.n_contacts, g.n_edges, g.connected ? "" : " (not connected)", t_collide, t_graph - t_collide);
  else
    printf("graph: proximity (margin %.4g m = %.3g x median bounding radius): %lld pairs, %lld edges%s; built in %.2f s\n",
           g.margin, o->factor, g.n_contacts, g.n_edges, g.connected ? "" : " (not connected)", t_graph);
  if (g.n_edges == 0 && g.nvtx > 1)
    printf("note: no two moving bodies are coupled: the parts balance the weights but ignore geometry%s\n",
           o->contacts ? " (use -graph proximity before the bodies touch)" : "");
  printf("memory estimate: %zu B per owned body + %zu B per ghost or fixed body + %zu B per contact\n",
         (size_t)(SG_PARTITION_BYTES_PER_BODY + SG_PARTITION_BYTES_PER_SUBSYSTEM), (size_t)SG_PARTITION_BYTES_PER_BODY,
         (size_t)SG_PARTITION_BYTES_PER_CONTACT);
  printf("%8s %6s %12s %9s %23s %6s %26s %9s\n", "P", "method", "edge_cut", "imbalance", "halo_min/mean/max",
         "nbrs", "memory_MB_min/mean/max", "time_s");
  int *vpart = sg_calloc((size_t)(g.nvtx > 0 ? g.nvtx : 1), sizeof *vpart, "vertex parts");
  sg_err err = vpart ? SG_OK : SG_ERR_MEM;
  for (int k = 0; k < o->n && !err; ++k) {
    double t1 = MPI_Wtime();
    int used = o->method;
    sg_partition_stats st;
    err = o->sfc ? split_sfc(s, &g, o->nparts[k], vpart) : sg_partition_graph_split(&g, o->nparts[k], o->method, o->seed, vpart, &used);
    if (!err) err = sg_partition_graph_stats(&g, o->nparts[k], vpart, &st);
    if (err) break;
    double t = MPI_Wtime() - t1;
    char halo[64], mem[64];
    snprintf(halo, sizeof halo, "%.3f/%.3f/%.3f", st.halo_min, st.halo_mean, st.halo_max);
    snprintf(mem, sizeof mem, "%.3g/%.3g/%.3g", st.memory_min / 1e6, st.memory_mean / 1e6, st.memory_max / 1e6);
    printf("%8d %6s %12lld %9.4f %23s %6d %26s %9.2f\n", o->nparts[k], o->sfc ? "sfc" : sg_partition_method_name(used), st.edge_cut,
           st.imbalance, halo, st.neighbours_max, mem, t);
    fflush(stdout);
    sg_partition_stats_destroy(&st);
  }
  free(vpart);
  sg_partition_graph_destroy(&g);
  if (!err) printf("total %.2f s, peak memory %.0f MB\n", MPI_Wtime() - t0, peak_rss_mb());
  return err;
}

sg_err sg_cmd_partition(MPI_Comm comm, const char *path) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  partition_options o;
  memset(&o, 0, sizeof o);
  double margin = 0;
  if (sg_opt_help_requested()) {
    SG_CHECK(read_options(&o));
    char text[64]; /* the default depends on the scene: shown in words */
    SG_CHECK(sg_opt_string("-contact_margin", "0.2 x smallest moving body size", "-graph contacts: contact margin (m)",
                           text, sizeof text, NULL));
    if (rank == 0) sg_opt_print_help(stdout, "signorini partition scene.h5 -parts P[,P2,...] [options]");
    return SG_OK;
  }
  if (!path) return sg_error_set(SG_ERR_ARG, "partition: missing scene file (signorini partition scene.h5 -parts P)");
  SG_CHECK(read_options(&o)); /* the same on every rank: a bad value stops all before the read */
  sg_scene s = {0};
  sg_err err = sg_error_collective(comm, sg_scene_read(comm, path, &s));
  if (!err) {
    double hmin = INFINITY;
    for (int i = 0; i < s.n; ++i)
      if (!s.fixed[i]) hmin = fmin(hmin, sg_body_min_size(&s, i));
    if (!isfinite(hmin)) hmin = 0.01;
    err = sg_opt_real("-contact_margin", 0.2 * hmin, 0.0, 1e6, "-graph contacts: contact margin (m)", &margin);
  }
  if (!err) err = sg_opt_check_unused();
  err = sg_error_collective(comm, err);
  if (!err && rank == 0) err = run_partition(&s, &o, margin, path);
  sg_scene_destroy(&s);
  return err;
}
