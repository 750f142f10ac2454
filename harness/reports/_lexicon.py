"""The names a report's claims are about, read from the episode's unit facts: methods, datasets, quantities
(metrics and table columns, each with whether higher is better) and swept settings, with the ways reports
write them ("ImageNet-1K" for "ImageNet-1K (linear)", "parameters" for "Params (M)", "50k iterations" for
"training iterations (k)"). The extractor finds mentions with it; it never decides what is true."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.episode import PaperFacts, UnitFacts

# Words reports use for the efficiency columns and common metrics (domain vocabulary, not sentence templates).
QUANTITY_WORDS: dict[str, list[str]] = {
    "params": ["parameters", "parameter count", "params", "param"],
    "gflops": ["gflops", "gflop", "flops"],
    "throughput": ["throughput", "images per second", "images/s", "images / s", "img/s", "images/sec", "imgs/s"],
    "top-1": ["top-1 accuracy", "top-1 acc", "top-1"],
    "accuracy": ["accuracy", "acc"],
    "miou": ["miou"],
    "ap": ["box ap", "ap"],
    "fid": ["fid"],
}
# Common metrics of many ML fields, by the acronym papers print and the words reports write for it (either may be the
# episode's name; the other is an alias). An acronym alias is matched with its case ("IS" is no "is").
METRIC_SYNONYMS: dict[str, list[str]] = {
    "WER": ["word error rate", "word-error rate", "word error"], "CER": ["character error rate", "char error rate"],
    "PER": ["phone error rate", "phoneme error rate"], "RTF": ["real-time factor", "real time factor", "realtime factor"],
    "BLEU": ["bleu score", "bleu points"], "chrF": ["chrf score", "character f-score"], "TER": ["translation edit rate"],
    "FID": ["frechet inception distance", "fréchet inception distance", "frechet distance", "fréchet distance"],
    "KID": ["kernel inception distance"], "IS": ["inception score"],
    "PSNR": ["peak signal-to-noise ratio", "peak signal to noise ratio"], "SSIM": ["structural similarity"],
    "LPIPS": ["perceptual distance"], "mAP": ["mean average precision"], "AP": ["average precision"],
    "AUC": ["area under the curve"], "AUROC": ["area under the roc curve", "roc auc", "roc-auc"],
    "MAE": ["mean absolute error"], "MSE": ["mean squared error", "mean square error"],
    "RMSE": ["root mean squared error", "root-mean-square error"], "MRR": ["mean reciprocal rank"],
    "NDCG": ["normalized discounted cumulative gain", "ndcg score"], "EM": ["exact match", "exact-match"],
    "F1": ["f1 score", "f1-score", "f-score", "f-measure", "f1"], "mIoU": ["mean iou", "mean intersection over union",
                                                                        "mean intersection-over-union"],
    "IoU": ["intersection over union", "intersection-over-union"], "PPL": ["perplexity"],
    "NLL": ["negative log-likelihood", "negative log likelihood"], "BPC": ["bits per character"],
    "EER": ["equal error rate"], "PQ": ["panoptic quality"], "SDR": ["signal-to-distortion ratio"],
    "SI-SNR": ["scale-invariant snr"], "FPS": ["frames per second", "frames/s", "frames/sec"],
    "DSC": ["dice score", "dice coefficient", "dice"], "HR": ["hit rate", "hit ratio"], "OA": ["overall accuracy"], "MOS": ["mean opinion score"], "ECE": ["expected calibration error"],
}
# What reports write for the counted item of a throughput unit ("utt/s" -> "utterances per second").
UNIT_NOUNS = {"utt": "utterance", "utts": "utterance", "sent": "sentence", "sents": "sentence", "img": "image",
              "imgs": "image", "im": "image", "tok": "token", "toks": "token", "seq": "sequence", "seqs": "sequence",
              "doc": "document", "docs": "document", "ex": "example", "req": "request", "reqs": "request",
              "fr": "frame", "vid": "video", "clip": "clip", "sample": "sample", "samples": "sample", "graph": "graph",
              "graphs": "graph", "node": "node", "nodes": "node", "query": "query", "queries": "query", "frames": "frame",
              "images": "image", "tokens": "token", "words": "word", "word": "word", "step": "step", "steps": "step",
              "episodes": "episode", "molecules": "molecule", "patches": "patch", "points": "point", "scenes": "scene"}
# Nouns that end a metric's name ("word error rate", "signal-to-noise ratio"): the last word of an acronym's expansion.
METRIC_HEADS = ("rate", "ratio", "score", "error", "distance", "accuracy", "precision", "recall", "factor", "index",
                "measure", "loss", "quality", "similarity", "gain", "rank", "likelihood", "divergence", "time", "curve",
                "overlap", "match", "coefficient", "correlation", "deviation", "success")
_ACRONYM = re.compile(r"^(?=(?:[^A-Z]*[A-Z]){2})[A-Za-z][A-Za-z0-9]{1,5}$")
_SMALL_WORDS = r"(?:(?:to|of|over|the|per|and|under|in)[\s\-]+)?"
_TIME_NAME = re.compile(r"(?<![\w-])(?:latency|time|duration|hours|gpu-hours|runtime|wall-?clock)(?![\w-])|\((?:ms|s|h|min|sec)\)")
# quantities of a model's cost, measured per model, not per dataset; lower is better unless a table says otherwise
COST_FAMILIES = ("params", "gflops", "throughput", "time", "rtf", "memory")
# Superlatives that imply their quantity when the sentence names none.
IMPLIED_QUANTITY = {"lightest": "params", "heaviest": "params", "fastest": "throughput", "slowest": "throughput",
                    "cheapest": "gflops"}
_PAREN = re.compile(r"\s*\([^()]*\)\s*$")
_SUFFIX = re.compile(r"\s*\((?:ours|full)\)\s*$", re.I)


def norm_name(s: str) -> str:
    """A method or dataset name compared loosely: case, '(ours)', possessive, dashes and spaces ignored."""
    s = _SUFFIX.sub("", s.strip())
    s = re.sub(r"['’]s$", "", s)
    return re.sub(r"[\s\-_]+", "", s.lower())


def quantity_family(name: str) -> str | None:
    low = name.lower()
    if _TIME_NAME.search(low):
        return "time"  # a cost measured in time ("decoding latency (ms)", "training time per epoch (s)")
    if re.search(r"(?<![\w-])(?:real-time factor|rtf)(?![\w-])", low):
        return "rtf"
    if re.search(r"(?<![\w-])memory(?![\w-])", low):
        return "memory"
    for fam in ("params", "gflops", "throughput", "fid", "miou"):
        if any(w in low for w in QUANTITY_WORDS[fam]):
            return fam
    if re.search(r"(?<![\w-])(?:fps|qps|frames\s+per\s+second|queries\s+per\s+second)(?![\w-])|\((?:[a-z]+/s|fps|qps)\)", low):
        return "throughput"  # "FPS", "speed (queries/s)": a rate of work, like a throughput
    if re.search(r"(?<![\w-])error", low):
        return None  # "top-1 error (%)": not an accuracy (its words and direction are the opposite)
    if "top-1" in low:
        return "top-1"
    if "ap" in low.split():
        return "ap"
    if "accuracy" in low:
        return "accuracy"
    return None


def quantity_aliases(name: str) -> list[str]:
    """The canonical name, its name without a unit in brackets, and the family's words."""
    base = _PAREN.sub("", name).strip()
    out = [name, base]
    fam = quantity_family(name)
    if fam:
        out += QUANTITY_WORDS.get(fam, [])
        if fam == "top-1" and "linear" in base.lower():
            out += ["linear top-1", "linear-probe top-1"]
    unit = _unit_of(name)
    if unit:  # "Throughput (utt/s)": "utt/s", "utterances per second", "utterances/s"
        per = re.fullmatch(r"([A-Za-z]+)\s*/\s*(?:s|sec|second)", unit)
        if per:
            noun = UNIT_NOUNS.get(per.group(1).lower(), per.group(1).lower())
            many = (noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun)
                    else noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s"))
            out += [unit, f"{many} per second", f"{many}/s", f"{many}/sec", f"{noun}/s", f"{many} a second",
                    f"{noun}s per sec"]
        elif re.fullmatch(r"[A-Za-z]{2,}", unit) and unit.lower() not in _GENERIC_UNITS:
            out += [unit] + [w for w in _synonyms(unit) if not _ACRONYM.match(w)]  # "(FPS)": "fps", "frames per second"
    out += [w for w in _synonyms(base) if not _ACRONYM.match(w)]
    if re.fullmatch(r"[A-Za-z][\w\-]*", base) and not base.lower().endswith(("score", "rate", "error")) \
            and quantity_family(name) not in COST_FAMILIES:
        out.append(f"{base} score")  # "CIDEr score", "BLEU score", "Dice score"
    out += _verb_forms(base)
    return list(dict.fromkeys(a.lower() for a in out if a))


def _verb_forms(base: str) -> list[str]:
    """A quantity named by a gerund is also named by its verb ("forgetting": "forgets 12.4%", "forgets the least")."""
    if not re.fullmatch(r"[a-z]{4,}ing", base.lower()):
        return []
    stem = base.lower()[:-3]
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl":
        stem = stem[:-1]  # "forgetting" -> "forget"
    return [stem + "s", stem]


def _unit_of(name: str) -> str | None:
    m = re.search(r"\(([^()]*)\)\s*$", name)
    return m.group(1).strip() if m else None


def _synonyms(base: str) -> list[str]:
    """The other names of a common metric: its expansion for an acronym, its acronym for an expansion."""
    out: list[str] = []
    low = base.lower()
    for acro, words in METRIC_SYNONYMS.items():
        if low == acro.lower() or re.search(rf"(?<!\w){re.escape(acro)}(?![\w-])", base):
            out += [re.sub(rf"(?<!\w){re.escape(acro)}(?![\w-])", w, base, count=1).lower()
                    for w in words]  # "macro-F1" -> "macro-f1 score"; "WER" -> "word error rate"
        if low in words:
            out += [acro] + [w for w in words if w != low]
    return out


def quantity_patterns(name: str) -> list[str]:
    """Case-sensitive regexes for a quantity: its acronym ("RTF" for "real-time factor"), and for an acronym, any
    phrase whose initials spell it and that ends with a metric noun ("word error rate" for "WER")."""
    base = _PAREN.sub("", name).strip()
    out = [re.escape(a) for a in _synonyms(base) if _ACRONYM.match(a)]
    words = [w for w in re.split(r"[\s\-]+", base) if w.lower() not in ("of", "to", "per", "the", "and", "over")]
    if len(words) >= 2 and all(w[:1].isalpha() for w in words):  # "Chamfer distance": "CD"
        out.append(re.escape("".join(w[0].upper() for w in words)))
    if _ACRONYM.match(base) and base.isalpha():
        letters = base.lower()
        heads = [h for h in METRIC_HEADS if h[0] == letters[-1]]
        if heads:
            words = [rf"{c}[a-z]*" for c in letters[:-1]]
            body = rf"[\s\-]+{_SMALL_WORDS}".join(words + [f"(?:{'|'.join(heads)})"])
            out.append(rf"(?i:{body})")
    return out


# words reports use for a cost when the episode has one quantity of that kind
FAMILY_WORDS = {"time": ["latency", "inference time", "runtime", "run time", "wall-clock time", "inference latency"],
                "memory": ["memory", "memory footprint", "gpu memory", "peak memory"],
                "throughput": ["speed", "inference speed"], "gflops": ["compute", "compute cost", "flop count"],
                "params": ["model size", "parameter budget"]}
_NOT_A_HEAD = set(METRIC_HEADS) | {"per", "epoch", "step", "model", "total", "test", "val", "top-1", "top-5", "mean"}


def head_aliases(lex: "Lexicon") -> list[tuple[str, str]]:
    """Shorter names of a lexicon's quantities that only one of them has: the last word of a multi-word name
    ("latency" for "decoding latency (ms)", "F1" for "macro-F1 (%)"), the name before "per" ("training time" for
    "training time per epoch (s)"), unless that word is generic ("score", "rate") or names a dataset or setting."""
    taken = {w.lower() for w in lex.datasets} | {k.lower() for x in lex.settings for k in setting_keywords(x)}
    found: dict[str, set[str]] = {}
    for q in lex.quantities:
        base = _PAREN.sub("", q).strip()
        cands = []
        words = base.split()
        if len(words) >= 2 and not re.search(r"\s(?:per|to|of|at|over)\s", base):
            cands.append(words[-1])  # not "round" of "upload per round", "target" of "rounds to target": no head
        parts = re.split(r"[\s\-]+", base)
        if len(parts) >= 2 and re.search(r"[A-Za-z]", parts[-1]) and re.search(r"\d", parts[-1]):
            cands.append(parts[-1])  # "F1" of "macro-F1"
        at_k = re.sub(r"\s*@\s*\d+$", "", base)
        forced = [at_k] + _synonyms(at_k) if at_k != base else []  # "NDCG@10": "NDCG", when no other @k shares it
        if " per " in base:
            cands += [base.split(" per ")[0], " ".join(words[1:]) if len(words) >= 3 else ""]
        for c in cands:
            if c and len(c) >= 2 and c.lower() not in _NOT_A_HEAD and c.lower() not in taken:
                found.setdefault(c.lower(), set()).add(q)
        for c in forced:
            if c.lower() not in taken:
                found.setdefault(c.lower(), set()).add(q)
    for fam, words in FAMILY_WORDS.items():  # "inference time" for the one time cost, "speed" for the one throughput
        mine = [q for q in lex.quantities if quantity_family(q) == fam]
        if len(mine) == 1:
            for w in words:
                if w not in taken:
                    found.setdefault(w, set()).add(mine[0])
    # "accuracy" for "top-1 accuracy (%)": the generic head of the one quantity that has it, when no other quantity
    # is a score of a different kind the word could mean ("error", "rate")
    acc = [q for q in lex.quantities if re.search(r"(?<![\w-])accuracy(?![\w-])", _PAREN.sub("", q), re.I)]
    if len(acc) == 1 and "accuracy" not in taken and not any(
            re.search(r"(?<![\w-])(?:error|err)(?![\w-])", q, re.I) for q in lex.quantities):
        found.setdefault("accuracy", set()).add(acc[0])
    for q in lex.quantities:  # a name another quantity already owns stays that quantity's
        for a in quantity_aliases(q):
            found.pop(a, None)
    return [(next(iter(qs)), a) for a, qs in found.items() if len(qs) == 1]


def name_root(name: str) -> tuple[str, float | None] | None:
    """The root unit a quantity or setting is measured in and its scale: its unit in brackets ("(ms)": second,
    0.001), else a time or memory name (scale unknown)."""
    from harness.scoring.units import gold_unit

    unit = _unit_of(name)
    info = gold_unit(unit) if unit and unit.lower() not in ("px", "pixel", "pixels") else None  # pint's px is a length
    if info is not None and info.kind == "physical":
        return info.root, info.factor
    root = {"time": "second", "memory": "bit"}.get(quantity_family(name) or "")
    return (root, None) if root else None


def setting_keywords(x_label: str) -> list[str]:
    """Words that mark a number as a setting on `x_label`: 'pretraining epochs' -> pretraining epochs, epochs."""
    base = _PAREN.sub("", x_label).strip().lower()
    words = base.split()
    out = [base]
    if base.startswith("number of "):
        out.append(base.removeprefix("number of "))
    if " per " in base and len(base.split(" per ")[0].split()) == 1:  # "frames per clip" -> "32 frames"
        out.append(base.split(" per ")[0])
    elif " per " in base:  # "negative samples per positive" -> "256 negatives per positive": the words of its head
        out += setting_keywords(base.split(" per ")[0])
    if len(words) > 1 and " per " not in base:  # not "problem" of "samples per problem": the unit it is counted per
        out.append(words[-1])
    # "negative samples" -> "8 negatives", "a single negative": the qualifier stands for a generic count noun
    if len(words) == 2 and words[1] in _GENERIC_COUNT and len(words[0]) >= 4 and words[0] not in _NOT_A_QUALIFIER:
        out.append(words[0] + "s")
    if base.endswith("s"):
        out += [k[:-1] for k in list(out) if k.endswith("s")]
    if "label" in base or "labelled" in base:
        out += ["labels", "labelled", "labeled", "label rate", "labelled fraction", "labeled fraction"]
    if "resolution" in base:
        out += ["px", "pixels", "resolution"]
    # "beam size" -> "a beam of 4", "guidance scale" -> "a guidance of 3": the word the generic noun qualifies
    if len(words) == 2 and words[1] in _GENERIC_AXIS and len(words[0]) >= 4 and words[0] not in _NOT_A_QUALIFIER:
        out.append(words[0])
    # "memory buffer size" -> "a buffer of 500", "the memory buffer": the words the generic noun qualifies
    if len(words) > 2 and words[-1] in _GENERIC_AXIS and len(words[-2]) >= 4 and words[-2] not in _NOT_A_QUALIFIER:
        out += [" ".join(words[:-1]), words[-2]]
    # "embedding size" -> "200 dimensions", "a 200-dim embedding": the width of a vector is counted in dimensions
    if len(words) >= 2 and words[-1] in ("size", "dimension", "dim", "width") and words[-2] in (
            "embedding", "hidden", "latent", "feature", "vector", "projection"):
        out += ["dimensions", "dims", "dimensional"]
    if words and words[-1] == "dimension":
        out += [" ".join(words[:-1] + ["size"]), " ".join(words[:-1] + ["units"]), " ".join(words[:-1] + ["dim"]), "dim"]
    unit = _unit_of(x_label)
    counted = re.fullmatch(r"[kKMB]\s+([a-z]{3,})", unit or "")
    if counted:  # "context length (k tokens)" -> "a 64k-token context", "32k tokens": the noun it counts
        out += [counted.group(1), counted.group(1).rstrip("s")]
    if unit and unit.lower() in _UNIT_WORDS:  # "labelled audio (hours)" -> "100 hours"; "SNR (dB)" -> "5 dB"
        out += _UNIT_WORDS[unit.lower()]
    return list(dict.fromkeys(out))


# first words of an axis name too common to stand for it alone ("model size" is no "model")
_NOT_A_QUALIFIER = {"model", "network", "input", "output", "training", "test", "total", "average", "mean", "data",
                    "sample", "image", "source", "target", "learning", "weight", "loss", "context", "hidden"}
_GENERIC_UNITS = {"ms", "s", "h", "min", "sec", "hours", "db", "gb", "mb", "px", "k", "m", "b", "tokens", "steps"}
_GENERIC_COUNT = {"samples", "examples", "instances", "items", "pairs"}
_GENERIC_AXIS = {"size", "scale", "ratio", "rate", "width", "length", "count", "weight", "budget", "factor", "strength"}
# unit words of an axis that a report writes after a number (single letters are left to the number reader)
_UNIT_WORDS = {"hours": ["hours", "hour", "hrs"], "h": ["hours", "hour", "hrs"], "db": ["db"], "tokens": ["tokens"],
               "ms": ["ms", "milliseconds"], "s": ["seconds", "secs"], "px": ["px", "pixels"], "m": [], "k": [],
               "gb": ["gb"], "min": ["minutes", "mins"], "khz": ["khz"], "hz": ["hz"], "frames": ["frames"],
               "layers": ["layers"], "steps": ["steps"], "epochs": ["epochs"], "samples": ["samples"]}


@dataclass
class Lexicon:
    methods: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    quantities: dict[str, bool] = field(default_factory=dict)  # canonical name -> higher is better
    settings: list[str] = field(default_factory=list)  # x labels

    def add_method(self, name: str) -> None:
        name = _SUFFIX.sub("", name).strip()
        if name and name.lower() != "ours" and norm_name(name) not in {norm_name(m) for m in self.methods}:
            self.methods.append(name)

    @property
    def result_direction(self) -> bool | None:
        """Whether higher is better for the result metrics (not the efficiency columns), when they agree."""
        dirs = {hb for q, hb in self.quantities.items() if quantity_family(q) not in COST_FAMILIES}
        return dirs.pop() if len(dirs) == 1 else None


def lexicon_from_facts(facts: list[UnitFacts], papers: list[PaperFacts] = ()) -> Lexicon:  # type: ignore[assignment]
    lex = Lexicon()
    for p in papers:
        lex.add_method(p.method)
    for u in facts:
        if u.kind == "table":
            for row in u.rows:
                if row:
                    lex.add_method(row[0])
            for col in u.columns[1:]:
                fam = quantity_family(col)
                if fam in ("params", "gflops", "throughput"):
                    lex.quantities.setdefault(col, col not in u.lower_is_better)
                elif fam in COST_FAMILIES or (not u.metric and col in u.lower_is_better):
                    lex.quantities.setdefault(col, False)  # "decoding latency", "real-time factor": lower is better
                elif col not in lex.datasets and u.metric:
                    lex.datasets.append(col)
        else:
            for s in u.series:
                lex.add_method(s.method or s.label)
                if u.kind == "bar":
                    for x in s.x:
                        if isinstance(x, str) and x not in lex.datasets:
                            lex.datasets.append(x)
            if u.dataset and u.dataset not in lex.datasets:
                lex.datasets.append(u.dataset)
            if u.kind == "line" and u.x_label and u.x_label not in lex.settings:
                lex.settings.append(u.x_label)
        if u.metric:
            lex.quantities.setdefault(u.metric, u.higher_is_better)
    return lex


# Words of a quantity's name too generic to name it alone ("rate" of "clearance rate", "time" of "planning time").
_GENERIC_NAME_WORDS = {"score", "rate", "ratio", "error", "time", "target", "test", "val", "validation", "mean",
                       "average", "total", "number", "top", "level", "overall", "model", "size", "count", "value",
                       "metric", "quality", "loss", "factor", "index", "measure", "per", "the", "and", "of", "to", "at",
                       "in", "on", "for", "with", "all", "best", "final", "real"}


def _word_forms(word: str) -> list[str]:
    """The forms a report writes a quantity's name word in: plural; a noun's verb ("upload": "uploading"; "preference":
    "preferred"; "success": "succeeds"; "clearance": "clears"), never the bare root of a derived noun ("clear")."""
    w = word.lower()
    out = [w[:-1], w] if re.search(r"[^su]s$", w) else [w, w + ("es" if w.endswith(("s", "x", "ch", "sh")) else "s")]
    m = re.fullmatch(r"([a-z]{3,}?)(ence|ance)", w)
    if m:  # preference -> prefer: prefers, preferred, preferring
        root = m.group(1)
        double = root + root[-1] if re.search(r"[^aeiou][aeiou][^aeiouwxy]$", root) and m.group(2) == "ence" else root
        out += [root + "s", root + "ed", root + "ing", double + "ed", double + "ing"]
    elif re.fullmatch(r"[a-z]{2,}cess", w):  # success -> succeed(s), excess -> exceed(s): the verb of a -cess noun
        verb = w[:-4] + "ceed"
        out += [verb, verb + "s", verb + "ed", verb + "ing"]
    elif not w.endswith(("s", "y", "e", "ing", "ion")) and len(w) >= 5:  # upload -> uploads, uploaded, uploading
        out += [w + "ed", w + "ing"]
    return list(dict.fromkeys(out))


def content_aliases(lex: "Lexicon") -> list[tuple[str, str]]:
    """Patterns (case-insensitive regex) that name a quantity by its own words when the context's names do not
    literally occur: the head word of its name that no other quantity, dataset, method or setting shares ("rounds"
    for "rounds to target", "upload" for "upload per round (MB)", "preferred" for "human preference (%)", "succeeds"
    for "grasp success (%)"; never the counted unit after "per"), a modifier written with a hyphenated qualifier before
    the head ("image-level AUROC" for "image AUROC (%)"), and an abbreviation of a hyphenated name ("R-1" for
    "ROUGE-1") that no other name shares."""
    def name_head(name: str) -> str:  # the words of a name before "per", "to", ...: "upload" of "upload per round (MB)"
        return re.split(r"\s+(?:per|at|of|to|on|in|for|with|over)\s+", _PAREN.sub("", name).strip(), maxsplit=1)[0]

    def words(name: str) -> list[str]:
        return [w.lower() for w in re.split(r"[\s/]+", name_head(name)) if re.fullmatch(r"[A-Za-z]{4,}", w)]

    others = [norm for x in list(lex.datasets) + list(lex.methods) + list(lex.settings)  # not "round" of "clients per round"
              for norm in re.split(r"[\s/\-()]+", re.split(r"\s+per\s+", x.lower())[0]) if norm]
    owner: dict[str, set[str]] = {}
    for q in lex.quantities:  # the words of each name's head (not "round" of "upload per round")
        for w in name_head(q).lower().replace("-", " ").split():
            for f in _word_forms(w):
                owner.setdefault(f, set()).add(q)
    out: list[tuple[str, str]] = []
    for q in lex.quantities:
        ws = [w for w in words(q) if w not in _GENERIC_NAME_WORDS and w not in QUANTITY_WORDS.get("accuracy", [])]
        if not ws:
            continue
        head = ws[-1]
        forms = _word_forms(head)
        if all(owner.get(f) == {q} for f in forms) and not any(f in others or o.startswith(f) for f in forms for o in others):
            alt = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
            out.append((q, rf"(?<![\w-])(?<!per\s)(?<!per-)(?:{alt})(?![\w-])"))
        base_words = _PAREN.sub("", q).split()
        if len(base_words) == 2 and all(re.fullmatch(r"[A-Za-z][\w]*", w) for w in base_words):
            out.append((q, rf"(?<![\w-]){re.escape(base_words[0])}-[a-z]+\s+{re.escape(base_words[1])}(?![\w-])"))
    abbrev: dict[str, set[str]] = {}
    for q in lex.quantities:
        m = re.fullmatch(r"([A-Za-z]{3,})-(\w{1,3})", _PAREN.sub("", q).strip())
        if m:
            abbrev.setdefault(f"{m.group(1)[0].upper()}-{m.group(2)}", set()).add(q)
    names = {norm_name(x) for x in list(lex.datasets) + list(lex.methods) + list(lex.settings)}
    for a, qs in abbrev.items():
        if len(qs) == 1 and norm_name(a) not in names:
            out.append((next(iter(qs)), rf"(?<![\w-])(?-i:{re.escape(a)})(?![\w-])"))
    return out
