"""Which locals of a kernel hold float data (scores, exponentials, quotients), read from their definitions.

A scalar parameter that meets only such values (`S = apply_softcap(S, softcap)` with `S = tl.dot(q, k)`,
`m > float("-inf")`) is data, not a size: reached through them, it must not be made partial.
"""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name

# Calls whose result is float whatever their arguments are.
FLOAT_CALLS = {"dot", "dot_scaled", "exp", "exp2", "log", "log2", "log1p", "sqrt", "sqrt_rn", "rsqrt",
               "sigmoid", "tanh", "sin", "cos", "erf", "softmax", "div_rn", "fdiv", "float"}
# Calls whose result is an integer or a mask whatever their arguments are: float-ness stops there.
INT_CALLS = {"argmax", "argmin", "program_id", "arange", "cdiv", "num_programs"}
FLOAT_TYPES = ("float16", "float32", "float64", "bfloat16", "float8")


def _float_expr(node: ast.AST, floats: set[str]) -> bool:
    """Whether an expression's value is float data: a float producer or a float local, read outside
    comparisons (a mask) and integer-valued calls (`argmax`, `.to(tl.int32)`)."""
    if isinstance(node, ast.Compare):
        return False
    if isinstance(node, ast.Call):
        name = call_name(node)
        if name in INT_CALLS:
            return False
        if name == "to" and node.args:
            target = ast.unparse(node.args[0])
            return any(t in target for t in FLOAT_TYPES)
        if name in FLOAT_CALLS:
            return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return True
    if isinstance(node, ast.Name):
        return node.id in floats
    return any(_float_expr(child, floats) for child in ast.iter_child_nodes(node))


def float_locals(defs: dict[str, list[ast.expr]]) -> set[str]:
    """Locals one of whose definitions is float data (`S = tl.dot(q, k)`, `p = tl.exp(S - m)`,
    `m = tl.maximum(m, tl.max(S, 1))`), to a fixed point."""
    out: set[str] = set()
    grew = True
    while grew:
        grew = False
        for name, values in defs.items():
            if name not in out and any(_float_expr(v, out) for v in values):
                out.add(name)
                grew = True
    return out


def float_compares(compares: list[ast.Compare], floats: set[str]) -> list[ast.Compare]:
    """Comparisons with float data on one side (`m_ij > float("-inf")`, `S > cap`): a mask over data,
    whose names are no offsets nor sizes."""
    return [c for c in compares if any(_float_expr(side, floats) for side in (c.left, *c.comparators))]


# Math the language takes on floats only (`tl.exp` of an int32 is "Expected dtype ['fp32', 'fp64']").
FLOAT_ONLY_MATH = FLOAT_CALLS - {"dot", "dot_scaled", "float", "fdiv", "div_rn"}


def feeds_float_math(fn: ast.AST, defs: dict[str, list[ast.expr]], loaded: set[str]) -> bool:
    """Whether the values in `loaded` (locals a load assigned) reach, through locals, math the language
    takes on floats only (`m = tl.max(s)`, then `tl.exp(m)`): what is loaded there is float data."""
    derived = set(loaded)
    grew = True
    while grew:
        grew = False
        for name, values in defs.items():
            if name not in derived and any(isinstance(n, ast.Name) and n.id in derived
                                           for v in values for n in ast.walk(v)):
                derived.add(name)
                grew = True
    return any(isinstance(node, ast.Call) and call_name(node) in FLOAT_ONLY_MATH
               and any(isinstance(n, ast.Name) and n.id in derived for a in node.args for n in ast.walk(a))
               for node in ast.walk(fn))


def literal_compare(compare: ast.Compare) -> bool:
    """A comparison with number literals on every side but one (`s > 0`, `-1 < x`): a test of data,
    not an offset held against a bound."""
    def literal(node: ast.expr) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool)

    sides = [compare.left, *compare.comparators]
    return sum(not literal(s) for s in sides) == 1
