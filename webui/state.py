"""The app's shared state, for the views: the one TableAssistant the factory made.

A leaf module (as in Flask's tutorial): the blueprints import it, and it imports neither them
nor the factory, so no import goes in a circle.
"""
from __future__ import annotations

from flask import Flask, current_app

from .service import TableAssistant

EXTENSION = "mahjong_lens"


def assistant(app: Flask | None = None) -> TableAssistant:
    """The TableAssistant of this app (the current one by default)."""
    return (app or current_app).extensions[EXTENSION]
