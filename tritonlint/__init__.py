"""tritonlint: a static checker for Triton GPU kernels, with autofix and dynamic proof."""

__version__ = "0.1.0"
