"""Differential cross-check of every CTA method against an independent checker and reference solver."""
