"""The table: its cells and relations (structure, hierarchies, linked tables), the statistics safety
rules read (tabulated from microdata or read with a table), generated test tables and table units."""
