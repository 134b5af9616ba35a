"""Tile-face art: load the styles of ``../shared/data/art`` as ready textures.

Every style becomes a :class:`Style`: one opaque face texture per class name at
a few resolutions (a mip chain, so small tiles are not aliased), the colour of
the bare face (the tile body is painted in it), and a back texture where the
style has one. Red fives a style lacks are made from its plain fives by inking
them red, as real sets do; other missing faces (flowers of a Japanese style,
the white dragon of ``gnome_postmodern``) are simply absent and never drawn.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from mahjong_lens.vision.classes import BACK, FACE_NAMES, RED_FIVES

#: Texture heights of the mip chain (width is 3/4 of the height).
MIP_HEIGHTS = (256, 128, 64, 32)

# Where the face sits inside each style's picture (x0, y0, x1, y1 as fractions):
# several styles draw a tile body with a bevel and a drop shadow around it.
FACE_CROP = {
    "kmj_default": (0.30, 0.03, 0.97, 0.70),
    "kmj_traditional": (0.28, 0.02, 0.97, 0.72),
    "kmj_classic": (0.28, 0.02, 0.99, 0.82),
    "kmj_jade": (0.20, 0.02, 0.97, 0.80),
    "gnome_smooth": (0.04, 0.015, 0.93, 0.87),
    "gnome_postmodern": (0.13, 0.02, 0.97, 0.90),
    "xmj_real": (0.03, 0.03, 0.97, 0.97),
    "glmj_colored": (0.05, 0.035, 0.95, 0.965),
    "font_noto": (0.11, 0.055, 0.89, 0.945),
}
DEFAULT_IVORY = (232, 240, 242)  # BGR


def repo_root() -> Path:
    return Path(__file__).resolve().parents[1]


def default_data_dir() -> Path:
    """The shared data folder: $MAHJONG_LENS_DATA, else ``<repo>/../shared/data``."""
    env = os.environ.get("MAHJONG_LENS_DATA")
    if env:
        return Path(env).expanduser()
    return repo_root().parent / "shared" / "data"


def default_art_dir() -> Path:
    return default_data_dir() / "art"


@dataclass
class Style:
    name: str
    faces: dict[str, list[np.ndarray]]  # name -> mip chain (largest first), BGR uint8
    face_colour: tuple[float, float, float]
    back: list[np.ndarray] | None = None
    back_colour: tuple[float, float, float] | None = None
    synthetic_red: bool = False
    names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.names = tuple(n for n in FACE_NAMES if n in self.faces)

    def has(self, name: str) -> bool:
        return name in self.faces

    def texture(self, name: str, height_px: float) -> np.ndarray:
        """The smallest texture of the chain at least ``height_px`` tall."""
        chain = self.back if name == BACK else self.faces[name]
        assert chain is not None
        for tex in reversed(chain):
            if tex.shape[0] >= height_px:
                return tex
        return chain[0]


def _mip_chain(img: np.ndarray, src_h: int) -> list[np.ndarray]:
    chain = []
    for h in MIP_HEIGHTS:
        if h > max(src_h * 2, MIP_HEIGHTS[-1]) and h != MIP_HEIGHTS[-1]:
            continue  # no point upsampling a small source far beyond its detail
        w = h * 3 // 4
        chain.append(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA))
    return chain


def _read(path: Path) -> np.ndarray | None:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        return None
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
    return img


def _crop(img: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    h, w = img.shape[:2]
    x0, y0, x1, y1 = box
    return img[int(round(y0 * h)) : int(round(y1 * h)), int(round(x0 * w)) : int(round(x1 * w))]


def _ring(img: np.ndarray) -> np.ndarray:
    """Pixels of a thin ring just inside the picture's border."""
    h, w = img.shape[:2]
    a, b = max(1, int(0.06 * h)), max(1, int(0.10 * w))
    c, d = max(a + 1, int(0.10 * h)), max(b + 1, int(0.16 * w))
    return np.concatenate(
        [img[a:c, b : w - b].reshape(-1, img.shape[2]), img[h - c : h - a, b : w - b].reshape(-1, img.shape[2]),
         img[c : h - c, b:d].reshape(-1, img.shape[2]), img[c : h - c, w - d : w - b].reshape(-1, img.shape[2])]
    )


def _flatten(img: np.ndarray, colour) -> np.ndarray:
    alpha = img[..., 3:4].astype(np.float32) / 255.0
    bg = np.empty_like(img[..., :3], dtype=np.float32)
    bg[:] = colour
    return (img[..., :3] * alpha + bg * (1 - alpha) + 0.5).astype(np.uint8)


def ink_red(face: np.ndarray, face_colour, rng_hue: float = 0.0) -> np.ndarray:
    """A red five from a plain five: every inked pixel turns red."""
    f = face.astype(np.float32)
    bg = np.asarray(face_colour, np.float32)
    ink = np.clip(np.abs(f - bg).max(axis=2, keepdims=True) / 110.0, 0, 1)
    lum = f.mean(axis=2, keepdims=True)
    dark = float(bg.mean()) > 110
    red = np.array([35 + rng_hue, 30, 205], np.float32)
    if dark:  # light ink on a dark face: make it a bright red
        red = np.array([60 + rng_hue, 60, 235], np.float32)
    # keep a little of the ink's own shading so strokes keep their detail
    shade = np.clip(0.75 + 0.25 * (lum / 255.0 if dark else 1 - lum / 255.0), 0.5, 1.2)
    out = bg * (1 - ink) + red * shade * ink
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def load_style(folder: Path) -> Style | None:
    """Load one style folder (PNG per class name); None if it holds no faces."""
    folder = Path(folder)
    name = folder.name
    crop = FACE_CROP.get(name, (0.0, 0.0, 1.0, 1.0))
    raw: dict[str, np.ndarray] = {}
    for tile in FACE_NAMES + (BACK,):
        p = folder / f"{tile}.png"
        if p.exists():
            img = _read(p)
            if img is not None:
                raw[tile] = _crop(img, crop)
    if not any(t in raw for t in FACE_NAMES):
        return None
    # colour of the bare face: median over the inner rings of all faces
    rings = np.concatenate([_ring(v) for k, v in raw.items() if k != BACK])
    opaque = rings[rings[:, 3] > 200]
    if len(opaque) < 0.3 * len(rings):
        face_colour = DEFAULT_IVORY  # line art on a transparent face (font_noto)
    else:
        face_colour = tuple(float(x) for x in np.median(opaque[:, :3], axis=0))
    faces: dict[str, list[np.ndarray]] = {}
    for tile, img in raw.items():
        if tile == BACK:
            continue
        faces[tile] = _mip_chain(_flatten(img, face_colour), img.shape[0])
    synthetic = False
    b_, g_, r_ = face_colour
    reddish = r_ > g_ + 40 and r_ > b_ + 40  # red ink would not show (kmj_jade)
    for red in RED_FIVES:
        plain = f"5{red[1]}"
        if red not in faces and plain in raw and not reddish:
            flat = _flatten(raw[plain], face_colour)
            faces[red] = _mip_chain(ink_red(flat, face_colour), flat.shape[0])
            synthetic = True
    back = back_colour = None
    if BACK in raw:
        b = raw[BACK]
        opaque_b = b[b[..., 3] > 200][:, :3]
        # a back drawn as line art on a transparent tile (font_noto) is no texture
        if len(opaque_b) > 0.5 * b.shape[0] * b.shape[1]:
            back_colour = tuple(float(x) for x in np.median(opaque_b, axis=0))
        if back_colour is not None:
            back = _mip_chain(_flatten(b, back_colour), b.shape[0])
    return Style(name, faces, face_colour, back, back_colour, synthetic)


_CACHE: dict[str, Style | None] = {}


def style_dirs(art_dirs) -> list[Path]:
    """Style folders under each art dir (a folder of PNGs is a style itself)."""
    out: list[Path] = []
    for d in art_dirs:
        d = Path(d)
        if not d.is_dir():
            continue
        if any((d / f"{n}.png").exists() for n in ("1m", "1p", "1z")):
            out.append(d)
            continue
        out.extend(sorted(p for p in d.iterdir() if p.is_dir()))
    return out


def get_style(folder: Path) -> Style | None:
    key = str(Path(folder).resolve())
    if key not in _CACHE:
        _CACHE[key] = load_style(Path(folder))
    return _CACHE[key]


def load_styles(art_dirs=None) -> list[Style]:
    """All styles found under the art dirs (default: the shared art folder), cached."""
    if art_dirs is None:
        art_dirs = [default_art_dir()]
    elif isinstance(art_dirs, (str, os.PathLike)):
        art_dirs = [art_dirs]
    styles = [s for s in (get_style(p) for p in style_dirs(art_dirs)) if s is not None]
    if not styles:
        raise FileNotFoundError(
            f"no tile art found in {', '.join(map(str, art_dirs))}; pass --art or set MAHJONG_LENS_DATA"
        )
    return styles
