"""JSON on the hot path: each room record as it is saved, loaded and published, and
each view a stream sends, through orjson. The standard library's encoder and decoder
were 6-8 % of a busy worker's time, and every change of a room passes through them
once per worker and once more per stream (docs/scaling.md).

The text is the same JSON, written compactly (no spaces after separators) and in
UTF-8 rather than with \\u escapes; integer keys become strings, as they do with the
standard library.
"""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)
