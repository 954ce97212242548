"""The solver log pane: read-only, copyable, fed in batches so thousands of lines a second stay cheap."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit

#: lines kept on screen; the full log is kept in the result and the project file
SHOWN_LINES = 20_000


class LogPane(QPlainTextEdit):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("log_pane")
        self.setReadOnly(True)
        self.setMaximumBlockCount(SHOWN_LINES)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))

    def append_lines(self, lines: list[str]) -> None:
        """Append a batch of lines in one edit (only the last SHOWN_LINES of a huge batch)."""
        if not lines:
            return
        text = "\n".join(line.rstrip("\n") for line in lines[-SHOWN_LINES:])
        self.appendPlainText(text)
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())

    def set_text(self, text: str) -> None:
        self.setPlainText(text)
