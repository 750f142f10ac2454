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
_DIFF_AFTER = re.compile(r"^\s*-?\s*(?:%|pp|p\.p\.|percentage[\s-]+points?|points?|pts?|fid|m|gflops?|img/s)?\s*"
                         r"(?:higher|lower|above|below|more|less|better|worse|ahead|behind|gain|improvement|drop|"
                         r"fewer|greater|smaller|larger|faster|slower|deficit|advantage|lead|gap|margin|edge)\b", re.I)
# "a 3.5-point deficit": the number reader calls "3.5-point" an identifier; before a unit of difference it is a number
_POINT_COMPOUND = re.compile(r"^-(?:points?|pts?|pp|percentage-points?)\b", re.I)
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
# "the lowest label rate, 1%": a superlative of the setting itself; the number in apposition is the setting
_SETTING_SUPERLATIVE = re.compile(r"\b(?:lowest|highest|smallest|largest|shortest|longest|fewest|most|least|"
                                  r"deepest|shallowest)\s+$", re.I)
_APPOSITION = re.compile(r"^\s*,\s*$")
# "from 78.2 at 50 epochs to 83.1 at 300": a bare number after "at" that follows a value is a second setting
_AT_JOIN = re.compile(r"^\s*%?\s*\)?\s*(?:at|after|with|by)\s+$", re.I)
_BARE_END = re.compile(r"^\s*(?:[.,;:)\]]|$|and\b|while\b|whereas\b|but\b|\[)", re.I)
# "A and B tie at 74.1", "Both A and B score 61.2": one value for two methods
_TIE_WORD = re.compile(r"\b(?:ties?|tied|tying|both|each|level|equal(?:ly)?|the\s+same|alike)\b", re.I)
_AND_JOIN = re.compile(r"^\s*,?\s*and\s+(?:the\s+)?$", re.I)
# "converges fastest", "learns slowest": the speed of a curve, not a throughput rank
_TRAJECTORY_BEFORE = re.compile(r"\b(?:converg|learn|train|improv|ris|drop|climb|fall|saturat|degrad|recover|adapt)\w*"
                                r"\s+(?:the\s+)?$", re.I)
# "OskarFlow is the better of the two": a comparison whose object is the other method the sentence names
_OF_THE_TWO = re.compile(r"\bthe\s+(better|stronger|worse|weaker|higher|lower|faster|slower|larger|smaller|lighter|"
                         r"heavier|cheaper|more\s+accurate|less\s+accurate)\s+(?:\w+\s+)?of\s+the\s+(?:two|pair)\b", re.I)

_NUM_WORD = r"(?:\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|twenty|a\s+hundred)"
_MULTIPLE = rf"{_NUM_WORD}\s*(?:times|x|×)|twice|double|{_NUM_WORD}-?fold"
_FRACTION = r"half|(?:a|one)\s+(?:third|quarter|fifth|sixth|tenth)|(?:two|three)\s+(?:thirds|quarters|fifths)"
# Comparison words: (pattern, polarity, reads through quality). Passive forms come first.
_COMPARE = [
    (r"(?:is|are|was|were)\s+(?:\w+\s+)?(?:outperformed|beaten|surpassed|edged\s+out)\s+by", -1, True),
    (r"outperform(?:s|ed)?|beat(?:s)?|surpass(?:es|ed)?|edg(?:es|ed)\s+out|(?:is|are|stays?|sits?|finishes)?\s*ahead\s+of|"
     r"better\s+(?:[\w%()\-/]+\s+){0,3}?than|improv(?:es|ed|ing)\s+(?:on|over|upon)|(?:margin|lead|advantage|edge)\s+over",
     1, True),
    (r"trail(?:s|ed|ing)?|(?:falls?|lags?)\s+(?:\w+\s+)?behind|behind|worse\s+(?:[\w%()\-/]+\s+){0,3}?than|falls?\s+short\s+of|"
     r"second\s+(?:only\s+)?to|(?:deficit|disadvantage)\s+(?:to|against|relative\s+to|versus|vs\.?)", -1, True),
    # ratios: "eight times the throughput of B", "twice as many parameters as B", "a fifth of B's", "half the speed of B"
    (rf"(?:{_MULTIPLE})\s+(?:the\s+(?:[\w%()\-/]+\s+){{0,2}}?of|as\s+(?:[\w%()\-/]+\s+){{1,3}}?as)", 1, False),
    (rf"(?:{_FRACTION})\s+(?:of\s+)?(?:the\s+(?:[\w%()\-/]+\s+){{0,2}}?of|as\s+(?:[\w%()\-/]+\s+){{1,3}}?as|of)", -1, False),
    (r"(?:higher|more|greater|larger|faster|quicker|heavier|bigger)\s+(?:[\w%()\-/]+\s+){0,3}?than|above|exceed(?:s|ed)?", 1, False),
    (r"(?:lower|less|smaller|fewer|slower|lighter)\s+(?:[\w%()\-/]+\s+){0,3}?than|below|under", -1, False),
]
_COMPARE_RE = [(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _COMPARE]
# Superlatives: (pattern, +1 best/highest, -1 worst/lowest, reads through quality)
_RANK = [
    (r"most\s+accurate|best|strongest|tops|top(?=\s+(?:the|of|spot|position|place|result|score|entry|number|performer|model|method)s?\b)|comes?\s+out\s+on\s+top|"
     r"leads?(?=\s+(?:with|the|all|on|every|at)\b)|first\s+place|(?:finish(?:es|ed)?|comes?|came|ranks?|ranked)\s+first",
     1, True),
    (r"least\s+accurate|worst|weakest|last\s+place|"
     r"(?:is|are|was|were|finish(?:es|ed)?|comes?|came|ranks?|ranked|places?|placed|sits?)\s+(?:dead\s+)?last", -1, True),
    (r"highest|largest|heaviest|fastest|biggest", 1, False),
    (r"lowest|smallest|fewest|lightest|slowest|cheapest", -1, False),
]
_RANK_RE = [(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _RANK]
_CAMEL = re.compile(r"(?<![\w-])[A-Z][a-z]+(?:[A-Z][A-Za-z0-9]*)+(?![\w-])")
