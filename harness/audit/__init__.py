"""`epi episodes audit`: a benchmark linter. It measures, for any episode file over any corpus, whether
the benchmark needs what it claims: figure values read from the image (not printed in text), search
beyond the cue's words, finals whose every condition binds and whose operands share their setting,
every paper used, no answer an option-picking rule guesses. Papers are read through the tools.
"""
from ._ambiguity import PlottedData
from ._model import AuditReport, Breakdown, CheckResult, Finding
from ._render import render_text
from ._run import audit_episodes
from ._training import (
    NotLearnable,
    TrainingSet,
    check_corpus,
    file_source,
    register_second_benchmark,
    second_benchmark,
    training_from_file,
)

__all__ = ["AuditReport", "Breakdown", "CheckResult", "Finding", "NotLearnable", "PlottedData", "TrainingSet",
           "audit_episodes", "check_corpus", "file_source", "register_second_benchmark", "render_text", "second_benchmark",
           "training_from_file"]
