"""Mahjong rules: tiles, notation, hands and one module per rule set (no vision imports)."""
