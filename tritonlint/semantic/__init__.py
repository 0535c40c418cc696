"""Facts about one jit function and its launches: the stages every rule asks, in order."""
