#!/usr/bin/env bash
# The GPU runs behind docs/verification/gpu.md: `tritonlint verify --device cuda` itself (no driver) on
# vLLM's triton_kernels and on the fixtures' harnesses. Run from a checkout's root on the GPU
# machine, with libcst importable and the package fetched (scripts/fetch_vllm_triton_kernels.sh):
#   harnesses/vllm_matmul_ogs/verify_h200.sh OUT vllm|fixtures|gputests...
# Each step writes OUT/<name>.txt (the verdict as printed) and OUT/<name>.err (progress, errors).
set -u
out=${1:?usage: verify_h200.sh OUT STEP...}; shift
tk=${TRITONLINT_VLLM_TK:-.vllm_tk/original/triton_kernels}
export PYTHONUNBUFFERED=1
mkdir -p "$out"

verify() {  # NAME ARGS...: one `tritonlint verify`, its verdict and its exit code
  local name=$1; shift
  local t0=$SECONDS
  python3 -m tritonlint verify "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "== $name rc=$? $((SECONDS - t0))s: $(head -1 "$out/$name.txt" | cut -c1-40)"
}

for step in "$@"; do
  case $step in
    versions)
      { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
        python3 -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__)'
        echo "compute-sanitizer: $(command -v compute-sanitizer || echo absent) $(compute-sanitizer --version 2>/dev/null | tail -1)"
        uname -r; date -u; } 2>&1 | tee "$out/versions.txt" ;;
    gputests)
      timeout 500 python3 -m pytest -q -p no:cacheprovider tests/verify/test_verify_gpu.py ${GPUTESTS_K:+-k "$GPUTESTS_K"} 2>&1 | tee "$out/gputests.txt" | tail -30 ;;
    vllm)
      # --only: the Hopper scale load alone; the fixer's other changes (Blackwell, CDNA4, routing)
      # are on paths this Hopper harness never takes, and would leave the verdict NOT-EXERCISED.
      seed="$tk/matmul_ogs_details/_matmul_ogs.py"
      only="$seed:$(grep -n 'unswizzle_mxfp4_scale_hopper(tl.load(WMxScalePtrs)' "$seed" | cut -d: -f1)"
      verify vllm_k2880 "$tk" --harness harnesses/vllm_matmul_ogs/harness.py --device cuda --sanitizer --keep --jobs 3 --only "$only"
      kept=$(sed -n 's/.*kept temporary trees in //p' "$out/vllm_k2880.err" | tail -1)
      if [ -n "$kept" ]; then
        (cd "$kept" && diff -ru original fixed > fix.diff; tar czf "$out/vllm_k2880_runs.tgz" fix.diff runs/*/log.txt runs/*/report.json)
      fi
      TRITONLINT_K=3072 verify vllm_k3072 "$tk" --harness harnesses/vllm_matmul_ogs/harness.py --device cuda --sanitizer --jobs 3 --only "$only"
      verify vllm_k2880_all "$tk" --harness harnesses/vllm_matmul_ogs/harness.py --device cuda --jobs 3 ;;
    interleaved)
      verify interleaved fixtures/unmasked-tail-load/mxfp4_hopper_scale_interleaved.py --device cuda --sanitizer \
        --harness fixtures/unmasked-tail-load/mxfp4_hopper_scale_interleaved_harness.py ;;
    fixtures)
      # Six verifications at a time, two runs each at a time (16 cores, one GPU).
      ls fixtures/*/*_harness.py | xargs -P 6 -I{} sh -c 'h={}; c=${h%_harness.py}; n=$(basename "$c");
        python3 -m tritonlint verify "$c.py" --harness "$h" --device cuda --sanitizer --jobs 2 > "$0/fx_$n.txt" 2> "$0/fx_$n.err";
        echo "== $n rc=$? $(head -1 "$0/fx_$n.txt" | cut -c1-40)"' "$out"
      tar czf "$out/fixtures.tgz" -C "$out" $(cd "$out" && ls fx_*.txt fx_*.err) && rm -f "$out"/fx_* ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
