"""One reader of a launching function's int defaults and of what its callers pass (`launcher_values`),
used by the launcher's default tiles (`tile_defaults`) and by the values a derived loop end's constexpr
takes (`derived_ends`): both read the same default the same way."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from types import SimpleNamespace

from tritonlint.witness.derived_ends import host_constexpr_values
from tritonlint.witness.launcher_values import default_values, int_values, passed_argument
from tritonlint.witness.tile_defaults import launcher_tile_defaults

HOST = textwrap.dedent("""\
    BASE = 8


    def launch(x, BLOCK=2 * BASE, *, BITS=1 << 2, MODE=3 if BASE else 5, flag=False):
        kernel[(1,)](x, BLOCK=BLOCK, BITS=BITS, MODE=MODE, FLAG=flag)


    def caller(x):
        return launch(x, 4 * 8, BITS=2)
""")


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_the_reader_folds_literals_numbers_and_conditionals() -> None:
    assert int_values(_expr("2 * BASE"), {"BASE": 8}) == [16]
    assert int_values(_expr("2 * BASE")) is None  # no module numbers inside a function's body
    assert int_values(_expr("3 if wide else 1 << 2")) == [3, 4]
    assert int_values(_expr("True")) is None and int_values(_expr("x.shape[0]")) is None
    fn = next(n for n in ast.parse(HOST).body if isinstance(n, ast.FunctionDef) and n.name == "launch")
    assert default_values(fn, {"BASE": 8}) == {"BLOCK": ([16], 4), "BITS": ([4], 4), "MODE": ([3, 5], 4)}
    call = next(n for n in ast.walk(ast.parse(HOST)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "launch")
    assert ast.unparse(passed_argument(call, fn, "BLOCK") or _expr("None")) == "4 * 8"
    assert ast.unparse(passed_argument(call, fn, "BITS") or _expr("None")) == "2"
    assert passed_argument(call, fn, "MODE") is None  # the default then


def test_both_users_read_the_launchers_defaults_alike(tmp_path: Path) -> None:
    path = tmp_path / "ops.py"
    path.write_text(HOST)
    args = {"x_ptr": "x", "BLOCK": "BLOCK", "BITS": "BITS", "MODE": "MODE", "FLAG": "flag"}
    launch = SimpleNamespace(where="ops.py:5", kernel="kernel", args=args, local=True)
    tiles = {p: int(v) for p, (v, _) in launcher_tile_defaults(launch, path).items()}
    assert tiles == {"BLOCK": 16, "BITS": 4}, tiles  # one value each; MODE's two are no default tile
    values = host_constexpr_values(HOST, launch)
    # The default, then what the same file's caller passes (`4 * 8`, `BITS=2`).
    assert values == {"BLOCK": [16, 32], "BITS": [4, 2], "MODE": [3, 5]}, values
