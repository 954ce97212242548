"""Parsing the XML parts of an untrusted workbook with expat, safely and fast.

The parser refuses any document type declaration, and with it every entity
declaration (the billion-laughs and external-entity attacks need one); the
five predefined entities and character references are all a workbook uses.
Big parts (sheets, shared strings) are fed in chunks to handlers of their own;
small parts (the workbook, relations, properties, comments) are read whole
into an ElementTree whose tags and attribute names carry no namespace prefix.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
import zipfile
from collections.abc import Callable
from typing import NoReturn
from xml.parsers import expat

#: bytes fed to the parser at a time
CHUNK = 1 << 20


class UnsafeXML(ValueError):
    """A part declares a document type or entities: no workbook does."""


def _refuse(*_: object) -> NoReturn:
    raise UnsafeXML("the part declares a document type or entities, which no workbook does")


def safe_parser() -> expat.XMLParserType:
    """An expat parser (no namespace processing) that refuses document type and entity declarations."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.UnparsedEntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    return parser


def feed_part(parser: expat.XMLParserType, archive: zipfile.ZipFile, part: str,
              after_chunk: Callable[[], None] | None = None) -> None:
    """Parse the archive's `part` in chunks; after_chunk() runs after each (to cap what was read)."""
    with archive.open(part) as stream:
        while chunk := stream.read(CHUNK):
            parser.Parse(chunk, False)
            if after_chunk is not None:
                after_chunk()
    parser.Parse(b"", True)


class _RootReached(Exception):
    """The prolog of a part has been read (its first element starts)."""


def _root_reached(*_) -> None:
    raise _RootReached


def check_prolog(archive: zipfile.ZipFile, part: str, limit: int = 1 << 16) -> None:
    """UnsafeXML when the prolog of `part` (what precedes its root element, where a document type
    and its entities are declared) declares any; at most `limit` bytes are read.  Parse errors
    are left to the part's reader."""
    parser = safe_parser()
    parser.StartElementHandler = _root_reached
    with archive.open(part) as stream:
        head = stream.read(limit)
    try:
        parser.Parse(head, False)
    except UnsafeXML:
        raise
    except Exception:  # the root element started, or a damage the part's reader reports
        pass


def local(name: str) -> str:
    """A tag or attribute name without its namespace prefix ('x:c' -> 'c')."""
    return name.rpartition(":")[2]


def read_tree(data: bytes) -> ElementTree.Element:
    """A small part as an element tree, names without namespace prefixes."""
    builder = ElementTree.TreeBuilder()
    parser = safe_parser()
    parser.StartElementHandler = lambda name, attrs: builder.start(
        local(name), {local(key): value for key, value in attrs.items()})
    parser.EndElementHandler = lambda name: builder.end(local(name))
    parser.CharacterDataHandler = builder.data
    parser.Parse(data, True)
    return builder.close()
