"""Where the app keeps what must survive a restart: one SQLite file for the referee's log,
the tournament desk and the taught tile sets (a leaf: every layer may import it)."""
from __future__ import annotations

import os


def default_database() -> str:
    """~/.local/share/mahjong-lens/checks.db (XDG_DATA_HOME respected): survives restarts."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "mahjong-lens", "checks.db")


def database_path(path: str | None = None) -> str:
    """The database file to use (the default when none is given), its folder made."""
    path = path or default_database()
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    return path
