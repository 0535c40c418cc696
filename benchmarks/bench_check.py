"""Time `tritonlint check` (cold and warm) beside ruff and a bare libcst parse, on the same files."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tritonlint.source.outline import NESTED_PREFIX, outline

FETCH = REPO.parent / "shared" / "corpus" / "fetch.sh"
PACKAGES = ("vllm", "sglang", "liger-kernel", "fla-core", "flag-gems", "unsloth")
# Pages are counted in /proc/PID/statm; ru_maxrss is in KiB on Linux.
PAGE = os.sysconf("SC_PAGE_SIZE")

# The parse baseline runs in a child like the other tools, so interpreter start-up and the libcst
# import are in its time and its memory is measured the same way.
PARSE_SCRIPT = """
import sys, libcst
failed = 0
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    try:
        libcst.parse_module(open(path, "rb").read())
    except Exception:
        failed += 1
print(failed)
"""

# The floor of any libcst check: only the jit functions' own texts parsed (what `check` parses), on as
# many processes as there are cores (as `check` does), their texts gathered before the clock starts.
PARSE_JIT_SCRIPT = """
import json, os, sys, libcst
texts = json.load(open(sys.argv[1], encoding="utf-8"))
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
children = []
for share in range(1, cores):
    pid = os.fork()
    if pid == 0:
        for text in texts[share::cores]:
            libcst.parse_module(text)
        os._exit(0)
    children.append(pid)
for text in texts[0::cores]:
    libcst.parse_module(text)
for pid in children:
    os.waitpid(pid, 0)
"""

# Imports every module a check runs (the rules too), untimed: their bytecode is then cached.
PRIME_SCRIPT = "import tritonlint.cli, tritonlint.engine, tritonlint.output, tritonlint.rule as r; r.all_rules()"


@dataclass
class Tool:
    """One column of the table: a command, and whether a second untimed run must prime a cache."""

    label: str
    argv: list[str]
    primed: bool = False
    runs: int | None = None  # fewer runs than the rest, for the slowest column
    probe: list[str] | None = None  # must exit 0 first: `python -m` of a missing module exits 1
    pythonpath: Path = REPO  # the checkout whose tritonlint `python -m tritonlint` runs
    times: list[float] = field(default_factory=list)
    max_rss: int = 0  # bytes, largest single process (wait4)
    tree_rss: int = 0  # bytes, largest sum over the process tree (sampled)
    error: str = ""


@dataclass
class Target:
    label: str
    paths: list[Path]  # what the tools are given: directories, as a user would pass them
    files: list[Path]  # every .py file under them
    kernel_files: list[Path]  # those holding both "triton" and "jit"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    corpus = args.corpus.resolve()
    ensure_corpus(corpus)
    targets = [
        target("vLLM 0.24.0 tree", [corpus / "vllm"]),
        target("whole corpus", [corpus / name for name in PACKAGES]),
    ]
    if args.only:
        targets = [t for t in targets if args.only in t.label]
    ruff = args.ruff or find_ruff()
    print(environment(ruff))
    report = {}
    # A scratch working directory: whatever cache tritonlint writes lands there, not in the repo,
    # and each benchmark invocation starts with no cache from an earlier one.
    with tempfile.TemporaryDirectory(prefix="tritonlint-bench-") as scratch:
        for t in targets:
            tools = columns(t, ruff, Path(scratch), args.skip, args.slow_runs, args.baseline)
            measure(tools, args.runs, Path(scratch))
            print(table(t, tools, args.runs))
            report[t.label] = {
                "files": len(t.files),
                "kernel_files": len(t.kernel_files),
                "tools": {
                    tool.label: {
                        "median_s": statistics.median(tool.times) if tool.times else None,
                        "times_s": tool.times,
                        "max_rss_mb": tool.max_rss / 2**20,
                        "tree_rss_mb": tool.tree_rss / 2**20,
                        "error": tool.error,
                    }
                    for tool in tools
                },
            }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--corpus",
        type=Path,
        default=REPO.parent / "corpus",
        help="corpus folder, fetched with ../shared/corpus/fetch.sh if missing (default: %(default)s)",
    )
    parser.add_argument("--runs", type=int, default=5, help="timed runs per tool (default: 5)")
    parser.add_argument(
        "--slow-runs",
        type=int,
        default=1,
        help="timed runs of the libcst parse of every file, minutes each on the corpus (default: 1)",
    )
    parser.add_argument("--ruff", help="ruff executable (default: the venv's, else PATH)")
    parser.add_argument("--only", choices=("vLLM", "corpus"), help="benchmark one target only")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=("tritonlint", "ruff", "libcst-all", "libcst-kernels", "libcst-jit"),
        help="leave a column out (repeatable); libcst-all takes minutes per run on the corpus",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (an exported commit, a worktree): its cold and warm checks are timed in the same rounds",
    )
    return parser.parse_args(argv)


def ensure_corpus(corpus: Path) -> None:
    missing = [name for name in PACKAGES if not (corpus / name).is_dir()]
    if missing:
        print(f"fetching {', '.join(missing)} into {corpus} ...", file=sys.stderr)
        subprocess.run(["bash", str(FETCH), str(corpus), *missing], check=True)


def target(label: str, paths: list[Path]) -> Target:
    files = sorted(f for p in paths for f in p.rglob("*.py") if f.is_file())
    # Reading every file here also warms the page cache, so the first timed run is not the only
    # one paying for the disk.
    kernels = [f for f in files if b"triton" in (data := f.read_bytes()) and b"jit" in data]
    return Target(label, paths, files, kernels)


def find_ruff() -> str:
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.exists() else shutil.which("ruff")
    if not found:
        sys.exit("ruff not found: pip install ruff, or pass --ruff")
    return found


def environment(ruff: str) -> str:
    ruff_version = subprocess.run(
        [ruff, "--version"], check=False, capture_output=True, text=True
    ).stdout
    libcst = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(m.version('libcst'))"],
        check=False,
        capture_output=True,
        text=True,
    ).stdout
    return (
        f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{ruff_version.strip()}, libcst {libcst.strip()}"
    )


def columns(t: Target, ruff: str, scratch: Path, skip: list[str], slow_runs: int,
            baseline: Path | None = None) -> list[Tool]:
    paths = [str(p) for p in t.paths]
    check = [sys.executable, "-m", "tritonlint", "check", *paths]
    probe = [sys.executable, "-m", "tritonlint", "check", "--help"]
    # The default cache folder is beside the nearest pyproject.toml, which would be inside the
    # corpus: keep it in the scratch folder instead, one per target.
    cache = scratch / f"cache-{t.label.replace(' ', '-')}"
    tools = []
    if "tritonlint" not in skip:
        tools += [
            Tool("tritonlint check --no-cache", [*check, "--no-cache"], probe=probe),
            Tool("tritonlint check (warm cache)", [*check, "--cache-dir", str(cache)], primed=True, probe=probe),
        ]
        if baseline is not None:
            warm = scratch / f"cache-baseline-{t.label.replace(' ', '-')}"
            tools[:0] = [Tool("baseline check --no-cache", [*check, "--no-cache"], probe=probe,
                              pythonpath=baseline.resolve()),
                         Tool("baseline check (warm cache)", [*check, "--cache-dir", str(warm)], primed=True,
                              probe=probe, pythonpath=baseline.resolve())]
    if "ruff" not in skip:
        # --isolated: no pyproject.toml of this repo or the scratch folder changes what ruff does.
        tools.append(
            Tool(
                "ruff check --select F --no-cache",
                [ruff, "check", "--select", "F", "--no-cache", "--isolated", *paths],
            )
        )
    for name, files in (("all", t.files), ("kernels", t.kernel_files)):
        if f"libcst-{name}" in skip:
            continue
        listing = scratch / f"{t.label.replace(' ', '-')}-{name}.txt"
        listing.write_text("".join(f"{f}\n" for f in files), encoding="utf-8")
        label = f"libcst parse, {len(files)} {'files' if name == 'all' else 'triton+jit files'}"
        argv = [sys.executable, "-c", PARSE_SCRIPT, str(listing)]
        tools.append(Tool(label, argv, runs=slow_runs if name == "all" else None))
    if "libcst-jit" not in skip:
        texts = scratch / f"{t.label.replace(' ', '-')}-jit.json"
        kernels = jit_texts(t.kernel_files)
        texts.write_text(json.dumps(kernels), encoding="utf-8")
        tools.append(Tool(f"libcst parse, {len(kernels)} jit functions only", [sys.executable, "-c", PARSE_JIT_SCRIPT,
                                                                           str(texts)]))
    return tools


def jit_texts(files: Sequence[Path]) -> list[str]:
    """Each jit function's text as `check` hands it to libcst (an indented one under a prefix)."""
    texts = []
    for path in files:
        try:
            found = outline(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, RecursionError):
            continue
        texts += [NESTED_PREFIX + kernel.text if kernel.indented else kernel.text for kernel in found.kernels]
    return texts


def measure(tools: list[Tool], runs: int, cwd: Path) -> None:
    """Round-robin over the tools, so drift in machine load touches every column alike."""
    def env(tool: Tool) -> dict[str, str]:
        paths = [str(tool.pythonpath), os.environ.get("PYTHONPATH")]
        # Bytecode cached as an installed package has it, in the scratch folder (not beside the
        # sources, which may be another checkout's): where PYTHONDONTWRITEBYTECODE is set, every run
        # would compile tritonlint anew.
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        return {**inherited, "PYTHONPATH": os.pathsep.join(filter(None, paths)),
                "PYTHONPYCACHEPREFIX": str(cwd / "pycache")}

    # The parse baselines import libcst alone: its bytecode goes in the scratch cache first too.
    subprocess.run([sys.executable, "-c", "import libcst"], check=False, cwd=cwd, env=env(Tool("", [])),
                   capture_output=True)
    for tool in tools:
        if tool.probe:
            done = subprocess.run(
                tool.probe, check=False, cwd=cwd, env=env(tool), capture_output=True, text=True
            )
            if done.returncode != 0:
                tool.error = f"CLI not runnable: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
            else:  # compile what a check imports, so the first timed run does not
                subprocess.run([sys.executable, "-c", PRIME_SCRIPT], check=False, cwd=cwd, env=env(tool),
                               capture_output=True)
        if tool.primed and not tool.error:
            run_once(tool, cwd, env(tool), timed=False)
    for round_ in range(runs):
        for tool in tools:
            if tool.runs is not None and round_ >= tool.runs:
                continue
            # A tool that cannot run (tritonlint before its CLI exists) is reported, not fatal.
            if not tool.error:
                run_once(tool, cwd, env(tool), timed=True)


def run_once(tool: Tool, cwd: Path, env: dict[str, str], *, timed: bool) -> bool:
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(
            tool.argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
        sampler = TreeSampler(child.pid)
        sampler.start()
        # wait4 gives this child's own rusage (and its reaped workers'), where RUSAGE_CHILDREN
        # would be the maximum over every child this script has ever waited for.
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        sampler.stop()
        # 0: nothing found, 1: findings. Anything else is a usage or internal error.
        if child.returncode not in (0, 1):
            stderr.seek(0)
            tail = stderr.read().decode(errors="replace").strip().splitlines()[-3:]
            tool.error = f"exit {child.returncode}: {' | '.join(tail)}"
            return False
    if timed:
        tool.times.append(elapsed)
        tool.max_rss = max(tool.max_rss, usage.ru_maxrss * 1024)
        tool.tree_rss = max(tool.tree_rss, sampler.peak)
    return True


class TreeSampler(threading.Thread):
    """Polls the summed RSS of a process and its descendants, for tools that fork workers."""

    def __init__(self, root: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.root, self.interval, self.peak = root, interval, 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.interval):
            self.peak = max(self.peak, tree_rss(self.root))

    def stop(self) -> None:
        self._done.set()
        self.join()


def tree_rss(root: int) -> int:
    # /proc/PID/task/*/children is not available on every kernel; parent links in /proc/*/stat
    # are. Only PIDs above the root's are read: descendants get later PIDs (short of a PID
    # wrap-around), and reading every process's stat would cost the tools being timed real CPU.
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) > root:
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier.extend(children)
    total = 0
    for pid in tree:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError):
            continue  # exited between the listing and the read
    return total


def table(t: Target, tools: list[Tool], runs: int) -> str:
    ruff = next((tool for tool in tools if tool.label.startswith("ruff") and tool.times), None)
    ruff_median = statistics.median(ruff.times) if ruff else None
    header = (
        f"\n{t.label}: {len(t.files)} .py files, {len(t.kernel_files)} with triton and jit "
        f"(median of {runs} runs unless n says otherwise)\n"
        f"{'':<36}{'n':>3}{'median s':>10}{'x ruff':>9}{'min s':>9}{'max s':>9}{'peak RSS MB':>13}{'tree MB':>10}"
    )
    lines = [header]
    for tool in tools:
        if not tool.times:
            lines.append(f"{tool.label:<36}  not run: {tool.error or 'skipped'}")
            continue
        median = statistics.median(tool.times)
        ratio = f"{median / ruff_median:.1f}" if ruff_median else "-"
        lines.append(
            f"{tool.label:<36}{len(tool.times):>3}{median:>10.2f}{ratio:>9}{min(tool.times):>9.2f}{max(tool.times):>9.2f}"
            f"{tool.max_rss / 2**20:>13.0f}{tool.tree_rss / 2**20:>10.0f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
