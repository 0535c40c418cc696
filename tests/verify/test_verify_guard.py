"""Interpreter guard: exact out-of-bounds detection, fill poisoning and dropped stores, in-process."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.verify.interpreter_guard import InterpreterGuard, fill_scalar  # noqa: E402

KERNELS = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def load_tail(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, x, mask=offs < N)


    @triton.jit
    def load_masked(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
        tl.store(y_ptr + offs, x, mask=offs < N)


    @triton.jit
    def store_tail(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < N, other=1.0)
        tl.store(y_ptr + offs, x)


    @triton.jit
    def block_ptr_tail(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        blk = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
        x = tl.load(blk)
        tl.store(y_ptr + tl.arange(0, BLOCK), x)


    @triton.jit
    def load_before(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK) - 3
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + tl.arange(0, BLOCK), x)
''')


@pytest.fixture
def kernels(tmp_path, monkeypatch):
    # TRITON_INTERPRET is read when @triton.jit runs, so the module is imported after setting it.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    path = tmp_path / "guard_kernels.py"
    path.write_text(KERNELS)
    name = f"guard_kernels_{id(tmp_path)}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    yield mod, str(path)
    sys.modules.pop(name, None)


def test_unmasked_tail_load_reported_with_line_tensor_and_count(kernels):
    mod, path = kernels
    x = torch.arange(100, dtype=torch.float32)
    y = torch.zeros(100)
    with InterpreterGuard(fill=0xFF) as g:
        mod.load_tail[(4,)](x, y, 100, BLOCK=32)
    (v,) = g.violations
    assert v.path == path
    assert v.line == KERNELS.splitlines().index("    x = tl.load(x_ptr + offs)") + 1
    assert (v.kind, v.tensor, v.direction, v.kernel) == ("load", "x_ptr", "after", "load_tail")
    assert v.max_elements == 28 and v.min_elements == 1 and v.lanes == 28
    assert v.tensor_elements == 100
    assert torch.equal(y, x)  # the in-bounds results still reach the caller
    assert g.launches == {(path, "load_tail"): 1}


def test_masked_load_not_reported(kernels):
    mod, _ = kernels
    x = torch.arange(100, dtype=torch.float32)
    y = torch.zeros(100)
    with InterpreterGuard(fill=0xFF) as g:
        mod.load_masked[(4,)](x, y, 100, BLOCK=32)
    assert g.violations == []
    assert torch.equal(y, x)


def test_out_of_bounds_loads_read_the_fill(kernels):
    mod, _ = kernels
    x = torch.arange(8, dtype=torch.float32)
    y = torch.zeros(16)  # big enough to receive the poisoned lanes
    for fill, expect in ((0x00, 0.0), (0x3F, fill_scalar(0x3F, torch.zeros(1).numpy().dtype))):
        with InterpreterGuard(fill=fill):
            mod.load_tail[(1,)](x, y, 16, BLOCK=16)
        assert torch.equal(y[:8], x)
        assert torch.all(y[8:] == float(expect))
    with InterpreterGuard(fill=0xFF):
        mod.load_tail[(1,)](x, y, 16, BLOCK=16)
    assert torch.isnan(y[8:]).all() and not torch.isnan(y[:8]).any()


def test_out_of_bounds_store_dropped_and_reported(kernels):
    mod, path = kernels
    buf = torch.full((20,), -5.0)
    y = buf[:10]  # a view: its storage is the whole buffer, so lanes 10..15 are in bounds
    x = torch.ones(10)
    with InterpreterGuard() as g:
        mod.store_tail[(1,)](x, y, 10, BLOCK=32)
    (v,) = g.violations
    assert (v.kind, v.tensor, v.max_elements, v.lanes) == ("store", "y_ptr", 12, 12)
    assert torch.all(buf[:10] == 1.0)
    assert torch.all(buf[10:] == 1.0)  # inside the storage: written, as on a GPU


def test_underrun_reported_before_start(kernels):
    mod, _ = kernels
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    with InterpreterGuard(fill=0) as g:
        mod.load_before[(1,)](x, y, 16, BLOCK=16)
    (v,) = g.violations
    assert (v.direction, v.tensor, v.max_elements, v.lanes) == ("before", "x_ptr", 3, 3)
    assert torch.equal(y[3:], x[:13]) and torch.all(y[:3] == 0)


def test_adjacent_allocations_still_attributed(kernels):
    # Small CPU tensors are often adjacent on the heap; the arena keeps them apart.
    mod, _ = kernels
    for _ in range(5):
        x = torch.arange(30, dtype=torch.float32)
        y = torch.zeros(30)
        with InterpreterGuard() as g:
            mod.load_tail[(1,)](x, y, 30, BLOCK=32)
        assert [(v.tensor, v.max_elements) for v in g.violations] == [("x_ptr", 2)]


def test_uninstall_restores_interpreter(kernels):
    from triton.runtime import interpreter as interp

    before = (interp.InterpreterBuilder.create_masked_load, interp.GridExecutor.__call__)
    with InterpreterGuard():
        assert interp.InterpreterBuilder.create_masked_load is not before[0]
    assert (interp.InterpreterBuilder.create_masked_load, interp.GridExecutor.__call__) == before


def test_block_pointer_load_without_boundary_check(kernels):
    # Block pointers hand the interpreter a bare numpy mask, not a TensorHandle.
    mod, path = kernels
    x = torch.arange(8, dtype=torch.float32)
    y = torch.zeros(16)
    with InterpreterGuard(fill=0xFF) as g:
        mod.block_ptr_tail[(1,)](x, y, 8, BLOCK=16)
    assert torch.equal(y[:8], x) and torch.isnan(y[8:]).all()
    (v,) = g.violations
    assert v.kind == "load" and v.tensor == "x_ptr" and v.max_elements == 8
