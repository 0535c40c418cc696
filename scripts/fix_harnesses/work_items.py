"""attn-gym `compose_work_items_kernel` (work_items.py:218, the store of each range's summary).

What the host keeps (`compose_work_items`): `partials` and `out` are `[W, H, V + K, K]` and
`[R, H, V + K, K]` float32, the grid is `(R, H, (V + K) // 16)` with `BM = 16`, `K` the key dimension
(`tl.arange(0, K)`: a power of two), `range_ids` one range id per item. The candidate makes `V + K`
no multiple of 16 with the grid rounded up (the finding's partial row tile); the control keeps
`V + K` a multiple of 16. One item per range (`range_ids = 0, 1, ...`).
"""

from __future__ import annotations

from tritonlint.witness.synth import Arg, Launch

FILE = "attn-gym/attn_gym/linear/_delta_rule/triton/work_items.py"
KERNEL = "compose_work_items_kernel"
LINES = {218}


def _launch(v: int, k: int, label: str, rows_rounded_up: bool) -> Launch:
    w = h = 2
    packed = v + k
    tiles = -(-packed // 16) if rows_rounded_up else packed // 16
    args = [
        Arg("partials", "tensor", numel=w * h * packed * k),
        Arg("range_ids", "tensor", numel=w, dtype="int32", fill="index"),
        Arg("out", "tensor", numel=w * h * packed * k, fill="zeros"),
        Arg("W", "constexpr", value=w), Arg("W_PADDED", "constexpr", value=w), Arg("REVERSE", "constexpr", value=False),
        Arg("H", "constexpr", value=h), Arg("V", "constexpr", value=v), Arg("K", "constexpr", value=k),
        Arg("BM", "constexpr", value=16),
    ]
    return Launch(KERNEL, args, [w, h, tiles], "V", {"V": v, "K": k}, label)


def pairs() -> list[tuple[Launch, Launch]]:
    return [(_launch(24, 16, "V=24, K=16 (V+K=40), row tiles rounded up", True),
             _launch(32, 16, "V=32, K=16 (V+K=48)", True))]
