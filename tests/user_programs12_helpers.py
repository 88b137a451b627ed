"""A helper module for tests/user_programs12_r.py: a global another module rebinds."""
import math

K = 2.0


def helper(x):
    return K * math.sin(x)


class Box:
    scale = 1.0
