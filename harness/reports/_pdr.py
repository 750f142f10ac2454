"""PDR-style personalization (Personalized Deep Research, seed 002 sec. 4.1, app. E and the prompts of its appendix):
goal alignment, content alignment, presentation fit, actionability & practicality, scored in three judged stages.

1. Dimension weights w_d for this task and persona (sum 1).
2. Per dimension, 2-5 criteria written for this persona and task, each with a weight w_c (sum 1 per dimension).
   Both depend on the task and persona only, so they are cached once per (question, persona) and reused by every
   report written for it, in any run.
3. The report scored 0-10 on every criterion. S_d = sum_c w_c s_c, P-Score = sum_d w_d S_d (Eq. 1), 0-10.
"""
from __future__ import annotations

from typing import Any

from harness.episode import Persona
from harness.scoring.judge import Judge

from ._judge_io import number, persona_text, read_json, weights
from ._judged_model import PDR_DIMENSIONS, Criterion, PersonaDimension, PersonalizationScore

PROMPT_VERSION = "pdr-v1"
DEFINITIONS = {
    "goal_alignment": "Goal Alignment: how well the report addresses the user's explicit and implicit goals.",
    "content_alignment": "Content Alignment: the suitability of the report's topic, depth and breadth for the user's "
                         "knowledge and interests.",
    "presentation_fit": "Presentation Fit: the alignment of the report's language, structure and style with the "
                        "user's comprehension and preferences.",
    "actionability": "Actionability & Practicality: the extent to which the report offers practical value for the "
                     "user's decisions or actions.",
}
WEIGHT_SYSTEM = ("You are an expert evaluator of personalized research reports. You set how much each personalization "
                 "dimension matters for one research task and one user. Return only valid JSON.")
WEIGHT_USER = """<task>
{task}
</task>
<persona>
{persona}
</persona>
The evaluation uses four dimensions:
{definitions}
Analyse what this user needs from this task, then assign each dimension a weight; different tasks and users emphasise
different dimensions. The weights must sum to 1.
Output JSON with keys: goal_alignment, content_alignment, presentation_fit, actionability."""
CRITERIA_SYSTEM = ("You are an experienced evaluator of research reports. You turn an abstract personalization dimension "
                   "into concrete criteria tailored to one research task and one user persona, each with a weight and a "
                   "short explanation. Return only valid JSON.")
CRITERIA_USER = """<task>
{task}
</task>
<persona>
{persona}
</persona>
Dimension: {definition}
Write 2 to 5 criteria for this dimension only, tied to this user's role, expertise, interests, constraints and
context and to this task, not generic ones. Give each a weight (the weights sum to 1; criteria closest to the
persona weigh most) and a one-sentence explanation of why it matters for this user.
Output a JSON list: [{{"criterion": "...", "explanation": "...", "weight": 0.4}}, ...]"""
SCORE_SYSTEM = ("You are a strict, meticulous and objective evaluator of personalized research reports. You score a "
                "report on given criteria with precise scores and clear justifications. Return only valid JSON.")
SCORE_USER = """<task>
{task}
</task>
<persona>
{persona}
</persona>
<target_article>
{report}
</target_article>
<criteria_list>
{criteria}
</criteria_list>
Evaluate the article on each criterion in the list, in order: analyse how it meets the criterion for this user and
task, strengths and weaknesses, then give an integer score from 0 to 10 (0-2 very poor, 2-4 poor, 4-6 average,
6-8 good, 8-10 excellent).
Output one JSON object with the keys goal_alignment, content_alignment, presentation_fit, actionability, each a list
in the order of the criteria: [{{"criterion": "...", "analysis": "...", "target_score": 7}}, ...]"""
NUDGE = "Reply with the JSON asked for and nothing else."


def _criteria(reply: str) -> list[Criterion] | None:
    items = read_json(reply, list)
    if not isinstance(items, list) or not 1 <= len(items) <= 8:
        return None
    out: list[Criterion] = []
    for it in items:
        if not isinstance(it, dict) or not isinstance(it.get("criterion"), str) or not it["criterion"].strip():
            return None
        w = number(it.get("weight"), 0.0)
        if w is None:
            return None
        out.append(Criterion(text=it["criterion"].strip()[:500], explanation=str(it.get("explanation") or "")[:500], weight=w))
    total = sum(c.weight for c in out)
    if total <= 0:
        return None
    for c in out:
        c.weight /= total
    return out


def _scores(reply: str, plan: dict[str, list[Criterion]]) -> dict[str, list[tuple[float, str]]] | None:
    data: Any = read_json(reply, dict)
    if not isinstance(data, dict):
        return None
    out: dict[str, list[tuple[float, str]]] = {}
    for d, crits in plan.items():
        items = data.get(d)
        if not isinstance(items, list) or len(items) != len(crits):
            return None
        row = []
        for it in items:
            s = number(it.get("target_score"), 0.0, 10.0) if isinstance(it, dict) else None
            if s is None:
                return None
            row.append((s, str(it.get("analysis") or "")[:1000]))
        out[d] = row
    return out


def personalization(judge: Judge, task: str, persona: Persona, text: str) -> PersonalizationScore:
    """The P-Score of one report for its persona (criteria cached per task and persona)."""
    fill = {"task": task, "persona": persona_text(persona)}
    out = PersonalizationScore()
    w = judge.ask_parsed("report_pdr", judge.chat_body(WEIGHT_SYSTEM, WEIGHT_USER.format(
        definitions="\n".join(DEFINITIONS.values()), **fill)), lambda r: weights(read_json(r, dict), PDR_DIMENSIONS), NUDGE)
    plan: dict[str, list[Criterion]] = {}
    for d in PDR_DIMENSIONS:
        crits = judge.ask_parsed("report_pdr", judge.chat_body(CRITERIA_SYSTEM, CRITERIA_USER.format(
            definition=DEFINITIONS[d], **fill)), _criteria, NUDGE)
        if crits is None:
            out.error = f"no readable criteria for {d} from {judge.name} after a retry"
            return out
        plan[d] = crits
    if w is None:
        out.error = f"no readable dimension weights from {judge.name} after a retry"
        return out
    out.dimensions = {d: PersonaDimension(weight=w[d], criteria=plan[d]) for d in PDR_DIMENSIONS}
    listing = "\n".join(f"{d}:\n" + "\n".join(f"  {i + 1}. {c.text} (weight {c.weight:.2f}): {c.explanation}"
                                            for i, c in enumerate(plan[d])) for d in PDR_DIMENSIONS)
    scored = judge.ask_parsed("report_pdr", judge.chat_body(SCORE_SYSTEM, SCORE_USER.format(
        report=text, criteria=listing, **fill)), lambda r: _scores(r, plan), NUDGE)
    if scored is None:
        out.error = f"no readable criterion scores from {judge.name} after a retry"
        return out
    for d, dim in out.dimensions.items():
        for c, (s, why) in zip(dim.criteria, scored[d]):
            c.score, c.analysis = s, why
        dim.score = sum(c.weight * (c.score or 0.0) for c in dim.criteria)
    out.value = sum(dim.weight * (dim.score or 0.0) for dim in out.dimensions.values())
    return out
