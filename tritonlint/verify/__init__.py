"""Dynamic verification of fixes: run original and fixed kernels, poisoned, and compare."""
