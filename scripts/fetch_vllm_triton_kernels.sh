#!/usr/bin/env bash
# Copy vLLM 0.24.0's vendored `triton_kernels` package into an ignored folder of this checkout,
# for the matmul_ogs harness (harnesses/vllm_matmul_ogs/). Nothing copied here is ours: the
# destination is listed in .git/info/exclude and must never be committed.
#
# Usage: scripts/fetch_vllm_triton_kernels.sh [DEST] [--from UNPACKED_VLLM_DIR]
#   DEST defaults to .vllm_tk (the package lands in DEST/original/triton_kernels).
#   --from DIR: use an already unpacked vllm wheel (DIR/vllm/third_party/triton_kernels)
#   instead of downloading one through ../shared/corpus/fetch.sh (about 280 MB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=.vllm_tk; src=
while [ $# -gt 0 ]; do
  case $1 in
    --from) src=${2:?--from needs a directory}; shift 2 ;;
    *) dest=$1; shift ;;
  esac
done
cd "$root"
if [ -z "$src" ]; then
  corpus=${TRITONLINT_CORPUS:-$root/../corpus}
  if [ ! -d "$corpus/vllm/vllm/third_party/triton_kernels" ]; then
    "$root/../shared/corpus/fetch.sh" "$corpus" vllm
  fi
  src=$corpus/vllm
fi
pkg=$src/vllm/third_party/triton_kernels
[ -f "$pkg/matmul_ogs.py" ] || { echo "no triton_kernels package under $src" >&2; exit 1; }
# Keep the copy out of git (works in a plain checkout and in a worktree).
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$dest/" "$exclude" 2>/dev/null || echo "/$dest/" >> "$exclude"
rm -rf "${dest:?}/original"
mkdir -p "$dest/original"
cp -r "$pkg" "$dest/original/triton_kernels"
find "$dest/original" -name __pycache__ -prune -exec rm -rf {} +
line=$(sed -n 327p "$dest/original/triton_kernels/matmul_ogs_details/_matmul_ogs.py")
echo "copied $(find "$dest/original" -name '*.py' | wc -l) files to $dest/original/triton_kernels"
echo "line 327: ${line#"${line%%[![:space:]]*}"}"
