#!/usr/bin/env bash
# Mutation testing on demand (never in .ci/run: it takes tens of minutes), with mutmut 3.
#
#   scripts/mutation.sh [GROUP...]      groups: fixer suppressions output verdict engine analysis masks
#                                       (default: every group but analysis and masks)
#   JOBS=2 (mutants at a time)  PYTHON=python  MUTATION_WORK=/tmp/tritonlint-mutation
#   SAMPLE=N SEED=16: run only N of the group's mutants, drawn at random with that seed (the
#   figures are then those of the sample); RERUN=1: re-run the mutants of the last run's
#   survivors.txt in the existing $MUTATION_WORK/<group> (after new tests: "after" figures)
#
# Each group mutates its modules in a copy of this checkout (the working tree, uncommitted files
# included; the checkout itself is never touched) and runs, for each mutant, only the tests of the
# group's few test files that execute the mutated function (mutmut's own per-function map). Tests
# that reach the code through a subprocess (`python -m tritonlint ...`) do not see mutants, so a
# group's test files are ones that call the code in-process. Prints per group: mutants, killed,
# survived, no tests, timeout; writes the survivors to $MUTATION_WORK/<group>/survivors.txt
# (`cd $MUTATION_WORK/<group> && mutmut show NAME` prints one's diff). docs/testing/mutation.md keeps the
# figures and the reading of every survivor.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python}
jobs=${JOBS:-2}
sample=${SAMPLE:-}
seed=${SEED:-16}
rerun=${RERUN:-}
work=${MUTATION_WORK:-${TMPDIR:-/tmp}/tritonlint-mutation}
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(fixer suppressions output verdict engine)
"$py" -c 'import mutmut' 2>/dev/null || { echo "mutation.sh: mutmut is not installed: pip install 'mutmut>=3.8,<4'" >&2; exit 2; }

# group -> modules to mutate; tests that cover them in-process; a -k expression (the random fuzz
# examples are left out: minutes per mutant); mutant names to run (glob; * = all)
config() {
  case $1 in
    fixer) src="tritonlint/fixing rules/tail_tile"
           tests="tests/fixing/test_fixer_units.py tests/test_fixtures.py tests/fixing/test_fix_order.py tests/fixing/test_fix_equivalence.py tests/test_fuzz.py tests/fixing/test_layouts.py tests/fixing/test_fix_layout.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    suppressions) src=tritonlint/suppressions.py
           tests="tests/cli/test_suppressions.py tests/cli/test_suppression_units.py tests/cli/test_cli.py tests/cli/test_cli_habits.py"; select=; names='*' ;;
    output) src=tritonlint/output
           tests="tests/cli/test_output.py tests/cli/test_cli.py tests/cli/test_cli_habits.py"; select=; names='*' ;;
    verdict) src=tritonlint/verify/runner.py
           tests="tests/verify/test_verify_runner.py"; select=; names='*_judge*' ;;
    engine) src=tritonlint/engine.py
           tests="tests/test_engine.py tests/cli/test_suppressions.py tests/test_fixtures.py tests/cli/test_faults.py tests/test_fuzz.py tests/semantic/test_launch.py tests/fixing/test_fix_layout.py tests/semantic/test_stages.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    analysis) src="tritonlint/semantic/evaluator.py tritonlint/semantic/walks.py tritonlint/semantic/flags.py tritonlint/semantic/verdicts.py tritonlint/semantic/binder.py tritonlint/semantic/dataflow.py tritonlint/semantic/facts"
           tests="tests/semantic/test_stages.py tests/fixing/test_fixer_units.py tests/fixing/test_fix_order.py tests/test_engine.py tests/test_fixtures.py tests/test_fuzz.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    masks) src="rules/insufficient_mask rules/unsafe_masked_lanes tritonlint/semantic/lanes"
           tests="tests/rules/test_masks_units.py tests/rules/unsafe_masked_lanes/test_unsafe_masked_lanes.py tests/rules/insufficient_mask/test_insufficient_mask.py tests/test_fixtures.py tests/semantic/test_stages.py tests/cli/test_explain.py"
           select="not check_and_fix_properties and not removing_the_fix_mask and not valid_python"; names='*' ;;
    *) echo "mutation.sh: unknown group $1" >&2; exit 2 ;;
  esac
}

# the lines of mutmut's results (`  name: status`) whose name is listed in a file
pick() { awk -F': ' 'NR == FNR { want[$1]; next } { n = $1; sub(/^ +/, "", n) } n in want' "$1" "$2"; }

for group in "${groups[@]}"; do
  config "$group"
  dir=$work/$group
  if [ -n "$rerun" ]; then
    [ -s "$dir/survivors.txt" ] || { echo "mutation.sh: no survivors to re-run in $dir" >&2; continue; }
    # the checkout's tests (new ones included) replace the copy's; the mutants stay as they were
    rm -rf "$dir/tests" "$dir/mutants/tests"
    (cd "$root" && git ls-files -z -co --exclude-standard tests | tar --null -T - -cf -) | tar -xf - -C "$dir"
    rm -f "$dir/mutants/mutmut-stats.json"  # new tests: map tests to functions again
    cp "$dir/survivors.txt" "$dir/survivors.before.txt"
    echo "== $group: re-running $(wc -l < "$dir/survivors.txt") survivors with the checkout's tests"
    start=$SECONDS
    (cd "$dir" && nice -n 10 xargs -a survivors.before.txt "$py" -m mutmut run --max-children "$jobs" > rerun.log 2>&1) || { tail -30 "$dir/rerun.log"; exit 1; }
    (cd "$dir" && "$py" -m mutmut results --all true > results.all)
    pick "$dir/survivors.before.txt" "$dir/results.all" > "$dir/rerun.txt"
    grep -E ': survived$' "$dir/rerun.txt" | sed 's/^ *//; s/: survived$//' > "$dir/survivors.txt" || true
    echo "   $group: of $(wc -l < "$dir/survivors.before.txt") survivors, $(grep -c ': killed$' "$dir/rerun.txt" || true) now killed, $(wc -l < "$dir/survivors.txt") survive ($((SECONDS - start)) s); survivors in $dir/survivors.txt"
    continue
  fi
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
  if [ -n "$sample" ]; then
    # Generate every mutant and map tests to functions (a name that matches nothing stops mutmut
    # there), then draw the sample from the full list.
    (cd "$dir" && nice -n 10 "$py" -m mutmut run --max-children "$jobs" 'no-such-mutant' > generate.log 2>&1) || true
    (cd "$dir" && "$py" -m mutmut results --all true) | sed 's/^ *//; s/: .*//' > "$dir/all.txt"
    [ -s "$dir/all.txt" ] || { tail -30 "$dir/generate.log"; exit 1; }
    grep -E "^(${names//\*/.*}).*" "$dir/all.txt" | "$py" -c 'import random, sys; names = sys.stdin.read().split(); random.Random(int(sys.argv[1])).shuffle(names); print("\n".join(sorted(names[:int(sys.argv[2])])))' "$seed" "$sample" > "$dir/sample.txt"
    echo "   $group: $(wc -l < "$dir/all.txt") mutants generated; running a sample of $(wc -l < "$dir/sample.txt") (seed $seed)"
    (cd "$dir" && nice -n 10 xargs -a sample.txt "$py" -m mutmut run --max-children "$jobs" > run.log 2>&1) || { tail -30 "$dir/run.log"; exit 1; }
    names='*'
  elif [ "$names" = '*' ]; then
    (cd "$dir" && nice -n 10 "$py" -m mutmut run --max-children "$jobs" > run.log 2>&1) || { tail -30 "$dir/run.log"; exit 1; }
  else
    (cd "$dir" && nice -n 10 "$py" -m mutmut run --max-children "$jobs" "$names" > run.log 2>&1) || { tail -30 "$dir/run.log"; exit 1; }
  fi
  (cd "$dir" && "$py" -m mutmut results --all true > results.txt)
  if [ -n "$sample" ]; then  # only the sampled mutants count
    pick "$dir/sample.txt" "$dir/results.txt" > "$dir/results.sel"
    mv "$dir/results.sel" "$dir/results.txt"
  elif [ "$names" != '*' ]; then  # only the named mutants count (the others were never run)
    pattern=$(printf '%s' "$names" | sed 's/\*/.*/g')
    grep -E "^ +$pattern: " "$dir/results.txt" > "$dir/results.sel" || true
    mv "$dir/results.sel" "$dir/results.txt"
  fi
  grep -E ': survived$' "$dir/results.txt" | sed 's/^ *//; s/: survived$//' > "$dir/survivors.txt" || true
  total=$(grep -c ': ' "$dir/results.txt" || true)
  count() { grep -c ": $1\$" "$dir/results.txt" || true; }
  echo "   $group: mutants $total, killed $(count killed), survived $(count survived), no tests $(count 'no tests'), timeout $(count timeout) ($((SECONDS - start)) s); survivors in $dir/survivors.txt"
done
