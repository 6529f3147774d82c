/* Distributed Newton matrix H = A + sum_i J_i^T G_i J_i on PETSc (see newton.h), and its numbering
 * for a problem replicated on every rank (the local numbering: newton_local.c). Rows of subsystem j
 * live on its owner; each rank adds exactly the blocks of its own rows (a constraint that couples
 * subsystems of two ranks is added row-block by row-block on both), so assembly needs no
 * off-process values and is the same whatever the number of ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/fault.h"
#include "solvers/newton_internal.h"

sg_err sg_ksp_create(MPI_Comm comm, const char *prefix, KSPType ksp_default, PCType pc_default,
                     PCType sub_pc_default, KSP *ksp) {
  char name[64];
  PetscBool set = PETSC_FALSE;
  PC pc;
  SG_PETSC(KSPCreate(comm, ksp));
  SG_PETSC(KSPSetOptionsPrefix(*ksp, prefix));
  SG_PETSC(KSPSetType(*ksp, ksp_default));
  SG_PETSC(KSPGetPC(*ksp, &pc));
  SG_PETSC(PCSetType(pc, pc_default));
  /* the sub-PC of block Jacobi can only be set through the database before KSPSetUp */
  snprintf(name, sizeof name, "-%ssub_pc_type", prefix);
  SG_PETSC(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set && sub_pc_default) SG_PETSC(PetscOptionsSetValue(NULL, name, sub_pc_default));
  SG_PETSC(KSPSetFromOptions(*ksp));
  /* Options of the block-Jacobi sub-solvers (-<prefix>sub_...) are read only when the KSP is set up
   * at the first solve, after the unknown-option check: mark them used here (PETSc itself would
   * only report them at exit), so that they pass the check. */
  PetscInt n = 0;
  char **names = NULL, **values = NULL;
  char sub[64];
  snprintf(sub, sizeof sub, "%ssub_", prefix);
  SG_PETSC(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < n; ++k)
    if (!strncmp(names[k], sub, strlen(sub))) {
      char opt[256];
      snprintf(opt, sizeof opt, "-%s", names[k]);
      PetscOptionsHasName(NULL, NULL, opt, &set);
    }
  SG_PETSC(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  return SG_OK;
}

sg_err sg_newton_init(sg_newton_sys *ns, MPI_Comm comm, const char *prefix, KSPType ksp_default,
                      PCType pc_default, PCType sub_pc_default) {
  memset(ns, 0, sizeof *ns);
  ns->comm = comm;
  MPI_Comm_rank(comm, &ns->rank);
  MPI_Comm_size(comm, &ns->size);
  snprintf(ns->prefix, sizeof ns->prefix, "%s", prefix);
  return sg_ksp_create(comm, prefix, ksp_default, pc_default, sub_pc_default, &ns->ksp);
}

static void free_petsc_objects(sg_newton_sys *ns) {
  if (ns->H) MatDestroy(&ns->H);
  if (ns->x) VecDestroy(&ns->x);
  if (ns->r) VecDestroy(&ns->r);
  if (ns->x_all) VecDestroy(&ns->x_all);
  if (ns->to_all) VecScatterDestroy(&ns->to_all);
  if (ns->x_loc) VecDestroy(&ns->x_loc);
  if (ns->to_loc) VecScatterDestroy(&ns->to_loc);
}

/* Global offsets: ranks in order, subsystems of a rank in problem order. */
static sg_err number_unknowns(sg_newton_sys *ns, const sg_problem *p) {
  SG_CHECK(sg_grow((void **)&ns->gofs, &ns->cap_gofs, p->n_sub + 1, sizeof(int), "Newton numbering"));
  int row = 0;
  ns->row_lo = ns->row_hi = -1;
  for (int r = 0; r < ns->size; ++r) {
    if (r == ns->rank) ns->row_lo = row;
    for (int j = 0; j < p->n_sub; ++j)
      if (sg_newton_owner(p, j) == r) {
        ns->gofs[j] = row;
        row += p->sub_dof[j];
      }
    if (r == ns->rank) ns->row_hi = row;
  }
  ns->n_v = row;
  ns->n_sub = p->n_sub;
  return SG_OK;
}

/* For each owned subsystem j, count the unknowns of the subsystems coupled to it (itself and every
 * subsystem sharing a constraint), split by whether their rows are on this rank. */
static sg_err preallocation(sg_newton_sys *ns, const sg_problem *p) {
  int nloc = ns->row_hi - ns->row_lo, nsub = p->n_sub;
  SG_CHECK(sg_grow((void **)&ns->mark, &ns->cap_mark, nsub + 1, sizeof(int), "Newton marks"));
  SG_CHECK(sg_grow((void **)&ns->nnz_d, &ns->cap_nnz, nloc + 1, sizeof(int), "Newton preallocation"));
  SG_CHECK(sg_grow((void **)&ns->nnz_o, &ns->cap_nnz_o, nloc + 1, sizeof(int), "Newton preallocation"));
  /* subsystem -> constraints incidence, built as CSR */
  int npair = p->n_con ? p->con_pair[p->n_con] : 0;
  int *start = calloc((size_t)nsub + 1, sizeof(int)), *list = malloc((size_t)(npair + 1) * sizeof(int));
  if (!start || !list) { free(start); free(list); return sg_error_set(SG_ERR_MEM, "out of memory (Newton incidence)"); }
  for (int q = 0; q < npair; ++q) start[p->pair_sub[q] + 1]++;
  for (int j = 0; j < nsub; ++j) start[j + 1] += start[j];
  int *fill = malloc((size_t)nsub * sizeof(int) + 1);
  if (!fill) { free(start); free(list); return sg_error_set(SG_ERR_MEM, "out of memory (Newton incidence)"); }
  memcpy(fill, start, (size_t)nsub * sizeof(int));
  for (int i = 0; i < p->n_con; ++i)
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) list[fill[p->pair_sub[q]]++] = i;
  free(fill);
  for (int j = 0; j < nsub; ++j) ns->mark[j] = -1;
  for (int j = 0; j < nsub; ++j) {
    if (sg_newton_owner(p, j) != ns->rank) continue;
    int d = p->sub_dof[j], o = 0;
    ns->mark[j] = j;
    for (int k = start[j]; k < start[j + 1]; ++k) {
      int i = list[k];
      for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
        int s = p->pair_sub[q];
        if (ns->mark[s] == j) continue;
        ns->mark[s] = j;
        if (sg_newton_owner(p, s) == ns->rank) d += p->sub_dof[s];
        else o += p->sub_dof[s];
      }
    }
    int row0 = ns->gofs[j] - ns->row_lo;
    for (int r = 0; r < p->sub_dof[j]; ++r) {
      ns->nnz_d[row0 + r] = d;
      ns->nnz_o[row0 + r] = o;
    }
  }
  free(start);
  free(list);
  return SG_OK;
}

sg_err sg_newton_begin_setup(sg_newton_sys *ns) {
  /* a new problem brings a new matrix whose local sizes may differ (contacts come and go, bodies
   * migrate between ranks): a KSP/PC set up for the old sizes refuses it, so reset it (type, prefix,
   * tolerances and options stay) */
  if (ns->H && KSPReset(ns->ksp)) return sg_error_set(SG_ERR_LIB, "PETSc call failed: KSPReset");
  free_petsc_objects(ns);
  return SG_OK;
}

sg_err sg_newton_create_matrix(sg_newton_sys *ns, const sg_problem *p) {
  SG_CHECK(preallocation(ns, p));
  int nloc = ns->row_hi - ns->row_lo;
  SG_PETSC(MatCreateAIJ(ns->comm, nloc, nloc, ns->n_v, ns->n_v, 0, ns->nnz_d, 0, ns->nnz_o, &ns->H));
  SG_PETSC(MatSetOption(ns->H, MAT_SYMMETRIC, PETSC_TRUE));
  SG_PETSC(MatSetOption(ns->H, MAT_SPD, PETSC_TRUE));
  SG_PETSC(MatCreateVecs(ns->H, &ns->x, &ns->r));
  int maxd = 0;
  for (int j = 0; j < p->n_sub; ++j) maxd = p->sub_dof[j] > maxd ? p->sub_dof[j] : maxd;
  ns->maxd = maxd;
  SG_CHECK(sg_grow((void **)&ns->blk, &ns->cap_blk, maxd * maxd + 3 * maxd + 1, sizeof(double), "Newton block"));
  SG_CHECK(sg_grow((void **)&ns->cols, &ns->cap_cols, 2 * maxd + 1, sizeof(int), "Newton columns"));
  return SG_OK;
}

sg_err sg_newton_setup(sg_newton_sys *ns, const sg_problem *p) {
  SG_CHECK(sg_newton_begin_setup(ns));
  SG_CHECK(number_unknowns(ns, p));
  SG_CHECK(sg_newton_create_matrix(ns, p));
  SG_PETSC(VecScatterCreateToAll(ns->x, &ns->to_all, &ns->x_all));
  return SG_OK;
}

/* The blocks of this rank's rows into H (local: no communication). */
static sg_err add_blocks(sg_newton_sys *ns, const sg_problem *p, const double *G) {
  int maxd = ns->maxd, *rows = ns->cols, *cols = ns->cols + maxd;
  double *blk = ns->blk;
  SG_PETSC(MatZeroEntries(ns->H));
  for (int j = 0; j < p->n_sub; ++j) {
    if (sg_newton_owner(p, j) != ns->rank) continue;
    int d = p->sub_dof[j];
    for (int r = 0; r < d; ++r) rows[r] = ns->gofs[j] + r;
    SG_PETSC(MatSetValues(ns->H, d, rows, d, rows, p->A + p->sub_aoff[j], ADD_VALUES));
  }
  if (G) {
    double *GJ = blk + maxd * maxd; /* rows x dof_b: G_i J_ib, rows <= 3 */
    for (int i = 0; i < p->n_con; ++i) {
      int nr = sg_con_rows(p->kind[i]);
      const double *Gi = G + SG_NEWTON_GSTRIDE * i;
      /* zero blocks are inserted too: the first MAT_FINAL_ASSEMBLY squeezes out preallocated but
       * unused entries, so skipping them would make a later assembly (where G_i != 0) need a new
       * nonzero (PETSc error); it also keeps one sparsity pattern for the PC over a solve */
      for (int qa = p->con_pair[i]; qa < p->con_pair[i + 1]; ++qa) {
        int a = p->pair_sub[qa], da = p->sub_dof[a];
        if (sg_newton_owner(p, a) != ns->rank) continue;
        double ja_buf[SG_COMPACT_BLOCK], jb_buf[SG_COMPACT_BLOCK];
        const double *Ja = sg_problem_pair_block(p, i, qa, ja_buf);
        for (int r = 0; r < da; ++r) rows[r] = ns->gofs[a] + r;
        for (int qb = p->con_pair[i]; qb < p->con_pair[i + 1]; ++qb) {
          int b = p->pair_sub[qb], db = p->sub_dof[b];
          const double *Jb = sg_problem_pair_block(p, i, qb, jb_buf);
          for (int r = 0; r < nr; ++r)
            for (int c = 0; c < db; ++c) {
              double s = 0;
              for (int k = 0; k < nr; ++k) s += Gi[r * nr + k] * Jb[k * db + c];
              GJ[r * db + c] = s;
            }
          for (int r = 0; r < da; ++r)
            for (int c = 0; c < db; ++c) {
              double s = 0;
              for (int k = 0; k < nr; ++k) s += Ja[k * da + r] * GJ[k * db + c];
              blk[r * db + c] = s;
            }
          for (int c = 0; c < db; ++c) cols[c] = ns->gofs[b] + c;
          SG_PETSC(MatSetValues(ns->H, da, rows, db, cols, blk, ADD_VALUES));
        }
      }
    }
  }
  return SG_OK;
}

sg_err sg_newton_assemble(sg_newton_sys *ns, const sg_problem *p, const double *G) {
  sg_err err = add_blocks(ns, p, G);
  if (!err) err = sg_fault_check("solve", sg_fault_step()); /* a testing aid (fault.h) */
  /* a rank whose blocks failed (a nonzero outside the preallocation, say) must not leave the others
   * alone in the collective assembly */
  SG_CHECK(sg_error_collective(ns->comm, err));
  SG_PETSC(MatAssemblyBegin(ns->H, MAT_FINAL_ASSEMBLY));
  SG_PETSC(MatAssemblyEnd(ns->H, MAT_FINAL_ASSEMBLY));
  SG_PETSC(KSPSetOperators(ns->ksp, ns->H, ns->H));
  return SG_OK;
}

sg_err sg_newton_solve(sg_newton_sys *ns, const sg_problem *p, const double *rhs, double *x, int *its) {
  PetscScalar *a;
  const PetscScalar *all;
  KSPConvergedReason reason;
  PetscInt n = 0;
  SG_PETSC(VecGetArray(ns->r, &a));
  for (int j = 0; j < p->n_sub; ++j)
    if (sg_newton_owner(p, j) == ns->rank)
      memcpy(a + ns->gofs[j] - ns->row_lo, rhs + p->sub_off[j], (size_t)p->sub_dof[j] * sizeof(double));
  SG_PETSC(VecRestoreArray(ns->r, &a));
  SG_PETSC(KSPSolve(ns->ksp, ns->r, ns->x));
  SG_PETSC(KSPGetConvergedReason(ns->ksp, &reason));
  SG_PETSC(KSPGetIterationNumber(ns->ksp, &n));
  *its = (int)n;
  ns->ksp_its_total += (int)n;
  if (reason < 0 && reason != KSP_DIVERGED_ITS)
    return sg_error_set(SG_ERR_NUMERIC, "linear solver (-%sksp_type) diverged: %s after %d iterations",
                        ns->prefix, KSPConvergedReasons[reason], (int)n);
  if (ns->to_loc) { /* local layout: owned and ghost unknowns, already in the problem's order */
    SG_PETSC(VecScatterBegin(ns->to_loc, ns->x, ns->x_loc, INSERT_VALUES, SCATTER_FORWARD));
    SG_PETSC(VecScatterEnd(ns->to_loc, ns->x, ns->x_loc, INSERT_VALUES, SCATTER_FORWARD));
    SG_PETSC(VecGetArrayRead(ns->x_loc, &all));
    if (ns->n_loc) memcpy(x, all, (size_t)ns->n_loc * sizeof(double));
    SG_PETSC(VecRestoreArrayRead(ns->x_loc, &all));
    return SG_OK;
  }
  SG_PETSC(VecScatterBegin(ns->to_all, ns->x, ns->x_all, INSERT_VALUES, SCATTER_FORWARD));
  SG_PETSC(VecScatterEnd(ns->to_all, ns->x, ns->x_all, INSERT_VALUES, SCATTER_FORWARD));
  SG_PETSC(VecGetArrayRead(ns->x_all, &all));
  for (int j = 0; j < p->n_sub; ++j)
    memcpy(x + p->sub_off[j], all + ns->gofs[j], (size_t)p->sub_dof[j] * sizeof(double));
  SG_PETSC(VecRestoreArrayRead(ns->x_all, &all));
  return SG_OK;
}

void sg_newton_destroy(sg_newton_sys *ns) {
  free_petsc_objects(ns);
  if (ns->ksp) KSPDestroy(&ns->ksp);
  free(ns->gofs); free(ns->mark); free(ns->nnz_d); free(ns->nnz_o); free(ns->cols); free(ns->blk);
  memset(ns, 0, sizeof *ns);
}

sg_err sg_newton_choose_sub_pc(KSP ksp, const char *who, long direct_max, int use_cholmod, int set_nd) {
  PC pc;
  PetscBool isbj = PETSC_FALSE;
  if (KSPGetPC(ksp, &pc) || PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &isbj))
    return sg_error_set(SG_ERR_LIB, "%s: cannot query the preconditioner", who);
  if (!isbj) return SG_OK;
  if (KSPSetUp(ksp)) return sg_error_set(SG_ERR_LIB, "%s: KSPSetUp failed", who);
  PetscInt nloc = 0, first = 0;
  KSP *sub = NULL;
  if (PCBJacobiGetSubKSP(pc, &nloc, &first, &sub)) return sg_error_set(SG_ERR_LIB, "%s: PCBJacobiGetSubKSP failed", who);
  for (PetscInt k = 0; k < nloc; ++k) {
    PC spc;
    Mat P;
    PetscInt rows = 0;
    if (KSPGetPC(sub[k], &spc) || KSPGetOperators(sub[k], NULL, &P) || MatGetSize(P, &rows, NULL))
      return sg_error_set(SG_ERR_LIB, "%s: cannot query the block-Jacobi sub-solver", who);
    if (rows == 0) { /* a rank without rows (more ranks than bodies): nothing to factor, CHOLMOD refuses 0 x 0 */
      if (PCSetType(spc, PCNONE)) return sg_error_set(SG_ERR_LIB, "%s: PCSetType failed", who);
      continue;
    }
    int direct = rows <= direct_max;
    if (PCSetType(spc, direct ? PCCHOLESKY : PCICC)) return sg_error_set(SG_ERR_LIB, "%s: PCSetType failed", who);
    if (!direct) continue;
#if defined(PETSC_HAVE_SUITESPARSE)
    if (use_cholmod) {
      if (PCFactorSetMatSolverType(spc, MATSOLVERCHOLMOD)) return sg_error_set(SG_ERR_LIB, "%s: PCFactorSetMatSolverType failed", who);
      continue;
    }
#else
    (void)use_cholmod;
#endif
    if (set_nd && PCFactorSetMatOrderingType(spc, MATORDERINGND))
      return sg_error_set(SG_ERR_LIB, "%s: PCFactorSetMatOrderingType failed", who);
  }
  return SG_OK;
}

sg_err sg_newton_init_auto_sub_pc(sg_newton_sys *ns, MPI_Comm comm, const char *prefix, const char *factor_option,
                                  int *sub_user, int *factor_user) {
  char sub_name[128], factor_name[192];
  snprintf(sub_name, sizeof sub_name, "-%ssub_pc_type", prefix);
  snprintf(factor_name, sizeof factor_name, "-%s%s", prefix, factor_option);
  PetscBool has_sub = PETSC_FALSE, has_factor = PETSC_FALSE;
  if (PetscOptionsHasName(NULL, NULL, sub_name, &has_sub) || PetscOptionsHasName(NULL, NULL, factor_name, &has_factor))
    return sg_error_set(SG_ERR_LIB, "%s: options database", sub_name);
  *sub_user = has_sub == PETSC_TRUE;
  *factor_user = has_factor == PETSC_TRUE;
  SG_CHECK(sg_newton_init(ns, comm, prefix, KSPCG, PCBJACOBI, PCICC));
  if (!*sub_user && PetscOptionsClearValue(NULL, sub_name)) return sg_error_set(SG_ERR_LIB, "%s: options database", sub_name);
  return SG_OK;
}
