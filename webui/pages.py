"""The pages: photo (and correction), live, referee records, Rode Draak table."""
from __future__ import annotations

from flask import Blueprint, Response, render_template, send_file, stream_with_context

from .app import assistant
from .service import ServiceError

pages = Blueprint("pages", __name__)


def _page(template: str, **values):
    service = assistant()
    from flask import current_app
    return render_template(template, rule_sets=service.rules_catalog(),
                           has_camera=service.camera_source not in (None, ""),
                           max_upload_mb=current_app.config["MAX_UPLOAD_BYTES"] / (1024 * 1024),
                           **values)


@pages.get("/")
def photo():
    return _page("photo.html", active="photo")


@pages.get("/live")
def live():
    return _page("live.html", active="live")


@pages.get("/live/stream")
def live_stream():
    """The table camera as MJPEG (multipart/x-mixed-replace), boxes drawn in."""
    feed = assistant().live()
    if feed is None:
        raise ServiceError("no table camera: start the app with --camera", 404)

    def parts():
        for jpeg in feed.frames():
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                   + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")

    return Response(stream_with_context(parts()), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-store"})


@pages.get("/referee")
def referee():
    service = assistant()
    return _page("referee.html", active="referee", checks=service.checks(200),
                 total=service.count_checks())


@pages.get("/referee/checks.csv")
def checks_csv():
    return Response(assistant().checks_csv(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=referee-checks.csv"})


@pages.get("/referee/photo/<name>")
def referee_photo(name: str):
    return send_file(assistant().photo_path(name), max_age=86400)


@pages.get("/table")
def table():
    return _page("table.html", active="table")
