"""Excel workbooks: detect a table's layout, read it, write the protected table back.

    grid, layout = read_layout("tables.xlsx", "Turnover")   # inspect / correct layout
    table = build_table(grid, layout)                       # TableStructure + values
    export_workbook("release.xlsx", [table], [adjusted], [sensitive])          # the source's layout
    export_table_workbook("release.xlsx", structure, original, adjusted, sensitive)  # any table
"""

from ctadesk.io.excel.export import ExportOutcome, ExportReport, export_workbook
from ctadesk.io.excel.grid import export_table_workbook
from ctadesk.io.excel.layout import DetectedLayout, detect_layout, is_total_label
from ctadesk.io.excel.table import ExcelTable, build_table, import_table, import_workbook, read_layout
from ctadesk.io.excel.workbook import MAX_CELLS, SheetGrid, open_workbook, read_grid

__all__ = ["MAX_CELLS", "DetectedLayout", "ExcelTable", "ExportOutcome", "ExportReport", "SheetGrid",
           "build_table", "detect_layout", "export_table_workbook", "export_workbook", "import_table",
           "import_workbook", "is_total_label", "open_workbook", "read_grid", "read_layout"]
