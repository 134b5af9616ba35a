"""The package as pip builds it, installed as a user installs it: the sdist is built from the
source, the wheel from the sdist (as ``python -m build`` does), and the wheel installed into a
fresh virtual environment with the plain dependencies only (no torch, no ultralytics). There,
away from the source tree, the README's main jobs run on ``examples/``: a photo is scanned and
its tiles read, the example hands scored and the table settled, and ``serve`` answers every
page with every script and style it references, module imports followed.

Every other test imports the source tree; only this one sees what the wheel leaves out."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
# the hand rendered in examples/hand.jpg (datasets/examples.py printed it): a scan must read it
EXAMPLE_PHOTO_TILES = sorted(["2z", "5p", "6p", "2p", "0p", "6p", "2z", "5p", "6p", "4p", "3p", "5p", "1p", "6p"])
# each folder of the repository -> where the wheel puts it
INSTALLED = {"mahjong_lens": "mahjong_lens", "rules": "mahjong_lens/rules", "vision": "mahjong_lens/vision",
             "training": "mahjong_lens/training",
             "webui": "mahjong_lens/webui", "datasets": "mahjong_lens/datasets"}
PAGES = ("/", "/live", "/referee", "/table", "/tournament")
MAX_INSTALL_MB = 600


def _run(command: list[str], cwd: Path, timeout: int = 600, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, command))}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _source_files() -> list[str]:
    """The files a clone holds (tracked, and new files not ignored): what an sdist is built from."""
    if (REPO / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                                cwd=REPO, capture_output=True, check=True).stdout.decode()
        return [name for name in listed.split("\0") if name and (REPO / name).is_file()]
    return [str(p.relative_to(REPO)) for p in REPO.rglob("*")
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts]


def _build(source: Path, out: Path, what: str) -> Path:
    code = (f"from setuptools import build_meta; import sys; "
            f"print(build_meta.build_{what}(sys.argv[1]))")
    done = _run([sys.executable, "-c", code, str(out)], cwd=source)
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> dict:
    """The sdist, the wheel, and a fresh virtual environment with the wheel installed."""
    work = tmp_path_factory.mktemp("release")
    source = work / "source"
    for name in _source_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    dist = work / "dist"
    dist.mkdir()
    sdist = _build(source, dist, "sdist")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "unpacked", filter="data")
    unpacked = next((work / "unpacked").iterdir())
    wheel = _build(unpacked, dist, "wheel")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=work)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], cwd=work)
    home = work / "home"  # the app's default database lives under it
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "MAHJONG_LENS"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"))
    return {"sdist": sdist, "wheel": wheel, "venv": venv, "bin": venv / "bin", "env": env, "cwd": home}


def _lens(release: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    command = [str(release["bin"] / "mahjong-lens"), *args]
    if check:
        return _run(command, cwd=release["cwd"], env=release["env"])
    return subprocess.run(command, cwd=release["cwd"], env=release["env"], capture_output=True, text=True,
                          timeout=300)


def test_the_wheel_holds_every_module_template_script_and_model(release):
    import zipfile
    names = set(zipfile.ZipFile(release["wheel"]).namelist())
    modules = {f"{installed}/{p.relative_to(REPO / folder).as_posix()}" for folder, installed in INSTALLED.items()
               for p in (REPO / folder).rglob("*.py")}
    assert modules - names == set()
    assert "mahjong_lens/vision/layout/photo.py" in names
    for folder in ("templates", "static"):
        shipped = {f"mahjong_lens/webui/{p.relative_to(REPO / 'webui').as_posix()}"
                   for p in (REPO / "webui" / folder).rglob("*") if p.is_file()}
        assert shipped and shipped - names == set(), folder
    exports = {p.name for p in (REPO / "models").glob("*.onnx")}
    assert exports and {n.rsplit("/", 1)[-1] for n in names if n.endswith(".onnx")} == exports


def test_the_plain_install_holds_no_training_packages_and_fits(release):
    python = str(release["bin"] / "python")
    done = subprocess.run([python, "-c", "import importlib.util as u; "
                           "print([m for m in ('torch', 'ultralytics', 'torchvision') if u.find_spec(m)])"],
                          capture_output=True, text=True, cwd=release["cwd"], env=release["env"])
    assert done.stdout.strip() == "[]", done.stderr
    size = sum(p.stat().st_size for p in release["venv"].rglob("*") if p.is_file() and not p.is_symlink())
    assert size < MAX_INSTALL_MB * 2**20, f"the plain install takes {size / 2**20:.0f} MB"


def test_a_photo_is_scanned_and_its_tiles_read(release):
    done = _lens(release, "scan", str(EXAMPLES / "hand.jpg"), "--json", "--rules", "rode-draak", "--self-drawn")
    scan = json.loads(done.stdout.splitlines()[0])
    held = sorted(scan["reading"]["concealed"] + [t for meld in scan["reading"]["melds"] for t in meld["tiles"]])
    assert held == EXAMPLE_PHOTO_TILES
    assert scan["result"]["valid"] and scan["result"]["points"] > 0


def test_the_example_hands_score_and_the_table_settles(release):
    for rules in ("rode-draak", "riichi", "wsom"):
        result = json.loads(_lens(release, "score", "--json", "--rules", rules, str(EXAMPLES / f"hand-{rules}.json")).stdout)
        assert result["valid"] and result["winning"] and result["points"] > 0, rules
    table = json.loads(_lens(release, "settle", "--json", str(EXAMPLES / "table.json")).stdout)
    assert sum(table["payments"].values()) == 0 and table["payments"]["E"] > 0
    schedule = _lens(release, "tournament", "schedule", "--players-file", str(EXAMPLES / "players.txt"),
                     "--rounds", "4", "--seed", "2026").stdout
    assert "Round 4" in schedule and "Henk" in schedule


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def test_serve_answers_every_page_with_every_asset_it_references_and_reads_the_recording(release, tmp_path):
    port = _free_port()
    server = subprocess.Popen([str(release["bin"] / "mahjong-lens"), "serve", "--port", str(port),
                               "--database", str(tmp_path / "records.db"),
                               "--camera", str(EXAMPLES / "table.avi")],
                              cwd=release["cwd"], env=release["env"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if _get(base + "/")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("serve did not answer")
        assets: set[str] = set()
        for page in PAGES:
            status, body = _get(base + page)
            assert status == 200, page
            html = body.decode()
            assets |= set(re.findall(r'<script[^>]+src="([^"]+)"', html))
            assets |= set(re.findall(r'<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"', html))
        assert any(a.endswith("main.js") for a in assets) and any(a.endswith(".css") for a in assets)
        seen: set[str] = set()
        while assets:
            asset = assets.pop()
            seen.add(asset)
            status, body = _get(base + asset)
            assert status == 200 and body, asset
            if asset.endswith(".js"):  # follow its module imports, as the browser does
                folder = asset.rsplit("/", 1)[0]
                for target in re.findall(r'^\s*import\s[^;]*?from\s+["\'](\.{1,2}/[^"\']+)["\']', body.decode(), re.M):
                    resolved = os.path.normpath(f"{folder}/{target}")
                    if resolved not in seen:
                        assets.add(resolved)
        scripts = {a.rsplit("/", 1)[-1] for a in seen if a.endswith(".js")}
        assert scripts == {p.name for p in (REPO / "webui" / "static" / "js").glob("*.js")}
        status, body = _get(base + "/api/rules")
        assert status == 200 and b"rode-draak" in body
        # the recording as the table camera: a hand held still is read steady and scored
        scored = None
        for _ in range(60):
            live = json.loads(_get(base + "/api/live?rules=rode-draak&win=self_drawn")[1])
            if live["stable"] and ((live.get("reading") or {}).get("result") or {}).get("valid"):
                scored = live["reading"]["result"]["points"]
                break
            time.sleep(0.5)
        assert scored, live
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert "Traceback" not in output, output[-3000:]


def _readme_commands(heading: str) -> list[str]:
    """The commands of the first shell block under a README heading, continued lines joined,
    comments dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands, current = [], ""
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        current += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\") and current.strip():
            commands.append(current.strip())
            current = ""
    return commands


@pytest.mark.parametrize("heading", ["The main jobs", "The tournament desk (Rode Draak)"])
def test_the_readme_commands_run_as_written_in_the_installed_package(release, heading, tmp_path):
    """From the source tree (where examples/ is), with the installed command on PATH: each
    command ends in a score, or a question (exit 3), and never in a traceback; `serve` is
    tried by the test above."""
    commands = [c for c in _readme_commands(heading) if not c.startswith("mahjong-lens serve")]
    assert len(commands) >= 5
    env = dict(release["env"], PATH=f"{release['bin']}{os.pathsep}{os.environ['PATH']}",
               HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "share"))
    for command in commands:
        done = subprocess.run(["bash", "-c", command.replace("/tmp/", f"{tmp_path}/")], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode in (0, 3), f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr and done.stdout.strip(), command
