"""Research reports with citations the harness can verify (issue 31): the citation syntax, the claim extractor,
deterministic verification against an episode's unit facts and the trace, and the report metrics.

Public API: `parse_citations`, `extract_claims`, `Lexicon`, `lexicon_from_facts`, `score_report`,
`ReportScore`, `summarize_reports`, `ReportSummary`.
"""
from __future__ import annotations

from ._citations import Citation, CitationProblem, parse_citations
from ._extract import ClaimExtractor, extract_claims, split_sentences
from ._lexicon import Lexicon, lexicon_from_facts

__all__ = ["Citation", "CitationProblem", "parse_citations", "ClaimExtractor", "extract_claims", "split_sentences",
           "Lexicon", "lexicon_from_facts"]

from ._model import ClaimVerdict, ReportMetric, ReportScore, ReportSummary  # noqa: E402
from ._score import covers, score_report  # noqa: E402
from ._summary import METRICS, report_section, report_table, summarize_reports  # noqa: E402
from ._verify import FactBook, check_in_unit  # noqa: E402

__all__ += ["ClaimVerdict", "ReportMetric", "ReportScore", "ReportSummary", "covers", "score_report", "METRICS",
            "report_section", "report_table", "summarize_reports", "FactBook", "check_in_unit"]
