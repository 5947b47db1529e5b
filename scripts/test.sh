#!/usr/bin/env bash
# Runs every test of colltune on this machine, installing what is missing
# first, and ends with the line "N passed, N failed". Used by .ci/run.
#
#   scripts/test.sh [BAZEL TARGET PATTERNS...]    (default: //...)
set -uo pipefail
cd "$(dirname "$0")/.."

if ! scripts/install-deps.sh; then
  echo "install-deps failed"
  echo "0 passed, 1 failed"
  exit 1
fi

targets=("${@:-//...}")
log=$(mktemp /tmp/colltune-bazel-test.XXXXXX)
trap 'rm -f "$log"' EXIT
# --keep_going: one broken target must not hide the results of the others.
bazel test --keep_going --test_summary=short "${targets[@]}" 2>&1 | tee "$log"
python3 scripts/count_tests.py "$(bazel info bazel-testlogs 2>/dev/null)" "$log"
