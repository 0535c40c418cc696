"""Child processes of a verification: a fresh exec, or a fork of a server with torch preloaded."""

from __future__ import annotations

import multiprocessing.context
import multiprocessing.process
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tritonlint.verify.trees import PKG_PARENT


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_child(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float,
               log: Path) -> tuple[str, int | None]:
    """Run a child in its own session; return ("ok"|"timeout", returncode). Kills it on Ctrl-C."""
    with open(log, "wb") as fh:
        # Its own process group, so a timeout or Ctrl-C kills whatever the harness spawned too.
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
            return "ok", rc
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            return "timeout", None
        except BaseException:
            _kill_group(proc)
            raise


_FORK_CTX: multiprocessing.context.ForkServerContext | None = None
_FORK_LOCK = threading.Lock()


class _HiddenMain:
    """Hide the caller's __main__ from multiprocessing while it starts a process.

    multiprocessing re-runs the parent's main script in the server and in each child (as
    __mp_main__); a script without an `if __name__ == "__main__"` guard would then start a
    verification inside every run. Our children need nothing from __main__.
    """

    def __enter__(self) -> None:
        self.main = sys.modules.get("__main__")
        self.saved = {k: getattr(self.main, k) for k in ("__file__", "__spec__") if hasattr(self.main, k)}
        if "__file__" in self.saved:
            delattr(self.main, "__file__")
        if "__spec__" in self.saved and self.main is not None:
            self.main.__spec__ = None  # multiprocessing reads it, so it must exist

    def __exit__(self, *exc: object) -> None:
        for k, v in self.saved.items():
            setattr(self.main, k, v)


def _forkserver() -> multiprocessing.context.ForkServerContext:
    """A multiprocessing context whose server has torch and triton imported once.

    Importing torch costs seconds; each harness run forks from this server instead of paying it
    again. Used for CPU runs only (CUDA and compute-sanitizer runs get a fresh exec).
    """
    global _FORK_CTX
    with _FORK_LOCK:
        if _FORK_CTX is None:
            ctx = multiprocessing.get_context("forkserver")
            assert isinstance(ctx, multiprocessing.context.ForkServerContext)
            ctx.set_forkserver_preload(["torch", "triton", "triton.language", "numpy",
                                        "tritonlint.verify.child"])
            # triton.language decorates its own helpers (tl.cdiv, reductions) at import time, in
            # interpreter mode only if TRITON_INTERPRET is set then: so the server, which
            # imports it once for all runs, must start with it set.
            from multiprocessing import forkserver

            old = os.environ.get("TRITON_INTERPRET")
            os.environ["TRITON_INTERPRET"] = "1"
            try:
                with _HiddenMain():
                    forkserver.ensure_running()
            finally:
                if old is None:
                    os.environ.pop("TRITON_INTERPRET", None)
                else:
                    os.environ["TRITON_INTERPRET"] = old
            _FORK_CTX = ctx
        return _FORK_CTX


def start_forked(target: Callable[..., object], args: tuple[object, ...]) -> multiprocessing.process.BaseProcess:
    """`target(*args)` started in a daemon process forked from the server that has torch and triton
    imported (the verifier's runs and the witness's share it)."""
    ctx = _forkserver()
    proc = ctx.Process(target=target, args=args, daemon=True)
    with _FORK_LOCK, _HiddenMain():
        proc.start()
    return proc


def run_forked(argv: list[str], cwd: Path, env: dict[str, str], timeout: float,
                log: Path) -> tuple[str, int | None]:
    from tritonlint.verify.child import forked_main

    proc = start_forked(forked_main, (argv, str(cwd), env, str(log)))

    def kill() -> None:
        if proc.pid is not None:  # started: it leads its own process group (forked_main's setsid)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proc.kill()
        proc.join(10)

    try:
        proc.join(timeout)
    except BaseException:
        kill()
        raise
    if proc.is_alive():
        kill()
        return "timeout", None
    return "ok", proc.exitcode


def child_env(device: str, sanitizer: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (env.get("PYTHONPATH"), PKG_PARENT) if x)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env.setdefault("CUDA_VISIBLE_DEVICES", "")
    else:
        env.pop("TRITON_INTERPRET", None)
    if sanitizer:
        # Without the caching allocator every tensor is its own cudaMalloc, so memcheck sees
        # overreads that would otherwise land inside a cached slab.
        env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
    return env


def tail(path: Path, n: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return ""

