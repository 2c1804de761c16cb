/* The statistics behind fgprof diff: Welch's t-test over per-run shares
 * (run-to-run noise measured) and a two-proportion z-test over pooled sample
 * counts (one run a side: only sampling noise). Pure functions. */
#ifndef FG_SIGNIFICANCE_H
#define FG_SIGNIFICANCE_H

#include <stddef.h>
#include <stdint.h>

/* Regularized incomplete beta I_x(a, b), for 0 <= x <= 1, a, b > 0. */
double fg_incomplete_beta(double x, double a, double b);

/* Two-sided p-value of Student's t with df degrees of freedom. */
double fg_student_t_p(double t, double df);

/* Two-sided p-value of a standard normal z. */
double fg_normal_p(double z);

/* Welch's test of mean(y) - mean(x); na, nb >= 2. Sets *t and *df; returns
 * the two-sided p-value (1 when both samples are constant and equal, 0 when
 * constant and different). */
double fg_welch_p(const double *x, size_t nx, const double *y, size_t ny, double *t, double *df);

/* Two-proportion z-test of kb/nb against ka/na; returns the two-sided p. */
double fg_two_proportion_p(uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb, double *z);

#endif
