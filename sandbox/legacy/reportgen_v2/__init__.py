"""The report benchmark over corpus v2 (episodes/sandbox-v2-report.jsonl, generator `reportgen-1.0`), frozen in
sandbox/legacy (byte for byte, never extended): `python -m sandbox.legacy.reportgen_v2`. The living report
generator (`sandbox.episodegen.report`, benchmark sandbox-v3-report on corpus v3) is its successor."""
from .report import DEFAULT_QUESTIONS, DEFAULT_SEED, GENERATOR_VERSION, MIN_CHANGE, ReportGenerationError, \
    change_share, generate_report_episodes, write_report_episodes

__all__ = ["DEFAULT_QUESTIONS", "DEFAULT_SEED", "GENERATOR_VERSION", "MIN_CHANGE", "ReportGenerationError",
           "change_share", "generate_report_episodes", "write_report_episodes"]
