"""A decided mask to text: the shared mask sources, lane maps of unswizzling helpers, edits."""
