"""A loop end computed from a constexpr (`n_bins: tl.constexpr = 1 << BITS`, walked in fixed tiles of
`BIN_TILE`) is made partial through that constexpr, at the values the host gives it: the file's
`bucket_counts` passes `BITS = 3 if ... else 4` (through `_histogram`'s parameter), the tile is 16,
so BITS=3 walks 8 bins in a tile of 16 (the candidate) and BITS=4 walks 16 (the control, whole tiles);
a guess would have taken BITS=1, a value the host never passes.
The flagged tensor holds exactly `rows * passes * n_bins` entries, as the host allocates it (the store
spread over lines, its pointer on the line after the finding's, as the corpus's histograms write it)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

from tests.witness.witness_line import witness_line
from tritonlint.witness.derived_ends import derived_end, host_constexpr_values, split_values

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def bucket_hist_kernel(keys_ptr, hist_ptr, n, n_passes, BLOCK: tl.constexpr, BIN_TILE: tl.constexpr,
                           BITS: tl.constexpr):
        row = tl.program_id(0)
        n_bins: tl.constexpr = 1 << BITS
        offs = tl.arange(0, BLOCK)
        keys = tl.load(keys_ptr + row * n + offs, mask=offs < n, other=0)
        for p in range(0, n_passes):
            digits = (keys >> (p * BITS)) & (n_bins - 1)
            for b0 in range(0, n_bins, BIN_TILE):
                bins = b0 + tl.arange(0, BIN_TILE)
                counts = tl.sum((bins[:, None] == digits[None, :]).to(tl.int32), axis=1)
                tl.store(
                    hist_ptr + row * n_passes * n_bins + p * n_bins + bins,
                    counts,
                )


    def _histogram(keys, bits=4):
        rows, n = keys.shape
        n_passes = triton.cdiv(keys.element_size() * 8, bits)
        hist = torch.zeros((rows, n_passes, 2 ** bits), dtype=torch.int32, device=keys.device)
        BIN_TILE = 16
        bucket_hist_kernel[(rows,)](keys, hist, n, n_passes, triton.next_power_of_2(n), BIN_TILE, bits)
        return hist


    def bucket_counts(keys):
        bits = 3 if keys.dtype == torch.bool else 4
        return _histogram(keys, bits)
""")
STORE_LINE = 18


def test_the_end_is_varied_through_the_constexpr_at_the_hosts_values(tmp_path: Path) -> None:
    path = tmp_path / "bucket_hist.py"
    path.write_text(KERNEL)
    w = witness_line(path, STORE_LINE, "TL102")
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "hist_ptr", w.evidence
    assert w.evidence["direction"] == "after", w.evidence
    # BITS=3: 8 bins a row, written 16 at a time: the last row's store runs 8 past the end.
    assert w.evidence["shape"]["BITS"] == 3 and w.evidence["elements_past"] == 8, w.evidence
    launch = w.launch or {}
    values = {a["name"]: a["value"] for a in launch.get("args", [])}
    numels = {a["name"]: a["numel"] for a in launch.get("args", [])}
    assert values["BIN_TILE"] == 16, values  # the host's tile
    assert numels["hist_ptr"] == 2 * values["n_passes"] * 8, (numels, values)  # rows * passes * bins


def test_the_host_values_and_the_split() -> None:
    import ast

    tree = ast.parse(KERNEL)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "bucket_hist_kernel")
    end = derived_end(fn, STORE_LINE, {"BLOCK", "BIN_TILE", "BITS"}, "BIN_TILE")
    assert end is not None and (end.local, end.source) == ("n_bins", "BITS")
    assert split_values(end, 4, [3, 1]) == (1, 3)
    assert split_values(end, 4, [2, 3]) is None  # every value the host gives fills whole tiles
    # A loop end computed from the tile itself is never varied: that would vary the tile too.
    assert derived_end(fn, STORE_LINE, {"BLOCK", "BIN_TILE", "BITS"}, "BITS") is None

    launch_line = next(i for i, s in enumerate(KERNEL.splitlines(), 1) if "bucket_hist_kernel[" in s)
    # The parts of the checker's launch record the reading uses.
    site = SimpleNamespace(where=f"bucket_hist.py:{launch_line}", local=True,
                           args={"BITS": "bits", "BIN_TILE": "BIN_TILE", "n": "n"})
    values = host_constexpr_values(KERNEL, site)
    assert sorted(values["BITS"]) == [3, 4], values  # the default and the caller's `3 if ... else 4`
    assert values["BIN_TILE"] == [16], values
    assert "n" not in values, values  # a shape, no literal


PERSISTENT = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def chunked_bucket_kernel(keys_ptr, hist_ptr, n_passes, rows, n, total_tasks, num_progs, BLOCK: tl.constexpr,
                              BIN_TILE: tl.constexpr, BITS: tl.constexpr):
        pid = tl.program_id(0)
        n_bins: tl.constexpr = 2 ** BITS
        for task in range(pid, total_tasks, num_progs):
            chunk = task // rows
            row = task % rows
            offs = tl.arange(0, BLOCK)
            keys = tl.load(keys_ptr + row * n + offs, mask=offs < n, other=0)
            for p in range(0, n_passes):
                digits = (keys >> (p * BITS)) & (n_bins - 1)
                for b0 in range(0, n_bins, BIN_TILE):
                    bins = b0 + tl.arange(0, BIN_TILE)
                    counts = tl.sum((bins[:, None] == digits[None, :]).to(tl.int32), axis=1)
                    tl.store(hist_ptr + chunk * (rows * n_passes * n_bins) + row * (n_passes * n_bins) + p * n_bins
                             + bins, counts)


    def bucket_chunks(keys, bits):
        rows, n = keys.shape
        total_tasks = rows * 2
        num_progs = min(total_tasks, 64)
        n_passes = triton.cdiv(keys.element_size() * 8, bits)
        hist = torch.zeros((2, rows, n_passes, 2 ** bits), dtype=torch.int32, device=keys.device)
        BIN_TILE = 8
        chunked_bucket_kernel[(num_progs,)](keys, hist, n_passes, rows, n, total_tasks, num_progs,
                                            triton.next_power_of_2(n), BIN_TILE, bits)
        return hist


    def chunk_counts(keys):
        return bucket_chunks(keys, 2 if keys.dtype == torch.bool else 3)
""")


def test_a_persistent_kernel_runs_every_task_at_the_derived_end(tmp_path: Path) -> None:
    """A grid-stride loop over tasks (`range(pid, total_tasks, num_progs)`, the task split by `rows`): the
    launch's program count is the step, and every task reaches its own rows, the last one included."""
    path = tmp_path / "chunked_bucket.py"
    path.write_text(PERSISTENT)
    w = witness_line(path, 21, "TL102")
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "hist_ptr", w.evidence
    assert w.evidence["shape"]["BITS"] == 2 and w.evidence["elements_past"] == 4, w.evidence  # 4 bins, tile 8
    values = {a["name"]: a["value"] for a in (w.launch or {}).get("args", [])}
    assert values["num_progs"] == w.evidence["grid"][0], (values, w.evidence)


SPLIT_ROWS = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def split_bucket_kernel(keys_ptr, hist_ptr, n_passes, m, n, BLOCK: tl.constexpr, BIN_TILE: tl.constexpr,
                            BITS: tl.constexpr, ROWS_PER_SPLIT: tl.constexpr):
        split = tl.program_id(0)
        row_in_split = tl.program_id(1)
        row = split * ROWS_PER_SPLIT + row_in_split
        if row >= m:
            return
        n_bins: tl.constexpr = 1 << BITS
        offs = tl.arange(0, BLOCK)
        keys = tl.load(keys_ptr + row * n + offs, mask=offs < n, other=0)
        for p in range(0, n_passes):
            digits = (keys >> (p * BITS)) & (n_bins - 1)
            for b0 in range(0, n_bins, BIN_TILE):
                bins = b0 + tl.arange(0, BIN_TILE)
                counts = tl.sum((bins[:, None] == digits[None, :]).to(tl.int32), axis=1)
                tl.atomic_add(hist_ptr + row * n_passes * n_bins + p * n_bins + bins, counts, sem="relaxed")


    def split_counts(keys, bits):
        m, n = keys.shape
        n_passes = triton.cdiv(keys.element_size() * 8, bits)
        hist = torch.zeros((m, n_passes, 2 ** bits), dtype=torch.int32, device=keys.device)
        MAX_ROWS = 65535
        splits = (m + MAX_ROWS - 1) // MAX_ROWS
        ROWS_PER_SPLIT = triton.cdiv(m, splits)
        BIN_TILE = 8
        BLOCK = 64
        split_bucket_kernel[(splits, ROWS_PER_SPLIT)](keys, hist, n_passes, m, n, BLOCK, BIN_TILE, bits,
                                                      ROWS_PER_SPLIT)
        return hist


    def bucket_split_counts(keys):
        return split_counts(keys, 1 if keys.dtype == torch.bool else 3)
""")


def test_rows_split_over_two_program_axes_are_all_run(tmp_path: Path) -> None:
    """`row = split * ROWS_PER_SPLIT + row_in_split` over a grid `(splits, ROWS_PER_SPLIT)`: the second axis
    runs ROWS_PER_SPLIT programs and `m` is the rows the splits cover, so the last row's store is run."""
    path = tmp_path / "split_bucket.py"
    path.write_text(SPLIT_ROWS)
    w = witness_line(path, 22, "TL102")
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "hist_ptr", w.evidence
    assert w.evidence["shape"]["BITS"] == 1 and w.evidence["elements_past"] == 6, w.evidence  # 2 bins, tile 8
    values = {a["name"]: a["value"] for a in (w.launch or {}).get("args", [])}
    grid = w.evidence["grid"]
    assert grid[1] == values["ROWS_PER_SPLIT"] and values["m"] == grid[0] * grid[1], (grid, values)
