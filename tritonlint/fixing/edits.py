"""Edits in the file's text: a fixed call printed where it stands, the smallest edit, a hoisted mask."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState

from tritonlint.diagnostics import Edit
from tritonlint.fixing.wrap import laid_region, wrap_region
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.locations import Span
from tritonlint.source.outline import NESTED_PREFIX, KernelSource
from tritonlint.source.tree import child_nodes

# The line length when the project sets none (tritonlint's, ruff's or black's `line-length`): the
# default of ruff's and black's formatters, which a project that sets nothing is formatted to. A fix
# longer than that names its mask on the line above, and what is still too long wraps as black would.
DEFAULT_LINE_LENGTH = 88


def segment_edit(model: KernelContext, kernel: KernelSource, old: cst.Call, new: cst.Call, text: str,
                  span: Span, starts: Sequence[int]) -> Edit:
    """The smallest file edit turning `old` into `new`: the span where their text differs."""
    start = starts[span.line - 1] + span.column
    end = starts[span.end_line - 1] + span.end_column
    printed = print_in_place(model.module, old, new, text[start:end], text, span, starts)
    if printed is not None:
        return smallest_edit(text[start:end], printed, start)
    # The call could not be re-printed exactly where it is: print the kernel with it replaced
    # (libcst round-trips exactly, so the parsed kernel's text is its source).
    prefix = NESTED_PREFIX if kernel.indented else ""
    after = model.module.deep_replace(old, new).code  # type: ignore[union-attr]
    return smallest_edit(prefix + kernel.text, after, kernel.start_offset - len(prefix))


def smallest_edit(before: str, after: str, base: int) -> Edit:
    """The edit turning `before` (which starts at offset `base` of the file) into `after`,
    trimmed to where the two differ, so everything else stays byte-identical."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return Edit(base + head, base + len(before) - tail, after[head:len(after) - tail])


def print_in_place(module: cst.Module, old: cst.Call, new: cst.Call, original: str, text: str, span: Span,
                    starts: Sequence[int]) -> str | None:
    """`new` printed as it will read in the file, or None when that cannot be done exactly.

    Continuation lines of a call spread over several lines store their indentation relative to
    the enclosing block, so the call is printed with that block's indentation. Which one it is
    the file says: the indentation for which `old` prints back exactly as the file spells it.
    A parenthesized call is left to the kernel-wide path (the parentheses are outside the span).
    """
    if old.lpar or new.lpar:
        return None
    tried: set[str] = set()
    for indent in _indents_above(text, starts, span.line):
        if indent in tried:
            continue
        tried.add(indent)
        if _print(module, old, indent) == original:
            return _print(module, new, indent)
        if span.line == span.end_line:
            return None  # one line: the indentation cannot matter, so something else differs
    return None


def _indents_above(text: str, starts: Sequence[int], line: int, limit: int = 60) -> Iterator[str]:
    """Leading whitespace of `line` and of the lines above it: the enclosing statement's is among them."""
    for number in range(line, max(line - limit, 0), -1):
        begin = starts[number - 1]
        end = starts[number] if number < len(starts) else len(text)
        content = text[begin:end]
        yield content[:len(content) - len(content.lstrip(" \t"))]


def _print(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """`node`'s code inside a block indented by `indent` (`Module.code_for_node` assumes none;
    libcst exports no public way to give its code generator an indentation)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens.append(indent)
    node._codegen(state)
    return "".join(state.tokens)


def longest_line(text: str, edit: Edit) -> int:
    """The longest line the edit leaves in the lines it touches."""
    start = text.rfind("\n", 0, edit.start) + 1
    end = text.find("\n", edit.end)
    after = text[start:edit.start] + edit.content + text[edit.end:end if end >= 0 else len(text)]
    return max(len(line) for line in after.split("\n"))


def hoisted_mask(model: KernelContext, kernel: KernelSource, hazard: TailHazard, new: cst.Call, text: str,
                  span: Span, starts: Sequence[int]) -> Edit | None:
    """The fix with its mask named on the line above the statement (`offs_k_mask = ...`), read like
    the code around it. One edit, from the statement's line to the end of the call. None where the
    statement is not alone on its lines (a compound statement's header, `a; b`) or holds another
    load or store (its fix would insert above the same line)."""
    statement = statement_of(model.function, hazard.access.call)
    mask = next((arg for arg in new.args if arg.keyword is not None and arg.keyword.value == "mask"), None)
    if statement is None or mask is None or isinstance(mask.value, cst.Name):
        return None
    if hazard.access.mask is not None and mask.value.deep_equals(hazard.access.mask):
        return None  # the fix leaves the mask as written (TL105 sets `other=`): nothing to name
    calls = {id(node) for node in nodes_of_type(statement, cst.Call)}
    if sum(id(access.call) in calls for access in model.accesses) > 1:
        return None  # two fixes would each insert above the same line: overlapping edits
    line, column = model.statement_start(statement, hazard.access.call)
    line_start = starts[line - 1]
    indent = text[line_start:line_start + column]
    if indent.strip() or line > span.line:
        return None
    label = model.label(hazard.walk.dim) if hazard.walk.dim else ""
    base = f"{label}_mask" if label.isidentifier() else f"{hazard.access.kind}_mask"
    taken = set(model.defs) | model.names_used
    name, suffix = base, 1
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    mask_text = cst.Module(body=[]).code_for_node(mask.value)
    named = new.with_deep_changes(mask, value=cst.Name(name))
    call = segment_edit(model, kernel, hazard.access.call, named, text, span, starts)
    content = f"{indent}{name} = {mask_text}{model.module.default_newline}" + text[line_start:call.start] + call.content
    return Edit(line_start, call.end, content)


def fitted_edit(model: KernelContext, kernel: KernelSource, hazard: TailHazard, new: cst.Call, text: str,
                span: Span, starts: Sequence[int], limit: int) -> Edit:
    """The fix, within `limit` columns where it can be, the first of these that fits:
    1. inline, the new arguments laid out as the call's others;
    2. for a call the file already lays over lines: that call wrapped black's way (fixing/wrap.py);
    3. the mask named on the line above the statement (`hoisted_mask`), the call on one line;
    4. the call wrapped black's way;
    5. both: the mask named above and what is still too long wrapped (else the least long)."""
    edit = segment_edit(model, kernel, hazard.access.call, new, text, span, starts)
    if not limit or longest_line(text, edit) <= limit:
        return edit
    statement = statement_of(model.function, hazard.access.call)
    first = model.statement_start(statement, hazard.access.call)[0] if statement is not None else span.line
    start = starts[min(first, span.line) - 1]
    laid = wrapped_edit(text, edit, start, limit)
    if span.end_line > span.line and longest_line(text, laid) <= limit:
        return laid
    hoisted = hoisted_mask(model, kernel, hazard, new, text, span, starts)
    if hoisted is not None and longest_line(text, hoisted) <= limit:
        return hoisted
    if hoisted is None or longest_line(text, laid) <= limit:
        return laid
    both = wrapped_edit(text, hoisted, min(start, hoisted.start), limit)
    return both if longest_line(text, both) <= longest_line(text, laid) else laid


def wrapped_edit(text: str, edit: Edit, statement: int, limit: int) -> Edit:
    """`edit` with the lines it leaves over `limit` wrapped; `statement` is the offset where the
    statement holding it starts (the wrapping reads bracket depths from there).

    The edited text is made only for a window from the statement's line on, widened until the
    lines the wrapping reads lie whole inside it: the whole edited file, made per wrapped fix, was
    a pass over a huge file for each of its fixes."""
    if statement > edit.start:
        return _wrapped_whole(text, edit, statement, limit)
    begin = text.rfind("\n", 0, statement) + 1
    reach = _WINDOW
    while True:
        stop = min(len(text), edit.end + reach)
        window = text[begin:edit.start] + edit.content + text[edit.end:stop]
        region = laid_region(window, statement - begin, edit.start + len(edit.content) - begin, limit)
        if region.read <= len(window) or stop == len(text):
            break
        reach *= 4
    if region.laid is None:
        return edit
    laid = window[:region.begin] + region.laid + ("\n" + window[region.read:] if region.read <= len(window) else "")
    if laid == window:
        return edit
    # The edited file is text[:begin] + window + (the text after `stop`), and the wrapped one the same
    # with `laid` for `window`: the statement's region is compared as `_wrapped_whole` compares it.
    unchanged = len(window) - region.end  # within the window, after the statement
    return smallest_edit(text[statement:stop - unchanged], laid[statement - begin:len(laid) - unchanged], statement)


# Characters past the edit in the first window `wrapped_edit` tries (a statement and a line after it).
_WINDOW = 4096


def _wrapped_whole(text: str, edit: Edit, statement: int, limit: int) -> Edit:
    """`wrapped_edit` over the whole edited text (a statement said to start after the edit)."""
    after = text[:edit.start] + edit.content + text[edit.end:]
    laid, region_end = wrap_region(after, statement, edit.start + len(edit.content), limit)
    if laid == after:
        return edit
    unchanged = len(after) - region_end  # the text after the statement: the same in all three
    return smallest_edit(text[statement:len(text) - unchanged], laid[statement:len(laid) - unchanged], statement)


def statement_of(function: cst.FunctionDef, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The simple statement line that holds `node`, alone on it (no `a; b`)."""
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.SimpleStatementLine):
            if any(n is node for n in nodes_of_type(current, type(node))):
                return current if len(current.body) == 1 else None
            continue
        if isinstance(current, (cst.IndentedBlock, cst.BaseCompoundStatement, cst.Else)):
            pending.extend(c for c in child_nodes(current) if isinstance(c, (cst.BaseSuite, cst.BaseStatement,
                                                                              cst.Else, cst.BaseCompoundStatement)))
    return None


def nodes_of_type(root: cst.CSTNode, kind: type) -> Iterator[cst.CSTNode]:
    """The nodes of `kind` under `root` (statements and expressions: not layout tokens), in no set order."""
    pending = [root]
    while pending:
        current = pending.pop()
        if isinstance(current, kind):
            yield current
        # Not libcst's `children`, which visits (and rebuilds) every node: a whole kernel's names
        # took a tenth of a second that way.
        pending.extend(child_nodes(current))


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (the first of any overlapping pair wins; the next round gets the rest)."""
    chosen: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if chosen and edit.start < chosen[-1].end:
            continue
        chosen.append(edit)
    for edit in reversed(chosen):
        text = text[:edit.start] + edit.content + text[edit.end:]
    return text
