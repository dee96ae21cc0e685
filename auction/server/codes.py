"""Room codes: four letters a friend can read out loud and type on a phone."""

from __future__ import annotations

import secrets

# Unambiguous letters: no I/O (like 1/0), no L, no U/V pairs to misread.
ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ"
CODE_LENGTH = 4


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in ALPHABET for c in code)
