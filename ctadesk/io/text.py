"""Text files as offices write them: the encoding and the lines.

Every text reader of ctadesk.io decodes through ``decode_text``: an encoding the
caller names wins; otherwise a byte-order mark decides (UTF-8 or UTF-16), then
UTF-8 is tried, and where it fails cp1252 (Windows' Western encoding, a superset
of latin-1's printable characters), and latin-1 for the few bytes cp1252 leaves
undefined, so any file of bytes reads as text.  A file that is plainly not text --
a zip archive (an .xlsx, .docx or .ods renamed), a legacy Office file (.xls) -- is
refused by ``read_text`` in one line naming it, before its bytes are taken for
numbers ("'PK...' is not a number").
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterable
from pathlib import Path

from ctadesk.io.errors import FileFormatError

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
#: how binary files a text reader may be handed start, and what they are
_BINARY = ((b"PK\x03\x04", "a zip archive (an Excel workbook .xlsx, or another Office file), not a text file"),
           (b"PK\x05\x06", "an empty zip archive, not a text file"),
           (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office file (.xls) or an encrypted workbook, not a "
                                                "text file"))


def binary_kind(raw: bytes) -> str | None:
    """What a file starting with raw is when it is plainly not text (see _BINARY), else None."""
    return next((what for signature, what in _BINARY if raw.startswith(signature)), None)


def decode_text(raw: bytes, encoding: str | None = None, *, file: str | Path | None = None) -> str:
    """raw as text, in `encoding` when given, else as its byte-order mark or its bytes say.

    A given encoding that does not fit raises FileFormatError naming the file and line.
    """
    if encoding is None:
        encoding = next((name for bom, name in _BOMS if raw.startswith(bom)), None)
    if encoding is not None:
        try:
            return raw.decode(encoding)
        except LookupError:
            raise FileFormatError(f"'{encoding}' is not a known text encoding", file=file) from None
        except UnicodeDecodeError as error:
            line = raw[:error.start].decode(encoding, errors="replace").count("\n") + 1
            raise FileFormatError(f"the text is not {encoding} (byte {raw[error.start]:#04x})", file=file,
                                  row=line) from None
    for name in ("utf-8", "cp1252"):
        try:
            return raw.decode(name)
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1")


def read_text(path: str | Path, encoding: str | None = None, max_bytes: int | None = None) -> str:
    """The text of a file (see decode_text); FileFormatError when it is missing, a folder,
    unreadable, larger than max_bytes or plainly not text (see read_bytes)."""
    return decode_text(read_bytes(path, max_bytes), encoding, file=path)


def read_bytes(path: str | Path, max_bytes: int | None = None) -> bytes:
    """The bytes of a text file, not yet decoded; FileFormatError when it is missing, a folder,
    unreadable, larger than max_bytes or plainly not text (a workbook, see _BINARY)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise FileFormatError(f"the file is {size / 2**20:.0f} MB, more than the "
                                  f"{max_bytes / 2**20:.0f} MB ctadesk reads", file=path)
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FileFormatError("file not found", file=path) from None
    except OSError as error:
        raise FileFormatError(f"cannot be read ({error.strerror or error})", file=path) from None
    what = binary_kind(raw[:8])
    if what is not None:
        raise FileFormatError(f"this file is {what}; a workbook is read by its own name (.xlsx)", file=path)
    return raw


def split_lines(text: str) -> list[str]:
    """The lines of text, ended by \\n, \\r\\n or \\r only (so line numbers match an editor's;
    str.splitlines also breaks at form feeds and Unicode separators)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str | Path, encoding: str | None = None, max_bytes: int | None = None) -> list[str]:
    """The lines of a text file (see read_text and split_lines)."""
    return split_lines(read_text(path, encoding, max_bytes))


def csv_records(lines: Iterable[str], delimiter: str, file: str | Path | None = None) -> list[tuple[int, list[str]]]:
    """The CSV records of lines, each with the line it starts on (a quoted field may span
    lines); a line the csv module refuses (e.g. a field over 128 KiB) is a FileFormatError."""
    reader = csv.reader(lines, delimiter=delimiter, quotechar='"')
    records = []
    start = 1
    try:
        for fields in reader:
            records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as error:
        raise FileFormatError(f"cannot be read as CSV ({error})", file=file, row=reader.line_num) from None
    return records
