/* SAP (paper 000, Castro et al., Alg. 2): the per-constraint pieces, exposed for the unit tests. */
#ifndef SIGNORINI_SAP_H
#define SIGNORINI_SAP_H

/* Regions of the analytical projection (paper 000 Sec. IV-C / digest "Closed-form projection"). */
enum { SG_SAP_NONE = 0, SG_SAP_STICK = 1, SG_SAP_SLIDE = 2 };

/* One contact in OUR row order (normal, t1, t2), R = diag(Rn, Rt, Rt), vhat_c = (vhat_n, 0, 0).
 * Input: vc = J_i v (3). Output: gamma = P_F(y), y = -R^{-1}(vc - vhat_c) (23), projected in the R
 * norm onto F = {||g_t|| <= mu g_n}; G = -d gamma / d vc (3x3 row-major, symmetric PSD, the
 * per-contact Hessian of the cost); *cost = 1/2 gamma^T R gamma (the contact term of l_p (24),
 * whose gradient in vc is -gamma). G or cost may be NULL. Returns the region. */
int sg_sap_contact(double mu, double Rn, double Rt, double vhat_n, const double *vc, double *gamma,
                   double *G, double *cost);

/* A hard (one-row, unilateral) constraint: the frictionless contact, gamma = max(0, y),
 * y = (vhat - vc) / R; G = 1/R or 0; cost 1/2 R gamma^2. Returns the region. */
int sg_sap_hard(double R, double vhat, double vc, double *gamma, double *G, double *cost);
/* A bilateral row: the same with gamma = y of either sign (G = 1/R). Returns SG_SAP_STICK. */
int sg_sap_bilateral(double R, double vhat, double vc, double *gamma, double *G, double *cost);

#endif
