"""The living episode generator (benchmark v3 and later versions, which extend it in place). The frozen v1 and
v2 generators are in `sandbox.legacy`; this package never imports them.

Deterministic from a seed. See episodes/README.md for how each set is made and what is checked.
"""
