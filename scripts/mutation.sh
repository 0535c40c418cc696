#!/usr/bin/env bash
# Mutation testing on demand (never in .ci/run: it takes tens of minutes), with mutmut 3.
#
#   scripts/mutation.sh [GROUP...]      groups: fixer suppressions output verdict engine analysis
#                                       (default: every group but analysis)
#   JOBS=2 (mutants at a time)  PYTHON=python  MUTATION_WORK=/tmp/tritonlint-mutation
#
# Each group mutates its modules in a copy of this checkout (the working tree, uncommitted files
# included; the checkout itself is never touched) and runs, for each mutant, only the tests of the
# group's few test files that execute the mutated function (mutmut's own per-function map). Tests
# that reach the code through a subprocess (`python -m tritonlint ...`) do not see mutants, so a
# group's test files are ones that call the code in-process. Prints per group: mutants, killed,
# survived, no tests, timeout; writes the survivors to $MUTATION_WORK/<group>/survivors.txt
# (`cd $MUTATION_WORK/<group> && mutmut show NAME` prints one's diff). docs/mutation.md keeps the
# figures and the reading of every survivor.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python}
jobs=${JOBS:-2}
work=${MUTATION_WORK:-${TMPDIR:-/tmp}/tritonlint-mutation}
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(fixer suppressions output verdict engine)
"$py" -c 'import mutmut' 2>/dev/null || { echo "mutation.sh: mutmut is not installed: pip install 'mutmut>=3.8,<4'" >&2; exit 2; }

# group -> modules to mutate; tests that cover them in-process; a -k expression (the random fuzz
# examples are left out: minutes per mutant); mutant names to run (glob; * = all)
config() {
  case $1 in
    fixer) src=tritonlint/triton/fixes.py
           tests="tests/test_fixtures.py tests/test_fix_order.py tests/test_fix_equivalence.py tests/test_fuzz.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    suppressions) src=tritonlint/suppressions.py
           tests="tests/test_suppressions.py tests/test_suppression_units.py tests/test_cli.py tests/test_cli_habits.py"; select=; names='*' ;;
    output) src=tritonlint/output
           tests="tests/test_output.py tests/test_cli.py tests/test_cli_habits.py"; select=; names='*' ;;
    verdict) src=tritonlint/verify/runner.py
           tests="tests/test_verify_runner.py"; select=; names='*_judge*' ;;
    engine) src=tritonlint/engine.py
           tests="tests/test_engine.py tests/test_suppressions.py tests/test_fixtures.py tests/test_faults.py tests/test_fuzz.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    analysis) src=tritonlint/triton
           tests="tests/test_fixtures.py tests/test_engine.py tests/test_locations.py tests/test_fuzz.py tests/test_stages.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    *) echo "mutation.sh: unknown group $1" >&2; exit 2 ;;
  esac
}

for group in "${groups[@]}"; do
  config "$group"
  dir=$work/$group
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd "$root" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$dir"
  {
    echo "[mutmut]"
    echo "source_paths = tritonlint"  # the whole package is copied; only the group's modules mutate
    echo "only_mutate ="
    for m in $src; do case $m in *.py) echo "    $m" ;; *) echo "    $m/*" ;; esac; done
    echo "pytest_add_cli_args_test_selection ="
    for t in $tests; do echo "    $t"; done
    echo "pytest_add_cli_args ="
    echo "    -p"
    echo "    no:cacheprovider"
    if [ -n "$select" ]; then echo "    -k"; echo "    $select"; fi
    echo "also_copy ="
    for extra in $(cd "$dir" && ls -A); do  # the rest of the checkout: the tests read README.md, fixtures/...
      case $extra in tritonlint|tests|setup.cfg|mutants) ;; *) echo "    $extra" ;; esac
    done
    echo "debug = false"
  } > "$dir/setup.cfg"
  echo "== $group: mutating $src; tests: $tests"
  start=$SECONDS
  if [ "$names" = '*' ]; then
    (cd "$dir" && nice -n 10 "$py" -m mutmut run --max-children "$jobs" > run.log 2>&1) || { tail -30 "$dir/run.log"; exit 1; }
  else
    (cd "$dir" && nice -n 10 "$py" -m mutmut run --max-children "$jobs" "$names" > run.log 2>&1) || { tail -30 "$dir/run.log"; exit 1; }
  fi
  (cd "$dir" && "$py" -m mutmut results --all true > results.txt)
  if [ "$names" != '*' ]; then  # only the named mutants count (the others were never run)
    pattern=$(printf '%s' "$names" | sed 's/\*/.*/g')
    grep -E "^ +$pattern: " "$dir/results.txt" > "$dir/results.sel" || true
    mv "$dir/results.sel" "$dir/results.txt"
  fi
  grep -E ': survived$' "$dir/results.txt" | sed 's/^ *//; s/: survived$//' > "$dir/survivors.txt" || true
  total=$(grep -c ': ' "$dir/results.txt" || true)
  count() { grep -c ": $1\$" "$dir/results.txt" || true; }
  echo "   $group: mutants $total, killed $(count killed), survived $(count survived), no tests $(count 'no tests'), timeout $(count timeout) ($((SECONDS - start)) s); survivors in $dir/survivors.txt"
done
