/* SubADMM's update of the contacts between two bodies whose subsystems are both this rank's and off
 * the halo (subadmm.c's COMPACT_FUSED_2), several at a time. Runs of SG_FUSED_LANES such contacts
 * that follow each other in the pass make a batch; each contact's numbers (frame, error, friction,
 * lever arms, offsets) are packed at setup, lane by lane, and the update runs on vectors of
 * SG_FUSED_LANES contacts, every lane doing the same IEEE operations in the same order as subadmm.c's
 * one-contact code (update_fused_pair, and update_compact_contact over-relaxed). The wrenches are
 * added into the bodies' sums lane after lane, in the pass's order, on which the sums' round-off
 * (and so the answer's independence of the rank count) rests. So the results are bit for bit the
 * one-contact code's, on any machine. */
#ifndef SIGNORINI_SUBADMM_FUSED_H
#define SIGNORINI_SUBADMM_FUSED_H

#include "signorini/problem.h"

#define SG_FUSED_LANES 4

typedef struct {
  int n_batch;  /* batches packed */
  int *start;   /* per batch: the position in the pass of its first contact (the others follow it) */
  double *data; /* per batch: the contacts' numbers, lane fastest */
  int *index;   /* per batch: the bodies' offsets in v, the lambda rows, the first pairs, lane fastest */
  int cap_start, cap_data, cap_index;
  int vector_isa; /* 1: the kernel built for AVX2 runs (the processor has it and it was asked for) */
} sg_fused_contacts;

/* Whether this processor runs the AVX2 build of the kernel (the portable build, two SSE2 halves per
 * vector, is slower than one contact at a time: it is there for machines' agreement and tests). */
int sg_fused_avx2_available(void);

/* Pack the runs of SG_FUSED_LANES consecutive positions k of a pass with kind[k] == fused_kind
 * (con[k]: a contact of two compact pairs with signs +1 and -1, both subsystems here).
 * use_vectors 0 keeps the portable build of the kernel even where AVX2 runs. */
sg_err sg_fused_contacts_build(sg_fused_contacts *fc, const sg_problem *p, const int *con, const unsigned char *kind,
                               unsigned char fused_kind, int n, int use_vectors);
void sg_fused_contacts_destroy(sg_fused_contacts *fc);

/* Batch b under the plain update (update_fused_pair): the new lambda, the wrenches added into s_lam;
 * returns theta_p raised by the batch's squared slacks (max2 in the contacts' order). */
double sg_fused_contacts_plain(const sg_fused_contacts *fc, int b, const double *v, double *lambda, double *s_lam,
                               double beta, double inv_beta, double theta_p);

/* The same over-relaxed with world slacks (update_compact_contact with z kept and sums rebuilt):
 * also reads the pairs' slacks zeta in z and writes their new values. */
double sg_fused_contacts_relaxed(const sg_fused_contacts *fc, int b, const double *v, double *lambda, double *s_lam,
                                 double *z, double alpha, double beta, double inv_beta, double theta_p);

/* The contact residual's terms (paper 002 Sec. VII, sg_metric_law_sq) of batch b's contacts at lambda
 * and v_lambda = A^{-1}(b + J^T lambda), into terms[0 .. SG_FUSED_LANES): J v of each pair by the
 * one-pair formula (sg_compact_jv), summed over the two pairs as SubADMM's contact test sums them. */
void sg_fused_contacts_terms(const sg_fused_contacts *fc, int b, const double *v_lambda, const double *lambda,
                             double *terms);

#endif
