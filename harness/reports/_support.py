"""Claim support judged against the cited source (issue 32 item 2; MiroEval / PDR's FACT-style verification): for
every (claim, cited unit) pair, an LLM judge reads the claim and the text the agent saw of that unit (the results of
the tool calls that exposed it, from the trace) and answers SUPPORTED or UNSUPPORTED. In the live world this is the
only verdict there is; in the sandbox the unit facts give the deterministic one beside it, which is what
`epi agreement --on support` compares. A unit the trace shows was never opened has no text to read: no verdict
("cited but unread"), and the claim counts as unsupported in the judged FA, as PDR counts unknown as 0."""
from __future__ import annotations

import re

from harness.scoring.judge import Judge
from harness.trace_fold import EpisodeFold

from ._judge_io import describe_claim
from ._judged_model import SupportJudgement
from ._model import ReportScore
from ._opened import opened_calls
from ._verify import FactBook

PROMPT_VERSION = "report-support-v1"
MAX_SOURCE_CHARS = 12_000
SYSTEM = """You check one claim of a research report against the source it cites (claim-level fact verification).
You are given the report sentence, the claim read from it, and the text of the cited source exactly as the report's
author saw it. Answer SUPPORTED when the source states what the claim says: the same method or methods, the same
dataset and setting where the claim names them, and a number that agrees up to the precision the report printed
(66 holds for 66.04). Answer UNSUPPORTED when the source contradicts the claim or does not state it. Use only the
source text given, never what you know otherwise.
Reply with exactly one word on the first line: SUPPORTED or UNSUPPORTED."""
NUDGE = "Reply with exactly one word on the first line: SUPPORTED or UNSUPPORTED."
_VERDICT = re.compile(r"^(?:verdict|answer|label)?\s*[:\-]?\s*(UNSUPPORTED|SUPPORTED|NOT\s+SUPPORTED)\b", re.I)


def parse_support(text: str | None) -> bool | None:
    """SUPPORTED -> True, UNSUPPORTED (or NOT SUPPORTED) -> False, from the first line after any reasoning."""
    from harness.scoring.answer_text import strip_reasoning

    if not text:
        return None
    first = next((ln for ln in strip_reasoning(text).splitlines() if ln.strip()), "")
    m = _VERDICT.match(re.sub(r"[*_`#>]", "", first).strip())
    return None if m is None else m.group(1).upper() == "SUPPORTED"


def source_texts(fold: EpisodeFold, upto: int) -> dict[tuple[str, str], str]:
    """What the agent saw of each unit up to turn `upto`: the text of every call that exposed it, in trace order."""
    seen: dict[tuple[str, str], list[str]] = {}
    for _, ev, keys in opened_calls(fold, upto):
        if not ev.result_text:
            continue
        for k in keys:
            texts = seen.setdefault(k, [])
            if ev.result_text not in texts:
                texts.append(ev.result_text)
    return {k: "\n\n".join(v)[:MAX_SOURCE_CHARS] for k, v in seen.items()}


def unit_kind(unit: str) -> str:
    return unit.split(":")[0] if ":" in unit else "text"


class SupportJudge:
    """FACT-style support verdicts for the cited claims of one report."""

    def __init__(self, judge: Judge):
        self.judge = judge

    def request(self, sentence: str, claim_text: str, unit_label: str, source: str) -> dict:
        user = (f"Report sentence: {sentence}\nClaim: {claim_text}\nCited source: {unit_label}\n"
                f"Source text:\n<<<\n{source}\n>>>")
        return self.judge.chat_body(SYSTEM, user)

    def judge_report(self, score: ReportScore, sources: dict[tuple[str, str], str],
                     book: FactBook | None) -> list[SupportJudgement]:
        out: list[SupportJudgement] = []
        for i, d in enumerate(score.details):
            for u in d.claim.cites:
                rules = None if book is None else book.check(d.claim, u.paper, u.unit) == "supported"
                j = SupportJudgement(claim=i, unit=u.label(), rules=rules, kind=unit_kind(u.unit))
                text = sources.get(u.key)
                if text is None:
                    j.why = "cited but unread: the trace shows no call that opened it"
                else:
                    body = self.request(d.claim.sentence or "", describe_claim(d.claim), u.label(), text)
                    j.judged = self.judge.ask_parsed("report_support", body, parse_support, NUDGE)
                    if j.judged is None:
                        j.why = "judge error: no SUPPORTED / UNSUPPORTED after a retry"
                out.append(j)
        return out
