"""Checks corpus v3 must pass after rendering; the build fails with the first broken one."""
from __future__ import annotations

from .model import GroundTruth

MIN_PAGES, MAX_PAGES = 4, 12


class CorpusCheckError(ValueError):
    """The rendered corpus breaks a rule; the message names the paper and the rule."""


def check_rendered(gt: GroundTruth) -> None:
    for p in gt.papers:
        if not MIN_PAGES <= (p.pages or 0) <= MAX_PAGES:
            raise CorpusCheckError(f"{p.id}: {p.pages} pages, outside {MIN_PAGES}-{MAX_PAGES}")
        for f in [*p.figures, *p.tables]:
            if f.page is None or f.bbox is None:
                raise CorpusCheckError(f"{p.id}: {type(f).__name__.removesuffix('GT').lower()} {f.n} was not placed")
