"""Marks for the tests that need what the plain install leaves out."""
from __future__ import annotations

from importlib.util import find_spec

import pytest

# training and export: torch and ultralytics come with the `[train]` extra only
needs_train = pytest.mark.skipif(
    not all(find_spec(name) for name in ("torch", "ultralytics")),
    reason="needs the [train] extra (torch, ultralytics): pip install 'mahjong-lens[train]'")
