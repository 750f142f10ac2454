"""epiharness: the harness that drives agents through episodes, records traces, scores and replays them."""

__version__ = "0.1.0"
