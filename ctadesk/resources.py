"""Where the app's resources (icons, desktop entry, translations) and sample tables are.

The repository keeps them at its top level, in ``resources/`` and ``sample_data/``, and the user
guide in ``docs/user-guide/``.  The wheel (pyproject: ``tool.hatch.build.targets.wheel.sources``)
and the PyInstaller bundle (installer/ctadesk.spec) both ship them inside the package, as
``ctadesk/_resources``, ``ctadesk/_samples`` and ``ctadesk/_user_guide``, because that is the
one place every installation can find from the package itself: site-packages, the bundle's
unpacked folder and a zip all hold the package, and nothing else is guaranteed to sit next to
it.  A checkout or an editable install has no copies and uses the top-level folders.  Nothing
here imports Qt.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: the icon's PNG sizes (resources/make_icons.py renders them)
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def _folder(shipped: str, checkout: str) -> Path:
    """The copy shipped in the package, else the checkout's top-level folder."""
    inside = PACKAGE / shipped
    return inside if inside.is_dir() else PACKAGE.parent / checkout


def resources_dir() -> Path:
    """The folder of resources/: ctadesk.svg, icons/, ctadesk.desktop, translations/ ..."""
    return _folder("_resources", "resources")


def samples_dir() -> Path:
    """The folder of sample_data/ (sample tables and microdata; sample_data/README.md)."""
    return _folder("_samples", "sample_data")


def user_guide_dir() -> Path:
    """The folder of docs/user-guide/: index.md, one Markdown page per task, images/."""
    return _folder("_user_guide", "docs/user-guide")


def icon_files() -> list[Path]:
    """The application icon's PNGs, smallest first."""
    return [resources_dir() / "icons" / f"ctadesk-{size}.png" for size in ICON_SIZES]


def translations_dir() -> Path:
    """Where the app looks for ctadesk_<language>.qm (resources/translations/README.md)."""
    return resources_dir() / "translations"
