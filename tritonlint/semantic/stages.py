"""Stages: what a fact provider or the reading of host predicates may ask of a jit function's context.

A protocol, so that the providers depend on the stages they read and not on the context that
builds them (the context satisfies it); the verdict stage extends it with what it asks besides.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from tritonlint.semantic.dataflow import Dataflow
from tritonlint.semantic.evaluator import Evaluator
from tritonlint.semantic.flags import FlagRecognizer
from tritonlint.semantic.host.launches import Launch
from tritonlint.semantic.ir import KernelIR
from tritonlint.semantic.walks import Walker


class Stages(Protocol):
    """The stages built before the verdicts, and the kernel's launches and lines."""

    ir: KernelIR
    flow: Dataflow
    ev: Evaluator
    walker: Walker
    flags: FlagRecognizer
    launches: list[Launch]

    def line_of(self, node: cst.CSTNode) -> int:
        """The file's line of a node of this kernel."""
        ...
