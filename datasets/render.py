"""Rendering: a pinhole camera over a table, tile bodies, table surfaces, camera effects.

World units are millimetres; the table is the plane z = 0 with z up. A tile is
a box spanned from a corner ``O`` by ``U`` (face width), ``V`` (face height)
and ``-N`` (thickness; ``N`` is the outward normal of the face), so every pose
(lying face up or down, standing, turned sideways, stacked) is the same box in
another orientation. Bodies are drawn with rounded corners, a front layer in
the face colour and a back layer in the back colour, each side shaded by one
directional light; the face is the style's art warped into place.

Everything is painter's-algorithm OpenCV drawing on small regions, so a 640 px
photo of a few dozen tiles takes a few milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

SHIFT = 4  # sub-pixel bits for the cv2 fill functions
ONE = 1 << SHIFT


# --------------------------------------------------------------------------- camera


@dataclass
class Camera:
    K: np.ndarray  # 3x3
    R: np.ndarray  # 3x3 world -> camera rotation (rows: right, down, forward)
    t: np.ndarray  # 3
    width: int
    height: int

    @property
    def centre(self) -> np.ndarray:
        return -self.R.T @ self.t

    def to_cam(self, X: np.ndarray) -> np.ndarray:
        return X @ self.R.T + self.t

    def project(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (..., 2) and depth (...) of world points (..., 3)."""
        Xc = self.to_cam(X)
        z = Xc[..., 2]
        zs = np.maximum(z, 1e-6)
        u = self.K[0, 0] * Xc[..., 0] / zs + self.K[0, 2]
        v = self.K[1, 1] * Xc[..., 1] / zs + self.K[1, 2]
        return np.stack([u, v], axis=-1), z

    def ground_homography(self) -> np.ndarray:
        """Homography from table coordinates (x, y) to pixels."""
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])

    def ray_up(self, uv: np.ndarray) -> np.ndarray:
        """World z component of the viewing ray through pixels (..., 2)."""
        Kinv = np.linalg.inv(self.K)
        rows = (self.R.T @ Kinv)[2]
        return uv[..., 0] * rows[0] + uv[..., 1] * rows[1] + rows[2]


def camera_rotation(az: float, el: float, roll: float) -> np.ndarray:
    """Rotation of a camera looking down at ``el`` degrees from azimuth ``az``.

    ``az`` 0 puts the camera on the -y side (the player's seat) looking towards
    +y, so the player's side of the table is at the bottom of the photo; ``roll``
    turns the photo about the optical axis.
    """
    a, e, r = math.radians(az), math.radians(el), math.radians(roll)
    fwd = -np.array([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)])
    right = np.array([math.cos(a), math.sin(a), 0.0])
    down = np.cross(fwd, right)
    c, s = math.cos(r), math.sin(r)
    right, down = c * right + s * down, -s * right + c * down
    return np.stack([right, down, fwd])


def make_camera(target, az, el, roll, dist, fx, fy, width, height, cx=None, cy=None) -> Camera:
    R = camera_rotation(az, el, roll)
    C = np.asarray(target, float) - dist * R[2]
    K = np.array([[fx, 0, width / 2 if cx is None else cx], [0, fy, height / 2 if cy is None else cy], [0, 0, 1]])
    return Camera(K, R, -R @ C, width, height)


def fit_distance(R: np.ndarray, target, points: np.ndarray, fx, fy, half_w, half_h) -> float:
    """Smallest camera distance at which all points fall within +-half_w/half_h of the centre."""
    rel = (points - np.asarray(target)) @ R.T  # camera axes, before adding the distance
    dx = fx * np.abs(rel[:, 0]) / half_w - rel[:, 2]
    dy = fy * np.abs(rel[:, 1]) / half_h - rel[:, 2]
    return float(max(dx.max(), dy.max(), 1.0))


# --------------------------------------------------------------------------- tiles


@dataclass
class BodyLook:
    """How the tile bodies of one scene look."""

    front: np.ndarray  # BGR of the front (face) layer
    back: np.ndarray  # BGR of the back layer
    front_frac: float  # share of the thickness in the front colour
    radius: float  # corner radius in mm
    seam: float  # darkening of the face outline


def _outline(ra: float, rb: float, k: int = 4) -> np.ndarray:
    """Rounded rectangle in face fractions (a, b), counter-clockwise, 4k points."""
    pts = []
    centres = [(1 - ra, 1 - rb), (ra, 1 - rb), (ra, rb), (1 - ra, rb)]
    for i, (ca, cb) in enumerate(centres):
        for ang in np.linspace(i * 90, i * 90 + 90, k):
            t = math.radians(ang)
            pts.append((ca + ra * math.cos(t), cb + rb * math.sin(t)))
    return np.array(pts)


class TileTemplate:
    """Local sample points of a tile box: outlines at three depths, face corners, centre."""

    K = 4  # points per rounded corner

    def __init__(self, W: float, H: float, T: float, look: BodyLook):
        r = min(look.radius, 0.3 * W)
        o = _outline(r / W, r / H, self.K)
        n = len(o)
        f = look.front_frac
        a = np.concatenate([o[:, 0]] * 3 + [[0, 1, 1, 0], [0, 1, 1, 0], [0.5]])
        b = np.concatenate([o[:, 1]] * 3 + [[1, 1, 0, 0], [1, 1, 0, 0], [0.5]])
        c = np.concatenate([np.zeros(n), np.full(n, f), np.ones(n), np.zeros(4), np.ones(4), [0.5]])
        self.abc = np.stack([a, b, c], axis=1)
        self.n = n
        k = self.K
        # straight segment of each side: (index i, index j) in the outline, side id
        # side ids: 0 top (+V), 1 left (-U), 2 bottom (-V), 3 right (+U)
        self.sides = [(k - 1, k), (2 * k - 1, 2 * k), (3 * k - 1, 3 * k), (4 * k - 1, 0)]
        self.s_o0 = slice(0, n)
        self.s_of = slice(n, 2 * n)
        self.s_o1 = slice(2 * n, 3 * n)
        self.s_face = slice(3 * n, 3 * n + 4)
        self.s_back = slice(3 * n + 4, 3 * n + 8)
        self.i_centre = 3 * n + 8


@dataclass
class TilePose:
    O: np.ndarray
    U: np.ndarray
    V: np.ndarray
    N: np.ndarray


def pose_lying(cx, cy, yaw_deg, W, H, T, z0=0.0, face_up=True) -> TilePose:
    """A tile lying on the table (or on another tile at height z0)."""
    y = math.radians(yaw_deg)
    U = W * np.array([math.cos(y), math.sin(y), 0.0])
    V = H * np.array([-math.sin(y), math.cos(y), 0.0])
    if face_up:
        N = np.array([0, 0, T], float)
        O = np.array([cx, cy, z0 + T]) - U / 2 - V / 2
    else:
        N = np.array([0, 0, -T], float)
        O = np.array([cx, cy, z0]) - U / 2 - V / 2
    return TilePose(O, U, V, N)


def pose_standing(cx, cy, yaw_deg, W, H, T, lean_deg=0.0) -> TilePose:
    """A standing tile whose face looks towards -y (turned by yaw), leaning back a little."""
    y, l = math.radians(yaw_deg), math.radians(lean_deg)
    ux, uy = math.cos(y), math.sin(y)
    nx, ny = math.sin(y), -math.cos(y)  # horizontal outward normal of the face
    U = W * np.array([ux, uy, 0.0])
    V = H * np.array([-nx * math.sin(l), -ny * math.sin(l), math.cos(l)])
    N = T * np.array([nx * math.cos(l), ny * math.cos(l), math.sin(l)])
    base = np.array([cx, cy, 0.0]) + np.array([nx, ny, 0.0]) * (T / 2)  # front bottom edge centre
    O = base - U / 2 + np.array([0, 0, T * math.sin(l)])
    return TilePose(O, U, V, N)


def _shade(normal: np.ndarray, light: np.ndarray, ambient: float) -> np.ndarray:
    return ambient + (1 - ambient) * np.clip(normal @ light, 0, 1)


@dataclass
class DrawnTile:
    box: tuple[int, int, int, int] | None  # ROI of the silhouette, clipped (x0, y0, x1, y1)
    ident_visible: str  # 'face', 'back' or ''
    ident_area: float  # projected area of the visible identity side, in pixels
    frontal_area: float  # area the identity side would have seen head-on at this distance
    ok: bool  # in front of the camera


def _poly_area(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def draw_tiles(
    img: np.ndarray,
    ids: np.ndarray,
    cam: Camera,
    poses: list[TilePose],
    textures: list,
    back_textures: list,
    tmpl: TileTemplate,
    look: BodyLook,
    light: np.ndarray,
    ambient: float,
) -> list[DrawnTile]:
    """Paint tiles far to near into ``img``; ``ids`` gets 2k+1 on tile k's identity side, 2k on its body.

    ``textures[k]`` is a callable ``height_px -> texture`` for the face (None for a
    plain face), ``back_textures[k]`` the same for the back.
    """
    n = len(poses)
    if n == 0:
        return []
    O = np.stack([p.O for p in poses])
    U = np.stack([p.U for p in poses])
    V = np.stack([p.V for p in poses])
    N = np.stack([p.N for p in poses])
    abc = tmpl.abc
    P = O[:, None] + abc[None, :, 0:1] * U[:, None] + abc[None, :, 1:2] * V[:, None] - abc[None, :, 2:3] * N[:, None]
    uv, z = cam.project(P)
    C = cam.centre
    Uh = U / np.linalg.norm(U, axis=1, keepdims=True)
    Vh = V / np.linalg.norm(V, axis=1, keepdims=True)
    Nh = N / np.linalg.norm(N, axis=1, keepdims=True)
    # visibility of the six sides: the camera is on the outer side of each plane
    face_vis = np.einsum("ij,ij->i", Nh, C - O) > 0
    back_vis = np.einsum("ij,ij->i", -Nh, C - (O - N)) > 0
    side_normals = [Vh, -Uh, -Vh, Uh]
    side_points = [O + V, O, O, O + U]
    side_vis = [np.einsum("ij,ij->i", sn, C - sp) > 0 for sn, sp in zip(side_normals, side_points)]
    sh_face = _shade(Nh, light, ambient)
    sh_back = _shade(-Nh, light, ambient)
    sh_side = [_shade(sn, light, ambient) for sn in side_normals]
    pts = np.round(np.clip(uv, -1e5, 1e5) * ONE).astype(np.int32)
    depth = z[:, tmpl.i_centre]
    order = np.argsort(-depth, kind="stable")
    H, W = img.shape[:2]
    front, back = look.front, look.back
    out: list[DrawnTile] = [DrawnTile(None, "", 0.0, 0.0, False)] * n
    dist = np.linalg.norm(C - P[:, tmpl.i_centre], axis=1)
    fpx = 0.5 * (cam.K[0, 0] + cam.K[1, 1])
    s_o0, s_of, s_o1 = tmpl.s_o0, tmpl.s_of, tmpl.s_o1

    def col(base, s):
        return tuple(float(min(255.0, v * s)) for v in base)

    for k in order:
        if z[k].min() < 1.0:
            continue
        p = pts[k]
        o0, of, o1 = p[s_o0], p[s_of], p[s_o1]
        allp = np.concatenate([o0, o1])
        x0, y0 = allp.min(axis=0) >> SHIFT
        x1, y1 = (allp.max(axis=0) >> SHIFT) + 2
        if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
            continue
        if x1 - x0 > 4 * W or y1 - y0 > 4 * H:
            continue
        fv, bv = bool(face_vis[k]), bool(back_vis[k])
        hull_front = cv2.convexHull(np.concatenate([o0, of]))
        hull_back = cv2.convexHull(np.concatenate([of, o1]))
        side_sh = max((sh_side[i][k] for i in range(4) if side_vis[i][k]), default=ambient)
        layers = [(hull_back, back), (hull_front, front)] if not bv else [(hull_front, front), (hull_back, back)]
        for hull, base in layers:
            cv2.fillConvexPoly(img, hull, col(base, side_sh * 0.95), cv2.LINE_AA, SHIFT)
        for si, (i, j) in enumerate(tmpl.sides):
            if not side_vis[si][k]:
                continue
            s = sh_side[si][k]
            q_front = np.array([o0[i], o0[j], of[j], of[i]])
            q_back = np.array([of[i], of[j], o1[j], o1[i]])
            for q, base in ((q_front, front), (q_back, back)) if not bv else ((q_back, back), (q_front, front)):
                cv2.fillConvexPoly(img, q, col(base, s), cv2.LINE_AA, SHIFT)
        kid = 2 * (int(k) + 1)
        cv2.fillConvexPoly(ids, cv2.convexHull(allp), kid, cv2.LINE_8, SHIFT)
        ident, area, frontal = "", 0.0, 0.0
        if fv or bv:
            outline = o0 if fv else o1
            rect = uv[k, tmpl.s_face] if fv else uv[k, tmpl.s_back]
            shade = float(sh_face[k] if fv else sh_back[k])
            getter = textures[k] if fv else back_textures[k]
            base = front if fv else back
            _paint_side(img, outline, rect, getter, base, shade, look.seam, W, H)
            cv2.fillConvexPoly(ids, outline, kid + 1, cv2.LINE_8, SHIFT)
            ident = "face" if fv else "back"
            area = _poly_area(rect)
            wmm = float(np.linalg.norm(U[k]))
            hmm = float(np.linalg.norm(V[k]))
            frontal = (fpx * wmm / dist[k]) * (fpx * hmm / dist[k])
        out[k] = DrawnTile((max(0, x0), max(0, y0), min(W, x1), min(H, y1)), ident, area, frontal, True)
    return out


def _paint_side(img, outline, rect, getter, base, shade, seam, W, H):
    """Fill the face (or back) outline: texture warped into place, or plain colour."""
    x0, y0 = outline.min(axis=0) >> SHIFT
    x1, y1 = (outline.max(axis=0) >> SHIFT) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    rh = float(max(np.linalg.norm(rect[3] - rect[0]), np.linalg.norm(rect[2] - rect[1])))
    tex = getter(rh) if getter is not None else None
    if tex is None or rh < 3:
        cv2.fillConvexPoly(img, outline, tuple(float(min(255, v * shade)) for v in base), cv2.LINE_AA, SHIFT)
    else:
        th, tw = tex.shape[:2]
        src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
        dst = (rect - [x0, y0]).astype(np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        rw, rhh = x1 - x0, y1 - y0
        warped = cv2.warpPerspective(tex, M, (rw, rhh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if shade != 1.0:
            warped = cv2.convertScaleAbs(warped, alpha=shade)
        mask = np.zeros((rhh, rw), np.uint8)
        cv2.fillConvexPoly(mask, outline - np.int32([x0 * ONE, y0 * ONE]), 255, cv2.LINE_AA, SHIFT)
        roi = img[y0:y1, x0:x1]
        wgt = mask.astype(np.float32) * (1 / 255.0)
        roi[:] = cv2.blendLinear(warped, roi, wgt, 1.0 - wgt)
    if seam > 0 and rh >= 12:
        c = tuple(float(v * shade * (1 - seam)) for v in base)
        cv2.polylines(img, [outline], True, c, 1, cv2.LINE_AA, SHIFT)


def draw_shadows(shadow: np.ndarray, cam: Camera, poses: list[TilePose], light: np.ndarray, scale: float) -> None:
    """Accumulate the tiles' cast shadows (on the table) into a low-resolution mask."""
    if not poses:
        return
    O = np.stack([p.O for p in poses])
    U = np.stack([p.U for p in poses])
    V = np.stack([p.V for p in poses])
    N = np.stack([p.N for p in poses])
    corners = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float)
    P = O[:, None] + corners[None, :, 0:1] * U[:, None] + corners[None, :, 1:2] * V[:, None] - corners[None, :, 2:3] * N[:, None]
    L = light / max(light[2], 0.2)
    G = P - P[..., 2:3] * L[None, None, :]
    G[..., 2] = 0
    uv, z = cam.project(G)
    pts = np.round(np.clip(uv * scale, -1e5, 1e5) * ONE).astype(np.int32)
    for k in range(len(poses)):
        if z[k].min() < 1:
            continue
        cv2.fillConvexPoly(shadow, cv2.convexHull(pts[k]), 255, cv2.LINE_AA, SHIFT)


# --------------------------------------------------------------------------- noise bank

_NOISE: dict[int, np.ndarray] = {}


def noise_bank(size: int = 768) -> np.ndarray:
    """A fixed field of unit Gaussian noise (float32, HxWx3), made once per process."""
    if size not in _NOISE:
        _NOISE[size] = np.random.default_rng(20240607).standard_normal((size, size, 3), dtype=np.float32)
    return _NOISE[size]


def noise_crop(rng: np.random.Generator, h: int, w: int, channels: int = 3) -> np.ndarray:
    bank = noise_bank(max(768, h, w) if max(h, w) > 768 else 768)
    y = int(rng.integers(0, bank.shape[0] - h + 1))
    x = int(rng.integers(0, bank.shape[1] - w + 1))
    out = bank[y : y + h, x : x + w]
    return out if channels == 3 else out[..., 0]


def smooth_field(rng: np.random.Generator, h: int, w: int, cells: int = 4) -> np.ndarray:
    """Low-frequency noise in [-1, 1], float32 HxW."""
    small = rng.uniform(-1, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


# --------------------------------------------------------------------------- table surfaces

FELT = [(40, 110, 30), (30, 80, 20), (110, 60, 20), (80, 40, 15), (50, 50, 55), (35, 30, 120), (25, 25, 28),
        (90, 100, 20), (120, 120, 110), (60, 130, 60), (140, 80, 60)]
WOOD = [(40, 80, 140), (60, 110, 170), (30, 60, 110), (120, 165, 205), (25, 45, 80), (80, 130, 180)]
PLAIN = [(225, 225, 225), (200, 205, 210), (235, 235, 240), (170, 175, 180), (60, 60, 60), (200, 220, 235),
         (150, 180, 200)]
ROOM = [(40, 40, 45), (70, 80, 90), (120, 120, 125), (30, 35, 50), (90, 110, 140), (160, 160, 150)]


def _jitter(rng, colour, amount=18):
    return np.clip(np.asarray(colour, np.float32) + rng.uniform(-amount, amount, 3), 0, 255)


def table_texture(rng: np.random.Generator, h: int, w: int, texel_mm: float) -> np.ndarray:
    """A procedural table top: felt, wood, plain laminate or a patterned cloth (float32 BGR)."""
    kind = rng.choice(["felt", "wood", "plain", "cloth"], p=[0.45, 0.3, 0.15, 0.1])
    var = smooth_field(rng, h, w, int(rng.integers(3, 7)))[..., None]
    grain = noise_crop(rng, h, w, 1)[..., None]
    if kind == "felt":
        base = _jitter(rng, FELT[rng.integers(len(FELT))])
        tex = base * (1 + 0.06 * var) + grain * rng.uniform(3, 9)
        if rng.random() < 0.4:  # woven texture
            period = rng.uniform(1.0, 2.5) / max(texel_mm, 1e-3)
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            weave = np.sin(xx * (2 * np.pi / max(period, 4.0))) * np.sin(yy * (2 * np.pi / max(period, 4.0)))
            tex = tex + weave[..., None] * rng.uniform(3, 8)
    elif kind == "wood":
        base = _jitter(rng, WOOD[rng.integers(len(WOOD))])
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, np.pi)
        along = xx * math.cos(ang) + yy * math.sin(ang)
        across = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = smooth_field(rng, h, w, 5) * rng.uniform(5, 25) / max(texel_mm, 0.05) * 0.2
        period = rng.uniform(3, 12) / max(texel_mm, 1e-3)
        rings = np.sin((across + warp + 0.02 * along) * (2 * np.pi / max(period, 6)))
        streak = cv2.resize(rng.standard_normal((max(2, h // 2), 8)).astype(np.float32), (w, h))
        tex = base * (1 + 0.12 * rings[..., None] + 0.05 * var + 0.04 * streak[..., None]) + grain * 3
        if rng.random() < 0.35:  # planks
            pw = rng.uniform(80, 200) / max(texel_mm, 1e-3)
            seams = (np.mod(across, pw) < max(1.0, 1.5 / max(texel_mm, 1e-3))).astype(np.float32)
            tex = tex * (1 - 0.35 * seams[..., None])
    elif kind == "plain":
        base = _jitter(rng, PLAIN[rng.integers(len(PLAIN))])
        tex = base * (1 + 0.04 * var) + grain * rng.uniform(1, 5)
    else:
        c1 = _jitter(rng, FELT[rng.integers(len(FELT))], 30)
        c2 = _jitter(rng, PLAIN[rng.integers(len(PLAIN))], 30)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        period = max(8.0, rng.uniform(15, 60) / max(texel_mm, 1e-3))  # coarse enough not to alias when far
        sharp = min(4.0, period / 3)  # soft edges: no stair-steps once the texture is warped
        if rng.random() < 0.5:
            sq = np.sin(xx * (np.pi / period)) * np.sin(yy * (np.pi / period))
            m = np.clip(0.5 + sharp * sq, 0, 1)[..., None]
        else:
            st = np.sin((xx + yy * rng.uniform(-1, 1)) * (2 * np.pi / period)) + rng.uniform(-0.5, 0.5)
            m = np.clip(0.5 + sharp * st, 0, 1)[..., None]
        tex = c1 * m + c2 * (1 - m)
        tex = tex * (1 + 0.05 * var) + grain * 3
    return tex.astype(np.float32)


def draw_clutter(rng: np.random.Generator, tex: np.ndarray, texel_mm: float, avoid: list[tuple[float, float, float]]):
    """Flat things lying about on the table: paper, phones, scoring sticks, coins, dice, pens."""
    h, w = tex.shape[:2]
    n = int(rng.choice([0, 1, 2, 3, 4, 6], p=[0.25, 0.2, 0.2, 0.15, 0.1, 0.1]))
    for _ in range(n):
        kind = rng.choice(["paper", "phone", "stick", "coin", "dice", "pen", "cup"])
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        if any((x - ax) ** 2 + (y - ay) ** 2 < ar**2 for ax, ay, ar in avoid):
            continue
        ang = rng.uniform(0, 180)
        s = 1.0 / max(texel_mm, 1e-3)
        if kind == "paper":
            size = (rng.uniform(60, 210) * s, rng.uniform(60, 300) * s)
            colour = _jitter(rng, (235, 240, 240), 25) if rng.random() < 0.7 else rng.uniform(40, 255, 3)
        elif kind == "phone":
            size = (70 * s, 150 * s)
            colour = rng.uniform(10, 60, 3)
        elif kind == "stick":
            size = (rng.uniform(70, 90) * s, rng.uniform(5, 8) * s)
            colour = _jitter(rng, (230, 235, 235), 15)
        elif kind == "pen":
            size = (rng.uniform(120, 150) * s, rng.uniform(8, 12) * s)
            colour = rng.uniform(0, 255, 3)
        elif kind == "dice":
            size = (rng.uniform(12, 16) * s,) * 2
            colour = _jitter(rng, (235, 235, 235), 15) if rng.random() < 0.7 else rng.uniform(0, 255, 3)
        else:
            r = (rng.uniform(10, 14) if kind == "coin" else rng.uniform(35, 50)) * s
            colour = rng.uniform(60, 230, 3)
            if kind == "coin":
                cv2.circle(tex, (int(x), int(y)), max(1, int(r)), colour.tolist(), -1, cv2.LINE_AA)
            else:
                cv2.circle(tex, (int(x), int(y)), max(1, int(r)), colour.tolist(), max(1, int(r * 0.15)), cv2.LINE_AA)
                cv2.circle(tex, (int(x), int(y)), max(1, int(r * 0.85)), (colour * 0.6).tolist(), -1, cv2.LINE_AA)
            continue
        box = cv2.boxPoints(((x, y), size, ang))
        cv2.fillConvexPoly(tex, np.round(box * ONE).astype(np.int32), colour.tolist(), cv2.LINE_AA, SHIFT)
        if kind == "stick":  # dots of a scoring stick
            cv2.circle(tex, (int(x), int(y)), max(1, int(2.5 * s)), (30, 30, 200), -1, cv2.LINE_AA)
        elif kind == "dice":
            cv2.circle(tex, (int(x), int(y)), max(1, int(2 * s)), (20, 20, 20), -1, cv2.LINE_AA)
        elif kind == "phone":
            inner = cv2.boxPoints(((x, y), (size[0] * 0.9, size[1] * 0.9), ang))
            cv2.fillConvexPoly(tex, np.round(inner * ONE).astype(np.int32), (colour * 1.6 + 10).tolist(), cv2.LINE_AA, SHIFT)


def render_table(rng: np.random.Generator, cam: Camera, img: np.ndarray, centre, avoid_mm: list, decals=()) -> None:
    """Fill ``img`` with the table as the camera sees it (and the room beyond its edge)."""
    H, W = img.shape[:2]
    Hg = cam.ground_homography()
    Hinv = np.linalg.inv(Hg)
    corners = np.array([[0, 0, 1], [W, 0, 1], [W, H, 1], [0, H, 1], [W / 2, 0, 1], [0, H / 2, 1], [W, H / 2, 1]], float)
    g = corners @ Hinv.T
    ok = cam.ray_up(corners[:, :2]) < -0.02  # the ray meets the table in front of the camera
    gxy = g[:, :2] / np.where(np.abs(g[:, 2:3]) < 1e-9, 1e-9, g[:, 2:3])
    reach = 1500.0
    cx, cy = centre
    pts = [p for p, o in zip(gxy, ok) if o and np.all(np.abs(p - [cx, cy]) < reach)]
    pts.append(np.array([cx, cy]))
    pts = np.array(pts)
    x0, y0 = pts.min(axis=0) - 50
    x1, y1 = pts.max(axis=0) + 50
    if len(pts) < 5:  # some corners look past the horizon
        x0, y0, x1, y1 = min(x0, cx - reach), min(y0, cy - reach), max(x1, cx + reach), max(y1, cy + reach)
    span = max(x1 - x0, y1 - y0)
    tsz = 384
    texel = span / tsz
    th = max(8, int(math.ceil((y1 - y0) / texel)))
    tw = max(8, int(math.ceil((x1 - x0) / texel)))
    tex = table_texture(rng, th, tw, texel)
    avoid = [((ax - x0) / texel, (ay - y0) / texel, ar / texel) for ax, ay, ar in avoid_mm]
    draw_clutter(rng, tex, texel, avoid)
    for poly, colour in decals:  # flat things the scene put under its tiles (a tray)
        q = np.round((np.asarray(poly) - [x0, y0]) / texel * ONE).astype(np.int32)
        cv2.fillConvexPoly(tex, q, tuple(float(c) for c in colour), cv2.LINE_AA, SHIFT)
    room = _jitter(rng, ROOM[rng.integers(len(ROOM))], 25)
    if rng.random() < 0.3:  # the table's edge with a rim, the floor beyond
        ang = rng.uniform(0, 2 * np.pi)
        dist = rng.uniform(250, 600)
        nx, ny = math.cos(ang), math.sin(ang)
        yy, xx = np.mgrid[0:th, 0:tw].astype(np.float32)
        wx, wy = x0 + xx * texel, y0 + yy * texel
        d = (wx - cx) * nx + (wy - cy) * ny - dist
        rim = _jitter(rng, WOOD[rng.integers(len(WOOD))] if rng.random() < 0.6 else (30, 30, 30), 20)
        rim_w = rng.uniform(20, 60)
        m_rim = ((d > 0) & (d < rim_w))[..., None]
        m_out = (d >= rim_w)[..., None]
        tex = np.where(m_rim, rim * (0.9 + 0.1 * np.cos(d * 0.1))[..., None], tex)
        tex = np.where(m_out, room * 0.7, tex)
    # texture pixel -> table mm -> image
    A = np.array([[texel, 0, x0], [0, texel, y0], [0, 0, 1]])
    M = Hg @ A
    tex8 = cv2.GaussianBlur(np.clip(tex, 0, 255).astype(np.uint8), (0, 0), 0.7)  # against aliasing far off
    cv2.warpPerspective(tex8, M, (W, H), dst=img, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=(room * 0.8).tolist())
    # pixels at or above the horizon show the room, not the table
    up_lim = -0.05
    uv = np.array([[0, 0], [W, 0], [W, H], [0, H]], float)
    up = cam.ray_up(uv)
    if up.max() > up_lim:  # a wall of the room, lit unevenly, with blurred shapes of furniture
        yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
        upm = cam.ray_up(np.stack([xx, yy], axis=-1))
        gh, gw = upm.shape
        shade = (0.75 + 0.3 * smooth_field(rng, gh, gw, 3)) * (1 + 0.5 * np.clip(upm, -0.3, 0.6))
        wall = room[None, None, :] * shade[..., None] * rng.uniform(0.6, 1.1)
        for _ in range(int(rng.integers(0, 4))):
            c = rng.uniform(0, [gw, gh])
            ax = rng.uniform(2, gw / 3, 2)
            cv2.rectangle(wall, tuple(int(v) for v in c - ax), tuple(int(v) for v in c + ax),
                          rng.uniform(20, 200, 3).tolist(), -1)
        wall = cv2.GaussianBlur(wall.astype(np.float32), (0, 0), 1.5)
        soft = np.clip((upm - up_lim) / 0.015 + 0.5, 0, 1).astype(np.float32)  # no stair-steps at the edge
        m = cv2.resize(soft, (W, H), interpolation=cv2.INTER_LINEAR)[..., None]
        wall = cv2.resize(wall, (W, H), interpolation=cv2.INTER_LINEAR)
        img[:] = np.clip(img * (1 - m) + wall * m, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- camera effects


def apply_light(rng: np.random.Generator, img: np.ndarray, ids: np.ndarray, tile_px: float,
                applied: dict | None = None) -> np.ndarray:
    """Uneven light, cast shadows, glare, colour cast, blur and sensor noise; `applied`, where
    given, receives how much blur, zoom and noise were drawn (the draws are the same either
    way, so a seed renders the same photo)."""
    applied = {} if applied is None else applied
    H, W = img.shape[:2]
    gs = 24
    yy, xx = np.mgrid[0:gs, 0:gs].astype(np.float32) / (gs - 1) - 0.5
    gain = 1.0 + 0.25 * smooth_field(rng, gs, gs, 3) * rng.uniform(0, 1)
    gain += (xx * rng.uniform(-0.6, 0.6) + yy * rng.uniform(-0.6, 0.6))  # light from one side
    vig = rng.uniform(0, 0.6)
    gain *= 1 - vig * (xx**2 + yy**2) * 2
    if rng.random() < 0.35:  # the shadow of the photographer, a hand or a phone
        sh = np.zeros((gs * 4, gs * 4), np.float32)
        k = int(rng.integers(3, 7))
        c = rng.uniform(0, gs * 4, 2)
        pts = c + rng.uniform(-gs * 3, gs * 3, (k, 2))
        cv2.fillPoly(sh, [np.round(pts).astype(np.int32)], 1.0)
        sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(1, 6))
        gain *= 1 - rng.uniform(0.25, 0.6) * cv2.resize(sh, (gs, gs), interpolation=cv2.INTER_AREA)
    gain = np.clip(gain, 0.15, 2.0) * rng.uniform(0.65, 1.25)
    cast = np.array([1.0, 1.0, 1.0]) + rng.normal(0, 0.07, 3)
    if rng.random() < 0.25:  # warm tungsten or cold fluorescent light
        cast *= np.array([0.8, 0.95, 1.15]) if rng.random() < 0.6 else np.array([1.12, 1.02, 0.9])
    gain3 = (gain[..., None] * cast[None, None, :]).astype(np.float32)
    gain_full = cv2.resize(gain3, (W, H), interpolation=cv2.INTER_LINEAR)
    f = img.astype(np.float32)
    f *= gain_full
    if rng.random() < 0.3:  # specular glare, mostly on the glossy tiles
        gl = np.zeros((H // 4, W // 4), np.float32)
        for _ in range(int(rng.integers(1, 4))):
            c = (int(rng.uniform(0, W // 4)), int(rng.uniform(0, H // 4)))
            ax = (max(1, int(rng.uniform(3, 30))), max(1, int(rng.uniform(2, 15))))
            cv2.ellipse(gl, c, ax, rng.uniform(0, 180), 0, 360, float(rng.uniform(30, 140)), -1)
        gl = cv2.GaussianBlur(gl, (0, 0), rng.uniform(1, 4))
        gl = cv2.resize(gl, (W, H), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.7:
            gl *= (ids > 0).astype(np.float32)
        f += gl[..., None]
    # blur: focus, hand shake (kept mild for small tiles, whose faces it would erase)
    bmax = float(np.clip(tile_px / 30.0, 0.4, 2.0))
    r = rng.random()
    applied.update(blur="none", blur_px=0.0, zoom=1.0)
    if r < 0.45:
        sigma = rng.uniform(0.3, bmax)
        f = cv2.GaussianBlur(f, (0, 0), sigma)
        applied.update(blur="focus", blur_px=round(float(sigma), 2))
    elif r < 0.6:
        ln = int(rng.uniform(2, 2 + 4 * bmax))
        applied.update(blur="shake", blur_px=float(2 * ln + 1))  # the streak's length
        ker = np.zeros((ln * 2 + 1, ln * 2 + 1), np.float32)
        a = rng.uniform(0, np.pi)
        cv2.line(ker, (int(ln - ln * math.cos(a)), int(ln - ln * math.sin(a))),
                 (int(ln + ln * math.cos(a)), int(ln + ln * math.sin(a))), 1.0, 1, cv2.LINE_AA)
        f = cv2.filter2D(f, -1, ker / ker.sum())
    if rng.random() < 0.12 and tile_px > 30:  # a small sensor or digital zoom
        s = rng.uniform(0.45, 0.8)
        applied["zoom"] = round(float(s), 2)
        small = cv2.resize(f, (max(8, int(W * s)), max(8, int(H * s))), interpolation=cv2.INTER_AREA)
        f = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
    sigma = rng.uniform(0.5, 7.0) if rng.random() < 0.85 else rng.uniform(7, 14)
    applied["noise"] = round(float(sigma), 2)
    f += noise_crop(rng, H, W) * sigma
    np.clip(f, 0, 255, out=f)
    return f.astype(np.uint8)


def jpeg(img: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    assert ok
    return buf.tobytes()
