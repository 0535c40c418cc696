"""Which jit functions of a file are analysed together: a kernel and the helpers it calls.

A kernel's analysis reads the jit functions of its file that it calls (their accesses judged at
its call sites, a helper's access reported once from its first caller): the smallest sets closed
under that are the connected parts of the graph of names. The engine analyses a huge file one such
group at a time (and frees it), the editor reuses a group's findings while its text stays the same.
"""

from __future__ import annotations

import re

from tritonlint.source.outline import KernelSource

_WORD = re.compile(r"[^\W\d]\w*")


def kernel_groups(kernels: list[KernelSource]) -> list[list[KernelSource]]:
    """The file's kernels in groups that are analysed together (each in file order, the groups in
    the order of their first kernel): the connected parts of the graph whose edges join a kernel
    to every other jit function of the file whose name it mentions, and two kernels of one name."""
    parent = list(range(len(kernels)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        parent[root(i)] = root(j)

    by_name: dict[str, list[int]] = {}
    for index, kernel in enumerate(kernels):
        by_name.setdefault(kernel.name, []).append(index)
    for indices in by_name.values():
        for other in indices[1:]:
            join(indices[0], other)
    for index, kernel in enumerate(kernels):
        # Every word of the text, comments and strings too: more than the names it uses, never fewer
        # (and a tenth of the time of walking its syntax tree).
        for name in set(_WORD.findall(kernel.text)) & by_name.keys():
            join(index, by_name[name][0])
    groups: dict[int, list[KernelSource]] = {}
    for index, kernel in enumerate(kernels):
        groups.setdefault(root(index), []).append(kernel)
    return list(groups.values())
