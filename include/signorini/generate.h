/* Scene generators: `signorini generate <scenario>`. Each reads its own options. */
#ifndef SIGNORINI_GENERATE_H
#define SIGNORINI_GENERATE_H
#include "signorini/scene.h"
#include "signorini/tree.h"
#include "signorini/size_dist.h"

typedef struct {
  const char *name;
  const char *description;
  sg_err (*build)(sg_scene *s); /* reads its options, fills an empty scene */
  const char *run_options;      /* the scene's run options (scene_options.h); NULL: none */
} sg_scenario;

const sg_scenario *sg_scenario_find(const char *name);
void sg_scenario_list(char *buf, int len);

/* Shared pieces. */
double sg_lattice_jitter(uint64_t *state);                       /* uniform in [-0.5, 0.5), fixed sequence */
/* The next radius of d from the sizes' own sequence *state (start it at sg_size_stream(seed)): apart
 * from the jitter's, so that one size leaves the positions as they were before sizes could vary. */
uint64_t sg_size_stream(uint64_t seed);
double sg_next_radius(const sg_size_dist *d, uint64_t *state);
/* The grains of a generator: sizes (-size_dist ..., default radius), -density, -mu (material 0's
 * friction), -restitution, -rolling_friction, -spacing of the lattice in radii, -seed of its jitter. */
typedef struct {
  sg_size_dist size;
  double r; /* the largest radius */
  double density, spacing;
  long seed;
} sg_grains;
sg_err sg_grains_from_options(sg_scene *s, double radius, double mu_default, const char *mu_help, sg_grains *g);
sg_err sg_add_ground(sg_scene *s, int material);                  /* plane z = 0 */
sg_err sg_add_open_box(sg_scene *s, double half_x, double half_y, double height, double wall,
                       int material);                             /* floor plane + 4 fixed walls */
/* Floor plane + a cylinder of inner radius `radius` about the z axis, made of `staves` fixed boxes. */
sg_err sg_add_open_cylinder(sg_scene *s, double radius, double height, double wall, int staves, int material);

/* -stl file [-stl_scale s -stl_position x,y,z]: a fixed mesh wall from an STL file (gen_stl.c). */
sg_err sg_add_stl_wall_from_options(sg_scene *s);

sg_err sg_generate_incline(sg_scene *s);
sg_err sg_generate_stack(sg_scene *s);
sg_err sg_generate_pile(sg_scene *s);
sg_err sg_generate_silo(sg_scene *s);
sg_err sg_generate_hopper(sg_scene *s);
sg_err sg_generate_drum(sg_scene *s);
sg_err sg_generate_collapse(sg_scene *s);
sg_err sg_generate_chute(sg_scene *s);
sg_err sg_generate_chain(sg_scene *s);
sg_err sg_generate_linkage(sg_scene *s);

/* An n-link pendulum (gen_chain.c): a tree body whose links are massless rods of `length` with a bob
 * (a solid sphere of `mass`, `radius`) at the end, joined by revolute joints about y (or spherical
 * joints), hanging from `pivot`, straight and tilted by theta0 (rad) from the vertical, at rest.
 * Revolute joints may have limits (rad; -inf, +inf: none) and PD gains (kp, kd, target; 0, 0: none);
 * the links may carry collision geoms (`geom`).
 * Appended to s as a tree body of material 0; its index in *index (may be NULL). */
typedef struct {
  int n, spherical;
  double length, mass, radius, theta0, pivot[3];
  double limit[2], pd[3];
  int geom; /* the links' collision geoms: SG_CHAIN_GEOM_* */
} sg_chain;
enum {
  SG_CHAIN_GEOM_NONE = 0,    /* the links touch nothing */
  SG_CHAIN_GEOM_SPHERE = 1,  /* each bob a sphere of `radius` */
  SG_CHAIN_GEOM_CAPSULE = 2  /* each link a capsule of `radius` from its joint to its bob */
};
sg_err sg_chain_add(sg_scene *s, const sg_chain *c, int *index);
/* A link of a chain or linkage (gen_chain.c): a massless rod with a bob (a solid sphere of mass,
 * radius) at `bob` in the link frame, its joint of `type` (axis y) at pos in the parent's frame;
 * limits and gains are the caller's. */
void sg_bob_link(sg_link *L, int parent, int type, const double pos[3], const double bob[3], double mass, double radius);
/* A parallelogram four-bar linkage (gen_linkage.c): cranks of `length` from pivot and pivot + (span,
 * 0, 0), a coupler of `span`, each link a massless rod with a bob (`mass`, `radius`) at its end,
 * revolute joints about y, at crank angle theta0 (rad), at rest; the loop closed at the second pivot
 * (close_at_world) or between the coupler's end and the second crank's bob. */
typedef struct {
  double length, span, mass, radius, theta0, pivot[3];
  int close_at_world;
} sg_linkage;
sg_err sg_linkage_add(sg_scene *s, const sg_linkage *k, int *index);

/* A quadruped of the Laikago's proportions (gen_quadruped.c): one tree body of 13 links and 18
 * velocities (a floating base, four legs of hip abduction, hip flexion and knee joints), a box, capsules
 * and sphere feet as link geoms, PD gains kp, kd on every joint with the standing pose as targets
 * (thighs at `crouch` rad, knees at -2 crouch), standing with its feet on the plane z = pos[2] below
 * (pos[0], pos[1]), at rest; material `material`. Its base's height above the feet's plane is
 * sg_quadruped_stand_height. */
typedef struct {
  double pos[3], kp, kd, crouch;
  int material;
} sg_quadruped;
sg_err sg_quadruped_add(sg_scene *s, const sg_quadruped *q, int *index);
double sg_quadruped_stand_height(const sg_quadruped *q);
sg_err sg_generate_quadruped(sg_scene *s);
/* A 7-velocity arm (gen_arm.c): one tree of 7 revolute joints about z, y, z, y, z, y, z on a fixed base
 * at `base`, capsule geoms, a tray (a thin box) on its last link, PD gains kp, kd on every joint
 * holding the pose (0, pitch, 0, -2 pitch, 0, pitch, 0) in which the tray is level, at the height
 * sg_arm_tray_height (its top). `generate arm` adds a ground plane and spheres on the tray. */
typedef struct {
  double base[3], kp, kd, pitch;
} sg_arm;
sg_err sg_arm_add(sg_scene *s, const sg_arm *a, int *index);
double sg_arm_tray_height(const sg_arm *a);
sg_err sg_generate_arm(sg_scene *s);
#endif
