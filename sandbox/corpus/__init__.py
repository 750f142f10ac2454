"""The sandbox corpus: the living generator (corpus v3, which later versions extend in place: plan.py, vocab.py,
results.py, prose.py, chart.py, layout.py with flow.py and floats.py, checks.py, habits.py) and the shared
infrastructure every version builds with (model.py, build.py, versions.py, add.py, select.py, identity.py,
stats.py). Corpus v1 and v2 are frozen in `sandbox.legacy`; only versions.py names them.
"""
