"""Readers of the report benchmark (PDR-style personas): role, expertise, what they care about, context, and
constraints limited to what the corpus encodes (a dataset; a Params, GFLOPs or throughput bound; a year).

Each archetype names the extra constraint it brings (`extra`: params, gflops, throughput, year or None); the
generator fills in the dataset and a threshold the episode's tables make binding."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Archetype:
    key: str
    role: str
    expertise: str
    cares_about: tuple[str, ...]
    context: str  # "{dataset}" is filled in
    extra: str | None


ARCHETYPES: tuple[Archetype, ...] = (
    Archetype("edge", "embedded ML engineer", "ships vision models to battery-powered devices",
              ("model size", "accuracy on their benchmark"),
              "Their devices hold small models only, and they evaluate everything on {dataset}.", "params"),
    Archetype("serving", "inference platform lead", "runs models behind a latency budget in production",
              ("images per second", "accuracy"), "Their service must sustain high throughput; their data resembles {dataset}.",
              "throughput"),
    Archetype("startup", "startup CTO", "pays for every GPU hour herself", ("compute cost", "accuracy"),
              "She can afford little compute per image and benchmarks on {dataset}.", "gflops"),
    Archetype("phd", "first-year PhD student", "writing the related-work section of a thesis",
              ("recent methods", "exact numbers to quote"), "The thesis covers work from recent years, measured on {dataset}.",
              "year"),
    Archetype("maintainer", "benchmark maintainer", "curates a public leaderboard", ("exact scores", "rankings"),
              "They update the {dataset} leaderboard and need every score with its source.", None),
    Archetype("reviewer", "conference reviewer", "checks whether a submission compares against recent baselines",
              ("recent baselines", "fair comparisons"), "The submission under review reports on {dataset}.", "year"),
    Archetype("product", "applied scientist in a product team", "adapts published models to a product",
              ("a model that fits the product's memory", "accuracy"),
              "The product's model must stay small; their evaluation set is {dataset}.", "params"),
    Archetype("robotics", "robotics engineer", "runs perception on a robot in real time", ("speed", "robustness"),
              "The robot needs many frames per second; the closest benchmark to their data is {dataset}.", "throughput"),
    Archetype("teacher", "university lecturer", "prepares a lecture on the state of the art",
              ("a clear ranking", "the gaps between methods"), "The lecture uses {dataset} as its running example.", None),
    Archetype("lead", "research team lead", "picks the baseline a new project starts from",
              ("the strongest method", "how methods behave with little training"),
              "The project will be evaluated on {dataset}.", None),
    Archetype("mobile", "mobile app developer", "runs models on phones", ("compute per image", "accuracy"),
              "Phones limit the compute per image; the app's task is closest to {dataset}.", "gflops"),
    Archetype("journalist", "technology journalist", "explains research to a general audience",
              ("what changed recently", "plain comparisons"), "The article is about progress on {dataset}.", "year"),
)

FIELD = {"params": "Params (M)", "gflops": "GFLOPs", "throughput": "Throughput (img/s)"}


def constraint_text(kind: str, value: float | str) -> str:
    v = f"{value:g}" if isinstance(value, (int, float)) else value
    return {
        "dataset": f"only results on {v} matter to them",
        "params": f"models of at most {v}M parameters",
        "gflops": f"at most {v} GFLOPs per image",
        "throughput": f"at least {v} images per second",
        "year": f"only methods published in {v} or later",
    }[kind]
