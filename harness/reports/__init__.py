"""Research reports with citations the harness can verify (issue 31): the citation syntax, the claim extractor,
deterministic verification against an episode's unit facts and the trace, and the report metrics; and (issue 32)
what a judge model adds, each number with the judge's calibration, and the report as people read it.

Public API: `parse_citations`, `extract_claims`, `Lexicon`, `lexicon_from_facts`, `score_report`,
`ReportScore`, `summarize_reports`, `ReportSummary`, `report_view`, `ReportView`, and the judged records
(`JudgedReport`, `JudgedReportSummary`, `Calibration`, `SupportAgreement`). The judge passes themselves
(`_judged.judge_report`, `_calibration`, `_judge_extract`, `_flae`, `_pdr`, `_support`) import the judge client
and are loaded when a judge is asked for.
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

from ._judged_model import Calibration, JudgedReport, JudgedReportSummary, SupportAgreement  # noqa: E402
from ._view import ReportView, report_view  # noqa: E402

__all__ += ["Calibration", "JudgedReport", "JudgedReportSummary", "SupportAgreement", "ReportView", "report_view"]
