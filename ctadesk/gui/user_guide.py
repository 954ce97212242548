"""Help > User guide: the task-by-task guide (docs/user-guide/, one Markdown page per task) in a
window beside the main one, read from the package (ctadesk.resources.user_guide_dir: the copy the
wheel and the bundle ship, else the checkout's).

The pages are plain Markdown that QTextBrowser renders itself (QTextDocument.MarkdownResource), so
the same files read on GitHub, in an editor and here.  Links between pages move through the guide
with Back and Forward; links to the web open in the system browser; the search field narrows the
contents to the pages holding every word typed, and Enter finds the next place in them.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QKeySequence, QTextCursor, QTextDocument, QTextImageFormat
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctadesk.gui.naming import named
from ctadesk.resources import user_guide_dir

#: the contents page, shown first; the other pages follow in the order it links them
INDEX = "index.md"
#: widest an image is shown, in pixels (screenshots are taken at full window size)
IMAGE_WIDTH = 760
#: link schemes handed to the system (web pages, mail)
EXTERNAL = ("http", "https", "mailto")

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@dataclasses.dataclass(frozen=True)
class GuidePage:
    """One page: its file, its title (the first '# ' heading, else the file name) and its text."""

    path: Path
    title: str
    text: str

    def links(self) -> list[str]:
        """The targets of the page's links (not its images), outside code, in order."""
        return [target for image, target in _LINK.findall(prose(self.text)) if not image]

    def matches(self, query: str) -> bool:
        """Whether the page holds every word of query (case ignored; an empty query matches)."""
        text = self.text.casefold()
        return all(word in text for word in query.casefold().split())


def prose(text: str) -> str:
    """Markdown text without its fenced code blocks and code spans (where a link is only text)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def is_external(target: str) -> bool:
    """Whether a link target leaves the guide (a web page or a mail address)."""
    return QUrl(target).scheme() in EXTERNAL


def _page(path: Path) -> GuidePage:
    text = path.read_text(encoding="utf-8")
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem)
    return GuidePage(path.resolve(), title, text)


def guide_pages(folder: Path | None = None) -> list[GuidePage]:
    """The guide's pages in reading order: the contents page, the pages it links in the order it
    links them, then any other page by file name.  [] when the folder holds no contents page."""
    folder = user_guide_dir() if folder is None else Path(folder)
    index = folder / INDEX
    if not index.is_file():
        return []
    by_path = {page.path: page for page in map(_page, sorted(folder.glob("*.md")))}
    first = by_path.pop(index.resolve())
    ordered = [first]
    for target in first.links():
        path = (folder / QUrl(target).path()).resolve()
        if not is_external(target) and path in by_path:
            ordered.append(by_path.pop(path))
    return ordered + list(by_path.values())


class UserGuideWindow(QWidget):
    """The guide: contents and search on the left, the page on the right, Back, Forward and
    Contents above it.  A window of its own (not modal): the main window stays usable beside it."""

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None, first: str | None = INDEX) -> None:
        """``first``: the page shown at once (None: none yet; show_user_guide shows it once the
        window is on screen)."""
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("user_guide")
        self.setWindowTitle("ctadesk user guide")
        self.folder = user_guide_dir() if folder is None else Path(folder)
        self.pages = guide_pages(self.folder)

        self.search = named(QLineEdit(placeholderText="Search the guide", clearButtonEnabled=True), "guide_search")
        self.search.textChanged.connect(self._filter)
        self.search.returnPressed.connect(self.find_next)
        self.contents = named(QListWidget(), "guide_contents")
        for page in self.pages:
            item = QListWidgetItem(page.title)
            item.setData(Qt.ItemDataRole.UserRole, str(page.path))
            self.contents.addItem(item)
        self.contents.itemActivated.connect(self._open_item)
        self.contents.itemClicked.connect(self._open_item)

        self.browser = named(QTextBrowser(), "guide_browser")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow)
        self.browser.sourceChanged.connect(self._shown)
        self.back = self._button("Back", self.browser.backward, QKeySequence.StandardKey.Back, "guide_back")
        self.forward = self._button("Forward", self.browser.forward, QKeySequence.StandardKey.Forward, "guide_forward")
        self.home = self._button("Contents", lambda: self.show_page(INDEX), None, "guide_home")
        self.browser.backwardAvailable.connect(self.back.setEnabled)
        self.browser.forwardAvailable.connect(self.forward.setEnabled)
        self.back.setEnabled(False)
        self.forward.setEnabled(False)
        self.message = named(QLabel("", wordWrap=True), "guide_message")

        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        column.addWidget(self.contents, 1)
        right = QWidget()
        shown = QVBoxLayout(right)
        shown.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        for button in (self.back, self.forward, self.home):
            bar.addWidget(button)
        bar.addWidget(self.message, 1)
        shown.addLayout(bar)
        shown.addWidget(self.browser, 1)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([230, IMAGE_WIDTH + 60])
        QVBoxLayout(self).addWidget(splitter)
        self.resize(IMAGE_WIDTH + 330, 760)
        if self.pages:
            if first is not None:
                self.show_page(first)
        else:
            self.browser.setMarkdown(f"# The user guide is missing\n\nThis copy of ctadesk has no user guide "
                                     f"(it looked in `{self.folder}`). Reinstall ctadesk, or read the guide "
                                     "in the project's `docs/user-guide/` folder.")

    def _button(self, text: str, slot, shortcut, name: str) -> QToolButton:
        button = named(QToolButton(), name)
        button.setText(text)
        button.clicked.connect(slot)
        if shortcut is not None:
            button.setShortcut(shortcut)
        return button

    # ------------------------------------------------------------ pages
    def page(self, name: str | Path) -> GuidePage | None:
        """The page a file name (relative to the guide) or a path stands for; None if not one."""
        path = (self.folder / name).resolve()
        return next((page for page in self.pages if page.path == path), None)

    def current_page(self) -> GuidePage | None:
        source = self.browser.source()
        return self.page(source.toLocalFile()) if source.isLocalFile() else None

    def show_page(self, name: str | Path) -> bool:
        """Show a page of the guide (added to the Back history); False when there is no such page."""
        page = self.page(name)
        if page is None:
            self.message.setText(f"{name} is not a page of the guide.")
            return False
        self.message.clear()
        self.browser.setSource(QUrl.fromLocalFile(str(page.path)), QTextDocument.ResourceType.MarkdownResource)
        return True

    def follow(self, url: QUrl) -> None:
        """A link was clicked: a page of the guide opens here, a web link in the system browser."""
        if url.scheme() in EXTERNAL:
            QDesktopServices.openUrl(url)
            return
        target = self.browser.source().resolved(url)
        self.show_page(Path(target.toLocalFile()) if target.isLocalFile() else url.toString())

    def _open_item(self, item: QListWidgetItem) -> None:
        self.show_page(Path(item.data(Qt.ItemDataRole.UserRole)))

    def _shown(self, source: QUrl) -> None:
        """After any page is shown (a link, the contents, Back/Forward): fit its images, select it
        in the contents.  (While this signal is delivered, browser.source() is still the old page.)"""
        self._fit_images()
        page = self.page(source.toLocalFile()) if source.isLocalFile() else None
        for row in range(self.contents.count()):
            item = self.contents.item(row)
            if page is not None and item.data(Qt.ItemDataRole.UserRole) == str(page.path):
                self.contents.blockSignals(True)
                self.contents.setCurrentItem(item)
                self.contents.blockSignals(False)

    def _fit_images(self) -> None:
        """Scale every image wider than IMAGE_WIDTH down to it, keeping its proportions."""
        document = self.browser.document()
        wide = []
        block = document.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                if fragment.charFormat().isImageFormat():
                    image = fragment.charFormat().toImageFormat()
                    pixmap = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(image.name()))
                    if pixmap is not None and not pixmap.isNull() and pixmap.width() > IMAGE_WIDTH:
                        wide.append((fragment.position(), fragment.length(), image, pixmap.size()))
                fragments += 1
            block = block.next()
        cursor = QTextCursor(document)
        for position, length, image, size in wide:
            fitted = QTextImageFormat(image)
            fitted.setWidth(IMAGE_WIDTH)
            fitted.setHeight(IMAGE_WIDTH * size.height() / size.width())
            cursor.setPosition(position)
            cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.setCharFormat(fitted)
        if wide:  # the formats changed while the page was being laid out: lay it out again, or the
            # text after a fitted image keeps no lines and is not drawn
            document.markContentsDirty(0, document.characterCount())

    # ----------------------------------------------------------- search
    def _filter(self, query: str) -> None:
        """Show in the contents only the pages that hold every word of query."""
        for row, page in enumerate(self.pages):
            self.contents.item(row).setHidden(not page.matches(query))
        found = sum(page.matches(query) for page in self.pages)
        self.message.setText(f"{found} page(s) hold '{query.strip()}'." if query.strip() else "")

    def find_next(self) -> bool:
        """Select the next place the search text appears: in this page, else in the next page that
        holds it (from its top).  False when no page holds it."""
        query = self.search.text().strip()
        if not query:
            return False
        if self.browser.find(query):
            return True
        current = self.current_page()
        start = self.pages.index(current) + 1 if current in self.pages else 0
        for page in self.pages[start:] + self.pages[:start]:  # the pages after this one, then round to it
            if query.casefold() in page.text.casefold():
                if page is not current:
                    self.show_page(page.path)
                self.browser.moveCursor(QTextCursor.MoveOperation.Start)
                if self.browser.find(query):
                    return True
        self.message.setText(f"'{query}' is not in the guide.")
        return False


def show_user_guide(parent: QWidget | None = None, page: str | None = None) -> UserGuideWindow:
    """Open the user guide beside ``parent`` without blocking it (one guide window per parent,
    raised when already open), at ``page`` (a file name such as 'protect.md') when given.

    A new window is shown first and its page laid out on the event loop's next turn: the window
    is on screen at once, and neither step holds the GUI thread for long (each page is Markdown
    that QTextBrowser parses and lays out as it is shown)."""
    window = parent.findChild(UserGuideWindow) if parent is not None else None
    if window is None:
        window = UserGuideWindow(parent, first=None)
        if window.pages:
            QTimer.singleShot(0, window, lambda: window.show_page(page or INDEX))
    elif page is not None:
        window.show_page(page)
    window.show()
    window.raise_()
    window.activateWindow()
    return window
