"""Cue paste: does the cue text, pasted verbatim into web_search, rank the target paper first? If it
mostly does, the benchmark tests template matching, not search skill.
"""
from __future__ import annotations

from harness.episode import Episode

from ._model import Breakdown, CheckResult, Finding, pct, rate_shown
from ._texts import PaperReader

MAX_CUE_PASTE_TOP1 = 35.0  # % of cue turns (issue 13)
MAX_QUERY_CHARS = 500  # web_search refuses longer queries


async def cue_paste_top1(episodes: list[Episode], reader: PaperReader) -> CheckResult:
    """The share of turns with a text cue whose verbatim cue puts the turn's paper first."""
    findings: list[Finding] = []
    total = first_total = first_hits = image_cues = 0
    for ep in episodes:
        for ti, turn in enumerate(ep.turns):
            cue = turn.cue
            if cue is None or turn.memory_only:
                continue
            if cue.image is not None:
                image_cues += 1
            if not (cue.text or "").strip():
                continue
            targets = {e.paper for e in turn.evidence}
            if not targets:
                continue
            total += 1
            first_total += ti == 0
            res = await reader.call("web_search", {"query": cue.text.strip()[:MAX_QUERY_CHARS], "k": 5})
            hits = (res.data or {}).get("hits") or [] if not res.is_error else []
            top = hits[0].get("paper_id") if hits else None
            if top in targets:
                first_hits += ti == 0
                findings.append(Finding(episode=ep.id, turn=ti + 1, message=f"cue {cue.text.strip()[:90]!r} ranks {top} first"))
    share = pct(len(findings), total)
    note = None
    if image_cues:
        note = (f"{image_cues} turn(s) have an image cue: only their text is pasted (the audit does not read the words "
                "inside an image)")
    return CheckResult(
        id="cue_paste_top1", title="cue pasted verbatim ranks the target first", count=len(findings), total=total,
        value=share, shown=rate_shown(len(findings), total), threshold=f"<= {MAX_CUE_PASTE_TOP1:g}% of cue turns",
        status="not checked" if total == 0 else ("fail" if share > MAX_CUE_PASTE_TOP1 else "pass"),
        breakdown=[Breakdown(label="turn 1", count=first_hits, total=first_total),
                   Breakdown(label="later turns", count=len(findings) - first_hits, total=total - first_total)],
        findings=findings, note=note)
