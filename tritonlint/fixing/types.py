"""What a kernel's values are, as far as a fix needs: pointers apart from offsets, and whether a
load reads integers or floats.

A mask compares offsets with an extent; comparing a pointer (`t_ptrs < N`) does not compile
(`pointer<fp32> < int32`). A pointer is a parameter used as the base of pointer arithmetic and
never as a number (multiplied, compared, a loop's bound), a parameter annotated as one, or a local
built from a pointer (`X + offs`, `tl.make_block_ptr`, `tl.advance`, a tensor descriptor).

`other=` must have the loaded element's type: `float("-inf")` on an integer load is not a value
of it. A load reads integers when its value indexes memory, meets bitwise operators, is cast to
an integer type or compared with integers, or its pointer's annotation says so; floats when it
meets float-only operations (`tl.exp`, `tl.dot`, a float literal) or a sibling load through the
same pointer writes a float `other=`. Nothing is run; evidence is read from the syntax only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

import libcst as cst

from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import Access
from tritonlint.source.names import code_of
from tritonlint.source.syntax import strip_casts
from tritonlint.source.tree import child_nodes, names_in, terms
from tritonlint.source.tree_caches import tree_cache

Element = Literal["int", "float"]
ZERO = "0"  # `other=` on a masked load: an integer zero, which Triton casts to any element type

# Calls that make a pointer (a block pointer, a descriptor) out of their arguments.
_POINTER_MAKERS = {"make_block_ptr", "advance", "make_tensor_descriptor", "_experimental_make_tensor_descriptor"}
# Triton functions a pointer is given to; builtins that take numbers only.
_POINTER_TAKERS = {"load", "store", "make_block_ptr", "make_tensor_descriptor", "_experimental_make_tensor_descriptor",
                   "advance", "multiple_of", "max_contiguous", "pointer_type", "prefetch"}
_NUMERIC_BUILTINS = {"range", "min", "max", "int", "float", "abs", "divmod", "pow", "round"}
# Operators only integers take (a float load never meets them).
_INTEGER_OPERATORS = (cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)
# Calls that only take or make floating-point tiles.
_FLOAT_CALLS = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid", "sin", "cos", "dot", "dot_scaled",
                "erf", "softmax", "fma", "div_rn", "fdiv"}
_INTEGER_TYPE = re.compile(r"\b(u?int(8|16|32|64)|int1)\b")
_FLOAT_TYPE = re.compile(r"\b(fp(8|16|32|64)|bf16|float(8\w*|16|32|64)|bfloat16|f8\w*)\b")


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    # Read from the dataclass fields, not libcst's `children` (which visits and rebuilds: on
    # `_matmul_ogs` it was most of an edit's time). Every caller collects a set, a flag or a
    # parent map, so the order of the children does not matter here; the layout fields skipped
    # (commas, parentheses, operators' tokens, whitespace) never hold a name or a call.
    return child_nodes(node)


def _parents(function: cst.FunctionDef) -> dict[int, cst.CSTNode]:
    """Each node's parent in the kernel (by identity), computed once per kernel."""
    return _index(function)[0]


def _name_uses(function: cst.FunctionDef) -> dict[str, list[cst.Name]]:
    """Every `Name` node of the kernel's body, by the name it spells."""
    return _index(function)[1]


def _calls(function: cst.FunctionDef) -> list[cst.Call]:
    """Every call in the kernel's body."""
    return _index(function)[2]


@tree_cache(maxsize=8)
def _index(function: cst.FunctionDef) -> tuple[dict[int, cst.CSTNode], dict[str, list[cst.Name]], list[cst.Call]]:
    """`_parents`, `_name_uses` and `_calls` in one walk of the kernel (each was a walk of its own).
    Exact types (`type(node) is cst.Name`): libcst's node classes have no subclasses, and an
    isinstance test against their ABC base is a Python-level call."""
    parents: dict[int, cst.CSTNode] = {}
    uses: dict[str, list[cst.Name]] = {}
    calls: list[cst.Call] = []
    pending: list[tuple[cst.CSTNode, bool]] = [(function, False)]
    while pending:
        node, in_body = pending.pop()
        if in_body:
            kind = type(node)
            if kind is cst.Name:
                uses.setdefault(node.value, []).append(node)  # type: ignore[attr-defined,arg-type]
            elif kind is cst.Call:
                calls.append(node)  # type: ignore[arg-type]
        for child in _children(node):
            parents[id(child)] = node
            pending.append((child, in_body or child is function.body))
    return parents, uses, calls


def _unwrap(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> tuple[cst.CSTNode, cst.CSTNode | None]:
    """The node and its parent, past the wrappers that do not change a value (`Arg`, an index)."""
    parent = parents.get(id(node))
    while isinstance(parent, (cst.Arg, cst.Index, cst.SubscriptElement)) and \
            not (isinstance(parent, cst.Arg) and parent.keyword is not None and parent.keyword.value == "mask"):
        node, parent = parent, parents.get(id(parent))
    return node, parent


def _numeric_parameters(model: KernelContext) -> set[str]:
    """Parameters used as numbers somewhere: an operand of `*`, `//`, `%`, a comparison, a call
    other than a load or store (`range(N)`, `tl.cdiv(N, B)`): never a pointer's base."""
    parents = _parents(model.function)
    numeric: set[str] = set()
    params = {p.name.value for p in (*model.function.params.params, *model.function.params.kwonly_params)}
    uses = _name_uses(model.function)
    for name in params:
        for node in uses.get(name, ()):
            _, parent = _unwrap(node, parents)
            arithmetic = isinstance(parent, cst.BinaryOperation) and not isinstance(parent.operator, (cst.Add, cst.Subtract))
            if arithmetic or isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
                numeric.add(name)
            elif isinstance(parent, cst.Call) and parent.func is not node:
                # A Triton function or a builtin that takes numbers (`tl.cdiv(N, B)`, `range(N)`); a
                # jit helper's argument says nothing (it takes pointers as well).
                qualified = model.qualify_tl(parent.func) or ""
                builtin = isinstance(parent.func, cst.Name) and parent.func.value in _NUMERIC_BUILTINS
                if (qualified or builtin) and qualified.rsplit(".", 1)[-1] not in _POINTER_TAKERS and \
                        not qualified.startswith("atomic"):
                    numeric.add(name)
    return numeric


def _annotation(model: KernelContext, name: str) -> str | None:
    for param in (*model.function.params.params, *model.function.params.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            return code_of(param.annotation.annotation)
    return None


@tree_cache(maxsize=8)
def _pointer_names(model: KernelContext) -> frozenset[str]:
    params = [p.name.value for p in (*model.function.params.params, *model.function.params.kwonly_params)]
    numeric = _numeric_parameters(model)
    pointers: set[str] = set()
    for name in params:
        annotation = _annotation(model, name) or ""
        if "pointer_type" in annotation or annotation.strip("'\"").startswith("*"):
            pointers.add(name)
    # A parameter that is a summand of what a load or store goes through, never used as a number.
    bases: set[str] = set()
    memo: dict[tuple[str, int], set[str]] = {}
    for access in model.accesses:
        bases |= _leftmost_names(model, access.pointer, 0, memo)
    for node in _calls(model.function):  # `tl.make_block_ptr(base=Q + offset, ...)`, a descriptor's base
        if (model.qualify_tl(node.func) or "").rsplit(".", 1)[-1] in _POINTER_MAKERS:
            base = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "base"),
                        node.args[0].value if node.args and node.args[0].keyword is None else None)
            if base is not None:
                bases |= _leftmost_names(model, base, 0, memo)
    pointers |= {name for name in params if name in bases and name not in numeric
                 and not any(d.constexpr for d in model.defs.get(name, ()) if d.kind == "param")}
    # Locals built from a pointer, to a fixed point.
    changed = True
    while changed:
        changed = False
        for name, defs in model.defs.items():
            if name in pointers:
                continue
            if any(d.kind in ("assign", "advance") and d.value is not None and _is_pointer(model, d.value, pointers)
                   for d in defs):
                pointers.add(name)
                changed = True
    return frozenset(pointers)


def _leftmost_names(model: KernelContext, node: cst.BaseExpression, depth: int,
                    memo: dict[tuple[str, int], set[str]]) -> set[str]:
    """The parameters at the left of a pointer sum, through the locals it is built from
    (`a_ptrs` -> `A + offs_k` -> `A`): Triton's `base + offsets`, never the offsets' own summands.
    `memo` holds the answer per name and depth: a pointer advanced in several places has several
    definitions, each read again at every level, which grew as their count to the eighth power."""
    summands = _summands(node)
    first = summands[0] if summands else node
    if not isinstance(first, cst.Name) or depth > 8:
        return set()
    key = (first.value, depth)
    known = memo.get(key)
    if known is not None:
        return known
    defs = model.defs.get(first.value, ())
    found: set[str] = set()
    if any(d.kind == "param" for d in defs):
        found = {first.value}
    else:
        for d in defs:
            if d.kind in ("assign", "advance") and d.value is not None:
                found |= _leftmost_names(model, d.value, depth + 1, memo)
    memo[key] = found
    return found


def _summands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The summands of a pointer expression, through parentheses, casts and `[:, None]`."""
    found = []
    for term in terms(strip_casts(node)):
        term = strip_casts(term)
        while isinstance(term, cst.Subscript):
            term = strip_casts(term.value)
        if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, (cst.Add, cst.Subtract)):
            found.extend(_summands(term))
        else:
            found.append(term)
    return found


def _is_pointer(model: KernelContext, node: cst.BaseExpression, pointers: set[str] | frozenset[str]) -> bool:
    node = strip_casts(node) if not _pointer_cast(node) else node
    if _pointer_cast(node):
        return True
    if isinstance(node, cst.IfExp):
        return _is_pointer(model, node.body, pointers) or _is_pointer(model, node.orelse, pointers)
    if isinstance(node, cst.Call):
        return (model.qualify_tl(node.func) or "").rsplit(".", 1)[-1] in _POINTER_MAKERS
    summands = _summands(node)
    if len(summands) > 1 and isinstance(node, cst.BinaryOperation):
        # `p + offs`: the left summand is the base (`offs + START` with START a pointer would not be
        # how a kernel writes it, and `p - q` of two pointers is an offset).
        return _is_pointer(model, summands[0], pointers) and not any(
            _is_pointer(model, term, pointers) for term in summands[1:])
    first = summands[0] if summands else node
    if isinstance(first, cst.Name):
        return first.value in pointers
    return isinstance(first, cst.Call) and (model.qualify_tl(first.func) or "").rsplit(".", 1)[-1] in _POINTER_MAKERS


def _pointer_cast(node: cst.BaseExpression) -> bool:
    """`x.to(tl.pointer_type(tl.int32))`: a pointer whatever `x` was."""
    return (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "to"
            and "pointer_type" in code_of(node))


def is_pointer(model: KernelContext, node: cst.BaseExpression) -> bool:
    """Whether an expression's value is a pointer (or a tile of them), not an offset."""
    return _is_pointer(model, node, _pointer_names(model))


def reads_pointer(model: KernelContext, node: cst.BaseExpression) -> bool:
    """Whether an expression reads a pointer anywhere (`t_ptrs < N`, `(p + 1)[:, None]`)."""
    pointers = _pointer_names(model)
    return any(name in pointers for name in names_in(node))


def compares_pointer(model: KernelContext, text: str) -> bool:
    """Whether a mask's text compares a pointer: Triton rejects `pointer<fp32> < int32`."""
    try:
        node = cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return False
    pending: list[cst.CSTNode] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Comparison):
            sides = [current.left, *(target.comparator for target in current.comparisons)]
            if any(reads_pointer(model, side) for side in sides):
                return True
        pending.extend(_children(current))
    return False


# ---------------------------------------------------------------------- the loaded element's type

def _bases(model: KernelContext, access: Access) -> set[str]:
    """The pointer parameters (or locals) an access reads through."""
    pointers = _pointer_names(model)
    found = {term.value for term in _summands(access.pointer) if isinstance(term, cst.Name) and term.value in pointers}
    pending, seen = list(found), set(found)
    while pending:
        name = pending.pop()
        for d in model.defs.get(name, ()):
            if d.value is None:
                continue
            for term in _summands(d.value):
                if isinstance(term, cst.Name) and term.value in pointers and term.value not in seen:
                    seen.add(term.value)
                    pending.append(term.value)
    return {name for name in seen if any(d.kind == "param" for d in model.defs.get(name, ()))} or seen


def _type_in(text: str) -> Element | None:
    if _INTEGER_TYPE.search(text) or re.search(r"\*i(8|16|32|64)\b", text):
        return "int"
    if _FLOAT_TYPE.search(text):
        return "float"
    return None


def _float_literal(node: cst.CSTNode) -> bool:
    node = node.expression if isinstance(node, cst.UnaryOperation) else node
    return isinstance(node, cst.Float) or (isinstance(node, cst.Call) and code_of(node.func) == "float") or \
        (isinstance(node, cst.Attribute) and node.attr.value == "inf")


def element_type(model: KernelContext, access: Access) -> Element | None:
    """Whether a load reads integers or floats; None when the kernel does not say."""
    bases = _bases(model, access)
    for base in bases:  # an annotation says it outright
        annotated = _type_in(_annotation(model, base) or "")
        if annotated is not None:
            return annotated
    # A static assertion on the pointer's element type says it outright too; the parameters at the
    # left of the pointer's sum are asked even where the pointer reading left them out (one tested
    # against None, an optional operand).
    for base in sorted(bases | _leftmost_names(model, access.pointer, 0, {})):
        asserted = _asserted_element(model, base)
        if asserted is not None:
            return asserted
    strong_int = weak_int = floating = False
    values = _value_names(model, access)  # (a walk of every definition: once for both readings below)
    for node, parent in _climbed(model, _uses_of_value(model, access, values)):
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _INTEGER_OPERATORS):
            strong_int = True
        elif isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, (cst.Modulo, cst.FloorDivide)):
            weak_int = True
        elif isinstance(parent, cst.BinaryOperation) and (isinstance(parent.operator, cst.Divide) or _float_literal(
                parent.left) or _float_literal(parent.right)):
            floating = True
        elif isinstance(parent, cst.Comparison):
            others = [parent.left, *(t.comparator for t in parent.comparisons)]
            if any(_float_literal(o) for o in others):
                floating = True
            elif any(isinstance(o, cst.Integer) or (isinstance(o, cst.UnaryOperation) and isinstance(o.expression, cst.Integer))
                     for o in others):
                weak_int = True
        elif isinstance(parent, cst.Attribute) and parent.attr.value == "to":
            kind = _type_in(code_of(_parents(model.function).get(id(parent), parent)))
            weak_int = weak_int or kind == "int"
        elif isinstance(parent, cst.Call):
            called = (model.qualify_tl(parent.func) or "").rsplit(".", 1)[-1]
            floating = floating or called in _FLOAT_CALLS
            # A loop's bound (`range(start, end)`, `tl.range`) or an arange's: integers only.
            loop_bound = called in ("range", "static_range", "arange") or (
                isinstance(parent.func, cst.Name) and parent.func.value == "range")
            strong_int = strong_int or loop_bound
    if _indexes_memory(model, access, values):
        strong_int = True
    for other in model.accesses:  # it, or a sibling through the same pointer, writes a float `other=`
        if other.kind == "load" and other.other is not None and (other is access or \
                _bases(model, other) & bases) and _float_literal(other.other):
            floating = True
    if strong_int:
        return "int"
    if floating:
        return "float"
    return "int" if weak_int else None


def _asserted_element(model: KernelContext, base: str) -> Element | None:
    """The element type a `tl.static_assert(P.dtype.element_ty == tl.uint8)` states for pointer `P`:
    the kernel says outright what it reads through it (Triton fails the compile otherwise)."""
    # (the kernel's calls, collected once per kernel, in the order of a walk of its body)
    for node in _calls(model.function):
        if (model.qualify_tl(node.func) or "").rsplit(".", 1)[-1] != "static_assert":
            continue
        test = node.args[0].value if node.args else None
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or \
                not isinstance(test.comparisons[0].operator, cst.Equal):
            continue
        sides = (test.left, test.comparisons[0].comparator)
        for side, other in (sides, sides[::-1]):
            if code_of(side).replace(" ", "") in (f"{base}.dtype.element_ty", f"{base}.type.element_ty"):
                found = _type_in(code_of(other))
                if found is not None:
                    return found
    return None


def _climbed(model: KernelContext, uses: Iterator[tuple[cst.CSTNode, cst.CSTNode | None]]
             ) -> Iterator[tuple[cst.CSTNode, cst.CSTNode | None]]:
    """Each use, and the expressions it sits in through plain arithmetic or a call that keeps the
    element type (`tl.exp(x - m)`, `tl.exp(tl.max(x))` are uses of `x` by `tl.exp`): a few levels up, stopping at anything that changes the kind of value."""
    parents = _parents(model.function)
    for node, parent in uses:
        for _ in range(4):
            yield node, parent
            if not isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Call)) or \
                    not _keeps_type(model, parent):
                break
            node, parent = _unwrap(parent, parents)


# Calls whose result has the element type of their tile argument.
_SAME_TYPE_CALLS = {"max", "min", "sum", "maximum", "minimum", "where", "reshape", "trans", "permute",
                    "broadcast_to", "expand_dims", "view", "abs", "cumsum", "cummax"}


def _value_names(model: KernelContext, access: Access) -> set[str]:
    """The names holding the loaded value, and those computed from it by plain arithmetic or a call
    that keeps its element type (`m = tl.max(x)`, `y = x + b`): a few assignments on."""
    names: set[str] = set()
    call_id = id(access.call)
    for name, defs in model.defs.items():
        for d in defs:
            if d.value is not None and d.kind in ("assign", "advance") and \
                    any(id(n) == call_id for n in _walk(d.value)):
                names.add(name)
    for _ in range(3):
        grown = {name for name, defs in model.defs.items() if name not in names and any(
            d.value is not None and d.kind in ("assign", "advance") and _keeps_type(model, d.value)
            and names & set(names_in(d.value)) for d in defs)}
        if not grown:
            break
        names |= grown
    return names


def _keeps_type(model: KernelContext, node: cst.BaseExpression) -> bool:
    """`x + b`, `-x`, `tl.max(x, axis=0)`: a value of its operands' element type."""
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply))
    if isinstance(node, cst.UnaryOperation):
        return True
    if isinstance(node, cst.Call):
        return (model.qualify_tl(node.func) or "").rsplit(".", 1)[-1] in _SAME_TYPE_CALLS
    return isinstance(node, (cst.Name, cst.Subscript))


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(_children(current))


def _uses_of_value(model: KernelContext, access: Access, values: set[str]
                   ) -> Iterator[tuple[cst.CSTNode, cst.CSTNode | None]]:
    """(node, parent) where the loaded value (the call itself, or a name assigned it: `values`, the
    access's `_value_names`) is used."""
    parents = _parents(model.function)
    yield _unwrap(access.call, parents)
    uses = _name_uses(model.function)
    for name in values:
        for node in uses.get(name, ()):
            yield _unwrap(node, parents)


def _indexes_memory(model: KernelContext, access: Access, values: set[str]) -> bool:
    """The loaded value (or a name computed from it: `values`, the access's `_value_names`) is part
    of another access's pointer."""
    names = set(values)
    frontier = set(names)
    for _ in range(3):  # `idx = v * stride` then `ptr + idx`
        grown = {name for name, defs in model.defs.items() if name not in names and any(
            d.value is not None and d.kind in ("assign", "advance") and frontier & set(names_in(d.value))
            for d in defs) and name not in _pointer_names(model)}
        frontier = grown
        names |= grown
    call_id = id(access.call)
    for other in model.accesses:
        if other is access:
            continue
        if names & set(names_in(other.pointer)) or any(id(n) == call_id for n in _walk(other.pointer)):
            return True
    return False


def zero_literal(model: KernelContext, access: Access) -> str:
    """`other=`'s zero for a load (masked lanes then add nothing to a dot or a sum; for E8M0 scales 0
    is 2**-127, which scales the also zeroed tail values to 0 rather than to NaN). A load known to
    read floats takes the siblings' spelling (`0.0` when another load of the kernel writes
    `other=0.0`); any other load takes `0`, a value of every element type (integers included)."""
    if element_type(model, access) != "float":
        return ZERO
    for other in model.accesses:
        if other is not access and other.other is not None and isinstance(other.other, cst.Float) and \
                float(other.other.value) == 0.0:
            return other.other.value
    return ZERO
