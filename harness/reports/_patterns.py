"""The sentence patterns of the claim extractor (`_extract.py`): number roles, comparison and rank words, and the
joins that say which method a number belongs to. Domain vocabulary and phrasing patterns, not sentence templates."""
from __future__ import annotations

import re

_SKIP_ROLES = {"identifier", "reference", "citation", "ordinal", "uncertainty", "year", "operand"}
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|vs|et al|fig|figs|approx|cf|resp|no|eq|sec|tab)|\b[A-Z])\.$", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\[(*\"“A-Z0-9-])")
_MARKUP = re.compile(r"\*\*|__|`|^#+\s*|^\s*[-*+•]\s+|^\s*\d{1,2}[.)]\s+")
_RATIO_AFTER = re.compile(r"^\s*(?:x\b|×|times\b|-?fold\b)", re.I)
_LIMIT_AFTER = re.compile(r"^\s*%?\s*(?:\w+\s+){0,2}?(?:limit|budget|cap|threshold|constraint|ceiling|or\s+less|"
                          r"or\s+fewer|at\s+most)\b", re.I)
_DIFF_AFTER = re.compile(r"^\s*-?\s*(?:%|pp|p\.p\.|percentage[\s-]+points?|points?|pts?|fid|m|gflops?|img/s|db|ms|s|"
                         r"mm|gb|bleu|ap|miou|wer)?\s*"
                         r"(?:higher|lower|above|below|more|less|better|worse|ahead|behind|gain|improvement|drop|relative|"
                         r"fewer|greater|smaller|larger|faster|slower|deficit|advantage|lead|gap|margin|edge|short|shy)\b", re.I)
# "1.2 points", "2.6 pp": points are a difference, never a value
_POINTS_AFTER = re.compile(r"^\s*(?:percentage[\s-]+points?|points?|pts?|pp|p\.p\.)(?![\w-])", re.I)
# "a budget of 30M parameters", "if the budget is 30M": a limit named before its number is no value
_LIMIT_BEFORE = re.compile(r"\b(?:budget|limit|cap|ceiling|threshold|constraint|maximum)\s+(?:is\s+|of\s+|=\s*|:\s*|at\s+|"
                           r"(?:is\s+)?set\s+(?:at|to)\s+)?(?:about|roughly|around|~)?\s*$", re.I)
# "a 12-epoch schedule", "a 16-layer network": a number joined to a setting word is a setting
_SETTING_COMPOUND = re.compile(r"^-([a-z]+)\b", re.I)
# "..., and at 160k it has reached 81.9": a bare number after a clause-opening preposition is a setting of the
# sentence's axis (not "is at 78.0": a verb before "at" makes it a value)
_CLAUSE_SETTING_BEFORE = re.compile(r"(?:^|[,;]|\b(?:and|but|while|whereas|then))\s*(?:at|after|by|beyond|past|with)\s+$", re.I)
_CLAUSE_SETTING_AFTER = re.compile(r"^\s*(?:,|it\b|they\b|its\b|their\b|the\b|[A-Z])")
# "X: 6.21; Y: 11.4": a dataset named right before its value
_LABEL_JOIN = re.compile(r"^\s*(?:[:=]|—|–)\s*$")
# "a 3.5-point deficit": the number reader calls "3.5-point" an identifier; before a unit of difference it is a number
_POINT_COMPOUND = re.compile(r"^-(?:points?|pts?|pp|percentage-points?)\b", re.I)
_DIFF_BEFORE = re.compile(r"(?:\bby|\bwithin|\bcost(?:s|ing)?(?:\s+(?:the\s+)?[\w\-+]+)?|\bgain(?:s|ed|ing)?|\blos(?:es|t|ing)|\b(?:gap|margin|difference|gain|improvement|advantage|lead)s?\b[^.;,]{0,60}?\b(?:is|of|was|stands\s+at|amounts\s+to|(?:widens?|widened|grows?|grew|shrinks?|shrank|narrows?|narrowed|increases?|increased|decreases?|decreased|rises?|rose|falls?|fell|climbs?|drops?)\s+to)|\blead\s+of|\bimprovement\s+of)"
                          r"\s*(?:a\s+|an\s+)?(?:further|another|additional|extra)?\s*(?:only|just|merely)?\s*(?:about|roughly|around|nearly|almost|~|≈)?\s*$", re.I)
_FOR_AFTER = re.compile(r"^\s*(?:%|[A-Za-z/]+(?:\s+per\s+second)?)?\s*(?:for|from)\s+(?:the\s+)?$", re.I)
# "50.6 to its 50.2": a possessive pronoun before the second number keeps the pair
_PAIR_JOIN = re.compile(r"^\s*(?:[%kKM]|[A-Za-z/]{1,12}(?:\s+per\s+second)?)?\s*\)?\s*(?:versus|vs\.?|against|and|to)\s*\(?\s*"
                        r"(?:(?:its|their)\s+)?$", re.I)
# "between 320 and 1024 pixels", "from 10k to 200k iterations": a range of settings, neither end is one setting
_RANGE_BEFORE = re.compile(r"\b(?:between|from)\s*$", re.I)
_RANGE_JOIN = re.compile(r"^\s*[kK%]?\s*(?:and|to|-|–)\s*$", re.I)
# a sentence whose subject is a pronoun: its numbers before the first named method belong to nobody it names
_PRONOUN_START = re.compile(r"^\W*(?:it|its|they|their|this|these|those|both|the\s+(?:former|latter))\b", re.I)
# "Compared with B, A is lighter": the comparison's object comes first
_FRONTED = re.compile(r"\b(?:compared\s+(?:with|to)|relative\s+to|next\s+to|set\s+against|against|versus|vs\.?)\s+(?:the\s+)?$", re.I)
_COMPARATIVE = [(r"more\s+accurate|better|stronger|gains?|improves?", 1, True), (r"less\s+accurate|worse|weaker", -1, True),
                (r"higher|more|greater|larger|faster|quicker|heavier|bigger|costlier", 1, False),
                (r"lower|less|smaller|fewer|slower|lighter|cheaper", -1, False)]
# up to 40 characters of the clause before the word (a decimal point is no sentence end: "is 0.6 points more accurate")
_COMPARATIVE_LEAD = r"(?:[^.;]|(?<=\d)\.(?=\d)){0,40}?"
_COMPARATIVE_RE = [(re.compile(rf"{_COMPARATIVE_LEAD}(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _COMPARATIVE]
# comparatives that imply their quantity when the sentence names none
IMPLIED_BY_COMPARATIVE = {"lighter": "params", "heavier": "params", "faster": "throughput", "quicker": "throughput",
                          "slower": "throughput", "cheaper": "gflops", "longer": "time", "shorter": "time"}
_SETTING_BEFORE_JOIN = re.compile(r"^\s*(?:(?:size|width|length|depth|count)\s*)?(?:of|=|:|at|\(|(?:grows?|grew|increases?|increased|rises?|rose|goes|went|drops?|"
                                  r"dropped|decreases?|decreased|shrinks?|shrank|(?:is\s+|being\s+)?(?:raised|increased|reduced|set|"
                                  r"fixed|cut|lowered|limited|capped))\s+to)?\s*$",
                                  re.I)
# "Raising the update ratio to 20", "cutting the window to 96": a setting a verb of change sets to its number
_SET_TO_VERB = re.compile(r"\b(?:rais|increas|reduc|lower|grow|widen|shrink|cut|extend|lengthen|shorten|enlarg|doubl|halv|"
                          r"push|bump|drop|decreas|set|scal)\w*\s+(?:the\s+|its\s+|their\s+)?$", re.I)
# "the lowest label rate, 1%": a superlative of the setting itself; the number in apposition is the setting
_SETTING_SUPERLATIVE = re.compile(r"\b(?:lowest|highest|smallest|largest|shortest|longest|fewest|most|least|"
                                  r"deepest|shallowest)\s+$", re.I)
_APPOSITION = re.compile(r"^\s*,\s*$")
# "from 78.2 at 50 epochs to 83.1 at 300": a bare number after "at" that follows a value is a second setting
_AT_JOIN = re.compile(r"^\s*%?\s*\)?\s*(?:at|after|with|by)\s+(?:(?:only|just|about|roughly)\s+)?$", re.I)
_BARE_END = re.compile(r"^\s*(?:[.,;:)\]]|$|and\b|while\b|whereas\b|but\b|\[)", re.I)
# "A and B tie at 74.1", "Both A and B score 61.2": one value for two methods
_TIE_WORD = re.compile(r"\b(?:ties?|tied|tying|both|each|level|equal(?:ly)?|the\s+same|alike)\b", re.I)
_AND_JOIN = re.compile(r"^\s*,?\s*and\s+(?:the\s+)?$", re.I)
# "converges fastest", "learns slowest": the speed of a curve, not a throughput rank
_TRAJECTORY_BEFORE = re.compile(r"\b(?:converg|learn|train|improv|ris|drop|climb|fall|saturat|degrad|recover|adapt|grow|"
                                r"shrink|increas|decreas|deteriorat|declin)\w*"
                                r"\s+(?:the\s+)?$", re.I)
# "OskarFlow is the better of the two": a comparison whose object is the other method the sentence names
_OF_THE_TWO = re.compile(r"\bthe\s+(better|stronger|worse|weaker|higher|lower|faster|slower|larger|smaller|lighter|"
                         r"heavier|cheaper|more\s+accurate|less\s+accurate)\s+(?:\w+\s+)?of\s+the\s+(?:two|pair)\b", re.I)

_NUM_WORD = r"(?:\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|twenty|a\s+hundred)"
_MULTIPLE = rf"{_NUM_WORD}\s*(?:times|x|×)|twice|double|{_NUM_WORD}-?fold"
_POSSESSIVE_NEXT = r"(?=\s+(?:that\s+of\s+)?(?:the\s+)?[A-Z][\w\-]*(?:\s+[\w\-]+)?['’]s?\s)"
_FRACTION = (r"half|(?:a|one)\s+(?:third|quarter|fifth|sixth|seventh|eighth|ninth|tenth|twelfth|fifteenth|twentieth|"
             r"thirtieth|fortieth|fiftieth|hundredth|thousandth)|(?:two|three)\s+(?:thirds|quarters|fifths)")
# Comparison words: (pattern, polarity, reads through quality). Passive forms come first.
_COMPARE = [
    (r"(?:is|are|was|were|has\s+been|have\s+been)\s+(?:\w+\s+)?(?:out[a-z]+ed|beaten|surpassed|overtaken|bettered|topped|"
     r"edged\s+out|eclipsed|exceeded)\s+by", -1, True),
    (r"out(?:perform|scor|pac|strip|class|do|run)(?:s|es|ed|ing|e)?|beat(?:s|ing|en)?|surpass(?:es|ed|ing)?|"
     r"overt(?:ak(?:es|en|ing|e)|ook)|eclips(?:es|ed|ing)|edg(?:es|ed|ing)\s+(?:out|past)|pull(?:s|ed|ing)?\s+ahead\s+of|"
     r"(?:is|are|stays?|sits?|finishes)?\s*ahead\s+of|(?:well\s+|comfortably\s+)?clear\s+of|"
     r"better\s+(?:[\w%()\-/]+\s+){0,3}?than|improv(?:es|ed|ing)\s+(?:on|over|upon)|improv(?:es|ed|ing)\s+(?:[\w@%()\-/.]+\s+){1,6}?(?:over|upon)(?=\s+(?:the\s+)?(?-i:[A-Z]))|(?:margin|lead|advantage|edge|gain|improvement)\s+(?:of\s+(?:about\s+|roughly\s+|nearly\s+|almost\s+|~)?[\d.,]*\d\s*(?:%|(?:[\w@\-]{1,12}\s+)?(?:points?|pts?|pp)|[A-Za-z]{1,6})?\s+)?over|(?<=\+)[\d.,]+\s*(?:%|points?|pts?|pp|[A-Za-z]{1,6})?\s*(?:over|vs\.?|versus|against)|lead(?:s|ing)?|edg(?:es|ed|ing)|"
     r"(?:wins?|won)\s+(?:over|against)",
     1, True),
    # "reduces MAE on X by 0.014 relative to B", "raises throughput by 12% over B": a change of a raw value against a
    # method
    (r"(?:reduc|lower|cut|decreas|trim|shrink|rais|increas|boost|lift)(?:es|s|ed|ing|e)?\s+(?:[\w@%()\-/.,]+\s+){0,8}?"
     r"(?:relative\s+to|compared\s+(?:with|to)|over|against|versus|vs\.?)(?=\s+(?:the\s+)?(?-i:[A-Z0-9]))", 0, False),
    # "dwarfing B's 3.1", "trounces B": far more of the raw value
    (r"dwarf(?:s|ed|ing)?", 1, False),
    # "halves the latency of B", "doubles B's throughput": a ratio stated by a verb
    (r"(?:doubl|tripl|quadrupl)(?:es|ed|ing)(?:\s+the\s+(?:[\w%()\-/@]+\s+){0,3}?of|" + _POSSESSIVE_NEXT + ")", 1, False),
    (r"halv(?:es|ed|ing)(?:\s+the\s+(?:[\w%()\-/@]+\s+){0,3}?of|" + _POSSESSIVE_NEXT + ")", -1, False),
    (r"trail(?:s|ed|ing)?|(?:falls?|lags?)\s+(?:\w+\s+)?behind|behind|lag(?:s|ged|ging)?|worse\s+(?:[\w%()\-/]+\s+){0,3}?than|"
     r"(?:(?:falls?|fell|falling|comes?|came|stops?|stopped)\s+(?:\w+\s+)?)?(?:short|shy)\s+of|"
     r"second\s+(?:only\s+)?to|(?:deficit|disadvantage)\s+(?:to|against|relative\s+to|versus|vs\.?)", -1, True),
    # ratios: "eight times the throughput of B", "twice as many parameters as B", "a fifth of B's", "half the speed of B"
    # ... "double B's throughput", "half B's"
    (rf"(?:{_MULTIPLE})(?:\s+(?:the\s+(?:[\w.%()\-/]+\s+){{0,2}}?of|as\s+(?:[\w%()\-/]+\s+){{1,3}}?as)|{_POSSESSIVE_NEXT})",
     1, False),
    (rf"(?:{_FRACTION})(?:\s+(?:of\s+)?(?:the\s+(?:[\w%()\-/]+\s+){{0,2}}?of|as\s+(?:[\w%()\-/]+\s+){{1,3}}?as|of)|"
     rf"{_POSSESSIVE_NEXT})", -1, False),
    # "a lower latency of 63.0 ms compared with 86.6 ms for B": "compared with" for "than"
    (r"(?:higher|more|greater|larger|faster|quicker|heavier|bigger|costlier|longer)\s+(?:[\w%()\-/]+\s+){0,3}?than|"
     r"(?:higher|greater|larger|faster|quicker|heavier|bigger|costlier)\s+(?:[\w%()\-/.]+\s+){0,5}?compared\s+(?:with|to)|"
     r"above|exceed(?:s|ed)?", 1, False),
    (r"(?:lower|less|smaller|fewer|slower|lighter|cheaper|shorter)\s+(?:[\w%()\-/]+\s+){0,3}?than|"
     r"(?:lower|smaller|fewer|slower|lighter|cheaper)\s+(?:[\w%()\-/.]+\s+){0,5}?compared\s+(?:with|to)|below|under",
     -1, False),
]
# "lower than any other curve": a rank (above), not a comparison with a named method
_AGAINST_ALL = re.compile(r"^\s*(?:any|every|all|each|the\s+(?:rest|others|other\s+\w+))\b", re.I)
# "does not beat B", "never overtakes B", "fails to surpass B", "is no better than B": no comparison is stated
_NEGATED = re.compile(r"(?:\b(?:not|never|cannot|fails?\s+to|failed\s+to)|n't)\s+(?:(?:quite|yet|really|always|consistently|"
                      r"clearly|even|actually|manage\s+to|to)\s+){0,2}$|\bno\s+$|\bfar\s+from\s+$", re.I)
# "nearly catches B", "almost overtakes B": a hedged comparison verb states that it did not happen
_HEDGED = re.compile(r"\b(?:nearly|almost|narrowly\s+fails\s+to)\s+$", re.I)
_VERB_COMPARE = re.compile(r"^(?:out|beat|surpass|overt|eclips|edg|pull|trail|exceed|catch|match)", re.I)
_COMPARE_RE = [(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _COMPARE]
# Superlatives: (pattern, +1 best/highest, -1 worst/lowest, reads through quality)
_THAN_ALL = r"\s+(?:[\w%()\-/]+\s+){0,3}?than\s+(?:any|every|all|each)\b(?:\s+(?:of\s+the\s+)?others?)?"
_RANK = [
    (rf"(?:better|stronger|more\s+accurate){_THAN_ALL}|(?:clear\s+|outright\s+)?(?:leader|winner|front-?runner)|"
     r"(?:best|top|strongest)-(?:performing|scoring|ranked)|(?:no|none\s+of\s+the)\s+(?:other\s+)?(?:[\w\-]+\s+){1,2}?"
     r"(?:beats?|outperforms?|surpass(?:es)?|betters?|tops?|overtakes?)|"
     r"(?:wins?|won)(?=\s+(?:on|in|at|every|all|the|across|outright|overall|comfortably|clearly)\b)|"
     r"(?:outperforms?|beats?|surpass(?:es)?|tops?|leads?|is\s+ahead\s+of)\s+(?:every|all|each)\b|"
     r"(?:at|to)\s+the\s+top\s+of|unbeaten|unmatched|unrivall?ed|unsurpassed|(?<=the\s)top(?!\s+(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|few|handful)\b))(?=\s+[\w@\-]+)|"
     r"state[\s-]of[\s-]the[\s-]art(?!\s+(?:methods?|models?|systems?|baselines?|approaches)\b)|"
     r"most\s+(?:efficient|frugal|economical)|"
     r"most\s+accurate|best|strongest|tops|top(?=\s+(?:(?-i:[A-Z][\w\-]*)\s+)?(?:the|of|spot|position|place|result|score|entry|number|performer|model|method)s?\b)|comes?\s+out\s+on\s+top|"
     r"leads?(?=\s+(?:(?:with|the|all|on|every|at)\b|(?-i:[A-Z])))|first\s+place|(?:finish(?:es|ed)?|comes?|came|ranks?|ranked|places?|placed|lands?|landed)\s+first|"
     r"(?:comes?|came)\s+out\s+ahead(?!\s+of)",
     1, True),
    (rf"(?:worse|weaker|less\s+accurate){_THAN_ALL}|(?:worst|weakest)-(?:performing|scoring)|"
     r"least\s+accurate|worst|weakest|last\s+place|(?<=[\w)]\s)last(?=\s*(?:[,.;\[]|$))|(?:at|to)\s+the\s+bottom\s+of|"
     r"(?:trails?|lags?(?:\s+behind)?|falls?\s+behind|is\s+behind|(?:is|are|was|were)\s+(?:out[a-z]+ed|beaten|surpassed|bettered|"
     r"topped|exceeded|overtaken)\s+by)\s+(?:every|all|each)\b|"
     r"(?:is|are|was|were|finish(?:es|ed)?|comes?|came|ranks?|ranked|places?|placed|sits?)(?:\s*,\s*[a-z]+(?:\s+[a-z]+)?\s*,\s*|"
     r"\s+(?:(?:still|again|clearly|firmly|dead|a\s+distant|a\s+clear|a\s+close|distant)\s+)?)last", -1, True),
    (rf"(?:higher|larger|greater|heavier|faster|bigger){_THAN_ALL}|(?:above|over)\s+(?:every|all|any)(?:\s+(?:the\s+)?others?)?(?=\s+(?:curves?|lines?|series|models?|methods?|systems?|networks?|entries|bars?|points?|baselines?)\b|\s*[,.;\[(]|\s+(?:on|in|at|for|across)\b)|(?<=the\s)most(?!\s+(?:accurate|expensive|costly)\b)(?=\s+(?:of|among)\b|\s*[,.;()]|$|"
     r"\s+[\w\-]+(?:\s+[\w\-]+)?\s*[,.;(]|\s+[\w\-]+(?:\s+[\w\-]+)?\s+(?:of|among)\s+(?:all|every|the\s+\w+)\b|"
     r"\s+[\w\-]+\s+(?:[a-z]{3,}(?:er|or)|method|model|system|network)s?\s+(?:on|in|across|for)\s)|"
     r"highest|largest|heaviest|fastest|quickest|"
     r"biggest|longest|most\s+expensive|costliest|most\s+costly|highest-scoring", 1, False),
    (rf"(?:lower|smaller|fewer|lighter|slower|cheaper){_THAN_ALL}|(?:below|under)\s+(?:every|all|any)(?:\s+(?:the\s+)?others?)?(?=\s+(?:curves?|lines?|series|models?|methods?|systems?|networks?|entries|bars?|points?|baselines?)\b|\s*[,.;\[(]|\s+(?:on|in|at|for|across)\b)|(?<=the\s)least(?!\s+(?:accurate|expensive|costly)\b)(?=\s+(?:of|among|in)\b|\s*[,.;()]|$|"
     r"\s+[\w\-]+(?:\s+[\w\-]+)?\s*[,.;(]|\s+[\w\-]+(?:\s+[\w\-]+)?\s+(?:of|among)\s+(?:all|every|the\s+\w+)\b|"
     r"\s+[\w\-]+\s+(?:[a-z]{3,}(?:er|or)|method|model|system|network)s?\s+(?:on|in|across|for)\s)|"
     r"lowest|smallest|fewest|lightest|leanest|"
     r"slimmest|slowest|shortest|cheapest|least\s+expensive|lowest-scoring", -1, False),
]
_RANK_RE = [(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.I), pol, q) for p, pol, q in _RANK]
_CAMEL = re.compile(r"(?<![\w-])[A-Z][a-z]+(?:[A-Z][A-Za-z0-9]*)+(?![\w-])")

# Coordination and clause structure (scorer 13)
_FROM_BEFORE = re.compile(r"\bfrom\s*\(?\s*$", re.I)
# "ahead of B at 57.6 and well clear of C": a second comparison word whose subject is the first one's
_COORD_GAP = re.compile(r"^(?:['’]s\s+(?:[\w@%\-/]+\s+){0,2}?[\w@%\-/]+(?=\s+and\b))?\s*(?:\([^()]*\)|(?:at|with|on)\s+(?:only\s+)?[\d.,]+\s*(?:%|[A-Za-z/]+)?|"
                        r"(?:in|on|for)\s+(?:[\w\-]+\s+){0,2}?[\w\-]+)?\s*"
                        r"(?:by\s+(?:about\s+|roughly\s+|only\s+|just\s+)?[\d.,]*\d\s*(?:%|[A-Za-z@\-/]+(?:\s+points?)?)?\s*)?,?\s*"
                        r"(?:and|but|while|yet)?\s*(?:(?:is|are|stays?|remains?|sits?|well|far|comfortably|clearly|also|still|itself|themselves|in\s+turn|"
                        r"even|much|slightly|only|just|[\d.,]*\d\s*(?:%|points?|pts?|pp)?)\s+)*$", re.I)
# "beats both B (33.0) and C (35.2)", "ahead of B, C and D": more objects of one comparison word
# "beats B's 89.9% and C's 88.4%": an object's own value may stand between it and the next
_OBJ_JOIN = re.compile(r"^\s*(?:\([^()]*\)\s*|['’]s\s+[\d.,]*\d\s*(?:%|[A-Za-z/]{1,8})?\s*)?(?:,\s*(?:and\s+|or\s+)?|"
                       r"(?:and|or|as\s+well\s+as)\s+)(?:the\s+)?$", re.I)
_OBJ_END = re.compile(r"^\s*(?:[(,.;:\[]|$|['’]s\s+[\d.,]*\d|(?:by|on|at|in|across|with|for|alike|respectively|under|over)\b)",
                      re.I)
# "A and B both outperform C": more subjects of one comparison word
_SUBJ_GAP = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:(?:both|each|all|also|clearly|consistently|comfortably|still|are|remain|stay|sit|well|far)\s+)*$",
                       re.I)
# "Depth hurts A more than B": a method after a verb is its object, "more than" says how much the verb acts
_VERB_BEFORE = re.compile(r"\b(?!(?:is|was|as|has|this|its|thus|plus|across|versus|whereas|does)\b)[a-z]+(?:s|ed)\s+(?:the\s+)?$")
# "A is less accurate than B but 40% faster": a second comparative, without "than", shares the comparison's methods
_ELIDED = re.compile(r"^(?:[^;.()]|(?<=\d)\.(?=\d)|\([^()]*\)){0,40}?\b(?:but|and|yet|while|though)\s+(?:(?:is|are|being|remaining|staying|also|still|much|far|slightly|roughly|about|(?!(?:leads?|wins?|trails?|lags?)\b)[a-z]+s|"
                     r"nearly|almost|only|just|[\d.,]+\s*(?:%|x|×|times|(?:[A-Za-z][\w@\-/]*\s+)?points?|pp)?)\s+)*", re.I)
# "outperformed on COCO by B", "A, beaten only by B": a participle read as a passive
_PARTICIPLE = re.compile(r"^(?:out\w+ed|beaten|surpassed|overtaken|eclipsed|bettered|topped|exceeded|edged\s+(?:out|past))$", re.I)
_AUX_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+(?:(?:\w+ly|only|just|also|still|even)\s+)?$", re.I)
_BY_BEFORE = re.compile(r"\bby\s+(?:the\s+)?$", re.I)
# "A beats B on COCO by 1.2", "A beats B (52.0 vs 50.8), a margin of 1.2": a difference stated after the object
# (the same clause, no other comparative joined by "but"/"and": "A beats B but is 40% faster")
_DIFF_AFTER_OBJECT = re.compile(r"^(?:(?!\b(?:but|while|whereas|and|yet|though)\b)(?:[^,;()]|\([^()]*\))){0,60}$|"
                                r"^\s*(?:\([^()]*\)\s*)?,?\s*(?:by|with|a\s+(?:gap|margin|lead|deficit|difference)\s+of)\s*"
                                r"(?:about|roughly|around|nearly|almost|just|only|~|≈)?\s*$", re.I)
# "A matches B at 48.3", "A is level with B": one value for both
_TIE_VERB = re.compile(r"^\s*(?:(?:exactly|essentially|almost|nearly)\s+)?(?:match(?:es|ed)?|equals?|equall?ed|ties?\s+with|"
                       r"tied\s+with|(?:is|are)\s+(?:level|tied|on\s+par|even)\s+with|draws?\s+level\s+with)\s+(?:the\s+)?$", re.I)
# "... but leads in quality": comparison verbs that may follow a comparison with its methods elided
_ELIDED_VERB = [(re.compile(r"(?<![\w-])(?:leads?|wins?)(?![\w-])", re.I), 1, True),
                (re.compile(r"(?<![\w-])(?:trails?|lags?)(?![\w-])", re.I), -1, True)]
# "fails to go below an FID of 15", "more than 80%": a bound named before its number is no value
_BOUND_BEFORE = re.compile(r"\b(?:below|above|under|over|beyond|exceeds?|exceeding|more\s+than|less\s+than|fewer\s+than|"
                           r"at\s+least|at\s+most|up\s+to|clears?|cleared|cross(?:es|ed)?|break(?:s)?|broke|"
                           r"surpass(?:es|ed)?|tops|topped|pass(?:es|ed)?)\s+(?:an?\s+[\w\-/%()]+\s+of\s+)?(?:about|roughly|~)?\s*$", re.I)
# where a clause ends: a dataset after it is not the number's ("(3.8 vs. 5.2) but worse on ImageNet 64")
_CLAUSE_BREAK = re.compile(r";|\b(?:but|while|whereas|yet)\b|\)\s*,")
# "on both X and Y", "on X, Y and Z": datasets in one coordination
_DATASET_JOIN = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:,\s*(?:and\s+)?|and\s+|&\s*|/\s*)(?:on\s+)?$", re.I)
# ", while", ", whereas", ", but", ";": a new clause, with its own subject
_CLAUSE_START = re.compile(r";|,\s*(?:while|whereas|but)\b", re.I)
# "(64.3) belongs to the MLP baseline", "is held by B": a value whose method comes after it
_AGENT_AFTER = re.compile(r"^\s*\)?\s*(?:(?:belongs?|belonged|goes|went|falls?)\s+to|(?:is|was)\s+(?:held|set|reached|achieved|"
                          r"posted|obtained)\s+by)\s+(?:the\s+)?$", re.I)
# "A is faster than B, processing 5,200 nodes/s": a participle after the object speaks of the subject
_PARTICIPLE_AFTER = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:there\s*|here\s*)?(?:(?:on|in)\s+[^,;()\d]{1,30}?\s*)?"
                               r"(?:by\s+(?:about\s+|roughly\s+|nearly\s+)?[\d.,]*\d\s*(?:%|[A-Za-z@\-/]+(?:\s+points?)?)?\s*)?"
                               r"(?:,\s*(?:[a-z]+ing|with|at)|\s+with)\b[^,;()]*$",
                               re.I)
# "the largest gap", "the biggest improvement": a superlative of a difference ranks no method
_DIFFERENCE_NOUN = re.compile(r"^\s+(?:[\w\-]+\s+)?(?:gap|margin|difference|improvement|gain|drop|decline|jump|spread|lead|"
                              r"boost|change|increase|decrease)s?\b", re.I)
# "A, B and C all beat D": a list of subjects
_LIST_JOIN = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:,\s*(?:and\s+)?|,?\s*and\s+)(?:the\s+)?$", re.I)
# "at 2 and 8 layers", "label rates of 5% and 20%": settings in a list
_SETTING_LIST_JOIN = re.compile(r"^\s*%?\s*(?:,|,?\s*and|,?\s*or|instead\s+of|rather\s+than)\s*$", re.I)
# "ranges between 70 and 75", "varies from 60 to 66": a range of values
_VALUE_RANGE_BEFORE = re.compile(r"(?:\bbetween|\b(?:rang\w*|var(?:y|ies|ied|ying)|spann?\w*)\s+(?:from\s+)?)\s*$", re.I)
# "300 queries.", "6 decoder layers and": a number before a plural noun the episode does not name counts things
_COUNT_AFTER = re.compile(r"^\s*(?!(?:on|at|in|for|with|to|from|after|and|or|while|but|vs|versus|than|of|by|when|across|over|"
                          r"under|per|is|was|are|were|the|a|an)\b)(?:[a-z\-]+\s+)?(?!(?:its|this|is|was|has|as|thus|plus|"
                          r"across|versus|whereas|less|unless|does|always|us|points?|pts|times|percent)\b)[a-z]+s\b"
                          # not a verb ("46.51 puts it", "88.7 edges past") nor a rate ("nodes per second")
                          r"(?!\s+[A-Z])"  # a verb before a method ("0.081 favours A")
                          r"(?!\s*(?:/|per\b|it\b|its\b|the\b|an?\b|past\b|out\b|ahead\b|behind\b|up\b|down\b|them\b|"
                          r"to\b|into\b|on\b|by\b|in\b|at\b|from\b|for\b))")
# "a batch size of 16", "learning rate 0.001": a training hyperparameter
_HYPER_BEFORE = re.compile(r"\b(?:batch\s+size|learning\s+rate|weight\s+decay|momentum|dropout|patch\s+size|kernel\s+size|"
                           r"stride|(?:embedding|hidden)\s+(?:size|dim\w*)|warm-?up|seeds?|queries|heads)\s*(?:of|=|:|is)?\s*$",
                           re.I)
# "Neither A nor B beats C", "it is unclear whether A beats B": the clause states no comparison or rank
_UNSTATED = re.compile(r"\bneither\b[^;]*\bnor\b|\bwhether\b", re.I)
# "the best choice for", "the best trade-off": a recommendation, not a rank on a quantity
_NOT_A_RESULT = re.compile(r"^\s+(?:[\w\-]+\s+)?(?:choice|option|pick|candidate|fit|bet|trade-?offs?|balance|compromise)\b",
                           re.I)
# "the worst MSE among the learned models": a superlative over a subset the sentence qualifies ranks no method
_SUBSET_AFTER = re.compile(r"^[^,;.]{0,40}?\b(?:among|of)\s+(?:the\s+)?(?!(?:all|compared|evaluated|listed|tested|reported|"
                           r"plotted|shown|remaining|other|\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\b)"
                           r"[\w\-]+\s+(?:models|methods|networks|baselines|systems|approaches|agents|trackers|variants|"
                           r"entries|retrievers|readers|architectures|encoders|detectors)\b", re.I)
# "its best FID", "their lowest error": a method's own optimum over a sweep, not a rank among methods
_OWN_BEST = re.compile(r"\b(?:its|their|his|her)\s+(?:own\s+|overall\s+)?$", re.I)
# "15% relative", "30% worse" of a quantity not measured in %: a relative difference, stated as a comparison only
_RELATIVE_AFTER = re.compile(r"^\s*(?:relative(?!\s+to)|relatively)\b", re.I)
# "Neither A nor B reaches 30 BLEU", "does not reach 30": a bound that was not reached is no value
_REACH_BEFORE = re.compile(r"\b(?:reach(?:es|ed)?|hits?|attains?|gets?\s+to|goes?\s+(?:below|above))\s+"
                           r"(?:an?\s+[\w\-/%()]+\s+of\s+)?(?:about|roughly|~)?\s*$", re.I)
# "the 1.2M of B": a value whose method follows it
_OF_AFTER = re.compile(r"^\s*(?:%|[A-Za-z/]+)?\s*of\s+(?:the\s+)?$", re.I)
# "widening the beam from 1 to 8", "the hidden dimension from 64 to 128": a change over a setting, no value
_SETTING_RANGE = re.compile(r"^\s+(?:(?:is\s+|are\s+)?(?:increas|grow|grew|ris|rose|go|went|rais|scal|extend|var|rang|widen|"
                            r"shrink|shrank|decreas|reduc|drop|fall|fell|mov|step|sweep|swept)\w*\s+)?(?:from|between)\s+(?:[\d.,]+\s*[kK%]?\s*(?:to|and|-|–)\s*)?$", re.I)
# "a/b/c on X, Y and Z": values joined by slashes
_SLASH_JOIN = re.compile(r"^\s*[%kKM]?\s*/\s*$")
# a clause of its own after a value ("(291), even though its FID ..."): a quantity there is not the value's
_LATER_CLAUSE = re.compile(r";|\b(?:though|although|while|whereas|but|yet)\b|\)\s*,", re.I)
# pronouns that stand for a method the same sentence named before them
_ANAPHOR = re.compile(r"(?<![\w-])(?:the\s+(?:former|latter)|it|its)(?![\w-])", re.I)
# a method right after a preposition is no sentence subject ("Compared with B, A ...")
_GOVERNED = re.compile(r"\b(?:with|to|than|of|over|behind|against|versus|vs\.?|by|from|on|unlike|like)\s+(?:the\s+)?$", re.I)
# "Compared with B, A is ...", "Compared with B's 81.4, A's 82.2 is higher": what stands between the object and the subject
_FRONTED_SUBJECT = re.compile(r"\s*(?:['’]s\s+[\d.,]+\s*%?(?:\s*[A-Za-z/()%]+)?)?\s*,\s*(?:the\s+)?", re.I)

# "the second highest", "third-best", "the next fastest": an ordinal place other than the first or last is no rank
_ORDINAL_BEFORE = re.compile(r"\b(?:second|third|fourth|fifth|sixth|next|2nd|3rd|4th|5th)[\s-]+$", re.I)
# "a margin larger than any other", "the gap is the widest": a superlative of a difference ranks no method
_DIFFERENCE_BEFORE = re.compile(r"\b(?:gap|margin|difference|lead|improvement|gain|advantage|spread)(?:\s+(?:is|was|that\s+is|"
                                r"being)(?:\s+(?:also|even))?(?:\s+the)?)?\s+$", re.I)
# "than every non-autoregressive model", "above all other retrieval-based systems": "every"/"all" qualified by a word
# other than "other" is a subset, not the whole field
_THAN_ALL_SUBSET = re.compile(r"(?:^|\b(?:any|every|all|each)\b)\s+(?!other\b|of\b|the\b|others\b|competing\b|"
                              r"compared\b|evaluated\b|listed\b|tested\b|baseline\b)[a-z][\w\-]*\s+(?:models?|methods?|"
                              r"systems?|networks?|baselines?|approaches|approach|entries|entry|variants?|retrievers?|"
                              r"encoders?|architectures?)\b", re.I)
# "Among the flow-based systems, A has the lowest ...", "Of the learned models, ...", "Among those three, ...": a
# superlative after a fronted subset ranks no method ("Of all six models", "Among all methods" rank)
_SUBSET_BEFORE = re.compile(r"(?:^|[;:]|\.\s)\W*(?:among|of|within|amongst)\s+(?:(?:these|those)\s+(?:\d+|two|three|four|five|six)\b|"
                            r"(?:the\s+)?(?!all\b|every\b|the\b)(?:(?!(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\b)"
                            r"[\w\-]+\s+){1,3}(?:models|methods|systems|networks|baselines|approaches|agents|variants|entries|"
                            r"retrievers|readers|architectures|encoders|detectors|trackers|rankers|re-rankers|learners|controllers|policies|"
                            r"solvers|planners|predictors|classifiers|generators|decoders|parsers|vocoders|recognizers|"
                            r"forecasters|segmenters|agents|pipelines|designs|families)\b)"
                            r"[^,;]{0,40},[^;]*$", re.I)

# "p = 0.31", "p < 0.05", "a p-value of 0.2", "α = 0.05", "significance level 0.05": a statistical test's number
_NOT_A_RESULT_BEFORE = re.compile(r"(?:(?<![\w-])p(?:\s*-?\s*values?)?\s*(?:[=<>≤≥]|of|is|was)|(?<![\w-])(?:α|alpha)\s*(?:[=<>]|of|is)|"
                                  r"\bsignificance(?:\s+level)?\s*(?:[=<>]|of|is|at)?)\s*$", re.I)
_CONFIDENCE_AFTER = re.compile(r"^\s*%?\s*(?:confidence|CI\b|credible)", re.I)
# "the top 1,000 candidates", "the first 20 queries": a count of things
_TOP_N_BEFORE = re.compile(r"\b(?:top|first|last)\s+$", re.I)
# "at the same size", "at that depth": a setting named again, with no number of its own
_SAME_BEFORE = re.compile(r"\b(?:same|that|this|equal|matched|comparable)\s+$", re.I)
# "... when the sampler is cut to 4", "once the buffer is raised to 20": a verb of change in a clause of its own
_SET_AGAIN_BEFORE = re.compile(r"\b(?:when|if|once|after|as|until)\b[^,;]{0,40}?\b(?:cut|reduced|lowered|raised|increased|set|"
                               r"dropped|decreased|doubled|halved|brought|trimmed|shrunk|extended|grown|pushed|limited|"
                               r"capped|restricted)\s+(?:back\s+|down\s+|up\s+)?to\s+(?:only\s+|just\s+)?$", re.I)

# "73.6 on BBBP": a value followed by its dataset ("BBBP 73.6, Tox21 77.4" is a list of datasets with their values)
_DATASET_OF_AFTER = re.compile(r"^\s*%?\s*(?:[A-Za-z/@\-]+\s+)?(?:on|in|for|across)\s", re.I)
# "..., and FreeSolv with 1.12", "and Y at 70.3", "Y: 0.64": a dataset that introduces the number after it
_INTRODUCES_NUMBER = re.compile(r"^\s*(?:with|at|:|=|—|–)\s*(?:an?\s+)?(?:[\w@\-]+\s+of\s+)?(?:about\s+|roughly\s+|only\s+|just\s+)?[\d.]", re.I)

# "beats B by 9.8, and C by 1.1": a second object with its own difference
_OBJ_DIFF_JOIN = re.compile(r"^\s*(?:\([^()]*\)\s*)?by\s+(?:about\s+|roughly\s+|only\s+|just\s+)?[\d.,]*\d\s*(?:%|[A-Za-z@\-/]+(?:\s+[a-z]+)?(?:\s+points?)?)?"
                            r"(?:\s+of\s+[\w\-]+(?:\s+[\w\-]+)?)?"  # "by 2.6 points of grasp success on YCB and C by 4.0"
                            r"(?:\s+(?:on|in)\s+[^,;]{1,30}?)?\s*,?\s*(?:and|as\s+well\s+as)\s+(?:the\s+)?$", re.I)
_BY_NEXT = re.compile(r"^\s*by\s+(?:about\s+|roughly\s+|only\s+|just\s+)?[\d.,]*\d", re.I)
# "A and B reach ...; both are beaten by C": a plural pronoun subject of a new clause stands for the two methods before
_PLURAL_SUBJECT = re.compile(r"(?:;|,\s*(?:and|but|yet|while)|:|,(?=\s*(?:both|each)\s))\s*(?:but\s+|yet\s+)?(?:both(?:\s+of\s+them)?|they|the\s+two|each)\s+"
                             r"(?:(?:are|were|is|was|get|got|remain|stay|still|also|clearly|again)\s+)*$", re.I)

# "tops both classification benchmarks", "is best on all three datasets": a rank on every dataset the sentence names
_OVER_ALL_DATASETS = re.compile(r"^\s+(?:on\s+|across\s+|in\s+)?(both|all\s+(?:two|three|four|five|six)|all(?:\s+the)?|every)\s+"
                                r"(?:[\w\-]+\s+){0,2}?(?:benchmarks?|datasets?|tasks?|splits?|(?:test|trace|evaluation|data)\s+sets?|"
                                r"environments?|suites?|graphs?|corpora|collections?|domains?)\b", re.I)
# "the worst on both counts", "best on all metrics": a rank on every quantity its clause names
_ON_ALL_COUNTS = re.compile(r"^\s+(?:on|in|by|across)\s+(?:both|all(?:\s+(?:three|four))?|every)\s+(?:counts?|metrics?|measures?|"
                            r"fronts?|criteria|respects?|scores|axes)\b", re.I)

# "Doubling the context from 16k to 32k tokens lifts ...": a fronted gerund of change over a setting; its ends are no values
_GERUND_FROM = re.compile(r"^\W*[A-Za-z]+ing\b[^,;\d]{0,60}?\bfrom\s*(?:[\d.,]+\s*[kKMB%]?\s*(?:to|-|–)\s*)?$")
# "lifts A on X by 1.2 points and on Y by 2.2 points": the next difference, its dataset before it
_MORE_DIFF_ON = re.compile(r"^\s*(?:%|points?|pts?|pp|[A-Za-z@\-]{1,10}(?:\s+points?)?)?\s*,?\s*(?:and|while)\s+(?:on|in|for)\s+(?:the\s+)?"
                           r"(?P<d>[^,;]{1,40}?)\s+by\s+(?:about\s+|roughly\s+|nearly\s+)?$", re.I)

# "Across both benchmarks, A is the most accurate, with ... on X and ... on Y": a fronted scope over every dataset named
_OVER_ALL_FRONTED = re.compile(r"(?:^|[,;])\W*(?:across|on|in|over)\s+(both|all\s+(?:two|three|four|five|six)|all(?:\s+the)?|every)\s+"
                               r"(?:[\w\-]+\s+){0,2}?(?:benchmarks?|datasets?|tasks?|splits?|(?:test|trace|evaluation|data)\s+sets?|"
                               r"environments?|suites?|graphs?|corpora|collections?|domains?)\s*,[^;]*$", re.I)

# "evaluated on 2,000 questions", "averaged over 3 seeds", "trained on 4 GPUs": a preposition before a count of things
_COUNT_PREP_BEFORE = re.compile(r"\b(?:on|over|across|using|from|among)\s+(?:the\s+|a\s+|all\s+|only\s+|just\s+|about\s+|roughly\s+)?$",
                                re.I)
