"""Corpus v2 (`corpus-2.0`): plan (plan.py) from one set of facts (results.py), text (prose.py) whose claims
are checked (claims.py), fast charts (chart.py) and the build checks (checks.py); laid out by corpus v1's layout.
Frozen in sandbox/legacy: rebuilt byte for byte, never extended. See episodes/README.md."""
