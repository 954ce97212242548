"""Choosing the sense (up/down) of each sensitive cell before a fixed-sense solve."""

from ctadesk.engine.senses.ordering import ordering_senses

__all__ = ["ordering_senses"]
