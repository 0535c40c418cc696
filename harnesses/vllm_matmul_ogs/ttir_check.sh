#!/bin/bash
# On the GPU: compile and run vLLM's _matmul_ogs from the original and the tritonlint-fixed tree,
# for K=3072 (EVEN_K True) and K=2880 (EVEN_K False), each with its own Triton cache, then compare
# the TTIR of the kernel: the even specialization must be identical, the tail one must mask the
# Hopper scale load. Usage: harnesses/vllm_matmul_ogs/ttir_check.sh OUTDIR
set -u
out=${1:?usage: ttir_check.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
for tree in original fixed; do
  for k in 3072 2880; do
    cache="$out/cache-$tree-$k"; rm -rf "$cache"; mkdir -p "$cache"
    TRITON_CACHE_DIR="$cache" VLLM_TK_ROOT="$here/../../.vllm_tk/$tree" TRITONLINT_K=$k TRITONLINT_NO_REF=1 \
      TRITONLINT_FILL=0x00 timeout 300 python3 "$here/harness.py" cuda > "$out/run-$tree-$k.txt" 2>&1
    echo "$tree K=$k rc=$? $(tail -1 "$out/run-$tree-$k.txt" | cut -c1-200)"
    f=$(ls "$cache"/*/_matmul_ogs.ttir 2>/dev/null | head -1)
    [ -n "$f" ] || { echo "  no _matmul_ogs.ttir"; continue; }
    # Locations differ between trees (the fixed line is longer); compare the IR without them.
    sed -E 's/ loc\(#loc[0-9]*\)//; /^#loc/d' "$f" > "$out/ttir-$tree-$k.mlir"
    echo "  tt.load: $(grep -c 'tt.load' "$out/ttir-$tree-$k.mlir")  masked loads (3+ operands): $(grep -E 'tt.load %[^,]+, %[^,]+' "$out/ttir-$tree-$k.mlir" | grep -vc 'tt.load %[^,]*$')"
  done
done
for k in 3072 2880; do
  if cmp -s "$out/ttir-original-$k.mlir" "$out/ttir-fixed-$k.mlir"; then echo "K=$k: TTIR identical"
  else echo "K=$k: TTIR differs:"; diff "$out/ttir-original-$k.mlir" "$out/ttir-fixed-$k.mlir" | head -20; fi
done
