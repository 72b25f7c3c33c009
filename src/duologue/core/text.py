"""What counts as text a person can see, and the bidirectional controls shown text must not keep.

A message made only of zero-width spaces, joiners, bidi overrides, fillers or combining marks draws
nothing: it is refused like an empty one. A bidi override or embedding (U+202A-U+202E) or isolate
(U+2066-U+2069) inside visible text reorders what is shown after it on any page that shows it;
`without_bidi_controls` drops them (the left-to-right and right-to-left marks stay: they only tell
a neutral character its direction, which mixed-script writing needs).
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and their pop (U+202A-U+202E), isolates and theirs (U+2066-U+2069)."""
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that draw nothing on their own: controls, format characters (zero-width,
bidi, soft hyphen, tags), spaces and separators, and marks that only decorate another character."""
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing: the Hangul fillers and the blank Braille pattern."""
_DROP_BIDI = {ord(c): None for c in BIDI_CONTROLS}


def visible(text: str) -> bool:
    """Whether `text` has at least one character that draws something."""
    return any(c not in BLANK_CHARACTERS and unicodedata.category(c) not in INVISIBLE_CATEGORIES for c in text)


def without_bidi_controls(text: str) -> str:
    """`text` without bidi embeddings, overrides and isolates."""
    return text.translate(_DROP_BIDI)
