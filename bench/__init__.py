"""Benchmarks run by `make bench`: each module prints its figures and ratios."""
