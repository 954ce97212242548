"""The user guide in Help > User guide: every page renders with its images, every link between pages
leads to a page, every page can be reached from the contents, the window is not modal, and the
guide is found where the installed package ships it (ctadesk/_user_guide) as well as in a checkout."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtWidgets import QWidget

import ctadesk.resources
from ctadesk.gui.user_guide import IMAGE_WIDTH, INDEX, UserGuideWindow, guide_pages, is_external, show_user_guide
from ctadesk.resources import user_guide_dir

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "user-guide"
PAGES = sorted(GUIDE.glob("*.md"))


def markdown_links(text: str) -> list[tuple[bool, str]]:
    """(is an image, target) of every Markdown link outside code, read independently of the module."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [(bang == "!", target) for bang, target in re.findall(r"(!?)\[[^\]]*\]\(([^)\s]+)\)", text)]


def document_fragments(document: QTextDocument):
    """The character formats of a rendered document, fragment by fragment."""
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            yield fragments.fragment()
            fragments += 1
        block = block.next()


@pytest.fixture
def guide(qtbot):
    window = UserGuideWindow()
    qtbot.addWidget(window)
    return window


def test_the_guide_has_a_contents_page_and_a_page_per_task():
    names = {path.name for path in PAGES}
    assert INDEX in names
    assert {"install-and-start.md", "open-a-table.md", "sensitive-cells.md", "protect.md", "read-the-result.md",
            "audit.md", "export-a-release.md", "optimal-releases.md", "online-cta.md", "command-line.md",
            "troubleshooting.md"} <= names


def test_pages_come_in_the_order_the_contents_page_lists_them():
    pages = guide_pages(GUIDE)
    assert pages[0].path == (GUIDE / INDEX).resolve()
    linked = [target for image, target in markdown_links((GUIDE / INDEX).read_text()) if not image]
    order = list(dict.fromkeys(t for t in linked if (GUIDE / t).is_file()))
    assert [page.path.name for page in pages][1:len(order) + 1] == order
    assert sorted(page.path for page in pages) == sorted(path.resolve() for path in PAGES)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_page_renders_with_its_title_and_images(guide, path):
    assert guide.show_page(path.name)
    document = guide.browser.document()
    text = document.toPlainText()
    title = next(line[2:] for line in path.read_text().splitlines() if line.startswith("# "))
    assert text.startswith(title)
    assert "](" not in text, "a link Qt did not read as a link"
    images = [fragment.charFormat().toImageFormat() for fragment in document_fragments(document)
              if fragment.charFormat().isImageFormat()]
    assert len(images) == sum(image for image, _ in markdown_links(path.read_text()))
    for image in images:
        pixmap = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(image.name()))
        assert pixmap is not None and not pixmap.isNull(), f"{path.name}: image {image.name()} does not load"
        if pixmap.width() > IMAGE_WIDTH:  # shown fitted to the page, its proportions kept
            assert image.width() == IMAGE_WIDTH
            assert image.height() == pytest.approx(IMAGE_WIDTH * pixmap.height() / pixmap.width())


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_paragraph_of_a_page_is_laid_out_and_drawn(guide, path):
    """Fitting the wide images must not leave the text after them without lines (it would not be drawn)."""
    guide.show()
    guide.show_page(path.name)
    document = guide.browser.document()
    document.documentLayout().blockBoundingRect(document.lastBlock())  # the whole page, not the visible part
    block, unlaid = document.begin(), []
    while block.isValid():
        if block.text().strip() and block.layout().lineCount() == 0:
            unlaid.append(block.text()[:60])
        block = block.next()
    assert unlaid == [], f"{path.name}: text laid out on no line: {unlaid[:3]}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_link_in_the_markdown_leads_to_a_page_or_an_image_of_the_guide(path):
    for image, target in markdown_links(path.read_text()):
        if is_external(target):
            continue
        assert "#" not in target, f"{path.name}: {target}: Qt gives headings no anchors; link to the page"
        resolved = (path.parent / target).resolve()
        assert resolved.is_file(), f"{path.name}: {target} does not exist"
        if image:
            assert resolved.suffix == ".png"
        else:
            assert resolved in {page.resolve() for page in PAGES}, f"{path.name}: {target} is not a page"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_rendered_link_opens_its_page_in_the_window(guide, path):
    guide.show_page(path.name)
    hrefs = [fragment.charFormat().anchorHref() for fragment in document_fragments(guide.browser.document())
             if fragment.charFormat().isAnchor()]
    assert len(set(hrefs)) == len({target for image, target in markdown_links(path.read_text()) if not image})
    for href in dict.fromkeys(hrefs):
        if is_external(href):
            continue
        guide.show_page(path.name)
        guide.follow(QUrl(href))
        assert guide.current_page() is not None
        assert guide.current_page().path == (path.parent / href).resolve()
        assert guide.message.text() == ""


def test_every_page_can_be_reached_from_the_contents():
    reached, frontier = set(), [(GUIDE / INDEX).resolve()]
    while frontier:
        page = frontier.pop()
        if page in reached:
            continue
        reached.add(page)
        frontier += [(page.parent / target).resolve() for image, target in markdown_links(page.read_text())
                     if not image and not is_external(target) and target.endswith(".md")]
    assert reached == {path.resolve() for path in PAGES}


def test_back_and_forward_retrace_the_links_followed_and_the_contents_follow(guide):
    def shown() -> str:
        assert guide.contents.currentItem().text() == guide.current_page().title
        return guide.current_page().path.name

    assert shown() == INDEX
    guide.follow(QUrl("protect.md"))
    assert shown() == "protect.md"
    guide.follow(QUrl("read-the-result.md"))
    assert shown() == "read-the-result.md"
    guide.back.click()
    assert shown() == "protect.md"
    guide.back.click()
    assert shown() == INDEX
    assert not guide.back.isEnabled()
    guide.forward.click()
    assert shown() == "protect.md"


def test_the_contents_list_opens_a_page(guide):
    row = next(k for k, page in enumerate(guide.pages) if page.path.name == "troubleshooting.md")
    guide.contents.itemClicked.emit(guide.contents.item(row))
    assert guide.current_page().path.name == "troubleshooting.md"


def test_a_link_to_no_page_is_refused_with_a_message(guide):
    guide.follow(QUrl("no-such-page.md"))
    assert guide.current_page().path.name == INDEX
    assert "not a page of the guide" in guide.message.text()


def test_web_links_open_in_the_system_browser(guide, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True)
    guide.follow(QUrl("https://example.org/tau-argus"))
    assert opened == ["https://example.org/tau-argus"]
    assert guide.current_page().path.name == INDEX


def test_search_keeps_the_pages_that_hold_every_word(guide):
    guide.search.setText("Widening  SEED")
    shown = {guide.pages[row].path.name for row in range(guide.contents.count())
             if not guide.contents.item(row).isHidden()}
    expected = {path.name for path in PAGES
                if "widening" in path.read_text().lower() and "seed" in path.read_text().lower()}
    assert shown == expected and "protect.md" in shown and "optimal-releases.md" not in shown
    guide.search.clear()
    assert not any(guide.contents.item(row).isHidden() for row in range(guide.contents.count()))


def test_enter_in_the_search_finds_the_next_place_across_pages(guide):
    guide.search.setText("Fréchet")
    assert guide.find_next()
    assert guide.current_page().path.name == "optimal-releases.md"
    assert guide.browser.textCursor().selectedText() == "Fréchet"
    guide.search.setText("no page holds this phrase")
    assert not guide.find_next()
    assert "is not in the guide" in guide.message.text()


def test_show_user_guide_opens_one_non_modal_window_per_parent(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    window = show_user_guide(parent, "audit.md")
    assert window.isVisible() and not window.isModal()
    assert window.windowModality() == Qt.WindowModality.NonModal
    assert window.isWindow() and window.parent() is parent
    assert window.current_page() is None  # the window is up first, its page laid out on the next turn
    qtbot.waitUntil(lambda: window.current_page() is not None)
    assert window.current_page().path.name == "audit.md"
    window.close()
    assert show_user_guide(parent) is window and window.isVisible()
    assert window.current_page().path.name == "audit.md"


def test_a_checkout_reads_the_guide_from_docs():
    assert user_guide_dir() == GUIDE


def test_the_installed_package_reads_the_guide_it_ships(qtbot, tmp_path, monkeypatch):
    """An installed ctadesk has ctadesk/_user_guide (the wheel's and the bundle's copy) and no docs/
    beside it: the guide is read from there."""
    package = tmp_path / "site-packages" / "ctadesk"
    shutil.copytree(GUIDE, package / "_user_guide")
    installed = "# Protect, as installed\n\nBack to [the contents](index.md).\n"
    (package / "_user_guide" / "protect.md").write_text(installed)
    monkeypatch.setattr(ctadesk.resources, "PACKAGE", package)
    assert user_guide_dir() == package / "_user_guide"
    window = UserGuideWindow()
    qtbot.addWidget(window)
    assert window.show_page("protect.md")
    assert window.browser.document().toPlainText().startswith("Protect, as installed")
    assert window.current_page().path.is_relative_to(package)


def test_a_missing_guide_says_so_instead_of_failing(qtbot, tmp_path):
    window = UserGuideWindow(folder=tmp_path)
    qtbot.addWidget(window)
    assert window.pages == []
    assert "user guide is missing" in window.browser.document().toPlainText()
    assert not window.show_page(INDEX)


def test_the_wheel_and_the_bundle_are_told_to_ship_the_guide():
    tomllib = pytest.importorskip("tomllib")
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "docs/user-guide" in wheel["only-include"]
    assert wheel["sources"]["docs/user-guide"] == "ctadesk/_user_guide"
    spec = (ROOT / "installer" / "ctadesk.spec").read_text()
    assert 'shipped("docs/user-guide", "ctadesk/_user_guide")' in spec


@pytest.mark.installer
def test_the_wheel_holds_every_page_and_image_of_the_guide(tmp_path):
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    names = set(zipfile.ZipFile(next(tmp_path.glob("ctadesk-*.whl"))).namelist())
    shipped = {f"ctadesk/_user_guide/{path.relative_to(GUIDE).as_posix()}"
               for path in GUIDE.rglob("*") if path.is_file()}
    assert shipped and shipped <= names
