"""Corpus v3: papers with the habits of real ones (issue 26); see plan.py."""
