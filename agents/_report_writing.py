"""Writing a cited markdown report from claims: one sentence per claim, phrased in one of several ways
(chosen from the episode id, so a run is reproducible), each citation in the harness's one syntax.

The oracle writes the gold claim set; the heuristic and text-only agents write the claims they could read
themselves (table cells in memory). Nothing here knows whether a claim is true."""
from __future__ import annotations

import hashlib
import re

from harness.agent import ReportBrief
from harness.episode import Claim
from tools import EvidenceUnit

_LOWER_BETTER = re.compile(r"\bfid\b|\bwer\b|params|gflops|error|loss", re.I)
_THROUGHPUT = re.compile(r"^Throughput \((?P<unit>[^()]+)/s\)$")


def cite(units: list[EvidenceUnit]) -> str:
    parts = []
    for u in units:
        if u.unit == "text":
            parts.append(u.paper)
        else:
            kind, n = u.unit.split(":")
            parts.append(f"{u.paper}, {kind.capitalize()} {n}")
    return "[" + "; ".join(parts) + "]" if parts else ""


def number(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if not float(v).is_integer() else str(int(v))


def setting(x: float, x_label: str) -> str:
    base = re.sub(r"\s*\([^()]*\)\s*$", "", x_label)
    if base.startswith("number of "):
        return f"{x:g} {base.removeprefix('number of ')}"
    if "(%)" in x_label:
        return f"a {x:g}% {base}"
    if "(k)" in x_label:
        return f"{x:g}k {base}"
    if "(px)" in x_label:
        return f"{x:g} px {base}"
    return f"{x:g} {base}"


def _q(c: Claim) -> str:
    q = c.quantity or ""
    return {"Params (M)": "parameters", "Throughput (img/s)": "images per second"}.get(q, re.sub(r"\s*\(%\)$", "", q))


def _pick(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % n


def sentence(c: Claim, key: str) -> str:
    """One claim as a sentence with its citation; `key` picks the phrasing."""
    ref = cite(c.cites)
    on = f" on {c.dataset}" if c.dataset else ""
    pct = "%" if c.unit == "%" else ""
    at = f"At {setting(c.x, c.x_label)}, " if c.x is not None and c.x_label else ""
    if c.kind == "value" and c.value is not None:
        v = number(c.value)
        if c.quantity == "Params (M)":
            forms = [f"{c.subject} has {v} M parameters {ref}.", f"The efficiency table lists {v} M parameters for {c.subject} {ref}."]
        elif c.quantity == "GFLOPs":
            forms = [f"{c.subject} needs {v} GFLOPs per image {ref}.", f"The efficiency table lists {v} GFLOPs for {c.subject} {ref}."]
        elif c.quantity == "Throughput (img/s)":
            forms = [f"{c.subject} processes {v} images per second {ref}.", f"Throughput: {c.subject} runs at {v} img/s {ref}."]
        elif c.quantity and (tp := _THROUGHPUT.match(c.quantity)):  # sent/s, utt/s, graphs/s
            per = f"{tp.group('unit')}/s"
            forms = [f"{c.subject} has a throughput of {v} {per} {ref}.", f"Throughput: {c.subject} runs at {v} {per} {ref}.",
                     f"The efficiency table lists a throughput of {v} {per} for {c.subject} {ref}."]
        elif at:
            forms = [f"{at}{c.subject} reaches {v}{pct}{on} {ref}.", f"{at}{c.subject} is at {v}{pct} {_q(c)}{on} {ref}."]
        else:
            forms = [f"{c.subject} reaches {v}{pct}{on} {ref}.", f"On {c.dataset}, {c.subject} scores {v}{pct} {ref}."
                     if c.dataset else f"{c.subject} scores {v}{pct} {ref}.",
                     f"{c.subject} obtains {v}{pct} {_q(c)}{on} {ref}."]
        return forms[_pick(key, len(forms))]
    if c.kind == "compare" and c.object:
        up = c.relation == ">"
        better = up != bool(_LOWER_BETTER.search(c.quantity or ""))
        forms = [f"{at}{c.subject} {'outperforms' if better else 'trails'} {c.object}{on} {ref}.",
                 f"{at}{c.subject} has a {'higher' if up else 'lower'} {_q(c) or 'score'} than {c.object}{on} {ref}."]
        if not at and c.dataset:
            forms.append(f"On {c.dataset}, {c.subject} is {'ahead of' if better else 'behind'} {c.object} {ref}.")
        return forms[_pick(key, len(forms))]
    if c.kind == "rank":
        high = c.relation == "max"
        forms = [f"{at}{c.subject} has the {'highest' if high else 'lowest'} {_q(c) or 'score'}{on} {ref}."]
        return forms[0]
    return ""


def write_report(claims: list[Claim], brief: ReportBrief | None, key: str, title: str = "Findings") -> str:
    """A markdown report: a heading, who it is for, then one sentence per claim grouped by cited unit."""
    lines = [f"# {title}", ""]
    if brief is not None and brief.persona is not None:
        lines += [f"Written for a {brief.persona.role}; it keeps to the benchmark and constraints they gave.", ""]
    by_unit: dict[str, list[str]] = {}
    for i, c in enumerate(claims):
        label = cite(c.cites) or "uncited"
        by_unit.setdefault(label, []).append(sentence(c, f"{key}:{i}"))
    for label, sents in by_unit.items():
        lines += [" ".join(s for s in sents if s), ""]
    return "\n".join(lines).rstrip() + "\n"


_EFFICIENCY = ("Params (M)", "GFLOPs", "Throughput (img/s)")
_OPS = {"<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def _tables(memory: list) -> dict[tuple[str, int], tuple[list[str], list[list[str]], str]]:  # noqa: ANN001
    """(paper, n) -> (header, body rows, caption) of every table read without error, the latest read of each."""
    out: dict[tuple[str, int], tuple[list[str], list[list[str]], str]] = {}
    for o in memory:
        if o.tool != "table_extract" or o.error or not o.data or not o.data.get("rows"):
            continue
        rows = [list(map(str, r)) for r in o.data["rows"]]
        paper = next((p.paper for p in o.provenance), o.args.get("paper"))
        if paper and len(rows) > 1:
            out[(str(paper), int(o.data.get("n") or o.args.get("table") or 0))] = (rows[0], rows[1:], o.data.get("caption") or "")
    return out


def _num(s: str) -> float | None:
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def tables_report(memory: list, brief: ReportBrief | None, key: str) -> str:  # noqa: ANN001 - Observations
    """What an agent that reads only table text can report: each method's cell on the reader's dataset, the
    order of the first few, the efficiency column the reader constrains (or parameters), the reader's numeric
    constraints applied where an efficiency table gives the number. Figures are not read."""
    persona = brief.persona if brief else None
    dataset = next((str(c.value) for c in (persona.constraints if persona else []) if c.field == "dataset"), None)
    bounds = [(c.field, c.op, float(c.value)) for c in (persona.constraints if persona else [])
              if c.field in _EFFICIENCY and c.op in _OPS and isinstance(c.value, (int, float))]
    tables = _tables(memory)
    excluded: set[str] = set()
    for (paper, n), (head, rows, _) in tables.items():
        for field, op, bound in bounds:
            if field in head:
                i = head.index(field)
                excluded |= {r[0].removesuffix(" (ours)") for r in rows if len(r) > i and (v := _num(r[i])) is not None
                             and not _OPS[op](v, bound)}
    claims: list[Claim] = []
    for (paper, n), (head, rows, caption) in sorted(tables.items()):
        unit = [EvidenceUnit(paper=paper, unit=f"table:{n}")]
        if dataset and dataset in head:
            i = head.index(dataset)
            lower = bool(_LOWER_BETTER.search(caption))
            vals = {r[0].removesuffix(" (ours)"): v for r in rows if len(r) > i and (v := _num(r[i])) is not None}
            vals = {m: v for m, v in vals.items() if m not in excluded}
            for m, v in vals.items():
                claims.append(Claim(kind="value", subject=m, dataset=dataset, value=v, cites=unit))
            ranked = sorted(vals, key=lambda m: vals[m] if lower else -vals[m])
            for a, b in list(zip(ranked, ranked[1:]))[:3]:
                if vals[a] != vals[b]:
                    claims.append(Claim(kind="compare", subject=a, object=b, relation=">" if vals[a] > vals[b] else "<",
                                        dataset=dataset, cites=unit))
        elif any(c in head for c in _EFFICIENCY):
            col = next((f for f, _, _ in bounds if f in head), "Params (M)" if "Params (M)" in head else None)
            if col is None:
                continue
            i = head.index(col)
            for r in rows:
                m = r[0].removesuffix(" (ours)")
                if m not in excluded and len(r) > i and (v := _num(r[i])) is not None:
                    claims.append(Claim(kind="value", subject=m, quantity=col, value=v, cites=unit))
    return write_report(claims, brief, key)
