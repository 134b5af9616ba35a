"""The table assistant's web page and JSON API (Flask)."""
from .app import create_app

__all__ = ["create_app"]
