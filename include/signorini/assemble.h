/* Assembly of the solver-independent problem from a scene's bodies (each by its kind,
 * body_kind.h) and its contacts. */
#ifndef SIGNORINI_ASSEMBLE_H
#define SIGNORINI_ASSEMBLE_H
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/problem.h"
#include "signorini/step.h"

/* Orthonormal contact frame (n, t1, t2), right-handed, a deterministic function of n. */
void sg_contact_frame(const double *n, double *t1, double *t2);
/* Constraint error of a contact normal row for a signed gap (documented stabilization). */
double sg_contact_error(double gap, double dt, double erp);
/* The units a rigid-body problem is written in: the smallest mass and the smallest size
 * (sg_body_min_size) of the moving bodies and of those the inflows insert (sg_rigid_scales:
 * INFINITY when there are none), and the time step. Collective over comm when the scene is
 * distributed (the same units on every rank); 1 kg and 1 m without moving bodies. */
void sg_rigid_scales(MPI_Comm comm, const sg_scene *s, double *least_mass, double *least_size);
sg_units sg_units_from_scales(double least_mass, double least_size, double dt);
sg_units sg_rigid_units(MPI_Comm comm, const sg_scene *s, double dt);
/* The lever arm r = point - centre of mass of rigid-6 body i, in units of length: what its point
 * Jacobian (src/body/rigid6.c) and a compact contact (problem.h) are made of. */
void sg_rigid_lever(const sg_scene *s, int i, const double point[3], const sg_units *u, double r[3]);
/* One subsystem per moving body (sub_of_body[i] = its index, -1 for fixed bodies; A_j, b_j and
 * the Jacobian blocks from the body's kind), one contact constraint per contact, in the order of
 * c, compact (problem.h) between rigid-6 bodies unless prm->dense_jacobians; every number in units
 * u (p->units = *u, p->dt = dt). */
sg_err sg_assemble_rigid(const sg_scene *s, const sg_contacts *c, const sg_step_params *prm, const sg_units *u,
                         sg_problem *p, int *sub_of_body);
#endif
