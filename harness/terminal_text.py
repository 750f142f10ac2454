"""Text from data made inert before a terminal shows it: the one escaping every printer of model, tool or paper text uses.

A terminal obeys bytes, not intentions: an ESC starts a command (CSI `ESC [`: clear the screen, move the cursor,
hide text; OSC `ESC ]`: set the window title, write the clipboard with OSC 52, open a hyperlink with OSC 8), a
C1 byte does the same in one character, a carriage return or backspace overwrites what was shown, and bidi
overrides make text read in another order than it runs. Replies, answers, tool output, paper text, ids and
error messages that quote any of them are data: each such character is shown as a visible escape (`\\x1b`,
`\\u202e`) and does nothing. Newlines and tabs are kept. Rich's markup is a separate matter: data goes into a
`rich.text.Text` (or `markup=False`), never into a markup string.
"""
from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel

# C0 controls but \t and \n, DEL, C1 controls, and the bidi marks and overrides (ALM, LRM/RLM, embeddings,
# overrides, isolates).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

T = TypeVar("T")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    """`text` with every character a terminal would obey (ESC, CSI, OSC, C0 and C1 controls but newline and tab,
    bidi overrides) shown as a visible escape."""
    return _CONTROL.sub(_escape, text)


def has_control(text: str) -> bool:
    """Whether `text` holds a character `inert` would escape (for names that must be plain: episode ids)."""
    return _CONTROL.search(text) is not None


def inert_all(value: T) -> T:
    """A copy of `value` (strings, lists, tuples, dicts, pydantic models, nested) with `inert` applied to every
    string in it, dictionary keys included; other values are kept. For a whole view model before it is printed."""
    out: Any
    if isinstance(value, str):
        out = inert(value)
    elif isinstance(value, BaseModel):
        out = value.model_copy(update={name: inert_all(getattr(value, name)) for name in type(value).model_fields})
    elif isinstance(value, dict):
        out = {inert_all(k): inert_all(v) for k, v in value.items()}
    elif isinstance(value, list):
        out = [inert_all(v) for v in value]
    elif isinstance(value, tuple):
        items = [inert_all(v) for v in value]
        out = type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    else:
        out = value
    return out
