"""Corpus v2 (`corpus-2.0`): plan (plan.py) from one set of facts (results.py), text (prose.py) whose claims
are checked (claims.py), fast charts (chart.py) and the build checks (checks.py). See episodes/README.md."""
