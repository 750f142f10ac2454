"""Judged claim extraction (issue 32 item 1): sentences the rules could not fully parse are read by an LLM judge,
which only extracts (PDR's claim-extraction pass, narrowed to the claim schema); whether a claim is true is still
decided by rules against the unit facts. What the judge returns is checked before it counts: every number must be
printed in the sentence, a subject or object must be a method the episode knows or the report names, the claim must
fit the schema; the citations are the sentence's own (parsed by rules), never the judge's."""
from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from harness.episode import Claim
from harness.scoring.judge import Judge
from harness.scoring.numbers import find_mentions
from tools import EvidenceUnit

from ._extract import ClaimExtractor, Sentence, _slack, _unique
from ._patterns import _SKIP_ROLES
from ._judge_io import number, read_json
from ._judged_model import JudgedExtraction
from ._lexicon import Lexicon, norm_name, quantity_aliases, setting_keywords

PROMPT_VERSION = "report-extract-v1"
SYSTEM = """You extract atomic factual claims from one sentence of a research report that compares methods from
scientific papers. You only extract what the sentence states; you never judge whether it is true.
A claim is a JSON object of one of three kinds:
- {"kind": "value", "subject": METHOD, "value": NUMBER}: the method's number;
- {"kind": "compare", "subject": METHOD, "object": METHOD, "relation": ">" or "<"}: the subject's raw number is
  higher (">") or lower ("<") than the object's, whichever is better (a lower FID is "<"); add "value" only when
  the sentence states the difference;
- {"kind": "rank", "subject": METHOD, "relation": "max" or "min"}: the subject has the highest or lowest raw
  number of the methods compared.
Optional keys: "quantity" (the metric or column), "dataset", "x_label" and "x" (a plotted setting, e.g.
"training epochs" and 100). Use the names from the lists given when they apply.
Rules: subjects and objects are methods. When the sentence names a method with a pronoun ("it", "its", "they"),
name the method the context refers to. Every number in "value" or "x" must be printed in the sentence. A bound
("under 6", "at most 40M parameters") is not a value. Opinions, recommendations and plans are not claims.
Reply with one JSON list of claims and nothing else; [] when the sentence states none."""
NUDGE = "Reply with one JSON list of claim objects and nothing else ([] if the sentence states no claim)."
_KINDS = {"value", "compare", "rank"}


def _canon(name: str, names: list[str], aliases: dict[str, str] | None = None) -> str | None:
    n = norm_name(name)
    for k in names:
        if norm_name(k) == n:
            return k
    return (aliases or {}).get(n)


class JudgedExtractor:
    """Asks a judge for the claims of each sentence the rules left something in; validates what comes back."""

    def __init__(self, judge: Judge, lex: Lexicon, report_text: str):
        self.judge, self.lex, self.text = judge, lex, report_text
        self.quantity_alias = {norm_name(a): q for q in lex.quantities for a in quantity_aliases(q)}
        self.setting_alias = {norm_name(k): x for x in lex.settings for k in setting_keywords(x)}
        self.record = JudgedExtraction(judge=judge.name, prompt_version=PROMPT_VERSION)

    def request(self, sent: Sentence, context: str) -> dict[str, Any]:
        lex = self.lex
        user = "\n".join([
            f"Methods: {'; '.join(lex.methods) or '(none listed)'}",
            f"Datasets: {'; '.join(lex.datasets) or '(none listed)'}",
            f"Quantities: {'; '.join(lex.quantities) or '(none listed)'}",
            f"Settings: {'; '.join(lex.settings) or '(none listed)'}",
            f"Context (the report before the sentence): {context or '(none)'}",
            f"Sentence: {sent.text.strip()}"])
        return self.judge.chat_body(SYSTEM, user)

    def claims(self, sent: Sentence, context: str, have: list[Claim]) -> list[Claim]:
        """The judge's claims of one sentence that pass the checks and are not already among `have`."""
        self.record.sentences += 1
        items = self.judge.ask_parsed("report_extract", self.request(sent, context),
                                      lambda r: read_json(r, list), NUDGE)
        if items is None:
            self.record.errors += 1
            return []
        printed = [(float(m.value), m) for m in find_mentions(sent.text) if m.role not in _SKIP_ROLES and m.role != "bound"]
        cites = [EvidenceUnit(paper=c.paper, unit=c.unit) for c in _unique(sent.cites)]
        out: list[Claim] = []
        for item in items[:40]:
            claim = self._claim(item, printed, cites, sent.text.strip())
            if claim is None:
                continue
            if any(_same(claim, c) for c in have + out):
                continue
            out.append(claim)
        self.record.claims += len(out)
        return out

    def _refuse(self, why: str) -> None:
        if len(self.record.refused) < 50:
            self.record.refused.append(why[:200])

    def _claim(self, item: Any, printed: list, cites: list[EvidenceUnit], sentence: str) -> Claim | None:  # noqa: ANN001
        if not isinstance(item, dict) or item.get("kind") not in _KINDS:
            self._refuse(f"not a claim object: {str(item)[:80]!r}")
            return None
        fields: dict[str, Any] = {"kind": item["kind"], "cites": cites, "sentence": sentence}
        for role in ("subject", "object"):
            name = item.get(role)
            if name is None or (role == "object" and item["kind"] != "compare"):
                continue
            if not isinstance(name, str) or not name.strip():
                self._refuse(f"{role} is not a name: {str(name)[:60]!r}")
                return None
            canon = _canon(name, self.lex.methods) or (name.strip() if name.strip().lower() in self.text.lower() else None)
            if canon is None:
                self._refuse(f"{role} {name[:60]!r} is neither a method of the episode nor named in the report")
                return None
            fields[role] = canon
        rel = item.get("relation", "=" if item["kind"] == "value" else None)
        if not isinstance(rel, str):
            self._refuse(f"relation {rel!r} is not one of = > < max min")
            return None
        fields["relation"] = rel
        for key, names, alias in (("quantity", list(self.lex.quantities), self.quantity_alias),
                                  ("dataset", self.lex.datasets, None), ("x_label", self.lex.settings, self.setting_alias)):
            v = item.get(key)
            if isinstance(v, str) and v.strip():
                fields[key] = _canon(v, names, alias) or (v.strip() if v.strip().lower() in sentence.lower() else None)
        for key in ("value", "x"):
            if item.get(key) is None:
                continue
            v = number(item.get(key))
            hit = next((m for p, m in printed if v is not None and math.isclose(p, v, rel_tol=1e-9, abs_tol=1e-9)), None)
            if hit is None:
                self._refuse(f"{key} {str(item.get(key))[:30]!r} is not a number the sentence prints")
                return None
            fields[key] = v
            if key == "value":
                fields["tolerance"] = _slack(hit.text)
                fields["unit"] = "%" if hit.unit is not None and hit.unit.kind == "percent" else None
        if fields.get("x") is None:
            fields.pop("x_label", None)
        try:
            return Claim.model_validate(fields)
        except ValidationError as e:
            self._refuse(f"does not fit the claim schema: {e.errors()[0]['msg']}")
            return None


def _same(a: Claim, b: Claim) -> bool:
    def eq(x: float | None, y: float | None) -> bool:
        return (x is None and y is None) or (x is not None and y is not None and math.isclose(x, y))

    return (a.kind == b.kind and norm_name(a.subject) == norm_name(b.subject) and norm_name(a.object or "") ==
            norm_name(b.object or "") and a.relation == b.relation and eq(a.value, b.value) and eq(a.x, b.x))


def judged_claims(extractor: ClaimExtractor, judged: JudgedExtractor, sentences: list[Sentence],
                  rule_claims: list[list[Claim]]) -> list[list[Claim]]:
    """Per sentence, the judge's extra claims (only for sentences with leftovers; two sentences of context)."""
    out: list[list[Claim]] = []
    for i, (sent, have) in enumerate(zip(sentences, rule_claims)):
        if not extractor.leftovers(sent, have):
            out.append([])
            continue
        context = " ".join(s.text.strip() for s in sentences[max(0, i - 2):i])[-1200:]
        out.append(judged.claims(sent, context, have))
    return out
