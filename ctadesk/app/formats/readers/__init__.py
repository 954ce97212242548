"""The readers the format registry names, one module per format, each reader a few lines over
the io reader of its format, so that every reader of a kind is called the same way -- a table as
(path, answers) -> Project, microdata as (path, spec, answers) -> Microdata, a release as
(path, structure, answers) -> ReleasedTable.

A module is imported on first use (ctadesk.app.formats.model.resolve), when a file of its format
is read, never by the registry itself: reading a JJ file loads no Excel library.
"""
