# Statistics the benchmark scripts share; source it.

# The median of a file's values, one a line ("nan" for none).
median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# The median of a file's values with its 95% confidence interval from order statistics:
# [x(k), x(n+1-k)] for the largest k with P(Binomial(n, 1/2) < k) <= 2.5%.
median_ci() { # file
  sort -g "$1" | awk '{v[NR] = $1}
    END {
      n = NR; k = 1; below = 0; c = 1   # c = C(n, i), below = P(B < k)
      for (i = 0; i < n; i++) {
        if (below + c / 2 ^ n > 0.025) break
        below += c / 2 ^ n; c = c * (n - i) / (i + 1); k = i + 1
      }
      if (k < 1) k = 1
      m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%.4f | %.4f .. %.4f", m, v[k], v[n + 1 - k]
    }'
}
