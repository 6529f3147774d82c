/* Internals shared by the files of the trajectory writer (traj_io.c, traj_events.c); not part of
 * the public interface. Layout in docs/FORMATS.md, "Trajectory file". */
#ifndef SG_TRAJ_INTERNAL_H
#define SG_TRAJ_INTERNAL_H
#include "io/io_internal.h"
#include "signorini/hooks.h"

#define SG_TRAJ_SERIES_CHUNK 1024 /* chunk of the 1-D series and of the rows of the event logs */

/* The logs of inserted and deleted bodies (/inserted, /deleted). Events are kept on the rank that
 * recorded them until a flush gathers them to rank 0, which appends them sorted by (time, gid):
 * the file is the same whatever the number of ranks. */
typedef struct sg_traj_events sg_traj_events;
/* Create both groups with their empty datasets (collective; errors agreed over comm). */
sg_err sg_traj_events_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, sg_traj_events **out);
/* Keep this rank's events of one step (local; either may be NULL). */
sg_err sg_traj_events_add(sg_traj_events *e, const sg_body_events *inserted, const sg_body_events *deleted);
/* Append every kept event to the file (collective; errors agreed over comm). */
sg_err sg_traj_events_flush(sg_traj_events *e);
void sg_traj_events_close(sg_traj_events *e);
/* The kinematic walls drawn at every frame (traj_walls.c): /walls/moving_triangles once and
 * /frames/wall_position [T][V][3]. surface is rank 0's drawing (its triangles for the .xmf). */
typedef struct {
  MPI_Comm comm;
  int rank, n_vertices;
  hid_t dxpl, d_xyz; /* d_xyz < 0: the scene has no kinematic wall to draw */
  const char *path;
  sg_surface surface;
} sg_traj_walls;
/* Draw the walls at the scene's poses and create the datasets (collective, errors agreed). */
sg_err sg_traj_walls_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, const sg_scene *s, sg_traj_walls *mw);
/* Frame f: the walls at the scene's poses now (collective, errors agreed). */
sg_err sg_traj_walls_frame(sg_traj_walls *mw, const sg_scene *s, hsize_t f);
void sg_traj_walls_close(sg_traj_walls *mw);
/* The trees' links and coordinates at every frame (traj_trees.c): /frames/link_position,
 * link_orientation, link_com and tree_q, and the link geoms' /frames/geom_position and
 * geom_orientation when a tree has geoms (else d[4], d[5] < 0); d[0] < 0: the scene has no tree. */
enum { SG_TRAJ_TREE_SETS = 6 };
typedef struct {
  MPI_Comm comm;
  int rank;
  long long n_links, nq, n_geoms;
  hid_t dxpl, d[SG_TRAJ_TREE_SETS];
  const char *path;
  double *buf;
} sg_traj_trees;
sg_err sg_traj_trees_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, const sg_scene *s, sg_traj_trees *tt);
sg_err sg_traj_trees_frame(sg_traj_trees *tt, const sg_scene *s, hsize_t f);
void sg_traj_trees_close(sg_traj_trees *tt);
#endif
