"""Building blocks of the JSON API's request fields, so that the OpenAPI description says exactly
what the server accepts.

A rule that a service checks with a message of its own (a deck or player name, a card id, an
army) is declared in the schema with :class:`Declared` and still checked, with its message, where
it always was: both are built from the same definitions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from itertools import compress
from typing import Annotated, Any

from pydantic import BeforeValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema


def _whole(value: Any) -> Any:
    """JSON has one kind of number: one without a fraction (``3.0``) is an integer, as JSON Schema
    says, and is taken as one; anything else is left to the strict check."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


AS_WHOLE = BeforeValidator(_whole)
"""Metadata for an integer field of a strict body: ``3`` and ``3.0``, never ``"3"``, ``true`` or
``3.5``. After any ``Field`` constraints in an ``Annotated``, so that the schema shows them."""
WholeNumber = Annotated[int, AS_WHOLE]


class Declared:
    """Field metadata adding ``extra()`` to the field's JSON schema, worked out when the OpenAPI
    description is first made (not at import). Validation is left as it is: the rule is checked
    by the service, with its own message."""

    def __init__(self, extra: Callable[[], dict[str, Any]]):
        self.extra = extra

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.update(self.extra())
        return schema


ALL = range(0x110000)


def _ranges(found: Iterable[int]) -> Iterator[tuple[int, int]]:
    start = end = -2
    for c in found:
        if c != end + 1:
            if start >= 0:
                yield start, end
            start = c
        end = c
    if start >= 0:
        yield start, end


def _char(c: int) -> str:
    # \uXXXX in the BMP (Python's re and ECMA 262 both read it), the character itself above it
    return f"\\u{c:04X}" if c <= 0xFFFF else chr(c)


def _class_body(found: Iterable[int]) -> str:
    """A regex character class (without its brackets) naming these code points, surrogates
    apart: a JSON Schema pattern matches Unicode scalar values, which they are not."""
    found = (c for c in found if not 0xD800 <= c <= 0xDFFF)
    return "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in _ranges(found))


@cache
def spaces() -> str:
    """The class body of white space as ``str.split()`` and ``str.strip()`` see it."""
    return _class_body(compress(ALL, map(str.isspace, map(chr, ALL))))


@cache
def categories(*names: str) -> str:
    """The class body of every character of these Unicode general categories (as this Python's
    ``unicodedata`` has them), white space apart."""
    wanted = frozenset(names)
    found = compress(ALL, map(wanted.__contains__, map(unicodedata.category, map(chr, ALL))))
    return _class_body(c for c in found if not chr(c).isspace())


def any_case(word: str) -> str:
    """A regex matching ``word`` whatever the case of its ASCII letters."""
    return "".join(f"[{ch.lower()}{ch.upper()}]" if ch.isascii() and ch.isalpha() else re.escape(ch) for ch in word)
