"""What a user sees of the results cache: cold and warm output, the folder's contents, which settings share entries.

    python scripts/cache_probe.py FILE...

Runs `python -m tritonlint check` on FILEs: cold then warm in a fresh --cache-dir (both outputs),
lists that folder (entries counted, other files shown), runs again with `--select TL101` (how many
settings folders now), and once with only TRITONLINT_CACHE_DIR set (whether that folder got the
entries). Used as a probe by scripts/mutations.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path


def check(*argv: str, env: dict[str, str] | None = None, cwd: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "tritonlint", "check", "--exit-zero", *argv], capture_output=True,
                          text=True, env=env, cwd=cwd, check=False)
    return f"exit {done.returncode}\n{done.stdout}{done.stderr}"


def main(files: list[str]) -> int:
    files = [str(Path(f).resolve()) for f in files]
    base = {k: v for k, v in os.environ.items() if k != "TRITONLINT_CACHE_DIR"}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "cache"
        for run in ("cold", "warm"):
            print(f"-- {run}\n" + check("--cache-dir", str(folder), *files, env=base))
        print("-- entries:", len(list(folder.rglob("*.json"))))
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix != ".json":
                print(f"-- {path.name}:\n{path.read_text()}")
        print("-- warm, --select TL101\n" + check("--select", "TL101", "--cache-dir", str(folder), *files, env=base))
        print("-- settings folders:", sum(1 for p in folder.iterdir() if p.is_dir()))
        from_env = Path(scratch) / "from-env"
        check(*files, env={**base, "TRITONLINT_CACHE_DIR": str(from_env)}, cwd=scratch)
        print("-- TRITONLINT_CACHE_DIR used:", any(from_env.rglob("*.json")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
