"""From a solved table to a published one: secret widening of protection levels, rounding to the
published precision, and the independent check of the numbers published."""
