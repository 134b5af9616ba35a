"""Shared test settings: a test client of the app that reads no photo; at the end of the run,
one line that counts the tests skipped by why (no shared data, no browser, no torch), and a
skipped browser suite said loudly."""
from __future__ import annotations

from collections import Counter

import pytest

# a skip's reason -> what a reader of the run's last lines should know, first match wins
SKIP_KINDS = (
    # the [train] extra: torch, ultralytics (which brings yaml and polars), onnx, efficientnet,
    # and the PyTorch weights that only a clone holds (a plain install ships the ONNX exports)
    ("no torch ([train] extra)", ("[train]", "torch", "ultralytics", "'onnx'", "'yaml'", "'polars'",
                                  "efficientnet", "pytorch weights")),
    ("no browser", ("chromium", "playwright")),
    ("missing shared data (../shared/data or $MAHJONG_LENS_DATA)",
     ("mahjong_lens_data", "shared", "tile art", "real hand photos", "photos under", "art not")),
)


class NoRecognizer:
    def detect(self, image):
        raise AssertionError("these tests read no photo")


@pytest.fixture()
def client(tmp_path):
    """The app's test client over a fresh database; a test file may define its own."""
    from mahjong_lens.webui import create_app
    app = create_app({"DATABASE": str(tmp_path / "checks.db"), "RECOGNIZER": NoRecognizer()})
    yield app.test_client()
    app.extensions["mahjong_lens"].close()


def skip_kind(reason: str) -> str:
    """Which kind of missing thing a skip's reason names."""
    lowered = reason.lower()
    return next((kind for kind, words in SKIP_KINDS if any(w in lowered for w in words)), "other")


def _reason(report) -> str:
    return str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skips = [r for r in terminalreporter.stats.get("skipped", []) if getattr(r, "when", "") != "teardown"]
    if skips:
        kinds = Counter(skip_kind(_reason(r)) for r in skips)
        terminalreporter.write_line(f"skipped {len(skips)}: " + ", ".join(
            f"{count} {kind}" for kind, count in kinds.most_common()) + " (reasons: pytest -rs)", yellow=True)
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if "test_browser" in str(getattr(report, "nodeid", "")) or "test_browser" in str(report.longrepr)]
    if skipped:
        reason = skipped[0].longrepr[-1] if isinstance(skipped[0].longrepr, tuple) else skipped[0].longrepr
        terminalreporter.write_sep("!", "THE BROWSER TESTS DID NOT RUN", red=True, bold=True)
        terminalreporter.write_line(f"{reason}", red=True)
        terminalreporter.write_line("The page is untested in a browser. Install Debian's chromium "
                                    "(`apt-get install chromium`, see the README's set-up), as CI does.", red=True)
