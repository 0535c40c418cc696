"""Tail tiles: TL101/TL102 (an unmasked access on a partial tile) and TL111/TL112 (kept from it by the host)."""
