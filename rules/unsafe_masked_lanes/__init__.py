"""TL105: a masked load whose switched-off lanes reach a reduction with a value that changes it."""
