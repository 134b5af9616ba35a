import json

import pytest

from commands import run_cli


def run(*args, stdin=""):
    return run_cli(*args, stdin=stdin)


def test_waits_lists_the_completing_tiles():
    out = run("waits", "1112345678999m")
    assert out.returncode == 0
    assert "waits on 9 tiles: 1 char, 2 char, 3 char, 4 char, 5 char, 6 char, 7 char, 8 char, 9 char" in out.stdout


def test_waits_says_when_nothing_completes():
    out = run("waits", "1357m2468p13579s")
    assert out.returncode == 0 and "not waiting" in out.stdout


@pytest.mark.parametrize("args, words", [
    (("waits", "12x"), "unknown suit letter"),
    (("waits", "12m"), "2 tiles"),
    (("waits", "11111m2345678p"), "appears 5 times"),
    (("score", "/nonexistent/hand.json"), "cannot read"),
    (("score", "-", "--option", "nonsense"), "NAME=VALUE"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    out = run(*args, stdin='{"concealed": "123m"}')
    assert out.returncode == 2
    assert words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_malformed_json_exits_2_without_traceback():
    out = run("score", "-", stdin="{not json")
    assert out.returncode == 2 and "not valid JSON" in out.stderr and "Traceback" not in out.stderr


def test_no_command_prints_help():
    out = run()
    assert out.returncode == 2 and "score" in out.stdout and "waits" in out.stdout


def test_a_question_exits_3_with_every_answer_scored():
    # a complete hand whose winning tile is not set apart, and the candidates score differently
    hand = {"concealed": "123m456p789s55z111z", "discarder": "S"}
    out = run("score", "--json", "--rules", "rode-draak", "-", stdin=json.dumps(hand))
    answer = json.loads(out.stdout)
    assert out.returncode == 3, (answer, out.stderr)
    assert answer["question"] == "win_tile" and len(answer["win_candidates"]) >= 2
    # a hand that cannot be scored still exits 2
    out = run("score", "--rules", "rode-draak", "-", stdin=json.dumps({"concealed": "11111m"}))
    assert out.returncode == 2


def test_score_and_settle_print_what_a_player_reads_and_json_when_asked(tmp_path):
    hand = {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True}
    out = run("score", "--rules", "rode-draak", "-", stdin=json.dumps(hand))
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0] == "512 points (Rode Draak)"
    assert "  Pung of dragons: x2" in lines and "South pays East 1024" in lines
    assert "{" not in out.stdout
    assert json.loads(run("score", "--json", "-", stdin=json.dumps(hand)).stdout)["points"] == 512
    table = {"hands": {"E": hand, "S": {"concealed": "22m345p777s666z19s"},
                       "W": {"concealed": "111p234s567m88p3z4z"}, "N": {"concealed": "13579m2468p1359s"}}}
    out = run("settle", "-", stdin=json.dumps(table))
    assert out.returncode == 0
    assert out.stdout.splitlines()[:2] == ["East (Mahjong): 512 points, net +3072", "South: 24 points, net -984"]
    assert "North pays West 8" in out.stdout
    # a question prints each answer with its score
    out = run("score", "-", stdin=json.dumps({"concealed": "123m456p789s55z111z", "discarder": "S"}))
    assert out.returncode == 3 and out.stdout.startswith("which tile completed the hand? ")
    assert "1z 104" in out.stdout


@pytest.mark.parametrize("args, stdin, words", [
    (("score", "-"), '{"concealed": "123m\\ud800"}', "no valid Unicode"),
    (("tournament", "standings", "99999999999999999999"), "", "too large to be a tournament"),
])
def test_odd_command_lines_are_one_sentence_without_a_traceback(args, stdin, words):
    out = run(*args, stdin=stdin)
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_a_database_that_is_a_folder_and_an_annotation_that_is_no_picture_are_said(tmp_path):
    out = run("tournament", "standings", "1", "--database", str(tmp_path))
    assert out.returncode == 2 and "the database cannot be used" in out.stderr and "Traceback" not in out.stderr
    photo = tmp_path / "p.png"
    import cv2
    import numpy as np
    cv2.imwrite(str(photo), np.zeros((64, 64, 3), np.uint8))
    out = run("scan", str(photo), "--annotate", str(tmp_path / "out.txt"))
    assert out.returncode == 2 and "--annotate writes a picture" in out.stderr and "Traceback" not in out.stderr


def test_serve_says_in_one_sentence_where_the_records_cannot_be_kept(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = run("serve", "--port", "0", "--database", str(blocker / "records.db"))
    assert out.returncode == 2 and "the records cannot be kept in" in out.stderr and "Traceback" not in out.stderr
