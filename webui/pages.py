"""The pages: photo (and correction), live, referee records, Rode Draak table, tournament desk."""
from __future__ import annotations

from flask import (Blueprint, Response, redirect, render_template, request, send_file,
                   stream_with_context, url_for)

from mahjong_lens.rules.tournament import TournamentError

from .state import assistant
from mahjong_lens.rules.tiles import WIND_NAMES

from .service import ServiceError
from .tournament_store import StaleCorrection, UnknownTournament

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
    return _page("photo.html", active="photo", tile_sets=assistant().tile_sets())


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
                 total=service.count_checks(), winds=WIND_NAMES,
                 rule_titles={rules["name"]: rules["title"] for rules in service.rules_catalog()})


@pages.get("/referee/checks.csv")
def checks_csv():
    return Response(assistant().checks_csv(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=referee-checks.csv"})


@pages.get("/referee/photo/<name>")
def referee_photo(name: str):
    return send_file(assistant().photo_path(name), max_age=86400)


@pages.get("/table")
def table():
    return _page("table.html", active="table", tournaments=_desk().tournaments())


# ------------------------------------------------------------------ the tournament desk

def _desk():
    return assistant().desk


@pages.get("/tournament")
def tournaments():
    return _page("tournaments.html", active="tournament", tournaments=_desk().tournaments(),
                 typed={}, error=None)


@pages.post("/tournament")
def new_tournament():
    try:
        tournament = _desk().create(request.form)
    except TournamentError as error:  # the form again, as typed, with the reason
        return _page("tournaments.html", active="tournament", tournaments=_desk().tournaments(),
                     typed=request.form, error=str(error)), 400
    return redirect(url_for("pages.tournament", tournament=tournament), 303)


@pages.get("/tournament/<int:tournament>")
def tournament(tournament: int):
    return _page("tournament.html", active="tournament", t=_desk().overview(tournament))


@pages.route("/tournament/<int:tournament>/slip", methods=["GET", "POST"])
@pages.route("/tournament/<int:tournament>/slip/<int:slip_id>", methods=["GET", "POST"])
def slip(tournament: int, slip_id: int | None = None):
    """A slip of one hand: GET the form (round/table/hand in the query, or the next hand;
    E/S/W/N, mahjong and dead prefill it), POST enters it, or corrects slip `slip_id`."""
    desk = _desk()
    if request.method == "POST":
        try:
            data = desk.slip_from_form(tournament, request.form)
            stored = (desk.correct_slip(tournament, slip_id, data) if slip_id is not None
                      else desk.add_slip(tournament, data))
        except (UnknownTournament, StaleCorrection):
            raise
        except TournamentError as error:
            form = desk.slip_form(tournament, request.form, correcting=slip_id, typed=True)
            return _slip_page(tournament, form, str(error)), 400
        if slip_id is not None:
            return redirect(url_for("pages.tournament", tournament=tournament, corrected=stored["id"],
                                    _anchor=f"slip-{stored['id']}"), 303)
        return redirect(url_for("pages.slip", tournament=tournament, entered=stored["id"]), 303)
    entered = request.args.get("entered", type=int)
    form = desk.slip_form(tournament, request.args, entered=entered, correcting=slip_id)
    return _slip_page(tournament, form, None)


def _slip_page(tournament: int, form: dict, error: str | None):
    return _page("slip.html", active="tournament", form=form, error=error,
                 t={"id": tournament, "name": _desk().store.name(tournament)})


@pages.get("/tournament/from-table")
def slip_from_table():
    """The table page's settled hands onto a slip: on to that tournament's slip form."""
    tournament = request.args.get("tournament", type=int)
    if tournament is None:
        raise ServiceError("choose the tournament the slip belongs to")
    query = {key: value for key, value in request.args.items(multi=True) if key != "tournament"}
    return redirect(url_for("pages.slip", tournament=tournament, **query), 303)


@pages.get("/tournament/<int:tournament>/standings")
def standings(tournament: int):
    refresh = request.args.get("refresh", type=int)
    refresh = min(max(refresh, 10), 600) if refresh else None
    return _page("standings.html", active="tournament", s=_desk().standings(tournament), refresh=refresh)


@pages.get("/tournament/<int:tournament>/schedule")
def schedule(tournament: int):
    return _page("schedule.html", active="tournament", t=_desk().overview(tournament))


@pages.get("/tournament/<int:tournament>/<any(slips, payments, standings):what>.csv")
def tournament_csv(tournament: int, what: str):
    return Response(_desk().csv(tournament, what), mimetype="text/csv", headers={
        "Content-Disposition": f"attachment; filename=tournament-{tournament}-{what}.csv"})


# ---------------------------------------------------------------- the desk's login

@pages.get("/login")
def login():
    return _page("login.html", active="", error=None, next=_safe_next(request.args.get("next")))


@pages.post("/login")
def login_post():
    from flask import current_app, session

    from .security import password_matches
    target = _safe_next(request.form.get("next"))
    if not password_matches(current_app.config.get("DESK_PASSWORD_HASH"), request.form.get("password", "")):
        return _page("login.html", active="", error="that is not the desk's password", next=target), 401
    session.clear()
    session["desk"] = True
    return redirect(target, 303)


@pages.post("/logout")
def logout():
    from flask import session
    session.clear()
    return redirect(url_for("pages.photo"), 303)


def _safe_next(target: str | None) -> str:
    """Where to go after logging in: a path of this site only (never another site's address)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("pages.tournaments")
