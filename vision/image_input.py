"""A photo's bytes -> an upright BGR image, or a ScanError with a sentence (never a traceback).

The one home of what an upload may be: the size limits, the formats known by their first
bytes (``image_extension``), the header's pixel size read before decoding, EXIF orientation.
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

MAX_BYTES = 20 * 1024 * 1024
MAX_PIXELS = 50_000_000
MIN_SIDE = 16


class ScanError(ValueError):
    """A photo that cannot be scanned; the message is a sentence for the user."""


_IMAGE_SIGNATURES = (
    (b"\xff\xd8\xff", "jpg"), (b"\x89PNG\r\n\x1a\n", "png"), (b"GIF8", "gif"),
    (b"BM", "bmp"), (b"II*\x00", "tif"), (b"MM\x00*", "tif"),
)
def image_extension(data: bytes) -> str | None:
    """The file extension for image bytes, or None when they are no image we know."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    for signature, extension in _IMAGE_SIGNATURES:
        if data.startswith(signature):
            return extension
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the file header of a PNG, JPEG, GIF, BMP, WebP or TIFF, without decoding."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:2] == b"\xff\xd8":
            return _jpeg_size(data)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:2] == b"BM":
            width, height = struct.unpack("<ii", data[18:26])
            return abs(width), abs(height)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            chunk = data[12:16]
            if chunk == b"VP8X":
                return (int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1)
            if chunk == b"VP8 ":
                width, height = struct.unpack("<HH", data[26:30])
                return width & 0x3FFF, height & 0x3FFF
            if chunk == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            tags = _tiff_tags(data, (256, 257))
            if 256 in tags and 257 in tags:
                return tags[256], tags[257]
    except (struct.error, IndexError, ValueError):
        return None
    return None


def _jpeg_segments(data: bytes) -> Iterable[tuple[int, bytes]]:
    """(marker, payload) of a JPEG's header segments, up to the image data."""
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            return
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            position += 2
            continue
        length = struct.unpack(">H", data[position + 2:position + 4])[0]
        yield marker, data[position + 4:position + 2 + length]
        if marker == 0xDA:  # start of scan: the header is over
            return
        position += 2 + length


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    for marker, payload in _jpeg_segments(data):
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", payload[1:5])
            return width, height
    return None


def _tiff_tags(tiff: bytes, wanted: Sequence[int]) -> dict[int, int]:
    """Integer values of some tags of a TIFF structure's first directory (EXIF is one)."""
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None:
        return {}
    offset = struct.unpack(order + "I", tiff[4:8])[0]
    count = struct.unpack(order + "H", tiff[offset:offset + 2])[0]
    out = {}
    for k in range(count):
        entry = tiff[offset + 2 + 12 * k: offset + 14 + 12 * k]
        if len(entry) < 12:
            break
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in wanted:
            if kind == 3:  # SHORT
                out[tag] = struct.unpack(order + "H", entry[8:10])[0]
            elif kind == 4:  # LONG
                out[tag] = struct.unpack(order + "I", entry[8:12])[0]
    return out


def exif_orientation(data: bytes) -> int:
    """The EXIF orientation (1..8) of a JPEG (APP1) or PNG (eXIf chunk); 1 when absent."""
    try:
        tiff = None
        if data[:2] == b"\xff\xd8":
            for marker, payload in _jpeg_segments(data):
                if marker == 0xE1 and payload[:6] == b"Exif\x00\x00":
                    tiff = payload[6:]
                    break
        elif data[:8] == b"\x89PNG\r\n\x1a\n":
            position = 8
            while position + 8 <= len(data):
                length, chunk = struct.unpack(">I4s", data[position:position + 8])
                if chunk == b"eXIf":
                    tiff = data[position + 8:position + 8 + length]
                    break
                if chunk in (b"IDAT", b"IEND"):
                    break
                position += 12 + length
        if tiff is None:
            return 1
        value = _tiff_tags(tiff, (0x0112,)).get(0x0112, 1)
        return value if 1 <= value <= 8 else 1
    except (struct.error, IndexError, ValueError):
        return 1


def apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn a decoded image the way its EXIF orientation says it is meant to be seen."""
    import cv2
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.rotate(cv2.transpose(image), cv2.ROTATE_180)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def decode_image(data: bytes) -> np.ndarray:
    """A BGR uint8 image from the bytes of an image file, upright as its EXIF says.

    Grayscale becomes BGR, transparency is laid on white, 16-bit is scaled to 8.
    Raises ScanError with a sentence for an empty, corrupt, non-image, too large
    or too small file; the size is read from the header before anything is decoded.
    """
    import cv2
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ScanError("the photo must be given as the bytes of an image file")
    data = bytes(data)
    if not data:
        raise ScanError("the file is empty")
    if len(data) > MAX_BYTES:
        raise ScanError(f"the file is {len(data) / 1e6:.0f} MB; the most a scan takes is "
                        f"{MAX_BYTES // (1024 * 1024)} MB: send a smaller photo")
    size = image_size(data)
    if size is None:
        # a format whose size this module cannot read before decoding (JPEG 2000, AVIF, ...):
        # refused unread, as a 1 KB file may decode to gigabytes
        raise ScanError(_not_an_image(data, size))
    width, height = size
    if width * height > MAX_PIXELS:
        raise ScanError(f"the image is {width} x {height} pixels ({width * height / 1e6:.0f} megapixels); "
                        f"the most a scan takes is {MAX_PIXELS // 1_000_000} megapixels: scale it down")
    if width == 0 or height == 0:
        raise ScanError("the image file says it has no pixels (a broken header)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise ScanError(_not_an_image(data, size))
    if image.dtype != np.uint8:
        if np.issubdtype(image.dtype, np.floating):
            image = np.clip(image * (255.0 if image.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
        else:
            image = (image / (np.iinfo(image.dtype).max / 255.0)).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 1:
        image = cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 2:  # grey + alpha
        image = _on_white(cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR), image[:, :, 1])
    elif image.shape[2] == 4:
        image = _on_white(image[:, :, :3], image[:, :, 3])
    image = apply_orientation(image, exif_orientation(data))
    if min(image.shape[:2]) < MIN_SIDE:
        raise ScanError(f"the image is only {image.shape[1]} x {image.shape[0]} pixels; too small to "
                        "show tiles")
    return np.ascontiguousarray(image)


def _on_white(colour: np.ndarray, alpha: np.ndarray, rows: int = 512) -> np.ndarray:
    """Composite a colour image with transparency over a white background, a band of rows at
    a time: a large photo's whole float copy would cost several times the photo."""
    out = np.empty(colour.shape, np.uint8)
    for top in range(0, colour.shape[0], rows):
        a = alpha[top:top + rows].astype(np.uint16)[..., None]
        band = colour[top:top + rows].astype(np.uint16) * a + 255 * (255 - a)
        out[top:top + rows] = ((band + 127) // 255).astype(np.uint8)
    return out


def _not_an_image(data: bytes, size: tuple[int, int] | None) -> str:
    head = data[:512]
    if size is not None:
        return "the image file is damaged (its header is readable but the picture is not)"
    try:
        text = head.decode("utf-8")
        if text and all(c.isprintable() or c.isspace() for c in text):
            return "the file is text, not an image (send a JPEG or PNG photo)"
    except UnicodeDecodeError:
        pass
    if data[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n" or data[:4] == b"\xffO\xffQ" or data[4:8] == b"ftyp":
        return ("this kind of image (JPEG 2000, AVIF or HEIC) is not taken: send the photo as JPEG, "
                "PNG, WebP, BMP, GIF or TIFF")
    return "the file is not an image that can be read (corrupt, or not JPEG, PNG, WebP, BMP, GIF or TIFF)"


def read_image(path: str | Path) -> np.ndarray:
    """decode_image of a file, with a sentence for a file that cannot be read."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ScanError(f"the file is {size / 1e6:.0f} MB; the most a scan takes is "
                            f"{MAX_BYTES // (1024 * 1024)} MB: send a smaller photo")
        data = path.read_bytes()
    except IsADirectoryError:
        raise ScanError("that is a folder, not an image file") from None
    except FileNotFoundError:
        raise ScanError("no such file") from None
    except OSError as error:
        raise ScanError(f"the file cannot be read ({error.strerror})") from None
    return decode_image(data)
