"""Text made safe for an XML part: markup characters escaped, characters XML cannot hold
written as Excel writes them ('_x0001_')."""

from __future__ import annotations

import re

#: characters an XML part cannot hold
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_MARKUP = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;",
                            "\r": "&#13;", "\t": "&#9;"})


def _legal(text: str) -> str:
    return NOT_XML.sub(lambda match: f"_x{ord(match[0]):04X}_", text)


def escape_text(text: str) -> str:
    """text as element content."""
    return _legal(text).translate(_MARKUP)


def escape_attribute(text: str) -> str:
    """text as a double-quoted attribute value."""
    return _legal(text).translate(_ATTRIBUTE)
