/* Rigid-body state update for the theta method (paper 002 eq. (2)). */
#ifndef SIGNORINI_INTEGRATE_H
#define SIGNORINI_INTEGRATE_H
#include "signorini/scene.h"
/* Advance body i by dt from the representative velocity vhat (6: linear, angular, world frame):
 * v_{k+1} from vhat, position and orientation (exponential map, renormalized), angular velocity
 * from the conserved angular momentum. */
void sg_integrate_body(sg_scene *s, int i, const double *vhat, double theta, double dt);
#endif
