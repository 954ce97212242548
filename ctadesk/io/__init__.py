"""File formats: readers and writers shared by the GUI and the CLI."""
