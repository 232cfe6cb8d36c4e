"""A club scenario's map image at the boundary (issue 44): a draft's ``map.image`` names an image
the scenario owns and says what the store recorded of it, or the edit is refused naming the field
and nothing is written; the image is served as the type recorded when it was checked (never as
HTML, whatever a draft says); a draft stored before these checks answers 4xx, never 500; and a
worker decodes a bounded number of images at once, answering 503 past it."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest
from PIL import Image

from service.application.map_images import check_upload
from service.domain.map_images import image_id
from service.domain.scenarios import ClubScenario
from tests.e2e import test_map_image_api as base
from tests.e2e.test_map_image_api import draft, ok, upload
from tests.support.api import ApiHelper
from tests.unit.application.test_map_images import HTML, jpeg_with_html

#: a blank map of 30x24 hexes of the club ``Printed``: ann its admin (the map image API's tests')
scenario = base.scenario


def edit(api: ApiHelper, sid: str, *changes: dict[str, Any]) -> Any:
    return api.client.post(
        f"/api/club-scenarios/{sid}/edits", json={"changes": list(changes)}, headers=api.user("ann")
    )


def set_image(value: Any, path: str = "map.image") -> dict[str, Any]:
    return {"kind": "field", "path": path, "value": value}


def get_image(api: ApiHelper, sid: str, query: str = "") -> Any:
    return api.client.get(f"/api/club-scenarios/{sid}/map-image{query}", headers=api.user("ann"))


def png(shade: int, size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (shade, 90, 90)).save(out, format="PNG")
    return out.getvalue()


def stored_anyway(api: ApiHelper, sid: str, value: Any) -> None:
    """A draft edit of ``map.image`` recorded without the API's checks: what an event kept before
    them says (an event is forever)."""
    svc = api.client.application.extensions["arbiter"]
    found = svc.scenarios._load(sid)
    found.trigger_event(ClubScenario.Edited, changes=[set_image(value)], by="someone")
    svc.scenarios._save(found)


def test_html_in_a_jpeg_is_never_served_as_a_page(api: ApiHelper, scenario: str) -> None:
    """Finding 4: a JPEG whose comment held HTML, then a draft edit of ``map.image`` to
    ``text/html``, served that HTML on the site's origin."""
    sid = scenario
    image = ok(upload(api, sid, jpeg_with_html()), 201)
    served = get_image(api, sid)
    assert served.mimetype == "image/jpeg" and b"<script" not in served.data
    before = draft(api, sid)

    refused = edit(api, sid, set_image({**image, "media_type": "text/html"}))
    assert refused.status_code == 400, refused.get_json()
    assert "map.image.media_type" in refused.get_json()["details"]
    refused = edit(api, sid, set_image("text/html", "map.image.media_type"))
    assert refused.status_code == 400, refused.get_json()
    assert "map.image.media_type" in refused.get_json()["details"]
    wrong = {"sha256": image["sha256"], "media_type": "image/png"}
    refused = edit(api, sid, set_image(wrong))
    assert (
        "image/jpeg, as the image was checked"
        in refused.get_json()["details"]["map.image.media_type"][0]
    )
    assert draft(api, sid) == before  # nothing written

    # a draft that says text/html all the same (kept before the checks): served as checked
    stored_anyway(api, sid, {**image, "media_type": "text/html"})
    for query in ("", "?width=256"):
        served = get_image(api, sid, query)
        assert served.status_code == 200 and served.mimetype == "image/jpeg"
        assert served.headers["X-Content-Type-Options"] == "nosniff"
        assert HTML not in served.data and b"<script" not in served.data


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"sha256": "ab", "media_type": "image/png"}, "map.image.sha256"),
        ("an image", "map.image"),
        ({"sha256": "SHA", "width": "wide"}, "map.image.width"),
        ({"sha256": "SHA", "width": 41}, "map.image.width"),
        ({"sha256": "SHA", "height": True}, "map.image.height"),
        ({"sha256": "SHA", "shown": "<b>x</b>"}, "map.image.shown"),
        ({"sha256": "SHA", "calibration": {"affine": [[1, 0]]}}, "map.image.calibration.points"),
        ({"sha256": "f" * 64}, "map.image.sha256"),  # no image of this scenario
        ({"sha256": "OTHER"}, "map.image.sha256"),  # another scenario's image
    ],
)
def test_a_draft_image_must_be_one_the_scenario_owns_and_say_what_it_is(
    api: ApiHelper, scenario: str, value: Any, field: str
) -> None:
    """Finding 8: a draft ``map.image`` of ``{"sha256": "ab", ...}`` or ``width: "wide"`` was
    kept, and the image's GET and calibration's PUT then answered 500."""
    sid = scenario
    image = ok(upload(api, sid, png(10), "image/png"), 201)
    blank = {"bounds": {"min_col": 1, "max_col": 5, "min_row": 1, "max_row": 5}, "sides": ["a"]}
    other = ok(
        api.client.post(
            f"/api/clubs/{draft(api, sid)['club']}/scenarios",
            json={"system": "bizkaya", "title": "Other", "blank": blank},
            headers=api.user("ann"),
        ),
        201,
    )
    theirs = ok(upload(api, other["id"], png(200), "image/png"), 201)
    if isinstance(value, dict):
        swap = {"SHA": image["sha256"], "OTHER": theirs["sha256"]}
        value = {k: swap.get(v, v) if k == "sha256" else v for k, v in value.items()}
    before = draft(api, sid)
    refused = edit(api, sid, set_image(value))
    assert refused.status_code in (400, 422), refused.get_json()
    assert field in refused.get_json()["details"], refused.get_json()
    assert draft(api, sid) == before  # nothing written
    assert get_image(api, sid).status_code == 200


@pytest.mark.parametrize(
    "value",
    [
        {"sha256": "ab", "media_type": "image/png"},
        {"sha256": "SHA", "media_type": "image/png", "width": "wide", "height": 30},
        {"sha256": "f" * 64, "media_type": "image/png", "width": 40, "height": 30},
        {"sha256": ["SHA"]},
        {
            "sha256": "SHA",
            "media_type": "image/png",
            "width": 40,
            "height": 30,
            "calibration": {"affine": "none", "points": 3},
        },
    ],
)
def test_a_draft_image_stored_before_the_checks_answers_4xx(
    api: ApiHelper, scenario: str, value: dict[str, Any]
) -> None:
    """Finding 8: such a draft, already in the log, is answered 404/422 naming the image (the
    draft's word on width is never used: the stored image's is)."""
    from tests.e2e.test_map_image_api import examples
    from tests.support.printed_map import render

    sid = scenario
    image = ok(upload(api, sid, png(10), "image/png"), 201)
    fixed = {k: image["sha256"] if v == "SHA" else v for k, v in value.items()}
    stored_anyway(api, sid, fixed)
    answers = [
        get_image(api, sid),
        get_image(api, sid, "?width=256"),
        api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal",
            json=examples(render(radius=8.0)),
            headers=api.user("ann"),
        ),
        api.client.put(
            f"/api/club-scenarios/{sid}/map-image/calibration",
            json={"points": [{"hex": h, "x": x, "y": y} for h, x, y in PTS]},
            headers=api.user("ann"),
        ),
        api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("ann")),
        api.client.get(f"/api/club-scenarios/{sid}/board", headers=api.user("ann")),
    ]
    for answer in answers:
        assert answer.status_code < 500, answer.get_json()
    if fixed["sha256"] == image["sha256"]:
        served = answers[0]
        assert served.status_code == 200 and served.mimetype == "image/png"
        with Image.open(io.BytesIO(served.data)) as seen:
            assert seen.size == (40, 30)
        fit = answers[3]
        assert fit.status_code == 200, fit.get_json()  # fitted on the stored image's 40x30
    else:
        assert answers[0].status_code == 404 and "image" in answers[0].get_json()["details"]
        assert answers[3].status_code == 422 and "image" in answers[3].get_json()["details"]
    if "calibration" in fixed:  # the proposal, before a new calibration replaced it
        assert answers[2].status_code == 422
        assert "calibration" in answers[2].get_json()["details"]


#: three hexes on a 40x30 image, not in one line, hexes 5 px: a fit that is accepted
PTS = (("0101", 5, 5), ("0301", 20, 5), ("0103", 5, 22.32))


def test_good_edits_of_the_image_are_kept(api: ApiHelper, scenario: str) -> None:
    """Back to an image the scenario had (undo), by its hash alone (the rest filled in from the
    stored image), or no image at all."""
    sid = scenario
    first = ok(upload(api, sid, png(10), "image/png"), 201)
    second = ok(upload(api, sid, png(20, (60, 20)), "image/png"), 201)
    facts = ("sha256", "media_type", "width", "height")
    ok(edit(api, sid, set_image({k: first[k] for k in facts})))
    assert draft(api, sid)["document"]["map"]["image"]["sha256"] == first["sha256"]
    ok(edit(api, sid, set_image({"sha256": second["sha256"]})))
    kept = draft(api, sid)["document"]["map"]["image"]
    assert kept == {k: second[k] for k in facts}
    ok(edit(api, sid, set_image(None)))
    assert "image" not in draft(api, sid)["document"]["map"]
    assert get_image(api, sid).status_code == 404


def test_an_import_names_only_a_stored_image_as_it_was_checked(
    api: ApiHelper, scenario: str
) -> None:
    sid = scenario
    image = ok(upload(api, sid, png(10), "image/png"), 201)
    ok(
        api.client.post(f"/api/club-scenarios/{sid}/versions", json={}, headers=api.user("ann")),
        201,
    )
    document = ok(api.client.get(f"/api/club-scenarios/{sid}/versions/1", headers=api.user("ann")))
    club = draft(api, sid)["club"]
    svc = api.client.application.extensions["arbiter"]
    count = len(svc.scenarios.of_club(club))

    def imported(doc: dict[str, Any]) -> Any:
        return api.client.post(
            f"/api/clubs/{club}/scenarios/import",
            json={"document": doc, "title": "Imported"},
            headers=api.user("ann"),
        )

    html = {**document, "map": {**document["map"], "image": {**image, "media_type": "text/html"}}}
    html["map"]["image"].pop("bytes")
    refused = imported(html)
    assert refused.status_code == 400 and "map.image.media_type" in refused.get_json()["details"]
    gone = {**document, "map": {**document["map"], "image": {**html["map"]["image"]}}}
    gone["map"]["image"].update(media_type="image/png", sha256="e" * 64)
    refused = imported(gone)
    assert refused.status_code == 422 and "map.image.sha256" in refused.get_json()["details"]
    assert len(svc.scenarios.of_club(club)) == count  # nothing written
    again = ok(imported(document), 201)  # an export re-imports, its image with it
    assert get_image(api, again["id"]).mimetype == "image/png"


def test_a_worker_decodes_a_bounded_number_of_images_at_once(api: ApiHelper, scenario: str) -> None:
    """Finding 3: three uploads at once cost three decodes; past ``ARBITER_IMAGE_DECODES`` a
    request waits a bounded time, then is answered 503 with ``Retry-After``, writing nothing."""
    sid = scenario
    svc = api.client.application.extensions["arbiter"]
    images = svc.scenario_images
    assert images.decodes == 2  # the default
    images.wait = 0.05
    before = draft(api, sid)
    data = png(77)
    with contextlib.ExitStack() as taken:
        for _ in range(images.decodes):
            taken.enter_context(images.decoding())
        busy = upload(api, sid, data, "image/png")
        assert busy.status_code == 503, busy.get_json()
        assert busy.get_json()["error"] == "unavailable"
        assert "at most 2 images" in busy.get_json()["details"]["image"][0]
        assert int(busy.headers["Retry-After"]) >= 1
        assert draft(api, sid) == before
        sha = check_upload(data, "image/png").sha256
        assert not list(svc.store.events.get(image_id(sha)))
    ok(upload(api, sid, data, "image/png"), 201)  # a place free again


def test_the_decodes_setting() -> None:
    from service.config import Config, ConfigError

    assert Config.from_env({"ARBITER_IMAGE_DECODES": "5"}).image_decodes == 5
    with pytest.raises(ConfigError, match="ARBITER_IMAGE_DECODES"):
        Config.from_env({"ARBITER_IMAGE_DECODES": "0"})
