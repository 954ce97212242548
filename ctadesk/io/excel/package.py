"""What a workbook holds besides its sheets' cells: the sheets and their parts, the shared
strings, the cell formats and date system, and what a release leaves out (defined names,
document properties, comments).

Parts are found through the package's relations, as Excel does, and read with
the safe parser of `ctadesk.io.excel.safe_xml`.  The archive is opened for each
reading and closed again, so a `WorkbookFile` holds no open file.
"""

from __future__ import annotations

import dataclasses
import datetime
import posixpath
import zipfile
from pathlib import Path
from xml.etree.ElementTree import Element
from xml.parsers import expat

from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.safe_xml import feed_part, read_tree, safe_parser
from ctadesk.io.excel.styles import SourceFormats, read_formats

_RELATION = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_PACKAGE_RELATION = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/"
#: document properties a release never copies from its source (core.xml names)
RELEASED_NEVER = ("title", "subject", "creator", "keywords", "description", "lastModifiedBy", "category")


@dataclasses.dataclass(frozen=True)
class SheetEntry:
    """A sheet as the workbook lists it: its name, 'visible', 'hidden' or 'veryHidden', the
    archive path of its part (None when the workbook names none), and whether it is a chart
    sheet (no cells)."""

    title: str
    sheet_state: str
    part: str | None
    chart: bool = False


@dataclasses.dataclass(frozen=True)
class WorkbookFile:
    """A workbook's manifest and shared parts (see the module docstring).

    worksheets        the sheets with cells, in workbook order (chart sheets left out)
    sheets            every sheet, chart sheets included
    strings           the shared strings cells refer to
    epoch             the date system (1900 or 1904) of date cells
    defined_names     names defined in the workbook (for its sheets too)
    properties        the document properties set, of RELEASED_NEVER
    custom_properties how many custom document properties there are
    """

    path: Path
    sheets: tuple[SheetEntry, ...]
    strings: tuple[str, ...]
    formats: SourceFormats
    epoch: datetime.datetime
    defined_names: tuple[str, ...]
    properties: tuple[str, ...]
    custom_properties: int

    @property
    def worksheets(self) -> tuple[SheetEntry, ...]:
        return tuple(sheet for sheet in self.sheets if not sheet.chart)

    @property
    def sheetnames(self) -> list[str]:
        return [sheet.title for sheet in self.worksheets]

    def sheet(self, title: str | None) -> SheetEntry:
        """The worksheet named `title`, or the first visible one when None."""
        if title is None:
            visible = [sheet for sheet in self.worksheets if sheet.sheet_state == "visible"]
            if not visible:
                raise FileFormatError("the workbook has no visible sheet", file=self.path)
            return visible[0]
        for sheet in self.worksheets:
            if sheet.title == title:
                return sheet
        raise FileFormatError(f"no sheet named '{title}' (sheets: {', '.join(self.sheetnames)})", file=self.path)

    def comment_cells(self, sheet: SheetEntry) -> list[str]:
        """The cells ('B4') of the sheet that carry a comment."""
        if sheet.part is None:
            return []
        cells = []
        try:
            with zipfile.ZipFile(self.path) as archive:
                for target, kind in _relations(archive, sheet.part).values():
                    if kind.endswith("/comments") and target in archive.namelist():
                        tree = read_tree(archive.read(target))
                        cells += [comment.get("ref", "") for comment in tree.iter("comment")]
        except (OSError, LookupError, ValueError, zipfile.BadZipFile, expat.ExpatError) as error:
            raise FileFormatError(f"the workbook is damaged and cannot be read ({error})", file=self.path,
                                  sheet=sheet.title) from None
        return cells


def read_workbook_file(path: Path) -> WorkbookFile:
    """The manifest and shared parts of the .xlsx at path (already checked by the caller)."""
    with zipfile.ZipFile(path) as archive:
        package = _relations(archive, "")
        workbook_part = next((target for target, kind in package.values() if kind == _RELATION + "officeDocument"),
                             "xl/workbook.xml")
        tree = read_tree(archive.read(workbook_part))
        relations = _relations(archive, workbook_part)
        sheets = tuple(_sheet_entry(element, relations) for element in _children(tree, "sheets", "sheet"))
        by_kind = {kind.rpartition("/")[2]: target for target, kind in relations.values()}
        parts = archive.namelist()
        strings = _shared_strings(archive, by_kind["sharedStrings"]) if by_kind.get("sharedStrings") in parts else ()
        styles = archive.read(by_kind["styles"]) if by_kind.get("styles") in parts else None
        properties, custom = _properties(archive, package, parts)
        settings = next(iter(_children(tree, "workbookPr")), None)
        date1904 = settings is not None and settings.get("date1904", "0").lower() in ("1", "true")
        defined = tuple(element.get("name", "") for element in _children(tree, "definedNames", "definedName"))
        return WorkbookFile(path, sheets, strings, read_formats(styles),
                            CALENDAR_MAC_1904 if date1904 else CALENDAR_WINDOWS_1900, defined, properties, custom)


def _children(tree: Element, *path: str) -> list[Element]:
    return tree.findall("/".join(path))


def _sheet_entry(element: Element, relations: dict[str, tuple[str, str]]) -> SheetEntry:
    target, kind = relations.get(element.get("id", ""), (None, ""))
    return SheetEntry(element.get("name", ""), element.get("state", "visible"), target,
                      kind.endswith("/chartsheet"))


def _relations(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """Id -> (archive path of the target, relation type) of a part's relations ('' the package's)."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", f"{name}.rels")
    try:
        tree = read_tree(archive.read(rels))
    except KeyError:
        return {}
    found = {}
    for relation in tree.iter("Relationship"):
        target = relation.get("Target", "")
        if relation.get("TargetMode") == "External":
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found[relation.get("Id", "")] = (path, relation.get("Type", ""))
    return found


def _shared_strings(archive: zipfile.ZipFile, part: str) -> tuple[str, ...]:
    """The shared strings: each item's text, its runs joined, phonetic runs left out."""
    parser = safe_parser()
    strings: list[str] = []
    pieces: list[str] = []
    item = text = phonetic_run = ""  # element names, with the prefix the part uses
    collecting = phonetic = False

    def start(name: str, _attrs) -> None:
        nonlocal collecting, phonetic, item, text, phonetic_run
        if not item:
            prefix = name[:-3] if name.endswith("sst") else ""
            item, text, phonetic_run = prefix + "si", prefix + "t", prefix + "rPh"
        if name == text:
            collecting = not phonetic
        elif name == item:
            pieces.clear()
        elif name == phonetic_run:
            phonetic = True

    def end(name: str) -> None:
        nonlocal collecting, phonetic
        if name == text:
            collecting = False
        elif name == item:
            strings.append("".join(pieces))
        elif name == phonetic_run:
            phonetic = False

    def data(content: str) -> None:
        if collecting:
            pieces.append(content)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    feed_part(parser, archive, part)
    return tuple(strings)


def _properties(archive: zipfile.ZipFile, package: dict[str, tuple[str, str]],
                parts: list[str]) -> tuple[tuple[str, ...], int]:
    """The RELEASED_NEVER document properties set, and how many custom properties there are."""
    found: tuple[str, ...] = ()
    custom = 0
    for target, kind in package.values():
        if target not in parts:
            continue
        if kind == _PACKAGE_RELATION + "core-properties":
            tree = read_tree(archive.read(target))
            found = tuple(name for name in RELEASED_NEVER
                          if any((element.text or "").strip() for element in tree.iter(name)))
        elif kind.endswith("/custom-properties"):
            custom = sum(1 for _ in read_tree(archive.read(target)).iter("property"))
    return found, custom
