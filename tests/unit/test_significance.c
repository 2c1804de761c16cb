/* The statistics against values computed independently: Student's t by
 * numerical integration of its density (Simpson's rule), Welch's t and df and
 * the two-proportion z from their textbook formulas, in Python. */
#include "unit.h"

#include <math.h>

#include "fg/significance.h"

static void t_distribution_p_values(void **state)
{
  (void)state;
  assert_true(fabs(fg_student_t_p(2.0, 10) - 0.0733880348) < 1e-8);
  assert_true(fabs(fg_student_t_p(-3.5, 4) - 0.0248961632) < 1e-8);
  assert_true(fabs(fg_student_t_p(1.0, 1) - 0.5) < 1e-9);        /* Cauchy: exactly 1/2 */
  assert_true(fabs(fg_student_t_p(0.0, 7) - 1.0) < 1e-12);
  assert_true(fabs(fg_student_t_p(12.0, 30) - 5.580185e-13) < 1e-17);
  assert_true(fabs(fg_incomplete_beta(0.5, 2, 3) - 0.6875) < 1e-12);
  assert_true(fabs(fg_normal_p(1.959964) - 0.05) < 1e-6);
}

static void welch_matches_a_known_case(void **state)
{
  (void)state;
  /* t = 5.480485, df = 5.523254, p = 0.00201513 */
  const double a[] = {10.1, 9.8, 10.3, 10.0, 9.9};
  const double b[] = {10.9, 11.4, 10.7, 11.8, 11.1};
  double t, df;
  double p = fg_welch_p(a, 5, b, 5, &t, &df);
  assert_true(fabs(t - 5.480485) < 1e-5);
  assert_true(fabs(df - 5.523254) < 1e-5);
  assert_true(fabs(p - 0.00201513) < 1e-7);
  /* constant samples */
  const double c[] = {0.2, 0.2}, d[] = {0.3, 0.3};
  assert_true(fg_welch_p(c, 2, c, 2, &t, &df) == 1.0);
  assert_true(fg_welch_p(c, 2, d, 2, &t, &df) == 0.0);
}

static void two_proportions(void **state)
{
  (void)state;
  double z;
  /* 300/1000 vs 360/1000: z = 2.853264, p = 0.00432727 */
  double p = fg_two_proportion_p(300, 1000, 360, 1000, &z);
  assert_true(fabs(z - 2.853264) < 1e-5);
  assert_true(fabs(p - 0.00432727) < 1e-7);
  assert_true(fg_two_proportion_p(0, 0, 1, 2, &z) == 1.0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(t_distribution_p_values),
    cmocka_unit_test(welch_matches_a_known_case),
    cmocka_unit_test(two_proportions),
  };
  return cmocka_run_group_tests_name("significance", tests, NULL, NULL);
}
