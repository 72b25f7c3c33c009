"""Completion codes: the code a participant gets at the end of a study, and checking one typed back.

A code is an HMAC of the study and participant ids under a secret from the settings, so it is the
same every time for the same person, cannot be made without the secret, and can be checked later
without being stored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re

_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base-32 digits: no I, L, O or U, so a code read aloud or retyped is not mistaken."""
_TYPO_FIXES = str.maketrans({"O": "0", "I": "1", "L": "1"})


def completion_code(secret: str | bytes, study_id: str, participant_id: str, *, groups: int = 3, group_size: int = 4, prefix: str = "") -> str:
    """The completion code of one participant in one study, e.g. `K7QF-9MZD-2XHP` (60 bits).

    An HMAC-SHA256 of the two ids under `secret`: the same inputs always give the same code, and
    nobody without the secret can make a valid one. `prefix` (say `DUO`) is put in front.
    """
    if not secret:
        raise ValueError("a completion code needs a non-empty secret (set it in the platform settings)")
    if groups < 1 or group_size < 1:
        raise ValueError("groups and group_size must be at least 1")
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    message = json.dumps([study_id, participant_id], ensure_ascii=False).encode("utf-8")  # unambiguous join
    digest = hmac.new(key, message, hashlib.sha256).digest()
    characters = groups * group_size
    if characters * 5 > len(digest) * 8:
        raise ValueError(f"a code can carry at most {len(digest) * 8 // 5} characters")
    number = int.from_bytes(digest, "big") >> (len(digest) * 8 - characters * 5)
    letters = "".join(_CODE_ALPHABET[(number >> (5 * (characters - 1 - i))) & 31] for i in range(characters))
    code = "-".join(letters[i : i + group_size] for i in range(0, characters, group_size))
    return f"{prefix}-{code}" if prefix else code


def normalise_code(code: str) -> str:
    """A code as typed back by a person, in canonical letters: case, spaces and dashes ignored, O->0, I/L->1."""
    return re.sub(r"[\s-]", "", code).upper().translate(_TYPO_FIXES)


def check_completion_code(code: str, secret: str | bytes, study_id: str, participant_id: str, *, groups: int = 3, group_size: int = 4, prefix: str = "") -> bool:
    """Whether `code` is this participant's code (forgiving case, dashes, spaces and O/0, I/L/1 mix-ups)."""
    if not isinstance(code, str):
        return False
    expected = completion_code(secret, study_id, participant_id, groups=groups, group_size=group_size, prefix=prefix)
    return hmac.compare_digest(normalise_code(code).encode(), normalise_code(expected).encode())
