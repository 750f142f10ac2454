"""Run every check of the audit on a loaded episode set over a world, in a fixed order."""
from __future__ import annotations

from harness.episodes_io import EpisodeSet
from tools import World

from ._ambiguity import PlottedData, ambiguous_series
from ._learned import LearnedAudit
from ._model import AuditReport
from ._priors import answer_free_priors
from ._search import cue_paste_top1
from ._structure import (
    duplicate_turns,
    finals_on_own_replies,
    finals_without_figure,
    mixed_settings,
    repeats_across_episodes,
    unused_papers,
    vacuous_conditions,
)
from ._textual import figure_values_in_text, recurring_table_values
from ._texts import PaperReader
from ._training import TrainingSet


async def audit_episodes(episode_set: EpisodeSet, world: World, *, corpus: str, papers: dict[str, str | None],
                         plotted: PlottedData | None = None, training: TrainingSet | None = None,
                         training_why: str | None = None, learned: bool = True, advisory: bool = False) -> AuditReport:
    """Audit `episode_set` over `world`. `papers` maps every corpus paper id to its area (None if unknown);
    `plotted` (optional) is the corpus's plotted data, which lets the ambiguous-series check judge files
    without annotations. `training` is what the learned adversaries learn from (None: `training_why` says why
    they are not checked); `learned=False` leaves them out; `advisory` reports their broken thresholds
    without failing the audit."""
    eps = episode_set.episodes
    reader = PaperReader(world)
    checks = [
        await figure_values_in_text(eps, reader),
        await cue_paste_top1(eps, reader),
        vacuous_conditions(eps),
        mixed_settings(eps),
        unused_papers(eps),
        *finals_without_figure(eps),
        await answer_free_priors(eps, reader),
        duplicate_turns(eps),
        repeats_across_episodes(eps),
        finals_on_own_replies(eps),
        ambiguous_series(eps, plotted),
        await recurring_table_values(eps, reader, papers),
    ]
    if learned:
        checks += await LearnedAudit(eps, reader, papers, training, training_why, advisory).run()
    return AuditReport(file=str(episode_set.path), sha256=episode_set.sha256, episodes=len(eps),
                       turns=sum(len(e.turns) for e in eps), corpus=corpus, papers=len(papers), checks=checks,
                       learned_from=(training.origin if training else training_why) if learned else None)
