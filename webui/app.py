"""The Flask app factory and the `mahjong-lens serve` command."""
from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from mahjong_lens.rules.hand import laid_out
from mahjong_lens.rules.tiles import vocabulary as tile_vocabulary
from mahjong_lens.rules.tournament import TournamentError
from mahjong_lens.vision.storage import default_database

from .api import api
from .pages import pages
from .security import HostPolicy, cross_site, host_name, needs_login, new_password, password_hash
from .service import (MAX_BODY_BYTES, MAX_UPLOAD_BYTES, ServiceError, TableAssistant,
                      too_large_body_message, too_large_message)
from .state import EXTENSION, assistant
from .tournament_store import StaleCorrection, UnknownTournament


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The table assistant.  Config keys: DATABASE (path of the referee's SQLite file),
    MAX_CONTENT_LENGTH (the whole request, bytes; by default room for the largest photo),
    RECOGNIZER (an object with detect(image); by default
    the shipped model is loaded on the first scan), MODEL (a model path for that),
    CAMERA (the table camera: device number, file or URL, or an object whose read() gives
    frames; None for none), LIVE_INTERVAL (seconds between readings of the camera),
    SERVER_HOST (the address it is bound to) and ALLOWED_HOSTS (more host names it may be
    reached under; localhost always is), MAX_UPLOAD_BYTES (the largest photo, 20 MB),
    MAX_BODY_BYTES (any request without a photo, 1 MB), DESK_PASSWORD (what another machine
    logs in with to write: tournaments, slips, the referee's log, teaching; kept hashed) or
    DESK_PASSWORD_HASH, SECRET_KEY (signs the login's cookie; a new one each start by default)."""
    app = Flask(__name__)
    app.config.update(DATABASE=None, MAX_UPLOAD_BYTES=MAX_UPLOAD_BYTES, MAX_BODY_BYTES=MAX_BODY_BYTES,
                      RECOGNIZER=None,
                      MODEL=None, CAMERA=None, LIVE_INTERVAL=1.0, SERVER_HOST=None, ALLOWED_HOSTS=(),
                      DESK_PASSWORD=None, DESK_PASSWORD_HASH=None, SECRET_KEY=None)
    app.config.update(config or {})
    if app.config["DESK_PASSWORD"]:  # only its hash is kept
        app.config["DESK_PASSWORD_HASH"] = password_hash(str(app.config.pop("DESK_PASSWORD")))
    if not app.config.get("SECRET_KEY"):
        import secrets
        app.config["SECRET_KEY"] = secrets.token_bytes(32)  # a restart logs everyone out
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax")
    if not app.config.get("MAX_CONTENT_LENGTH"):
        # the request around the largest photo: the referee sends it as base64 (4/3 the
        # size) in JSON, a scan adds form fields; the photo itself is checked exactly
        app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_UPLOAD_BYTES"] * 4 // 3 + 1024 * 1024
    app.config["HOST_POLICY"] = HostPolicy(app.config["SERVER_HOST"], app.config["ALLOWED_HOSTS"])
    app.debug = False  # never the interactive debugger: it runs code for whoever can reach it
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    database = app.config["DATABASE"] or default_database()
    app.extensions[EXTENSION] = TableAssistant(
        database, recognizer=app.config["RECOGNIZER"], model=app.config["MODEL"],
        camera=app.config["CAMERA"], live_interval=float(app.config["LIVE_INTERVAL"]),
        max_upload=int(app.config["MAX_UPLOAD_BYTES"]))

    app.register_blueprint(pages)
    app.register_blueprint(api)
    _register_errors(app)
    vocabulary = tile_vocabulary()  # the same for every page: built once
    app.context_processor(lambda: {"tile_vocabulary": vocabulary})
    app.add_template_filter(laid_out, "laid_out")  # a recorded hand in lists, for the page to draw
    app.before_request(_check_host_and_origin)
    app.before_request(_check_writer)
    app.before_request(_limit_body)
    app.context_processor(lambda: {"desk_logged_in": _logged_in()})
    app.after_request(_security_headers)
    return app


# The page loads nothing from outside, and the browser is told to enforce it.
_CONTENT_POLICY = ("default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
                   "script-src 'self'; style-src 'self'; connect-src 'self'; object-src 'none'; "
                   "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def _security_headers(response):
    response.headers.setdefault("Content-Security-Policy", _CONTENT_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    # same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on the
    # desk's own form posts; other sites still get no referrer
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("Permissions-Policy", "camera=(self), microphone=()")
    return response


# the routes that take a photo; every other request is held to MAX_BODY_BYTES
PHOTO_ENDPOINTS = frozenset({"api.scan", "api.referee", "api.teach"})


def _limit_body() -> None:
    """One body limit for every route, set here: a photo's room only where a photo goes."""
    from flask import current_app
    if request.endpoint not in PHOTO_ENDPOINTS:
        request.max_content_length = current_app.config["MAX_BODY_BYTES"]


def _check_host_and_origin() -> None:
    """Refuse a Host the app is not known under (DNS rebinding) and a change that another
    site's page asks for (cross-site request forgery)."""
    from flask import current_app
    policy: HostPolicy = current_app.config["HOST_POLICY"]
    if not policy.allows(request.host):
        # the allowed names are not listed: a rebinding page could read them
        port = request.environ.get("SERVER_PORT") or "8000"
        raise ServiceError(
            f"this table assistant does not answer to the name {host_name(request.host)!r}: "
            f"open it as http://localhost:{port}/ on this computer, or start it with "
            f"--allowed-host NAME to allow another name", 400)
    if cross_site(request.method, request.headers.get("Origin"),
                  request.headers.get("Sec-Fetch-Site"), request.scheme, request.host):
        raise ServiceError("a page of another web site cannot send requests to the table "
                           "assistant; use its own page", 403)


def _logged_in() -> bool:
    from flask import session
    return bool(session.get("desk"))


def _check_writer() -> None:
    """A write from another machine needs the desk's login (401 with the way to log in)."""
    from flask import current_app
    if needs_login(request.method, request.endpoint, request.remote_addr, _logged_in()):
        if not current_app.config.get("DESK_PASSWORD_HASH"):
            raise ServiceError("only the desk's own computer may change the records: this server was "
                               "started without a desk password (serve --password)", 403)
        raise ServiceError("changing the records needs the desk's login: log in at /login with the "
                           "desk's password (reading scores and standings does not)", 401)


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path.endswith(".json")


def _register_errors(app: Flask) -> None:
    """Every error is a sentence: JSON for /api/*, a friendly page otherwise; no stack trace."""

    def respond(message: str, status: int):
        if _wants_json():
            return jsonify(error=message, status=status), status
        return render_template("error.html", message=message, status=status), status

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError):
        return respond(error.message, error.status)

    @app.errorhandler(TournamentError)
    def tournament_error(error: TournamentError):
        if isinstance(error, StaleCorrection):  # 409, with the slip as it is now
            if _wants_json():
                current = error.current
                return jsonify(error=str(error), status=409, current={
                    "id": current.id, "number": current.number, "version": current.version,
                    **current.slip.to_dict(), "corrected": current.corrected}), 409
            return respond(str(error), 409)
        return respond(str(error), 404 if isinstance(error, UnknownTournament) else 400)

    @app.errorhandler(413)
    def too_large(error: HTTPException):
        if request.endpoint in PHOTO_ENDPOINTS:
            return respond(too_large_message(app.config["MAX_UPLOAD_BYTES"]), 413)
        return respond(too_large_body_message(app.config["MAX_BODY_BYTES"]), 413)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        messages = {404: "there is no such page here", 405: "that request method is not used here",
                    400: "the request could not be read"}
        description = error.description if error.code == 400 and error.description else None
        message = messages.get(error.code, error.name.lower())
        if error.code == 405 and getattr(error, "valid_methods", None):
            message = f"{request.method} is not used on {request.path}; use {', '.join(m for m in sorted(error.valid_methods) if m not in ('HEAD', 'OPTIONS'))}"
        if description and "browser (or proxy) sent a request" not in description:
            message = description
        return respond(message, error.code or 500)

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        app.logger.exception("unexpected error on %s", request.path)
        return respond("something went wrong on the server while doing that; the details are "
                       "in the server's log", 500)


# ---------------------------------------------------------------- mahjong-lens serve

def configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this computer only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="another host name the page may be opened under (repeatable; "
                             "localhost and the --host address always are; .example.org "
                             "allows its subdomains)")
    parser.add_argument("--camera", default=None, metavar="0|FILE|URL",
                        help="table camera: a device number, a video file or a stream URL")
    parser.add_argument("--model", default=None, help="tile recogniser weights (default: the shipped model)")
    parser.add_argument("--database", default=None,
                        help=f"referee checks database (default {default_database()})")
    parser.add_argument("--password", default=None,
                        help="the desk's password, which other machines log in with to change the records "
                             "(default: $MAHJONG_LENS_DESK_PASSWORD; served beyond this computer without one, "
                             "one is made and printed once)")


def camera_problem(source: str) -> str | None:
    """Why the table camera cannot be used (it does not open, or gives no picture), or None."""
    import cv2

    from mahjong_lens.vision.camera import Camera, CameraError
    # OpenCV's own warnings about the device would come before our sentence; ours says it
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    if not str(source).strip():
        return "--camera needs a device number (0 for the first webcam), a video file or a stream URL"
    try:
        camera = Camera(source)
    except CameraError as error:
        return f"{error}; give --camera a device number (0 for the first webcam), a video file or a stream URL"
    try:
        if camera.read() is None:
            return f"the camera {source!r} opened but gives no picture (busy, unplugged, or an empty video)"
    finally:
        camera.close()
    return None


# the production server's bounds: requests served at once, connections held (a half-sent
# request beyond them waits in the socket's queue), and how long a silent connection is kept
SERVE_THREADS = 8
SERVE_CONNECTIONS = 64
SERVE_IDLE_SECONDS = 30


def run_serve(args: argparse.Namespace) -> int:
    from waitress.server import create_server

    if args.camera is not None:
        problem = camera_problem(args.camera)
        if problem:  # said now, not as a page that says "Reading..." for ever
            print(f"mahjong-lens: {problem}", file=sys.stderr)
            return 2
    import os
    password = args.password or os.environ.get("MAHJONG_LENS_DESK_PASSWORD")
    beyond = args.host not in ("127.0.0.1", "localhost", "::1")
    if beyond and not password:
        password = new_password()
        print(f"mahjong-lens: the desk's password for this run is {password} (printed once: other "
              "machines log in with it at /login to change the records)", file=sys.stderr)
    try:
        app = create_app({"DATABASE": args.database, "MODEL": args.model, "CAMERA": args.camera,
                          "SERVER_HOST": args.host, "ALLOWED_HOSTS": args.allowed_host,
                          "DESK_PASSWORD": password})
    except (OSError, sqlite3.Error) as error:  # a folder that cannot be made or written, a locked file
        where = args.database or default_database()
        print(f"mahjong-lens: the records cannot be kept in {where} ({getattr(error, 'strerror', None) or error}): "
              "give --database a file in a folder this user may write", file=sys.stderr)
        return 2
    try:  # a missing or broken model is said now, not at the first photo; typed hands still score
        assistant(app).recognizer()
    except ServiceError as error:
        print(f"mahjong-lens: {error.message}", file=sys.stderr)
    if beyond:
        print(f"mahjong-lens: listening on {args.host}: anyone on that network can score photos and "
              "see the standings and the referee's records; changing them needs the desk's login",
              file=sys.stderr)
    print(f"mahjong-lens: answering to {app.config['HOST_POLICY'].describe()}", file=sys.stderr)
    try:
        # waitress: threads share one recogniser (onnxruntime runs them on every core), each
        # connection is read whole before the app sees it, a silent one is closed, and the
        # number held at once is capped
        server = create_server(app, host=args.host, port=args.port, threads=SERVE_THREADS,
                               connection_limit=SERVE_CONNECTIONS, channel_timeout=SERVE_IDLE_SECONDS,
                               clear_untrusted_proxy_headers=True, ident="mahjong-lens")
    except OSError as error:
        print(f"mahjong-lens: cannot listen on {args.host}:{args.port}: {error.strerror}",
              file=sys.stderr)
        return 2
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"mahjong-lens: the table assistant is at http://{shown}:{args.port}/  (Ctrl+C stops it)",
          flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        assistant(app).close()
    return 0
