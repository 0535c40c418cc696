"""TL103: an evenness flag set by a predicate that does not imply full tiles."""
