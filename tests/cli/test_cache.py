"""The results cache, the byte pre-filter and the parallel map: same answers, less work."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from tritonlint import cache as cache_module
from tritonlint import cli
from tritonlint.cache import CACHE_DIR_NAME, Cache, settings_key
from tritonlint.cli import main
from tritonlint.config import Config
from tritonlint.runner import SourceFile, check_file

ROOT = Path(__file__).resolve().parents[2]

BUGGY = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x * 2)
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.json"))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    # These tests are about the default place, inside this temporary tree.
    monkeypatch.delenv("TRITONLINT_CACHE_DIR")
    (tmp_path / "bad.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / "plain.py").write_text("print('no kernels')\n", encoding="utf-8")
    (tmp_path / "broken.py").write_text("import triton\ndef k(:\n  jit\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_warm_run_prints_exactly_what_the_cold_run_printed(tree: Path, capsys: pytest.CaptureFixture[str],
                                                          fmt: str) -> None:
    cold = run(capsys, "check", "--no-cache", "--output-format", fmt, ".")
    first = run(capsys, "check", "--output-format", fmt, ".")
    assert entries(tree / CACHE_DIR_NAME)
    warm = run(capsys, "check", "--output-format", fmt, ".")
    assert cold == first == warm
    # broken.py's syntax error is a TL001 finding, cold and warm alike.
    assert cold[0] == 1 and "bad.py" in cold[1] and "broken.py" in cold[1] and "TL001" in cold[1]


def test_cache_folder_is_beside_the_pyproject_and_ignored_by_git(tree: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    project = tree / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.tritonlint]\n", encoding="utf-8")
    (project / "src" / "k.py").write_text(BUGGY, encoding="utf-8")
    run(capsys, "check", "project/src")
    assert entries(project / CACHE_DIR_NAME)
    assert not (tree / CACHE_DIR_NAME).exists()
    assert (project / CACHE_DIR_NAME / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (project / CACHE_DIR_NAME / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172")


def test_no_cache_writes_nothing_and_cache_dir_is_honoured(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "check", "--no-cache", ".")
    assert not (tree / CACHE_DIR_NAME).exists()
    run(capsys, "check", "--cache-dir", str(tree / "elsewhere"), ".")
    assert not (tree / CACHE_DIR_NAME).exists()
    assert entries(tree / "elsewhere")


def test_only_files_that_can_hold_kernels_get_entries(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "check", ".")
    # bad.py and broken.py (its syntax error is cached too); plain.py is settled by its bytes.
    assert len(entries(tree / CACHE_DIR_NAME)) == 2


def test_a_corrupt_entry_is_ignored_and_rewritten(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = run(capsys, "check", ".")
    for entry in entries(tree / CACHE_DIR_NAME):
        entry.write_bytes(b'{"diagnostics": [["TL101"')  # truncated
    assert run(capsys, "check", ".") == expected
    for entry in entries(tree / CACHE_DIR_NAME):
        json.loads(entry.read_text())  # rewritten whole
        entry.write_text('{"diagnostics": 5, "errors": [], "suppressed": 0, "used": []}')
    assert run(capsys, "check", ".") == expected


def test_the_cache_is_really_used(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "check", ".")
    clean = '{"diagnostics": [], "errors": [], "suppressed": 0, "used": []}'
    for entry in entries(tree / CACHE_DIR_NAME):
        entry.write_text(clean)  # a well-formed entry saying "nothing found"
    assert run(capsys, "check", ".")[0] == 0
    assert run(capsys, "check", "--no-cache", ".")[0] == 1


def test_fix_and_diff_never_use_the_cache(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "check", ".")
    for entry in entries(tree / CACHE_DIR_NAME):
        entry.write_text('{"diagnostics": [], "errors": [], "suppressed": 0, "used": []}')
    code, out, _ = run(capsys, "check", "--diff", "bad.py")
    assert code == 1 and "+    tl.store(Y + offs, x * 2, mask=offs < n)" in out
    assert run(capsys, "check", "--fix", "bad.py")[0] == 0
    assert "mask=offs < n)" in (tree / "bad.py").read_text().splitlines()[-1]


def test_identical_files_share_an_entry_and_keep_their_own_paths(tree: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "copy").mkdir()
    (tree / "copy" / "bad.py").write_text(BUGGY, encoding="utf-8")
    (tree / "copy" / "broken.py").write_text("import triton\ndef k(:\n  jit\n", encoding="utf-8")
    cold = run(capsys, "check", "--no-cache", ".")
    run(capsys, "check", ".")
    assert len(entries(tree / CACHE_DIR_NAME)) == 2
    warm = run(capsys, "check", ".")
    assert warm == cold
    assert "./copy/bad.py:9:5: TL102" in warm[1] and "./bad.py:9:5: TL102" in warm[1]
    assert "./copy/broken.py:2:1: TL001 file not checked: syntax error" in warm[1]


def test_the_key_covers_configuration_and_analysis_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = settings_key(Config())
    assert settings_key(Config()) == base
    assert settings_key(Config(select=frozenset({"TL101"}))) != base
    assert settings_key(Config(ignore=frozenset({"TL102"}))) != base
    assert settings_key(Config(even_flags=frozenset({"WHOLE"}))) != base
    assert settings_key(Config(line_length=88)) != base  # a long fix's layout depends on it
    sources = cache_module.analysis_sources()
    names = {path.relative_to(ROOT).as_posix() for path in sources if ROOT in path.parents}
    assert {"tritonlint/engine.py", "tritonlint/semantic/context.py", "rules/tail_tile/unmasked_tail_load.py"} <= names
    assert not any(name.startswith(("tritonlint/verify/", "tritonlint/output/")) for name in names)
    # Editing the analysis (here: a stand-in source file) changes the key.
    extra = tmp_path / "model.py"
    extra.write_text("A = 1\n")
    monkeypatch.setattr(cache_module, "analysis_sources", lambda: [*sources, extra])
    edited = settings_key(Config())
    extra.write_text("A = 2\n")
    assert settings_key(Config()) != edited


def test_a_changed_file_misses(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "check", "bad.py")[0] == 1
    (tree / "bad.py").write_text(BUGGY.replace("x * 2)", "x * 2, mask=offs < n)"), encoding="utf-8")
    assert run(capsys, "check", "bad.py")[0] == 0


def test_unwritable_cache_is_no_error(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "blocker").write_text("a file where the cache folder should go")
    expected = run(capsys, "check", "--no-cache", ".")
    assert run(capsys, "check", "--cache-dir", "blocker", ".") == expected


def test_crashes_are_not_cached(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tritonlint.report import FileReport

    store = Cache(tree / "c", "k" * 64)
    store.store("0" * 64, FileReport("x.py", crashes=("x.py:1: internal error",)))
    assert not entries(tree / "c")


def test_check_file_with_a_cache_equals_without(tree: Path) -> None:
    store = Cache.for_config(tree / "c", Config())
    file = SourceFile("bad.py", tree / "bad.py")
    plain = check_file(file, Config())
    assert check_file(file, Config(), cache=store) == plain  # miss, stored
    hit = check_file(file, Config(), cache=store)
    assert hit == plain and hit.text == plain.text


def test_a_warm_run_never_imports_libcst(tree: Path) -> None:
    script = ("import sys\nfrom tritonlint.cli import main\ncode = main(['check', '-q', '.'])\n"
              "print(code, 'libcst' in sys.modules)\n")
    # An existing (empty) cache folder: no workers are started early, so this process analyses
    # the files itself, and the probe shows it can see libcst being imported.
    (tree / ".tritonlint_cache").mkdir()
    cold = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, text=True, check=True)
    assert cold.stdout.splitlines()[-1] == "1 True"
    warm = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, text=True, check=True)
    assert warm.stdout.splitlines()[-1] == "1 False"


def test_the_pre_filter_runs_on_bytes(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Not UTF-8, but it cannot hold a kernel: settled unread, like a file with no kernel in it.
    (tree / "latin1.py").write_bytes(b"# caf\xe9\nx = 1\n")
    assert run(capsys, "check", "--no-cache", "latin1.py")[0] == 0
    (tree / "latin1.py").write_bytes(b"import triton\n# caf\xe9 jit\n")
    code, out, err = run(capsys, "check", "--no-cache", "latin1.py")
    assert code == 1 and "TL001 file not checked: not UTF-8" in out


def test_formats_in_step_with_the_output_package() -> None:
    from tritonlint.output import FORMATS

    assert cli.FORMATS == FORMATS


def many_kernels(tree: Path, count: int) -> None:
    for index in range(count):
        (tree / f"k{index:03d}.py").write_text(BUGGY.replace("scale", f"scale{index}"), encoding="utf-8")


def test_parallel_results_come_in_discovery_order(tree: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    many_kernels(tree, 40)
    monkeypatch.setattr(cli, "_workers", lambda count: 1)
    serial = run(capsys, "check", "--no-cache", "--output-format", "json", ".")
    monkeypatch.setattr(cli, "_workers", lambda count: 2)
    parallel = run(capsys, "check", "--no-cache", "--output-format", "json", ".")
    assert parallel == serial
    paths = [d["path"] for d in json.loads(serial[1])]
    assert paths == sorted(paths) and len(paths) == 42  # with broken.py's TL001
    files = list(cli.discover(["."], Config()))
    reports = cli.check_files(files, Config(), None)
    assert [report.path for report in reports] == [file.display for file in files]


@pytest.mark.parametrize("failure", [OSError(38, "Function not implemented"), NotImplementedError("no sem_open"),
                                     BrokenProcessPool("a worker died")])
def test_a_pool_that_cannot_start_falls_back_to_serial(tree: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, failure: Exception) -> None:
    many_kernels(tree, 40)
    expected = run(capsys, "check", "--no-cache", ".")

    class Broken:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise failure

    monkeypatch.setattr(cli, "_workers", lambda count: 2)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Broken)
    code, out, err = run(capsys, "check", "--no-cache", ".")
    assert (code, out) == expected[:2]
    assert "checking in parallel failed" in err and "one by one" in err
