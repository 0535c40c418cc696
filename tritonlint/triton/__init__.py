"""The shared model of a Triton kernel: what every rule queries."""
