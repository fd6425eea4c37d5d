/* What the audits share (audit.c): the histograms of an output and the
 * test on them. Private to experiments/audit*.c and their tests. */
#ifndef DPBO_AUDIT_PRIVATE_H
#define DPBO_AUDIT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "dpbo/error.h"

/* Bins of a real-valued output: `count - 2` bins of the given width from
 * `first`, plus one open bin at each end. Fixed before any draw, so the
 * event family does not depend on the draws it is tested on. */
typedef struct dpbo__audit_bins {
  double first, width;
  int count; /* including both open bins */
} dpbo__audit_bins;

/* At most this many bins (the width grows instead), so the number of
 * events, and with it the Bonferroni cost, stays bounded. */
enum { DPBO__AUDIT_MAX_BINS = 4096 };

/* The strongest event of a pair of histograms. */
typedef struct dpbo__audit_bound {
  double epsilon;   /* the largest lower bound found, 0 if no event separates */
  int events;       /* events tested, each in both directions */
  int lo, hi;       /* the event attaining it: outputs in bins lo..hi (lo < 0: none) */
  int dir;          /* 0: P(E | D) / P(E | D'), 1: P(E | D') / P(E | D) */
  int64_t count[2]; /* occurrences of E on the numerator's input and on the other */
} dpbo__audit_bound;

dpbo__audit_bins dpbo__audit_bins_make(double first, double span, double width);

/* The bin of v. */
int dpbo__audit_bin(const dpbo__audit_bins *bins, double v);

/* Describes bins [lo, hi] of the output called `what`. */
void dpbo__audit_bins_event(const dpbo__audit_bins *bins, int lo, int hi, const char *what,
                            char *buf, size_t size);

/* The histogram test of audit.h on total[side * nbins + j] (see audit.c). */
dpbo_status dpbo__audit_histogram_bound(const int64_t *total, int nbins, int64_t trials,
                                        double alpha, double delta, dpbo__audit_bound *out,
                                        dpbo_error *err);

/* "P(event | D) / P(same | D'): a vs b of n" for the strongest event. */
void dpbo__audit_witness(const dpbo__audit_bound *bound, const char *event, int64_t trials,
                         char *buf, size_t size);

#endif
