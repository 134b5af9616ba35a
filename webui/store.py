"""The referee's record: every check (photo, hand, claimed and computed score, time) in SQLite.

One connection per call, so request threads never share a connection; SQLite serialises the
writers.  Photos are kept beside the database under the SHA-256 of their bytes, never under a
name a user sent.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from mahjong_lens.rules.words import readable
from mahjong_lens.vision.image_input import image_extension

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,            -- ISO 8601, UTC
    rules TEXT NOT NULL,
    hand TEXT NOT NULL,               -- the hand JSON of the contract
    options TEXT NOT NULL,            -- the rule-set settings used, JSON
    claimed_points INTEGER NOT NULL,
    claimed TEXT NOT NULL,            -- everything the players claimed, JSON
    computed_points INTEGER NOT NULL,
    computed TEXT NOT NULL,           -- the full result JSON
    agree INTEGER NOT NULL,
    differences TEXT NOT NULL,        -- JSON list of lines that differ
    photo TEXT                        -- file name (sha256.ext) under photos/, or NULL
)
"""

# Magic numbers of the image formats a phone or camera sends; the extension is ours.
PHOTO_NAME = re.compile(r"^[0-9a-f]{64}\.(jpg|png|gif|bmp|tif|webp)$")
CSV_COLUMNS = ("id", "time", "rules", "concealed", "melds", "win_tile", "claimed_points",
               "computed_points", "agree", "differences", "photo")


@dataclass
class Check:
    id: int
    created: str
    rules: str
    hand: dict[str, Any]
    options: dict[str, Any]
    claimed_points: int
    claimed: dict[str, Any]
    computed_points: int
    computed: dict[str, Any]
    agree: bool
    differences: list[str]
    photo: str | None

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["photo_url"] = f"/referee/photo/{self.photo}" if self.photo else None
        return out


class CheckStore:
    """The checks database at ``path``; photos go to ``photos/`` in the same folder."""

    def __init__(self, path: str):
        self.path = path
        self.photo_dir = os.path.join(os.path.dirname(os.path.abspath(path)), "photos")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.row_factory = sqlite3.Row
        return db

    def save_photo(self, data: bytes) -> str:
        """Keep the photo under its content hash; returns the file name.  Raises ValueError
        for bytes that are no image."""
        extension = image_extension(data)
        if extension is None:
            raise ValueError("the referee photo is not a JPEG, PNG, WebP, GIF, BMP or TIFF image")
        name = f"{hashlib.sha256(data).hexdigest()}.{extension}"
        os.makedirs(self.photo_dir, exist_ok=True)
        target = os.path.join(self.photo_dir, name)
        if not os.path.exists(target):  # same bytes, same name: nothing to write twice
            temporary = f"{target}.{os.getpid()}.tmp"
            with open(temporary, "wb") as handle:
                handle.write(data)
            os.replace(temporary, target)
        return name

    def photo_path(self, name: str) -> str | None:
        """The stored photo's path, only for names this store made."""
        if not PHOTO_NAME.match(name):
            return None
        path = os.path.join(self.photo_dir, name)
        return path if os.path.isfile(path) else None

    def add(self, *, rules: str, hand: dict, options: dict, claimed: dict, computed: dict,
            agree: bool, differences: list[str], photo: str | None = None) -> Check:
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        row = (created, rules, json.dumps(hand), json.dumps(options),
               int(claimed.get("points", 0)), json.dumps(claimed),
               int(computed.get("points", 0)), json.dumps(computed), int(agree),
               json.dumps(differences), photo)
        with closing(self._connect()) as db, db:
            cursor = db.execute(
                "INSERT INTO checks (created, rules, hand, options, claimed_points, claimed, "
                "computed_points, computed, agree, differences, photo) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            check_id = cursor.lastrowid
        return self.get(check_id)

    def get(self, check_id: int) -> Check | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT * FROM checks WHERE id = ?", (check_id,)).fetchone()
        return _check(row) if row else None

    def list(self, limit: int = 100, offset: int = 0) -> list[Check]:
        """Newest first."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM checks ORDER BY id DESC LIMIT ? OFFSET ?",
                              (limit, offset)).fetchall()
        return [_check(row) for row in rows]

    def count(self) -> int:
        with closing(self._connect()) as db:
            return db.execute("SELECT COUNT(*) FROM checks").fetchone()[0]

    def to_csv(self) -> str:
        """Every check, oldest first, one row each (spreadsheet friendly)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(CSV_COLUMNS)
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM checks ORDER BY id").fetchall()
        for check in map(_check, rows):
            # rows stored before the door checked them may hold anything: written as they are
            hand = check.hand if isinstance(check.hand, dict) else {}
            melds = " ".join(f"{m.get('type')}:{m.get('tiles')}{'' if m.get('open', True) else '(concealed)'}"
                             if isinstance(m, dict) else str(m)
                             for m in (hand.get("melds") if isinstance(hand.get("melds"), list) else []))
            writer.writerow([_cell(value) for value in [check.id, check.created, check.rules, hand.get("concealed", ""),
                             melds, hand.get("win_tile") or "", check.claimed_points,
                             check.computed_points, "agree" if check.agree else "disagree",
                             "; ".join(check.differences), check.photo or ""]])
        return buffer.getvalue()


def _cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula is quoted (CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _check(row: sqlite3.Row) -> Check:
    # readable(): a record stored before the door refused lone surrogates still shows
    return Check(id=row["id"], created=row["created"], rules=row["rules"],
                 hand=readable(json.loads(row["hand"])), options=json.loads(row["options"]),
                 claimed_points=row["claimed_points"], claimed=readable(json.loads(row["claimed"])),
                 computed_points=row["computed_points"], computed=readable(json.loads(row["computed"])),
                 agree=bool(row["agree"]), differences=readable(json.loads(row["differences"])),
                 photo=row["photo"])
