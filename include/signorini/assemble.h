/* Assembly of the solver-independent problem from a rigid-body scene and its contacts. */
#ifndef SIGNORINI_ASSEMBLE_H
#define SIGNORINI_ASSEMBLE_H
#include "signorini/collision.h"
#include "signorini/problem.h"
#include "signorini/step.h"

/* Orthonormal contact frame (n, t1, t2), right-handed, a deterministic function of n. */
void sg_contact_frame(const double *n, double *t1, double *t2);
/* Constraint error of a contact normal row for a signed gap (documented stabilization). */
double sg_contact_error(double gap, double dt, double erp);
/* One subsystem per moving body (sub_of_body[i] = its index, -1 for fixed bodies), one contact
 * constraint per contact, in the order of c. */
sg_err sg_assemble_rigid(const sg_scene *s, const sg_contacts *c, const sg_step_params *prm,
                         sg_problem *p, int *sub_of_body);
#endif
