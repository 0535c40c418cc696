"""One piece of work done in a forked child while this process does another: the second core for
a huge file (the engine checks half of its kernel groups in the child).

The child inherits everything already computed (the outline, the launches) by `fork`, so nothing
is sent to it; its result comes back pickled through a pipe. Where forking is not possible or not
wise, `forking_possible` says so and the caller does all the work itself.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def forking_possible() -> bool:
    """Whether a child may be forked here: a system with `fork` and two cores for this process, in
    the main process of a run (a pool's worker already shares the cores with its siblings), with no
    other thread running (a fork copies only the calling thread: another's locks would stay held)."""
    if not hasattr(os, "fork") or multiprocessing.parent_process() is not None:
        return False
    if threading.active_count() > 1:
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2


class Forked(Generic[T]):
    """`work()` started in a forked child; `result()` waits for it: its value, or None when the child
    failed in any way (the caller then does that work itself)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self.pid = 0
        read, write = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            self.reader = -1
            return
        if self.pid == 0:  # the child: never returns
            os.close(read)
            code = 1
            try:
                data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)  # no atexit handlers, no flushing of the parent's buffers
        os.close(write)
        self.reader = read

    def result(self) -> T | None:
        if self.pid == 0 or self.reader < 0:
            return None
        with os.fdopen(self.reader, "rb") as pipe:
            data = pipe.read()  # read before waiting: a large result fills the pipe, the child waits for us
        _, status = os.waitpid(self.pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data:
            return None
        try:
            value: T = pickle.loads(data)
        except Exception:  # noqa: BLE001  (a result that does not load: the caller does the work)
            return None
        return value
