"""The tournament desk through the web: the pages' plain forms (a slip typed per wind, as the
table sits for that hand), the JSON API, and the refusals said in words."""
from __future__ import annotations

import csv
import io
import re

import pytest

EIGHT = ["Anna", "Bart", "Cor", "Dirk", "Eva", "Fleur", "Gijs", "Hans"]


def _new(client, players=EIGHT, rounds=2, seed=7) -> int:
    response = client.post("/tournament", data={"name": "Club evening", "players": "\n".join(players),
                                                 "rounds": str(rounds), "seed": str(seed)})
    assert response.status_code == 303, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def _seats(client, tournament, r, t, h) -> dict[str, str]:
    """Wind -> player as the slip form shows them for that hand."""
    page = client.get(f"/tournament/{tournament}/slip?round={r}&table={t}&hand={h}").text
    rows = re.findall(r'<td class="seat-wind">(\w+)</td>\s*<td>([^<]+)</td>', page)
    return {name[0]: player for name, player in rows}


def _error(page: str) -> str:
    found = re.search(r'id="(?:slip|desk)-error">(.*?)</div>', page, re.S)
    return found.group(1) if found else ""


def test_the_page_says_how_few_repeat_meetings_these_numbers_allow(client):
    page = client.get(f"/tournament/{_new(client)}").text  # 8 players over 2 rounds
    assert "some players meet more than once" in page
    assert "no schedule of 8 players over 2 rounds has fewer than 4" in page


def test_a_slip_typed_on_the_page_is_paid_out_and_ranked(client):
    tournament = _new(client)
    seats = _seats(client, tournament, 1, 1, 1)
    assert sorted(seats) == ["E", "N", "S", "W"] and set(seats.values()) <= set(EIGHT)
    # East wins with 100; South 20, West 0, North 40
    response = client.post(f"/tournament/{tournament}/slip", data={
        "round": "1", "table": "1", "hand": "1", "points_E": "100", "points_S": "20", "points_W": "0",
        "points_N": "40", "mahjong": "E"})
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).text
    # by hand: each pays East, the winner, double his 100: E +600; then the others settle
    # their differences: W pays S 20, S pays N 20, W pays N 40.
    # S: -200 + 20 - 20 = -200; W: -200 - 20 - 40 = -260; N: -200 + 20 + 40 = -140
    expected = {seats["E"]: 600, seats["S"]: -200, seats["W"]: -260, seats["N"]: -140}
    entered = re.search(r'id="slip-entered">(.*?)</div>', page, re.S).group(1)
    for player, amount in expected.items():
        assert f"{player} {amount:+d}" in entered
    # the next slip offered is the same table's next hand, the wind turned
    assert _seats(client, tournament, 1, 1, 2)["E"] == seats["S"]
    assert 'option selected>2</option>' in page.split('name="hand"')[1][:200]
    standings = client.get(f"/api/tournaments/{tournament}/standings").json["standings"]
    assert {row["player"]: row["total"] for row in standings if row["player"] in expected} == expected
    assert standings[0]["player"] == seats["E"] and standings[0]["rank"] == 1
    # the printable standings and the CSV say the same
    assert f"{seats['E']}</td>" in client.get(f"/tournament/{tournament}/standings").text
    rows = list(csv.DictReader(io.StringIO(client.get(f"/tournament/{tournament}/payments.csv").text)))
    assert {row["player"]: int(row["net"]) for row in rows} == expected


@pytest.mark.parametrize("fields, reason", [
    ({"points_E": "101", "points_S": "0", "points_W": "0", "points_N": "0", "mahjong": "E"},
     "101 points cannot be a score"),
    ({"points_E": "100", "points_S": "0", "points_W": "0", "points_N": "0"}, "who made Mahjong"),
    ({"points_E": "100", "points_S": "0", "points_W": "0", "points_N": "0", "mahjong": "X"},
     "choose who made Mahjong among the four players"),
    ({"points_E": "100", "points_S": "abc", "points_W": "0", "points_N": "0", "mahjong": "E"},
     "must be a whole number"),
    ({"points_E": "100", "points_S": "8", "points_W": "0", "points_N": "0", "mahjong": "E", "dead": "S"},
     "a dead hand scores 0"),
    ({"points_E": "100", "remise": "1", "mahjong": "E"}, None),  # a remise ignores what was typed
])
def test_a_bad_slip_on_the_page_is_refused_with_the_reason_and_keeps_what_was_typed(client, fields, reason):
    tournament = _new(client)
    response = client.post(f"/tournament/{tournament}/slip",
                           data={"round": "1", "table": "2", "hand": "3", **fields})
    if reason is None:
        assert response.status_code == 303
        return
    assert response.status_code == 400
    assert reason in _error(response.text)
    assert "Traceback" not in response.text
    assert f'name="points_E" min="0" step="2" inputmode="numeric" value="{fields["points_E"]}"' in response.text
    assert client.get(f"/api/tournaments/{tournament}").json["slips"] == []


def test_a_second_mahjong_slip_for_a_hand_is_refused_and_a_correction_recomputes(client):
    tournament = _new(client)
    hand = {"round": "2", "table": "1", "hand": "1", "points_E": "0", "points_S": "40",
            "points_W": "0", "points_N": "0", "mahjong": "S"}
    assert client.post(f"/tournament/{tournament}/slip", data=hand).status_code == 303
    again = client.post(f"/tournament/{tournament}/slip", data=hand)
    assert again.status_code == 400 and "correct that slip instead" in _error(again.text)
    slip_id = client.get(f"/api/tournaments/{tournament}").json["slips"][0]["id"]
    form = client.get(f"/tournament/{tournament}/slip/{slip_id}").text
    assert 'value="40"' in form and 'value="S" checked' in form
    # the correction: North made Mahjong with 60
    corrected = client.post(f"/tournament/{tournament}/slip/{slip_id}", data={
        **hand, "points_S": "0", "points_N": "60", "mahjong": "N"})
    assert corrected.status_code == 303 and f"corrected={slip_id}" in corrected.headers["Location"]
    overview = client.get(f"/api/tournaments/{tournament}").json
    row = overview["slips"][0]
    assert row["corrected"] and [p["net"] for p in row["players"]] == [-120, -60, -60, 240]
    assert sum(s["total"] for s in overview["standings"]) == 0
    page = client.get(corrected.headers["Location"]).text
    assert f"Slip {slip_id} corrected" in page and "corrected</span>" in page


def test_the_json_api_runs_a_tournament_and_refuses_bad_slips_with_a_reason(client):
    created = client.post("/api/tournaments", json={"name": "API cup", "players": EIGHT, "rounds": 1, "seed": 1})
    assert created.status_code == 201
    body = created.json
    tournament = body["id"]
    first = body["rounds"][0]["tables"][0]["seats"]
    players = [seat["player"] for seat in first]
    slip = {"round": 1, "table": 1, "hand": 1, "mahjong": players[0],
            "points": {players[0]: 40, players[1]: 0, players[2]: 0, players[3]: 0}}
    entered = client.post(f"/api/tournaments/{tournament}/slips", json=slip)
    assert entered.status_code == 201
    assert entered.json["net"] == {players[0]: 240, players[1]: -80, players[2]: -80, players[3]: -80}
    assert {(t["from"], t["to"], t["amount"]) for t in entered.json["transfers"]} == {
        (players[k], players[0], 80) for k in (1, 2, 3)}
    bad = [({**slip, "hand": 2, "mahjong": [players[0], players[1]]}, "two Mahjong makers"),
           ({**slip, "hand": 2, "points": {**slip["points"], "Zoe": 0}}, "Zoe is not a participant"),
           ({**slip, "hand": 2, "points": {**slip["points"], players[1]: 7}}, "7 points cannot be a score")]
    for data, reason in bad:
        answer = client.post(f"/api/tournaments/{tournament}/slips", json=data)
        assert answer.status_code == 400 and reason in answer.json["error"], answer.json
    fixed = client.put(f"/api/tournaments/{tournament}/slips/{entered.json['id']}",
                       json={**slip, "points": {**slip["points"], players[0]: 60}})
    assert fixed.status_code == 200 and fixed.json["net"][players[0]] == 360
    assert client.get(f"/api/tournaments/{tournament + 1}").status_code == 404
    assert client.post("/api/tournaments", json={"name": "x", "players": EIGHT[:6], "rounds": 1}).status_code == 400


def test_a_new_tournament_with_a_bad_form_is_refused_in_words(client):
    for fields, reason in [
        ({"name": "Cup", "players": "A\nB\nC\nD\nE", "rounds": "2"}, "5 participants do not make tables of four"),
        ({"name": "Cup", "players": "A\nB\nC\nA", "rounds": "2"}, "two participants have the same name: A"),
        ({"name": "", "players": "A\nB\nC\nD", "rounds": "2"}, "the tournament needs a name"),
        ({"name": "Cup", "players": "A\nB\nC\nD", "rounds": "99"}, "rounds must be from 1 to 20"),
        ({"name": "Cup", "players": "A\nB\nC\nD", "rounds": "2", "seed": "-1"}, "the seed must be from 0"),
    ]:
        response = client.post("/tournament", data=fields)
        assert response.status_code == 400 and reason in _error(response.text), (fields, _error(response.text))
        assert fields["players"].split("\n")[0] in response.text  # the names typed are still there
    assert client.get("/api/tournaments").json["tournaments"] == []


def test_the_table_pages_settlement_opens_a_prefilled_slip(client):
    tournament = _new(client)
    response = client.get(f"/tournament/from-table?tournament={tournament}&round=1&table=2&hand=3"
                          "&E=120&S=0&W=20&N=0&mahjong=E&dead=S")
    assert response.status_code == 303
    form = client.get(response.headers["Location"]).text
    typed = dict(re.findall(r'name="points_(\w)" [^>]*value="(\d*)"', form))
    assert typed == {"E": "120", "S": "0", "W": "20", "N": "0"}
    assert 'name="mahjong" value="E" checked' in form and 'name="dead" value="S" checked' in form
    # the table page lists the tournaments to choose from
    assert "Club evening" in client.get("/table").text
    assert client.get("/tournament/from-table").status_code == 400


def test_unknown_tournaments_slips_and_exports_are_404_or_400_not_500(client):
    tournament = _new(client)
    assert client.get("/tournament/42").status_code == 404
    assert "There is no tournament 42." in client.get("/tournament/42/standings").text
    assert client.get(f"/tournament/{tournament}/slip/77").status_code == 400
    assert client.get(f"/tournament/{tournament}/other.csv").status_code == 404
    assert client.get(f"/tournament/{tournament}/slip?round=9&table=1&hand=1").status_code == 400
    assert client.get(f"/tournament/{tournament}/standings?refresh=1").text.count('http-equiv="refresh" content="10"') == 1


def test_after_a_remise_the_wind_turns_and_the_desk_offers_its_replay_once_everyone_was_east(client):
    tournament = _new(client, rounds=1)
    api = f"/api/tournaments/{tournament}"
    remise = client.post(f"{api}/slips", json={"round": 1, "table": 1, "hand": 1, "remise": True})
    assert remise.status_code == 201, remise.get_json()
    assert client.get(api).get_json()["next"] == [1, 1, 2]   # "en draait de wind door"
    seats = _seats(client, tournament, 1, 1, 1)
    slip = {"round": 1, "table": 1, "hand": 1, "mahjong": seats["E"],
            "points": {player: (40 if wind == "E" else 0) for wind, player in seats.items()}}
    early = client.post(f"{api}/slips", json=slip)
    assert early.status_code == 400 and "once every player has been East" in early.get_json()["error"]
    for hand in (2, 3, 4):
        east = _seats(client, tournament, 1, 1, hand)
        entered = client.post(f"{api}/slips", json={**slip, "hand": hand, "mahjong": east["E"], "points": {
            player: (40 if wind == "E" else 0) for wind, player in east.items()}})
        assert entered.status_code == 201, entered.get_json()
    overview = client.get(api).get_json()
    assert overview["replayable"] == [[1, 1, 1]]
    assert "hand 1 was a remise and may be replayed" in client.get(f"/tournament/{tournament}").text
    assert client.post(f"{api}/slips", json=slip).status_code == 201     # the replay
    assert client.get(api).get_json()["replayable"] == []


def test_a_stale_correction_is_refused_with_409_and_the_slip_keeps_its_history(client):
    tournament = _new(client, rounds=1)
    api = f"/api/tournaments/{tournament}"
    seats = _seats(client, tournament, 1, 1, 1)
    slip = {"round": 1, "table": 1, "hand": 1, "mahjong": seats["E"],
            "points": {player: (40 if wind == "E" else 0) for wind, player in seats.items()}}
    slip_id = client.post(f"{api}/slips", json=slip).get_json()["id"]
    first = client.get(api).get_json()["slips"][0]
    assert first["version"] == 0
    # two referees open version 0; the first correction lands, the second is stale
    south = {**slip, "mahjong": seats["S"], "points": {p: (100 if w == "S" else 0) for w, p in seats.items()}}
    west = {**slip, "mahjong": seats["W"], "points": {p: (4000 if w == "W" else 0) for w, p in seats.items()}}
    landed = client.put(f"{api}/slips/{slip_id}", json={**south, "version": 0})
    assert landed.status_code == 200 and landed.get_json()["version"] == 1
    stale = client.put(f"{api}/slips/{slip_id}", json={**west, "version": 0})
    assert stale.status_code == 409 and "corrected by someone else" in stale.get_json()["error"]
    assert stale.get_json()["current"]["mahjong"] == seats["S"]
    assert client.get(api).get_json()["slips"][0]["mahjong"] == seats["S"]  # nothing overwritten
    # the page's form carries the version; the slip's earlier text is on its page
    page = client.get(f"/tournament/{tournament}/slip/{slip_id}").text
    assert 'name="version" value="1"' in page and "Earlier versions of this slip" in page
    assert f"Mahjong {seats['E']}" in page
