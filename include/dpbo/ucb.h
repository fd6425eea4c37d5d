/* Distributed GP-UCB over a rank's block of Λ (paper eq. 3; Algorithm 1).
 *
 * Each rank keeps, for every candidate x of its block, the normalized
 * posterior mean and variance and the whitened cross-covariances
 * a(x) = L^{-1} k(X_t, x). After observation t the GP's new Cholesky row
 * (l, pivot, z_t) gives
 *     a_t(x) = (k(λ_t, x) - lᵀ a_{1..t-1}(x)) / pivot
 *     μ_t(x) = μ_{t-1}(x) + a_t(x) z_t,   σ²_t(x) = σ²_{t-1}(x) - a_t(x)²
 * so a step costs O(t·N/P) and never re-solves. Memory: T·N/P doubles.
 *
 * When T·N/P doubles do not fit (ucb.memory_limit_mb), the state runs in
 * recompute mode: it keeps μ, σ², the unit coordinates and the observations'
 * coordinates only, and at every step rebuilds a_1..a_t(x) chunk by chunk
 * from the kernel and the GP's Cholesky rows with the very same arithmetic,
 * so μ, σ² and every selection are bit for bit those of the incremental
 * mode. A step then costs O(t²·N/P) multiply-adds and t kernel evaluations
 * per candidate instead of O(t·N/P) and one; memory is (d + 2)·N/P doubles
 * plus a scratch of T × chunk doubles.
 *
 * The next point maximizes μ + √β_t σ; ranks reduce their local maxima with
 * one MPI_Allreduce whose operator keeps the larger score and, on a tie, the
 * lower global index, so the choice does not depend on the number of ranks. */
#ifndef DPBO_UCB_H
#define DPBO_UCB_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/gp.h"
#include "dpbo/space.h"

typedef struct dpbo_ucb dpbo_ucb;

typedef enum { DPBO_UCB_INCREMENTAL = 0, DPBO_UCB_RECOMPUTE = 1 } dpbo_ucb_mode;

const char *dpbo_ucb_mode_name(dpbo_ucb_mode mode);

/* β_t of the selection rule: dpbo_privacy_beta (privacy.h), its one home. */

/* Builds the state of the block [begin, begin+count) of its space for up
 * to `capacity` observations, at the prior (μ = 0, σ² = 1 normalized), in
 * incremental mode. */
dpbo_status dpbo_ucb_create(const dpbo_space_range *block, const dpbo_kernel *kernel, int capacity,
                            dpbo_ucb **out, dpbo_error *err);
/* The same in the given mode. */
dpbo_status dpbo_ucb_create_mode(const dpbo_space_range *block, const dpbo_kernel *kernel,
                                 int capacity, dpbo_ucb_mode mode, dpbo_ucb **out, dpbo_error *err);
void dpbo_ucb_destroy(dpbo_ucb *ucb);

/* Bytes the state of `count` candidates in d dimensions holds for `capacity`
 * observations in `mode`: what dpbo_ucb_memory reports after creation
 * (Algorithm 2's pruning flags add one byte per candidate when first used). */
size_t dpbo_ucb_memory_needed(int64_t count, int d, int capacity, dpbo_ucb_mode mode);

/* The mode for a per-rank limit of `limit` bytes (0: no limit): incremental
 * when its state fits, else recompute; DPBO_ERR_CONFIG when not even the
 * recompute state fits (the message gives both sizes and names the key). */
dpbo_status dpbo_ucb_choose_mode(int64_t count, int d, int capacity, size_t limit,
                                 dpbo_ucb_mode *mode, dpbo_error *err);

/* The per-rank limit in bytes for ucb.memory_limit_mb (collective over comm):
 * limit_mb MiB when positive; none (0) when limit_mb is 0 ("off"); when
 * negative ("auto"), half of the memory this node grants the job — physical
 * memory, or the cgroup limit (what Slurm enforces) when lower — shared
 * evenly among the ranks of comm on the node. */
dpbo_status dpbo_ucb_memory_limit(MPI_Comm comm, double limit_mb, size_t *bytes, dpbo_error *err);

dpbo_ucb_mode dpbo_ucb_get_mode(const dpbo_ucb *ucb);

/* Frees the rows a_1..a_t and continues in recompute mode (same results,
 * slower updates), e.g. once a run is over and the memory goes to the
 * release's γ_T computation. Nothing happens in recompute mode. */
dpbo_status dpbo_ucb_drop_rows(dpbo_ucb *ucb, dpbo_error *err);

/* Asks the next dpbo_ucb_update to also find the block's best μ + √β σ for
 * this β while it has μ and σ² in hand, so the following selection with the
 * same β needs no second pass over the block (same scores, same choice). */
void dpbo_ucb_prepare_select(dpbo_ucb *ucb, double beta);

/* Folds the GP's newest observation (at unit coordinates u) into the block. */
dpbo_status dpbo_ucb_update(dpbo_ucb *ucb, const dpbo_gp *gp, const double *u, dpbo_error *err);

typedef struct dpbo_ucb_choice {
  double score;  /* normalized μ + √β σ */
  int64_t index; /* global index in Λ */
} dpbo_ucb_choice;

/* The block's best candidate (ties to the lowest index); index -1 and score
 * -inf on an empty block. */
dpbo_ucb_choice dpbo_ucb_local_best(const dpbo_ucb *ucb, double beta);

/* Expected improvement (Mockus 1978) over the best observation `best`
 * (normalized units): EI = (μ − b) Φ(z) + σ φ(z), z = (μ − b)/σ. Used by
 * Algorithm 3, whose guarantee holds for any acquisition. */
dpbo_ucb_choice dpbo_ucb_local_best_ei(const dpbo_ucb *ucb, double best);

/* Branch and bound of de Freitas, Smola & Zoghi (2012) for noise-free
 * observations: the block's largest lower bound μ − √β σ, and pruning of the
 * candidates whose upper bound μ + √β σ falls below the global largest lower
 * bound. Pruned candidates stay pruned (the bounds hold jointly w.h.p.) and
 * are never proposed again; returns the candidates still alive in the block. */
double dpbo_ucb_local_max_lcb(const dpbo_ucb *ucb, double beta);
dpbo_status dpbo_ucb_prune(dpbo_ucb *ucb, double beta, double lcb_max, int64_t *alive,
                           dpbo_error *err);

/* Never proposes global candidate `index` again (a failed evaluation); a
 * no-op on ranks that do not own it. */
dpbo_status dpbo_ucb_exclude(dpbo_ucb *ucb, int64_t index, dpbo_error *err);

/* Recomputes every mean from the rows, μ(x) = Σ_j a_j(x) z_j, after the
 * GP's whitened targets changed for earlier rows (a batch's hallucinated
 * value replaced by the real one, gp.h). O(t·N/P), the cost of one update;
 * in recompute mode the rows are rebuilt first, O(t²·N/P), same bits. */
dpbo_status dpbo_ucb_refresh_mean(dpbo_ucb *ucb, const dpbo_gp *gp, dpbo_error *err);

/* The global best over all ranks of comm (collective). */
dpbo_status dpbo_ucb_select(MPI_Comm comm, const dpbo_ucb *ucb, double beta,
                            dpbo_ucb_choice *choice, dpbo_error *err);

/* Reduces choices across ranks (collective): larger score, then lower index. */
dpbo_status dpbo_ucb_reduce(MPI_Comm comm, dpbo_ucb_choice *choice, dpbo_error *err);

/* Block accessors (normalized units; multiply by s and add m0 for units of v). */
int64_t dpbo_ucb_begin(const dpbo_ucb *ucb);
int64_t dpbo_ucb_count(const dpbo_ucb *ucb);
const double *dpbo_ucb_mean(const dpbo_ucb *ucb);
const double *dpbo_ucb_var(const dpbo_ucb *ucb);
const double *dpbo_ucb_unit(const dpbo_ucb *ucb);
/* Bytes held by the block's state (allocated, whether touched or not). */
size_t dpbo_ucb_memory(const dpbo_ucb *ucb);

#endif
