"""The hand-labelled claim sets of the report claim extractor (tests/harness/data/report_claims_*.json, issue 31
item 3) are well-formed: every field `bench/report_extractor.py` reads is present and typed, every claim is a valid
`harness.episode.Claim` over its context's names, its numbers are printed in its sentence, and its citations are
the sentence's citations written in the documented syntax (`[P0123, Figure 2]`, `[P0123, Table 1]`, `[P0123]`,
several in one bracket separated by `;`). A malformed copy of the newest set is refused, with the sentence and
field named. The extractor is never run here: these checks hold whatever it reads."""
from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness.episode import Claim

DATA_DIR = Path(__file__).resolve().parent / "data"
SETS = sorted(DATA_DIR.glob("report_claims_*.json"))
HELDOUT4 = DATA_DIR / "report_claims_heldout4.json"

CITE_PART = re.compile(r"P\d{3,}(?:, (?:Figure|Table) \d+)?")  # one citation inside a bracket
CITE_LABEL = re.compile(r"(P\d{3,}) (figure:\d+|table:\d+|text)")  # how a claim's `cites` writes it
TRIES_TO_CITE = re.compile(r"^\s*(P\s*\d|\d|[^\]]*\b(Figure|Fig\.?|Table)\s*\d)")
CONTEXT_FIELDS = {"papers": list, "methods": list, "datasets": list, "quantities": dict, "settings": list}
CLAIM_FIELDS = {"kind", "subject", "object", "relation", "value", "quantity", "dataset", "x_label", "x", "cites"}
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def citations_in(text: str) -> tuple[list[str], list[str]]:
    """The sentence's citations as claim labels ('P0123 table:1'), and its brackets that try to cite but are
    malformed."""
    labels: list[str] = []
    bad: list[str] = []
    for inner in re.findall(r"\[([^\]]*)\]", text):
        parts = [p.strip() for p in inner.split(";")]
        if not all(CITE_PART.fullmatch(p) for p in parts):
            if TRIES_TO_CITE.match(inner):
                bad.append(f"[{inner}]")
            continue
        for p in parts:
            paper, _, unit = p.partition(", ")
            kind, _, n = unit.partition(" ")
            label = f"{paper} {kind.lower()}:{n}" if unit else f"{paper} text"
            if label not in labels:
                labels.append(label)
    return labels, bad


def _numbers(text: str) -> list[float]:
    return [float(n) for n in NUMBER.findall(re.sub(r"(?<=\d),(?=\d{3}\b)", "", text))]


def _named(name: str, text: str) -> bool:
    """A method or dataset is named when its name, or its name without a '(...)' suffix, a ' baseline' suffix or
    its leading word ('test-other' for 'LibriSpeech test-other'), occurs in the sentence."""
    t = text.lower()
    n = name.lower()
    short = re.sub(r"\s*\([^)]*\)$", "", n)
    forms = {n, short, n.removesuffix(" baseline"), short.split(" ", 1)[-1] if " " in short else short}
    return any(f and f in t for f in forms)


def claim_set_problems(data: object) -> list[str]:
    """Every way a claim set is malformed, one line each naming the sentence, the claim and the field."""
    if not isinstance(data, dict):
        return ["the file is not a JSON object"]
    out = [f"missing top-level field {k!r}" for k in ("about", "contexts", "sentences") if k not in data]
    if out:
        return out
    if not isinstance(data["about"], str) or not data["about"].strip():
        out.append("'about' must say how the set was written")
    contexts = data["contexts"]
    for cid, ctx in contexts.items():
        for f, typ in CONTEXT_FIELDS.items():
            if not isinstance(ctx.get(f), typ):
                out.append(f"context {cid}: field {f!r} missing or not a {typ.__name__}")
        if out:
            continue
        for f in ("papers", "methods", "datasets", "settings"):
            if len(set(ctx[f])) != len(ctx[f]) or not all(isinstance(v, str) and v.strip() for v in ctx[f]):
                out.append(f"context {cid}: {f} must be distinct non-empty names")
        if not all(re.fullmatch(r"P\d{3,}", p) for p in ctx["papers"]):
            out.append(f"context {cid}: papers must be paper ids such as 'P0123'")
        if not all(isinstance(v, bool) for v in ctx["quantities"].values()):
            out.append(f"context {cid}: quantities map each name to higher-is-better (true/false)")
    if out:
        return out
    seen: set[str] = set()
    for i, s in enumerate(data["sentences"]):
        sid = s.get("id", f"sentences[{i}]")
        missing = [k for k in ("id", "context", "text", "claims") if k not in s]
        if missing:
            out.append(f"{sid}: missing field(s) {', '.join(missing)}")
            continue
        if sid in seen:
            out.append(f"{sid}: duplicate id")
        seen.add(sid)
        ctx = contexts.get(s["context"])
        if ctx is None:
            out.append(f"{sid}: unknown context {s['context']!r}")
            continue
        text = s["text"]
        cites, bad = citations_in(text)
        out += [f"{sid}: malformed citation {b} in the text" for b in bad]
        for c in cites:
            if c.split()[0] not in ctx["papers"]:
                out.append(f"{sid}: cites {c.split()[0]}, not a paper of context {s['context']}")
        numbers = _numbers(text)
        for j, cl in enumerate(s["claims"]):
            where = f"{sid} claim {j + 1}"
            extra = set(cl) - CLAIM_FIELDS
            if extra:
                out.append(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
            if "cites" not in cl or "kind" not in cl or "subject" not in cl:
                lacks = ", ".join(k for k in ("kind", "subject", "cites") if k not in cl)
                out.append(f"{where}: missing field(s) {lacks}")
                continue
            labels = [CITE_LABEL.fullmatch(c) if isinstance(c, str) else None for c in cl["cites"]]
            if not all(labels):
                out.append(f"{where}: cites {cl['cites']} do not all read 'P0123 figure:N|table:N|text'")
                continue
            if sorted(cl["cites"]) != sorted(cites):
                out.append(f"{where}: cites {sorted(cl['cites'])}, but the sentence cites {sorted(cites)}")
            try:
                Claim.model_validate({**{k: v for k, v in cl.items() if k != "cites"},
                                      "cites": [{"paper": m[1], "unit": m[2]} for m in labels if m]})
            except ValidationError as e:
                out.append(f"{where}: not a valid claim: {e.errors()[0]['msg']}")
                continue
            for f in ("subject", "object"):
                if cl.get(f) is not None and cl[f] not in ctx["methods"]:
                    out.append(f"{where}: {f} {cl[f]!r} is not a method of context {s['context']}")
                elif cl.get(f) is not None and not _named(cl[f], text):
                    out.append(f"{where}: {f} {cl[f]!r} is not named in the sentence")
            if cl.get("quantity") is not None and cl["quantity"] not in ctx["quantities"]:
                out.append(f"{where}: quantity {cl['quantity']!r} is not a quantity of context {s['context']}")
            if cl.get("dataset") is not None and cl["dataset"] not in ctx["datasets"]:
                out.append(f"{where}: dataset {cl['dataset']!r} is not a dataset of context {s['context']}")
            elif cl.get("dataset") is not None and not _named(cl["dataset"], text):
                out.append(f"{where}: dataset {cl['dataset']!r} is not named in the sentence")
            if (cl.get("x_label") is None) != (cl.get("x") is None):
                out.append(f"{where}: x_label and x go together")
            if cl.get("x_label") is not None and cl["x_label"] not in ctx["settings"]:
                out.append(f"{where}: x_label {cl['x_label']!r} is not a setting of context {s['context']}")
            for f in ("value", "x"):
                v = cl.get(f)
                if v is not None and not any(math.isclose(v, n, abs_tol=1e-9) for n in numbers):
                    out.append(f"{where}: {f} {v} is not printed in the sentence")
            if cl["kind"] == "compare" and cl.get("object") == cl["subject"]:
                out.append(f"{where}: a method compared with itself")
    return out


@pytest.mark.parametrize("path", SETS, ids=[p.name for p in SETS])
def test_every_hand_labelled_claim_set_is_well_formed(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert claim_set_problems(data) == []


def test_heldout4_is_a_new_held_out_set_of_at_least_70_sentences_over_five_new_contexts() -> None:
    data = json.loads(HELDOUT4.read_text(encoding="utf-8"))
    sentences = data["sentences"]
    assert len(sentences) >= 70 and len(data["contexts"]) >= 5
    empty = sum(1 for s in sentences if not s["claims"])
    assert 0.10 <= empty / len(sentences) <= 0.25  # sentences that state no checkable claim
    older = [json.loads(p.read_text(encoding="utf-8")) for p in SETS if p != HELDOUT4]
    fields = ("papers", "methods", "datasets")
    old_names = {n for d in older for c in d["contexts"].values() for f in fields for n in c[f]}
    new_names = {n for c in data["contexts"].values() for f in fields for n in c[f]}
    assert not new_names & old_names
    old_texts = {s["text"] for d in older for s in d["sentences"]}
    assert not {s["text"] for s in sentences} & old_texts


BREAKS = [
    # (what is broken, how, the problem it must produce)
    ("a claim without cites", lambda d: d["sentences"][0]["claims"][0].pop("cites"),
     "O01 claim 1: missing field(s) cites"),
    ("a cite label not in the documented form", lambda d: d["sentences"][0]["claims"][1].update(cites=["P0421 tab:1"]),
     "O01 claim 2: cites ['P0421 tab:1'] do not all read"),
    ("a malformed citation in the text",
     lambda d: d["sentences"][0].update(text=d["sentences"][0]["text"].replace("[P0421, Table 1]", "[P0421 Table 1]")),
     "O01: malformed citation [P0421 Table 1] in the text"),
    ("a claim citing less than its sentence",
     lambda d: _sentence(d, "O16")["claims"][0].update(cites=["P0421 table:1"]),
     "O16 claim 1: cites ['P0421 table:1'], but the sentence cites ['P0421 table:1', 'P0421 table:2']"),
    ("a citation of a paper outside the context",
     lambda d: d["sentences"][0].update(text=d["sentences"][0]["text"].replace("P0421", "P0999")),
     "O01: cites P0999, not a paper of context O"),
    ("an unknown subject", lambda d: d["sentences"][0]["claims"][0].update(subject="QuilConformer"),
     "O01 claim 1: subject 'QuilConformer' is not a method of context O"),
    ("a subject the sentence does not name", lambda d: d["sentences"][0]["claims"][0].update(subject="FennelRNNT"),
     "O01 claim 1: subject 'FennelRNNT' is not named in the sentence"),
    ("a misspelt field", lambda d: d["sentences"][0]["claims"][0].update(datset="TED-LIUM 3"),
     "O01 claim 1: unknown field(s) datset"),
    ("a setting not printed in the sentence", lambda d: _sentence(d, "O09")["claims"][0].update(x=100),
     "O09 claim 1: x 100 is not printed in the sentence"),
    ("a value not printed in the sentence", lambda d: d["sentences"][0]["claims"][1].update(value=1.8),
     "O01 claim 2: value 1.8 is not printed in the sentence"),
    ("a compare claim without an object", lambda d: _sentence(d, "O05")["claims"][0].pop("object"),
     "O05 claim 1: not a valid claim: Value error, a compare claim has relation '>' or '<' and an object"),
    ("a dataset outside the context", lambda d: d["sentences"][0]["claims"][0].update(dataset="LibriSpeech dev-clean"),
     "O01 claim 1: dataset 'LibriSpeech dev-clean' is not a dataset of context O"),
    ("a setting without its axis", lambda d: _sentence(d, "O09")["claims"][0].pop("x_label"),
     "O09 claim 1: x_label and x go together"),
    ("a duplicate id", lambda d: d["sentences"][1].update(id="O01"), "O01: duplicate id"),
    ("a sentence without claims field", lambda d: d["sentences"][2].pop("claims"), "O03: missing field(s) claims"),
    ("an unknown context", lambda d: d["sentences"][0].update(context="Z"), "O01: unknown context 'Z'"),
    ("a context without settings", lambda d: d["contexts"]["O"].pop("settings"), "context O: field 'settings' missing"),
    ("no sentences", lambda d: d.pop("sentences"), "missing top-level field 'sentences'"),
]


def _sentence(d: dict, sid: str) -> dict:
    return next(s for s in d["sentences"] if s["id"] == sid)


@pytest.mark.parametrize("what,break_it,problem", BREAKS, ids=[b[0] for b in BREAKS])
def test_a_malformed_copy_of_heldout4_is_refused_naming_the_sentence_and_field(  # noqa: ANN001
        what, break_it, problem) -> None:
    good = json.loads(HELDOUT4.read_text(encoding="utf-8"))
    bad = copy.deepcopy(good)
    break_it(bad)
    found = claim_set_problems(bad)
    assert any(p.startswith(problem) for p in found), (what, found)


def test_citations_are_read_in_the_documented_syntax_only() -> None:
    assert citations_in("A [P0123, Figure 2] and [P0123, Table 1; P0456] and [P0123].") == (
        ["P0123 figure:2", "P0123 table:1", "P0456 text", "P0123 text"], [])
    malformed = citations_in("as shown [12] or [P0123 Fig 2] or [P0123, figure 2]")[1]
    assert malformed == ["[12]", "[P0123 Fig 2]", "[P0123, figure 2]"]
    assert citations_in("an aside [sic] is no citation") == ([], [])
