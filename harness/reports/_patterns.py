"""The sentence patterns of the claim extractor (`_extract.py`): number roles, comparison and rank words, and the
joins that say which method a number belongs to. Domain vocabulary and phrasing patterns, not sentence templates."""
from __future__ import annotations

import re

_SKIP_ROLES = {"identifier", "reference", "citation", "ordinal", "uncertainty", "year", "operand"}
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|vs|et al|fig|figs|approx|cf|resp|no|eq|sec|tab)|\b[A-Z])\.$", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\[(*\"“A-Z0-9-])")
_MARKUP = re.compile(r"\*\*|__|`|^#+\s*|^\s*[-*+•]\s+|^\s*\d{1,2}[.)]\s+")
_RATIO_AFTER = re.compile(r"^\s*(?:x|×|times|-?fold)\b", re.I)
_LIMIT_AFTER = re.compile(r"^\s*%?\s*(?:\w+\s+){0,2}?(?:limit|budget|cap|threshold|constraint|ceiling|or\s+less|"
                          r"or\s+fewer|at\s+most)\b", re.I)
_DIFF_AFTER = re.compile(r"^\s*(?:%|pp|p\.p\.|percentage\s+points?|points?|pts|fid|m|gflops?|img/s)?\s*"
                         r"(?:higher|lower|above|below|more|less|better|worse|ahead|behind|gain|improvement|drop|"
                         r"fewer|greater|smaller|larger|faster|slower)\b", re.I)
_DIFF_BEFORE = re.compile(r"(?:\bby|\bgap\s+of|\bmargin\b[^.;]{0,60}?\b(?:is|of)|\blead\s+of|\bimprovement\s+of)"
                          r"\s*(?:about|roughly|around|nearly|almost|~|≈)?\s*$", re.I)
_FOR_AFTER = re.compile(r"^\s*(?:%|[A-Za-z/]+(?:\s+per\s+second)?)?\s*(?:for|from)\s+(?:the\s+)?$", re.I)
_PAIR_JOIN = re.compile(r"^\s*(?:[%kKM]|[A-Za-z/]{1,12}(?:\s+per\s+second)?)?\s*\)?\s*(?:versus|vs\.?|against|and|to)\s*\(?\s*$",
                        re.I)
# "between 320 and 1024 pixels", "from 10k to 200k iterations": a range of settings, neither end is one setting
_RANGE_BEFORE = re.compile(r"\b(?:between|from)\s*$", re.I)
_RANGE_JOIN = re.compile(r"^\s*[kK%]?\s*(?:and|to|-|–)\s*$", re.I)
# a sentence whose subject is a pronoun: its numbers before the first named method belong to nobody it names
_PRONOUN_START = re.compile(r"^\W*(?:it|its|they|their|this|these|those|both|the\s+(?:former|latter))\b", re.I)
# "Compared with B, A is lighter": the comparison's object comes first
_FRONTED = re.compile(r"\b(?:compared\s+(?:with|to)|relative\s+to|next\s+to|set\s+against)\s*$", re.I)
_COMPARATIVE = [(r"more\s+accurate|better|stronger", 1, True), (r"less\s+accurate|worse|weaker", -1, True),
                (r"higher|more|greater|larger|faster|quicker|heavier|bigger", 1, False),
                (r"lower|less|smaller|fewer|slower|lighter|cheaper", -1, False)]
_COMPARATIVE_RE = [(re.compile(rf"[^.;]{{0,40}}?(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _COMPARATIVE]
# comparatives that imply their quantity when the sentence names none
IMPLIED_BY_COMPARATIVE = {"lighter": "params", "heavier": "params", "faster": "throughput", "quicker": "throughput",
                          "slower": "throughput", "cheaper": "gflops"}
_SETTING_BEFORE_JOIN = re.compile(r"^\s*(?:of|=|:|at)?\s*$", re.I)

# Comparison words: (pattern, polarity, reads through quality). Passive forms come first.
_COMPARE = [
    (r"(?:is|are|was|were)\s+(?:\w+\s+)?(?:outperformed|beaten|surpassed|edged\s+out)\s+by", -1, True),
    (r"outperform(?:s|ed)?|beat(?:s)?|surpass(?:es|ed)?|edg(?:es|ed)\s+out|(?:is|are|stays?|sits?|finishes)?\s*ahead\s+of|"
     r"better\s+(?:[\w%()\-/]+\s+){0,3}?than|improv(?:es|ed|ing)\s+(?:on|over|upon)|margin\s+over|lead\s+over", 1, True),
    (r"trail(?:s|ed|ing)?|(?:falls?|lags?)\s+(?:\w+\s+)?behind|behind|worse\s+(?:[\w%()\-/]+\s+){0,3}?than|falls?\s+short\s+of|"
     r"second\s+(?:only\s+)?to", -1, True),
    (r"(?:higher|more|greater|larger|faster|quicker|heavier|bigger)\s+(?:[\w%()\-/]+\s+){0,3}?than|above|exceed(?:s|ed)?", 1, False),
    (r"(?:lower|less|smaller|fewer|slower|lighter)\s+(?:[\w%()\-/]+\s+){0,3}?than|below|under", -1, False),
]
_COMPARE_RE = [(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _COMPARE]
# Superlatives: (pattern, +1 best/highest, -1 worst/lowest, reads through quality)
_RANK = [
    (r"most\s+accurate|best|strongest|tops|top(?=\s+(?:the|of|spot|position|place)\b)|comes?\s+out\s+on\s+top|"
     r"leads?(?=\s+(?:with|the|all|on|every|at)\b)|first\s+place|(?:finish(?:es|ed)?|comes?|came|ranks?|ranked)\s+first",
     1, True),
    (r"least\s+accurate|worst|weakest|last\s+place|"
     r"(?:is|are|was|were|finish(?:es|ed)?|comes?|came|ranks?|ranked|places?|placed|sits?)\s+(?:dead\s+)?last", -1, True),
    (r"highest|largest|heaviest|fastest|biggest", 1, False),
    (r"lowest|smallest|fewest|lightest|slowest|cheapest", -1, False),
]
_RANK_RE = [(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _RANK]
_CAMEL = re.compile(r"(?<![\w-])[A-Z][a-z]+(?:[A-Z][A-Za-z0-9]*)+(?![\w-])")
