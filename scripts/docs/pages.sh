# What the docs' checks (scripts/check-*.sh) share. Sourced from the
# repository's root.

# self_test_verdict RC: a self-test's tally line; returns RC.
self_test_verdict() {
  if [ "$1" -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
  return "$1"
}

# pages_check_main [--self-test | PAGE...]: a page check's run, with the
# script's check_pages ROOT PAGE... (setting passed and failed) and
# self_test: the self-test, or the pages (README.md and docs/ by default)
# and their tally. Exits, 1 on a failure.
pages_check_main() {
  if [ "${1:-}" = --self-test ]; then
    self_test
    exit
  fi
  if [ $# -eq 0 ]; then
    set -- README.md $(find docs -name '*.md' | sort)
  fi
  check_pages . "$@"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}
