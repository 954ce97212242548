"""Safety rules: which cells are sensitive and their protection levels (primary suppression's
rules of Hundepool et al., as tau-argus applies them)."""
