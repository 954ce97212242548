"""Render the application icon from resources/ctadesk.svg: PNGs of every size the platforms ask
for (icons/ctadesk-N.png), a Windows .ico and a macOS .icns, both holding PNG images (the
layout Windows Vista+ and macOS 10.7+ read).  Needs only PySide6:

    .venv/bin/python resources/make_icons.py
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SVG = HERE / "ctadesk.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 64, 128, 256)
#: ICNS element types holding a PNG of the given size (Apple's icns format)
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render_png(size: int) -> bytes:
    """The icon as a PNG of size x size pixels."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(SVG)).render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data)


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows icon file: header, one directory entry per size (0 stands for 256), the PNGs."""
    sizes = sorted(pngs)
    offset = 6 + 16 * len(sizes)
    entries, images = [], []
    for size in sizes:
        side = 0 if size >= 256 else size
        entries.append(struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(pngs[size]), offset))
        images.append(pngs[size])
        offset += len(pngs[size])
    return struct.pack("<HHH", 0, 1, len(sizes)) + b"".join(entries) + b"".join(images)


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS icon file: 'icns', the total length, then (type, length, PNG) elements."""
    elements = b"".join(ICNS_TYPES[size] + struct.pack(">I", 8 + len(png)) + png
                        for size, png in sorted(pngs.items()))
    return b"icns" + struct.pack(">I", 8 + len(elements)) + elements


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (Qt needs one)
    pngs = {size: render_png(size) for size in PNG_SIZES}
    (HERE / "icons").mkdir(exist_ok=True)
    for size, png in pngs.items():
        (HERE / "icons" / f"ctadesk-{size}.png").write_bytes(png)
    (HERE / "ctadesk.ico").write_bytes(ico({size: pngs[size] for size in ICO_SIZES}))
    (HERE / "ctadesk.icns").write_bytes(icns({size: pngs[size] for size in ICNS_TYPES}))
    print(f"wrote {len(pngs)} PNGs, ctadesk.ico and ctadesk.icns in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
