/* SAP's per-contact pieces (src/solvers/sap.c, paper 000 (23) and the closed-form projection), on
 * random contacts in our row order (normal, t1, t2) with R = diag(Rn, Rt, Rt):
 *  - all three regions occur (stiction, sliding, no contact) and, in each, gamma is in the friction
 *    cone F, the "dual" velocity g = vc - vhat_c + R gamma (the constraint of (19)) is in the dual
 *    cone F* = {mu ||g_t|| <= g_n}, and g . gamma = 0 (1e-12 relative to ||vc - vhat_c|| + max(R) ||gamma||);
 *  - gamma is the projection of y in the R norm: no point of F sampled nearby is closer (R norm);
 *  - the gradient of the contact cost 1/2 ||gamma||_R^2 in vc is -gamma, and its Hessian
 *    G = -d gamma / d vc, both against central finite differences (step 1e-6 relative; agreement
 *    1e-6 relative to the entries' scale, the O(h^2) truncation being ~1e-10 and the round-off
 *    ~1e-16 / 1e-6), skipping stencils that cross a region boundary (the cost is only C1 there);
 *  - G is symmetric and positive semi-definite;
 *  - the same for a hard row (the frictionless one-row contact);
 *  - mu = 0 (frictionless), where gamma = (max(y_n, 0), 0, 0) exactly, a tangential velocity of
 *    exactly zero included (a separating contact is no contact, not stiction). */
#include <string.h>
#include "signorini/sap.h"
#include "test_util.h"

static double cost_at(double mu, double Rn, double Rt, double vh, const double *vc, double *gam, int *region) {
  double c;
  *region = sg_sap_contact(mu, Rn, Rt, vh, vc, gam, NULL, &c);
  return c;
}

static void random_contacts(void) {
  unsigned long long seed = 0x2545f4914f6cdd1dULL;
  int count[3] = {0, 0, 0}, fd_checked[3] = {0, 0, 0};
  double worst_cone = 0, worst_dual = 0, worst_comp = 0, worst_grad = 0, worst_hess = 0, worst_sym = 0, min_eig = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    double mu = trial % 7 == 0 ? 0.0 : sg_test_rand(&seed, 0.05, 1.5);
    double Rn = pow(10.0, sg_test_rand(&seed, -4, 1)), Rt = pow(10.0, sg_test_rand(&seed, -4, 1));
    double vh = sg_test_rand(&seed, -1, 1), vc[3], gam[3], G[9], cost;
    for (int k = 0; k < 3; ++k) vc[k] = sg_test_rand(&seed, -2, 2);
    int reg = sg_sap_contact(mu, Rn, Rt, vh, vc, gam, G, &cost);
    CHECK(reg >= 0 && reg <= 2);
    count[reg]++;
    /* gamma in F */
    double gt = sqrt(gam[1] * gam[1] + gam[2] * gam[2]), gs = fmax(1e-300, sqrt(gam[0] * gam[0] + gt * gt));
    CHECK(gam[0] >= 0);
    worst_cone = fmax(worst_cone, (gt - mu * gam[0]) / gs);
    /* dual velocity g = vc - vhat_c + R gamma in F*, complementarity */
    double g[3] = {vc[0] - vh + Rn * gam[0], vc[1] + Rt * gam[1], vc[2] + Rt * gam[2]};
    double gtn = sqrt(g[1] * g[1] + g[2] * g[2]);
    /* scale of g's two terms (g itself is round-off in stiction, where it vanishes) */
    double gsn = sqrt((vc[0] - vh) * (vc[0] - vh) + vc[1] * vc[1] + vc[2] * vc[2]) + fmax(Rn, Rt) * gs;
    worst_dual = fmax(worst_dual, (mu * gtn - g[0]) / fmax(gsn, 1e-300));
    worst_comp = fmax(worst_comp, fabs(g[0] * gam[0] + g[1] * gam[1] + g[2] * gam[2]) / fmax(gsn * gs, 1e-300));
    /* the projection: no nearby point of F is closer to y in the R norm */
    double y[3] = {-(vc[0] - vh) / Rn, -vc[1] / Rt, -vc[2] / Rt}, w[3] = {Rn, Rt, Rt};
    double d0 = 0;
    for (int k = 0; k < 3; ++k) d0 += w[k] * (gam[k] - y[k]) * (gam[k] - y[k]);
    for (int s = 0; s < 20; ++s) {
      double z[3];
      for (int k = 0; k < 3; ++k) z[k] = gam[k] + 0.1 * gs * sg_test_rand(&seed, -1, 1);
      if (z[0] < 0) z[0] = -z[0];
      double zt = sqrt(z[1] * z[1] + z[2] * z[2]);
      if (zt > mu * z[0]) { double sc = zt > 0 ? mu * z[0] / zt : 0; z[1] *= sc; z[2] *= sc; }
      double dz = 0;
      for (int k = 0; k < 3; ++k) dz += w[k] * (z[k] - y[k]) * (z[k] - y[k]);
      CHECK(dz >= d0 * (1 - 1e-12) - 1e-300);
    }
    /* G symmetric PSD */
    double gmax = 0;
    for (int k = 0; k < 9; ++k) gmax = fmax(gmax, fabs(G[k]));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) worst_sym = fmax(worst_sym, fabs(G[3 * a + b] - G[3 * b + a]) / fmax(gmax, 1e-300));
    for (int s = 0; s < 10; ++s) {
      double x[3], Gx[3], xx = 0;
      for (int k = 0; k < 3; ++k) { x[k] = sg_test_rand(&seed, -1, 1); xx += x[k] * x[k]; }
      for (int a = 0; a < 3; ++a) Gx[a] = G[3 * a] * x[0] + G[3 * a + 1] * x[1] + G[3 * a + 2] * x[2];
      double q = (x[0] * Gx[0] + x[1] * Gx[1] + x[2] * Gx[2]) / (xx * fmax(gmax, 1e-300));
      min_eig = fmin(min_eig, q);
    }
    /* finite differences: d cost / d vc = -gamma, d gamma / d vc = -G */
    double h = 1e-6 * fmax(1.0, sqrt(vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2]));
    int same = 1;
    double gp[3][3], gm[3][3], cp[3], cm[3];
    for (int k = 0; k < 3; ++k) {
      double xp[3] = {vc[0], vc[1], vc[2]}, xm[3] = {vc[0], vc[1], vc[2]};
      xp[k] += h; xm[k] -= h;
      int rp, rm;
      cp[k] = cost_at(mu, Rn, Rt, vh, xp, gp[k], &rp);
      cm[k] = cost_at(mu, Rn, Rt, vh, xm, gm[k], &rm);
      same &= rp == reg && rm == reg;
    }
    /* also stay away from the cone's apex in the sliding region, where 1/y_r blows up */
    double yr = sqrt(y[1] * y[1] + y[2] * y[2]);
    if (reg == SG_SAP_SLIDE && yr < 1e-3 * fmax(1.0, fabs(y[0]))) same = 0;
    if (!same) continue;
    fd_checked[reg]++;
    double gscale = fmax(1e-12, gs), hscale = fmax(1e-12, gmax);
    for (int k = 0; k < 3; ++k) {
      double dc = (cp[k] - cm[k]) / (2 * h);
      worst_grad = fmax(worst_grad, fabs(dc + gam[k]) / fmax(gscale, fabs(cost) / h * 1e-10));
      for (int a = 0; a < 3; ++a) {
        double dg = (gp[k][a] - gm[k][a]) / (2 * h); /* d gamma_a / d vc_k */
        worst_hess = fmax(worst_hess, fabs(dg + G[3 * a + k]) / hscale);
      }
    }
  }
  printf("contacts: %d stiction, %d sliding, %d no contact (FD-checked %d / %d / %d)\n", count[SG_SAP_STICK],
         count[SG_SAP_SLIDE], count[SG_SAP_NONE], fd_checked[SG_SAP_STICK], fd_checked[SG_SAP_SLIDE], fd_checked[SG_SAP_NONE]);
  printf("  cone violation %.2e, dual-cone violation %.2e, complementarity %.2e (relative)\n", worst_cone, worst_dual, worst_comp);
  printf("  gradient vs FD %.2e, Hessian vs FD %.2e, asymmetry %.2e, smallest Rayleigh quotient %.2e (relative)\n",
         worst_grad, worst_hess, worst_sym, min_eig);
  for (int r = 0; r < 3; ++r) CHECK(count[r] >= 200 && fd_checked[r] >= 100);
  CHECK(worst_cone <= 1e-12);
  CHECK(worst_dual <= 1e-12);
  CHECK(worst_comp <= 1e-12);
  CHECK(worst_grad <= 1e-6);
  CHECK(worst_hess <= 1e-6);
  CHECK(worst_sym <= 1e-14);
  CHECK(min_eig >= -1e-14);
}

static void hard_rows(void) {
  unsigned long long seed = 0x1234567ULL;
  int on = 0, off = 0;
  double worst = 0;
  for (int trial = 0; trial < 500; ++trial) {
    double R = pow(10.0, sg_test_rand(&seed, -4, 1)), vh = sg_test_rand(&seed, -1, 1), vc = sg_test_rand(&seed, -2, 2);
    double gam, G, c, gp, gm, cp, cm, h = 1e-6;
    int reg = sg_sap_hard(R, vh, vc, &gam, &G, &c);
    int rp = sg_sap_hard(R, vh, vc + h, &gp, NULL, &cp), rm = sg_sap_hard(R, vh, vc - h, &gm, NULL, &cm);
    double g = vc - vh + R * gam; /* gamma >= 0, g >= 0, g gamma = 0 */
    CHECK(gam >= 0 && g >= -1e-12 * fmax(1, fabs(vc)) && fabs(g * gam) <= 1e-12 * fmax(1, fabs(vc) * gam));
    if (rp != reg || rm != reg) continue;
    if (reg) on++; else off++;
    double sc = fmax(1e-12, fmax(gam, G));
    worst = fmax(worst, fabs((cp - cm) / (2 * h) + gam) / sc);
    worst = fmax(worst, fabs((gp - gm) / (2 * h) + G) / sc);
  }
  printf("hard rows: %d active, %d inactive, gradient / Hessian vs FD %.2e (relative)\n", on, off, worst);
  CHECK(on >= 100 && off >= 100);
  CHECK(worst <= 1e-6);
}

/* The frictionless contact: y_n = -(vc_n - vhat_n) / Rn; gamma_n = max(y_n, 0), gamma_t = 0. */
static void frictionless(void) {
  const double cases[][3] = {{0.5, 0, 0}, {0.5, 0.1, -0.2}, {-0.5, 0, 0}, {-0.5, 0.3, 0}, {0, 0, 0}};
  for (int k = 0; k < 5; ++k) {
    double gam[3], G[9], vhat = 0.1, Rn = 2.0, Rt = 3.0, vc[3] = {cases[k][0], cases[k][1], cases[k][2]};
    sg_sap_contact(0.0, Rn, Rt, vhat, vc, gam, G, NULL);
    double yn = -(vc[0] - vhat) / Rn;
    CHECK(gam[0] == fmax(yn, 0.0) && gam[1] == 0.0 && gam[2] == 0.0);
  }
}

int main(void) {
  random_contacts();
  hard_rows();
  frictionless();
  return sg_test_exit();
}
