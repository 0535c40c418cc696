"""Behaviour-level mutation campaign: hand-made edits that change what a user sees, each run against its tests.

    python scripts/mutations.py                 # every mutation; prints the table, exit 1 on a survivor
    python scripts/mutations.py M01 M07         # only these
    python scripts/mutations.py --list          # the mutations, without running them
    python scripts/mutations.py --probe-only    # only confirm each mutation changes its probe's output

Each mutation names a feature the README promises, a snippet of the package's source (found by
searching `tritonlint/` and `rules/` for it, not by path, so files can move; it must occur exactly
once), its replacement, a probe (a `tritonlint` command line whose output the mutation must change:
otherwise the mutation is not one a user could see, and is reported as such) and the test files to
run against it. Mutations are applied one at a time to a fresh copy of this checkout's tracked files
(the working tree's contents, uncommitted edits included), run with PYTHONPATH pointing at the
copy; the checkout is never touched. docs/testing/mutations.md keeps the table and the reading of
every survivor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("tritonlint", "rules")
B = "tests/data/behaviours"
FX = "fixtures"


@dataclass(frozen=True)
class Mutation:
    key: str
    feature: str
    find: str
    replace: str
    probe: tuple[str, ...]  # tritonlint arguments, or a script of scripts/ and its arguments, run in the copy
    tests: tuple[str, ...]  # pytest node ids or files, relative to the root
    stdin: str = ""  # a file of the copy fed to the probe's standard input


def m(key: str, feature: str, find: str, replace: str, probe: str | tuple[str, ...], *tests: str,
      stdin: str = "") -> Mutation:
    return Mutation(key, feature, find, replace, tuple(probe.split()) if isinstance(probe, str) else probe, tests, stdin)


BEHAVIOURS = "tests/cli/test_behaviours.py"
SERVER = "tests/server/test_server_protocol.py"


def b(name: str) -> str:
    """One test of tests/cli/test_behaviours.py (all its parameters)."""
    return f"{BEHAVIOURS}::{name}"


PADDED = b("test_an_output_allocated_in_whole_tiles_keeps_the_store_quiet")
CEIL = b("test_a_math_ceil_grid_is_read_as_rounded_up")
VERIFY = (b("test_verify_one_verified_and_one_failed_fix_is_failed"),
          b("test_verify_one_verified_and_one_unreached_fix_is_verified_unless_strict"))
CHECK = "check --no-cache --exit-zero"
# What an editor sees: diagnostics on open, the quick fixes, and the re-check after a configuration
# edit and a save; on a line whose string holds a character outside the BMP.
CACHE = ("scripts/cache_probe.py", f"{B}/syntax_error.ipynb", f"{B}/autotune_default.py")
LSP = ("scripts/lsp_probe.py", f"{B}/server/non_bmp.py", '[tool.tritonlint]\nignore = ["TL101"]\n')

MUTATIONS: list[Mutation] = [
    # launches: grids and allocations as evidence
    m("L01", "launch: `torch.empty(BLOCK * blocks)` is whole-tile padding", '| {f"{b}*{c}" for c in counts for b in blocks}', "",
      f"{CHECK} {B}/launch_padded_block_first.py", PADDED),
    m("L02", "launch: `torch.empty(blocks * BLOCK)` is whole-tile padding", '{f"{c}*{b}" for c in counts for b in blocks} | ', "",
      f"{CHECK} {B}/launch_padded_blocks_first.py", PADDED),
    m("L03", "launch: a `math.ceil(n / BLOCK)` grid rounds up", 'ast_dotted(node.func) == "math.ceil"', 'ast_dotted(node.func) == "math.floor"',
      f"{CHECK} {B}/launch_math_ceil.py", CEIL),
    m("L04", "launch: a `triton.cdiv` grid rounds up", 'if dotted == "cdiv" or dotted.endswith(".cdiv"):', "if False:",
      f"{CHECK} {FX}/unmasked-tail-load", PADDED, CEIL, "tests/semantic/test_launch.py"),
    # TL103
    m("P01", "TL103: an autotuned kernel's literal default is not its tile", "defaults = {} if autotuned else _defaults(model)",
      "defaults = _defaults(model)", f"{CHECK} {B}/autotune_default.py", b("test_an_autotuned_kernel_literal_default_is_not_its_tile")),
    m("P02", "TL103: its fix tests the tile the kernel walks", 'return f"{self.walked} % {_grouped(self.tile)} == 0"',
      'return f"{self.walked} % {self.tile} == 0"', f"{CHECK} --output-format json {FX}/weak-evenness-predicate",
      BEHAVIOURS, "tests/rules/weak_evenness_predicate/test_predicates.py", "tests/test_fixtures.py"),
    # flags
    m("F01", "flags: a heuristics `K % BLOCK_K != 0` is no evenness promise", "even = isinstance(operator, cst.Equal)",
      "even = True", f"{CHECK} {B}/heuristics_not_equal.py", b("test_a_heuristics_lambda_testing_not_equal_is_no_evenness_promise")),
    m("F02", "flags: heuristics `K % BLOCK_K == 0` promises full tiles", "flags.append(Flag(str(element.key.evaluated_value), even, frozenset(dims), \"heuristics\"))",
      "pass", f"{CHECK} {B}/heuristics_not_equal.py", b("test_a_heuristics_lambda_testing_not_equal_is_no_evenness_promise")),
    m("F03", "flags: recognised by name as a last hint", 'EVEN_NAME = re.compile(r"^(IS_)?(EVEN|', 'EVEN_NAME = re.compile(r"^(IS_)?(EVEN_NEVER|',
      f"{CHECK} {FX}", "tests/test_fixtures.py"),
    # TL105
    m("N01", "TL105: lanes are read through `exp2`", '"exp2": lambda v: 0.0 if v == -math.inf else 2.0 ** v, ', "",
      f"{CHECK} {B}/log2_softmax.py", b("test_lanes_are_followed_through_exp2")),
    m("N02", "TL105: a max needs -inf in the switched-off lanes", '"max": -math.inf, ', '"max": 0.0, ',
      f"{CHECK} {FX}/unsafe-masked-lanes", BEHAVIOURS, "tests/rules/unsafe_masked_lanes/test_unsafe_masked_lanes.py"),
    m("N03", "TL105: the fix writes the identity", 'IDENTITY_TEXT = {0.0: "0.0", -math.inf: \'float("-inf")\'',
      'IDENTITY_TEXT = {0.0: "0.0", -math.inf: \'float("inf")\'', f"{CHECK} {B}/log2_softmax.py", b("test_lanes_are_followed_through_exp2")),
    # TL104
    m("S01", "TL104: held back where the same call has a TL101", "if found is not None and self.kernel.hazards.hazard_of(access) is None:",
      "if found is not None:", f"{CHECK} {B}/tl104_with_tl101.py", b("test_tl104_is_held_back_where_the_call_has_a_tl101_and_the_fix_is_one_mask")),
    # fixes
    m("X01", "fix: a mask taken from `offs <= last` keeps `<=`", 'operator = "<" if isinstance(target.operator, cst.LessThan) else "<="',
      'operator = "<"', f"{CHECK} {B}/fix_less_equal_comparison.py", b("test_a_fix_derived_from_a_less_or_equal_comparison_keeps_it"), b("test_a_fix_taken_from_a_less_or_equal_mask_keeps_it")),
    m("X02", "fix: a launch-grid mask", 'return f"{atom_of(mine[0])}{mine[1]} < {hazard.bound}", Applicability.UNSAFE',
      'return f"{atom_of(mine[0])}{mine[1]} <= {hazard.bound}", Applicability.UNSAFE', f"{CHECK} {B}/launch_math_ceil.py", CEIL, "tests/semantic/test_launch.py"),
    m("X03", "fix: a loop-bound mask `offs < K - k`", 'text = f"{atom_of(mine[0])}{mine[1]} < {atom_of(stop_text)} - {_subtrahend(shifted) if shifted else variable}"',
      'text = f"{atom_of(mine[0])}{mine[1]} < {atom_of(stop_text)}"', f"{CHECK} {B}/readme_dot.py", "tests/cli/test_cli.py", b("test_tl104_is_held_back_where_the_call_has_a_tl101_and_the_fix_is_one_mask")),
    # suppressions
    m("U01", "suppressions: `# tritonlint: noqa` on a line of its own only", "if match is None or token.line[:token.start[1]].strip():",
      "if match is None:", f"{CHECK} {B}/trailing_noqa.py", b("test_a_trailing_file_noqa_after_code_does_not_silence_the_file")),
    m("U02", "suppressions: `# noqa: TL101` on the flagged line", "for match in _NOQA.finditer(text):", "for match in []:",
      f"{CHECK} {B}/suppressed.py", b("test_line_suppressions_in_both_spellings_hide_their_findings"),
      "tests/cli/test_suppression_units.py"),
    m("U03", "suppressions: `# tritonlint: ignore[...]`", "for match in _TRITONLINT.finditer(text):", "for match in []:",
      f"{CHECK} {B}/suppressed.py", b("test_line_suppressions_in_both_spellings_hide_their_findings"),
      "tests/cli/test_suppression_units.py"),
    # notebooks
    m("B01", "notebooks: help suffix lines (`tl.load?`) are masked", ' or _HELP_SUFFIX.fullmatch(line) else line', " else line",
      f"{CHECK} {B}/help_line.ipynb", b("test_ipython_help_lines_are_masked_in_notebooks"), b("test_every_help_spelling_is_masked")),
    m("B02", "notebooks: `%` and `!` lines are masked", 'line.lstrip()[:1] in ("%", "!", "?")', 'line.lstrip()[:1] in ("?",)',
      f"{CHECK} {B}/magics.ipynb", b("test_magic_and_shell_lines_are_masked_in_notebooks"), "tests/cli/test_notebooks.py"),
    m("B03", "notebooks: a TL001 is placed in its cell", "return FileReport(path, errors=(f\"{path}:{error.lineno or 0}: syntax error: {error.msg}\",), unchecked=True,\n                          text=text)",
      "return FileReport(path, errors=(f\"{path}:{error.lineno or 0}: syntax error: {error.msg}\",), unchecked=True)",
      f"{CHECK} {B}/syntax_error.ipynb", b("test_a_notebook_that_does_not_parse_is_reported_in_its_cell")),
    m("B04", "notebooks: findings placed by cell, counting markdown cells", "return self.cells[index], line - self.markers[index]",
      "return self.cells[index], line - self.markers[index] + 1", f"{CHECK} {B}/help_line.ipynb", b("test_ipython_help_lines_are_masked_in_notebooks"), "tests/cli/test_notebooks.py"),
    m("B05", "notebooks: the text output spells `path:cell N:line:col`", 'cell = f"{colon}cell {d.cell}" if d.cell is not None else ""',
      'cell = ""', f"{CHECK} {B}/help_line.ipynb", "tests/cli/test_notebooks.py", b("test_a_notebook_that_does_not_parse_is_reported_in_its_cell")),
    m("B06", "notebooks: JSON adds a `cell` key", 'found["cell"] = diagnostic.cell', "pass",
      f"{CHECK} --output-format json {B}/help_line.ipynb", "tests/cli/test_notebooks.py", b("test_ipython_help_lines_are_masked_in_notebooks")),
    m("B07", "notebooks: GitHub puts the cell in the title", '+ (f" (cell {d.cell})" if d.cell is not None else "")', "",
      f"{CHECK} --output-format github {B}/help_line.ipynb", "tests/cli/test_notebooks.py", "tests/cli/test_output.py"),
    # output formats
    m("O01", "json: `end_column`", '"end_column": diagnostic.end_column,', '"end_column": diagnostic.column,',
      f"{CHECK} --output-format json {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_output.py"),
    m("O02", "json: `notes`", '"notes": list(diagnostic.notes),', '"notes": [],',
      f"{CHECK} --output-format json {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_output.py"),
    m("O03", "json: fix edits' `end_location`", '"end_location": {"row": end_row, "column": end_column},',
      '"end_location": {"row": row, "column": column},', f"{CHECK} --output-format json {FX}/weak-evenness-predicate",
      b("test_json_fix_edits_spell_the_fix_that_check_fix_writes"), "tests/cli/test_output.py"),
    m("O04", "json: fix `applicability`", '"applicability": fix.applicability.value, "edits": edits}',
      '"applicability": "safe", "edits": edits}', f"{CHECK} --output-format json {FX}/unmasked-tail-load/gemm_even_k_twin.py",
      "tests/cli/test_output.py"),
    m("O05", "github: `col=`", '"col": str(d.column),', '"col": str(d.line),',
      f"{CHECK} --output-format github {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_output.py"),
    m("O06", "github: newlines escaped in the message", '.replace("\\r", "%0D").replace("\\n", "%0A")', '.replace("\\r", "%0D")',
      f"{CHECK} --output-format github {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_output.py"),
    m("O07", "github: the title names the rule", '"title": f"{d.code} {d.name}"', '"title": f"{d.code}"',
      f"{CHECK} --output-format github {B}/help_line.ipynb", "tests/cli/test_output.py", "tests/cli/test_notebooks.py"),
    m("O08", "sarif: region columns", '"startColumn": start[1],', '"startColumn": start[0],',
      f"{CHECK} --output-format sarif {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_output.py"),
    m("O09", "sarif: version 2.1.0", '"version": "2.1.0",', '"version": "2.0.0",',
      f"{CHECK} --output-format sarif {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_output.py"),
    m("O10", "text: `help:` line names the applicability", 'lines.append(f"    {label}: {d.fix.title} ({d.fix.applicability.value} fix)")',
      'lines.append(f"    {label}: {d.fix.title}")', f"{CHECK} {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_cli.py", "tests/cli/test_output.py"),
    m("O11", "text: the summary counts unsafe fixes", 'fixable.append(f"{unsafe} {\'more \' if safe else \'\'}with --unsafe-fixes")', "pass",
      f"{CHECK} {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_cli.py", "tests/cli/test_output.py"),
    m("O12", "text: `All checks passed!`", 'return "All checks passed!"', 'return "All checks passed."',
      f"check --no-cache {FX}/unmasked-tail-load/full_tiles_only.py", "tests/cli/test_cli.py"),
    m("O13", "text: notes under the finding", 'lines.extend(f"    {_style(\'note\', _CYAN_BOLD, color)}: {note}" for note in d.notes)', "pass",
      f"{CHECK} {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_cli.py", "tests/cli/test_output.py"),
    m("O14", "text: concise is one line per finding", 'if style == "concise":\n            continue', 'if style == "concise":\n            pass',
      f"{CHECK} --output-format concise {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_cli_habits.py"),
    # CLI habits and exit codes
    m("C01", "exit: `--exit-zero`", "    if args.exit_zero:\n        return EXIT_CLEAN\n", "",
      f"check --no-cache --exit-zero {FX}/unmasked-tail-load/gemm_even_k_twin.py", "tests/cli/test_cli.py", "tests/cli/test_cli_habits.py"),
    m("C02", "exit: `--exit-non-zero-on-fix`", "if diagnostics or (args.exit_non_zero_on_fix and fixed):", "if diagnostics:",
      "check --no-cache --exit-non-zero-on-fix --fix - --stdin-filename k.py", "tests/cli/test_cli_habits.py", "tests/cli/test_cli.py",
      stdin=f"{B}/fix_less_equal.py"),
    m("C03", "exit: an unknown rule code is a usage error (exit 2)", "elif not any(known.startswith(code) for known in KNOWN_CODES):",
      "elif False:", f"check --no-cache --select TL999 {B}/readme_dot.py", b("test_an_unknown_rule_code_is_a_usage_error"),
      "tests/cli/test_cli.py"),
    m("C04", "text: the `--fix` summary", '(f"Found {total} error{\'s\' if total != 1 else \'\'} ({fixed_count} fixed, "',
      '(f"Found {total} errors ({fixed_count} fixed, "', "check --no-cache --fix - --stdin-filename k.py",
      "tests/cli/test_cli.py", "tests/cli/test_cli_habits.py", stdin=f"{B}/fix_less_equal.py"),
    m("C05", "discovery: `node_modules` skipped", '"node_modules"', '"node_modules_"', f"{CHECK} {B}/discovery", "tests/cli/test_cli.py", "tests/semantic/test_paths.py"),
    m("C06", "`--statistics` counts per rule", "if args.statistics:", "if False:",
      f"{CHECK} --statistics {FX}", "tests/cli/test_cli.py", "tests/cli/test_cli_habits.py"),
    # the cache
    m("K01", "cache: `TRITONLINT_CACHE_DIR`", "    if os.environ.get(CACHE_DIR_ENV):\n        return Path(os.environ[CACHE_DIR_ENV])\n", "",
      CACHE, b("test_the_cache_folder_can_be_set_from_the_environment"), "tests/cli/test_cache.py"),
    m("K02", "cache: the folder carries a .gitignore", '((".gitignore", "# Automatically created by tritonlint.\\n*\\n"),',
      '((".gitignore", "# Automatically created by tritonlint.\\n"),', CACHE,
      "tests/cli/test_cache.py"),
    m("K03", "cache: a warm notebook TL001 keeps its cell", " or (report.unchecked and is_notebook(file.path.name))", "",
      CACHE, b("test_a_notebook_that_does_not_parse_is_reported_in_its_cell")),
    m("K04", "cache: the key holds the configuration", 'digest.update(json.dumps(settings, sort_keys=True).encode())', "pass",
      CACHE, "tests/cli/test_cache.py"),
    # the server
    m("V01", "server: a save re-checks the same version", "if result.version != document.version or result.version < document.published:",
      "if result.version != document.version or result.version <= document.published:", LSP, SERVER),
    m("V02", "server: a save schedules a check", "    if document is not None:\n        ls.schedule(document, 0)\n\n\n@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)",
      "    pass\n\n\n@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)", LSP, SERVER),
    m("V03", "server: positions in the client's units (UTF-16)", "return types.Position(line, units(text[begin:begin + max(column, 0)]))",
      "return types.Position(line, max(column, 0))", LSP, SERVER),
    m("V04", "server: a safe fix is the preferred quick fix", "is_preferred=safe,", "is_preferred=False,",
      LSP, SERVER, "tests/server/test_server.py"),
    m("V05", "server: the suppression action's reason", 'SUPPRESSION_REASON = "TODO: why this access is safe"', 'SUPPRESSION_REASON = "TODO"',
      LSP, "tests/server/test_server.py"),
    # verify's verdicts
    m("W01", "verify: one failed fix makes the run FAILED", 'if problems or any(f.verdict == Verdict.FAILED for f in fixes):',
      'if all(f.verdict == Verdict.FAILED for f in fixes):', f"verify {B}/verify_two_fixes.py --harness {B}/verify_two_fixes_harness.py --no-compile", *VERIFY),
    m("W02", "verify: VERIFIED needs every fix verified", 'if not problems and reached and all(f.verdict == Verdict.VERIFIED for f in reached):',
      'if not problems and reached and any(f.verdict == Verdict.VERIFIED for f in reached):',
      f"verify {B}/verify_two_fixes.py --harness {B}/verify_two_fixes_harness.py --no-compile", *VERIFY),
    m("W03", "verify: exit 0 only when verified", 'return 0 if self.verdict == Verdict.VERIFIED else 1', 'return 0 if self.verdict != Verdict.FAILED else 1',
      f"verify {B}/verify_two_fixes.py --harness {B}/verify_two_fixes_harness.py --no-compile", *VERIFY),
    # the rules
    m("R01", "TL102: unmasked tail stores", 'kernel.tail_hazards("store")\n                if not hazard.guard)',
      'kernel.tail_hazards("store")\n                if False)', f"{CHECK} {B}/launch_math_ceil.py", CEIL, "tests/rules/test_rules.py"),
    m("R02", "TL104: insufficient store masks", 'for kind in ("load", "store"):', 'for kind in ("load",):',
      f"{CHECK} {FX}/insufficient-mask", "tests/rules/insufficient_mask/test_insufficient_mask.py", "tests/rules/test_rules.py"),
    m("R03", "TL111/TL112: guarded stores when selected", 'kernel.tail_hazards("store")\n                if hazard.guard)',
      'kernel.tail_hazards("store")\n                if False)', f"{CHECK} --select ALL {B}/launch_padded_block_first.py", PADDED, "tests/semantic/test_launch.py"),
    m("X04", "fix: a masked load's `other=0`", 'ZERO = "0"', 'ZERO = "1"', f"{CHECK} --diff --unsafe-fixes {B}/readme_dot.py",
      b("test_a_fix_derived_from_a_less_or_equal_comparison_keeps_it"), "tests/cli/test_cli.py"),
]


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name and (root / name).is_file()]


def copy_tree(root: Path, target: Path) -> None:
    for name in tracked(root):
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, destination)


def locate(tree: Path, snippet: str) -> list[tuple[Path, int]]:
    found = []
    for source in SOURCES:
        # os.walk does not follow the copy's tritonlint/rules link: each file is searched once.
        paths = [Path(folder) / name for folder, _, names in os.walk(tree / source) for name in names]
        for path in sorted(p for p in paths if p.suffix == ".py"):
            text = path.read_text(encoding="utf-8")
            start = text.find(snippet)
            while start != -1:
                found.append((path, start))
                start = text.find(snippet, start + 1)
    return found


def environment(tree: Path, cache: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "NO_COLOR")}
    env.update(PYTHONPATH=str(tree), TRITONLINT_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return env


def probe(tree: Path, mutation: Mutation, env: dict[str, str]) -> str:
    stdin = (tree / mutation.stdin).read_bytes() if mutation.stdin else b""
    command = list(mutation.probe) if mutation.probe[0].endswith(".py") else ["-m", "tritonlint", *mutation.probe]
    done = subprocess.run([sys.executable, *command], cwd=tree, env=env, input=stdin,
                          capture_output=True, timeout=300, check=False)
    return f"exit {done.returncode}\n{done.stdout.decode(errors='replace')}\n{done.stderr.decode(errors='replace')}"


def run_one(mutation: Mutation, template: Path, work: Path, probe_only: bool) -> tuple[str, str, float]:
    """(outcome, detail, seconds): outcome is killed, survived, invisible (the probe did not change) or bad."""
    started = time.monotonic()
    tree = work / mutation.key
    shutil.copytree(template, tree, symlinks=True)
    cache = work / f"{mutation.key}-cache"
    env = environment(tree, cache)
    try:
        places = locate(tree, mutation.find)
        if len(places) != 1:
            return "bad", f"snippet found {len(places)} times", time.monotonic() - started
        before = probe(tree, mutation, env)
        path, start = places[0]
        text = path.read_text(encoding="utf-8")
        path.write_text(text[:start] + mutation.replace + text[start + len(mutation.find):], encoding="utf-8")
        after = probe(tree, mutation, env)
        if after == before:
            return "invisible", "the probe's output did not change", time.monotonic() - started
        if probe_only:
            return "visible", "", time.monotonic() - started
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "-p", "no:cacheprovider",
                               *mutation.tests], cwd=tree, env=env, capture_output=True, text=True, timeout=900,
                              check=False)
        last = (done.stdout.strip().splitlines() or [""])[-1]
        if done.returncode == 1:
            # `FAILED node_id - message`; a parametrized id may itself hold spaces.
            failed = [line[len("FAILED "):].split(" - ")[0] for line in done.stdout.splitlines()
                      if line.startswith("FAILED ")]
            if not failed:
                return "bad", f"pytest failed without naming a test: {last}", time.monotonic() - started
            # The kill counts only if that test passes on the copy without the mutation.
            path.write_text(text, encoding="utf-8")
            clean = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                                    failed[0]], cwd=tree, env=env, capture_output=True, text=True, timeout=900,
                                   check=False)
            if clean.returncode != 0:
                return "bad", f"{failed[0]} fails without the mutation too", time.monotonic() - started
            return "killed", failed[0], time.monotonic() - started
        if done.returncode == 0:
            return "survived", last, time.monotonic() - started
        return "bad", f"pytest exit {done.returncode}: {last}", time.monotonic() - started
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="*", help="mutation keys (default: all)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--probe-only", action="store_true")
    args = parser.parse_args(argv)
    chosen = [mu for mu in MUTATIONS if not args.keys or mu.key in args.keys]
    if args.list:
        for mu in chosen:
            print(f"{mu.key}  {mu.feature}: `{mu.find}` -> `{mu.replace}`")
        return 0
    counts: dict[str, int] = {}
    total = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tritonlint-mutations-") as scratch:
        work = Path(scratch)
        template = work / "clean"
        copy_tree(ROOT, template)
        # With PYTHONPATH at the copy, `tritonlint.rules` must resolve to the copy's rules/, not to
        # the checkout's (where an editable install maps it): a link inside the copied package.
        (template / "tritonlint" / "rules").symlink_to(Path("..") / "rules")
        print("| key | feature | mutation | outcome | killed by | s |")
        print("| --- | --- | --- | --- | --- | --- |")
        for mu in chosen:
            outcome, detail, seconds = run_one(mu, template, work, args.probe_only)
            counts[outcome] = counts.get(outcome, 0) + 1
            shown = f"`{mu.find.strip()}` -> `{mu.replace.strip()}`".replace("|", "\\|").replace("\n", "⏎")
            print(f"| {mu.key} | {mu.feature} | {shown} | {outcome} | {detail.replace('|', '/')} | {seconds:.0f} |",
                  flush=True)
    killed = counts.get("killed", 0)
    judged = killed + counts.get("survived", 0)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    rate = f"{killed}/{judged} killed ({100 * killed / judged:.0f} %)" if judged else "none judged"
    print(f"\n{len(chosen)} mutations: {summary}; {rate}; {time.monotonic() - total:.0f} s")
    return 0 if counts.get("survived", 0) == counts.get("bad", 0) == counts.get("invisible", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
