/* Welch's t-test and the two-proportion z-test; see fg/significance.h.
 * The incomplete beta function is evaluated by its continued fraction
 * (modified Lentz), the usual way, to about 1e-12. */
#include "fg/significance.h"

#include <math.h>

static double beta_fraction(double x, double a, double b)
{
  const double tiny = 1e-300, eps = 1e-14;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (fabs(d) < tiny)
    d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 500; m++) {
    double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));   /* even step */
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
    c = fabs(c) < tiny ? tiny : c;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));   /* odd step */
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
    c = fabs(c) < tiny ? tiny : c;
    double step = d * c;
    h *= step;
    if (fabs(step - 1.0) < eps)
      break;
  }
  return h;
}

double fg_incomplete_beta(double x, double a, double b)
{
  if (x <= 0.0)
    return 0.0;
  if (x >= 1.0)
    return 1.0;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1.0 - x));
  /* the fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise */
  if (x < (a + 1.0) / (a + b + 2.0))
    return front * beta_fraction(x, a, b) / a;
  return 1.0 - front * beta_fraction(1.0 - x, b, a) / b;
}

double fg_student_t_p(double t, double df)
{
  if (!isfinite(t))
    return 0.0;
  return fg_incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
}

double fg_normal_p(double z)
{
  return erfc(fabs(z) / sqrt(2.0));
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
  double m = 0.0, s = 0.0;
  for (size_t i = 0; i < n; i++)
    m += v[i];
  m /= (double)n;
  for (size_t i = 0; i < n; i++)
    s += (v[i] - m) * (v[i] - m);
  *mean = m;
  *var = n > 1 ? s / (double)(n - 1) : 0.0;
}

double fg_welch_p(const double *x, size_t nx, const double *y, size_t ny, double *t, double *df)
{
  double mx, vx, my, vy;
  mean_var(x, nx, &mx, &vx);
  mean_var(y, ny, &my, &vy);
  double sx = vx / (double)nx, sy = vy / (double)ny, se2 = sx + sy;
  if (se2 <= 0.0) {
    *t = my == mx ? 0.0 : (my > mx ? INFINITY : -INFINITY);
    *df = (double)(nx + ny - 2);
    return my == mx ? 1.0 : 0.0;
  }
  *t = (my - mx) / sqrt(se2);
  *df = se2 * se2 / (sx * sx / (double)(nx - 1) + sy * sy / (double)(ny - 1));
  return fg_student_t_p(*t, *df);
}

double fg_two_proportion_p(uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb, double *z)
{
  if (na == 0 || nb == 0) {
    *z = 0.0;
    return 1.0;
  }
  double pa = (double)ka / (double)na, pb = (double)kb / (double)nb;
  double pool = (double)(ka + kb) / (double)(na + nb);
  double se = sqrt(pool * (1.0 - pool) * (1.0 / (double)na + 1.0 / (double)nb));
  if (se <= 0.0) {
    *z = 0.0;
    return pa == pb ? 1.0 : 0.0;
  }
  *z = (pb - pa) / se;
  return fg_normal_p(*z);
}
