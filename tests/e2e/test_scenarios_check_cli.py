"""``arbiter scenarios check``: a scenario whose data makes a rule impossible is an error naming
the rule, and the command exits 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import main

MERIDA = Path("service/rules/merida/scenarios/merida-1938.json")


@pytest.fixture(autouse=True)
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("ARBITER_SECRET_KEY", "k")
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    monkeypatch.delenv("ARBITER_PLUGINS", raising=False)


def check(path: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["scenarios", "check", str(path)], catch_exceptions=False)
    return result.exit_code, result.output.splitlines()


def merida_without(tmp_path: Path, feature: str) -> Path:
    document = json.loads(MERIDA.read_text(encoding="utf-8"))
    document["map"]["hexsides"] = [
        side
        for side in document["map"]["hexsides"]
        if feature not in json.dumps(side.get("value", side).get("features"))
    ]
    path = tmp_path / f"no-{feature}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_reinforcement_that_can_never_enter_is_an_error_naming_the_rule(tmp_path: Path) -> None:
    """Merida, Reinforcements: "Turn 7: Armored train" on the east edge (M26-AO26); rule 5:
    "Armored train movement: unlimited movement along the rail line" -- it is placed on a rail hex.
    With no rail at any entry hex it would stay due all game without entering: the check says so."""
    code, lines = check(merida_without(tmp_path, "rail"))
    errors = [line for line in lines if line.startswith("error")]
    index = [r["unit"] for r in json.loads(MERIDA.read_text())["reinforcements"]].index(
        "r-armored-train"
    )
    assert code == 1
    assert len(errors) == 1 and errors[0].startswith(f"error   reinforcements[{index}]: rule 5:")
    assert "Armored train (r-armored-train) can never enter on turn 7" in errors[0]
    assert "the 29 hex(es) of its entry 'republican-east'" in errors[0]
    assert lines[-1].startswith("1 error(s)")


def test_units_that_can_never_be_supplied_are_an_error_naming_the_rule(tmp_path: Path) -> None:
    """Merida rule 10: "Republicans trace to the east map edge" -- a side with no supply source
    could never supply its units."""
    document = json.loads(MERIDA.read_text(encoding="utf-8"))
    document["map"]["supply_sources"].pop("republican")
    path = tmp_path / "no-sources.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, lines = check(path)
    errors = [line for line in lines if line.startswith("error")]
    assert code == 1 and len(errors) == 1
    assert errors[0].startswith("error   map.supply_sources.republican: rule 10: republican has")


def test_the_shipped_merida_scenario_has_no_such_error() -> None:
    code, lines = check(MERIDA)
    assert code == 0 and lines[-1].startswith("0 error(s)")


BARCELONA = Path("service/rules/barcelona/scenarios/skirmish.json")


def barcelona_with(tmp_path: Path, **changes: object) -> Path:
    document = {**json.loads(BARCELONA.read_text(encoding="utf-8")), **changes}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_barcelona_unit_of_the_other_sides_troop_type_is_an_error(tmp_path: Path) -> None:
    """Back to Barcelona, Troop Type table: the names say who fields the troops (Falangists and
    Moors Nationalist, Militia and International Bde. Republican): a scenario that gives the
    Republicans Falangists is refused at the unit, naming the table."""
    units = [
        {
            "id": "r1",
            "side": "republican",
            "kind": "foot",
            "troop_type": "Falangists",
            "figures": 8,
        },
        {"id": "n1", "side": "nationalist", "kind": "foot", "troop_type": "Moors", "figures": 8},
    ]
    code, lines = check(barcelona_with(tmp_path, units=units))
    errors = [line for line in lines if line.startswith("error")]
    assert code == 1 and errors == [
        "error   units[0].troop_type: Troop Type: Falangists fight for the Nationalist side (the "
        "Troop Type table's names say who fields them): the Republican side may not field them"
    ]


def test_barcelona_sides_that_are_no_camp_need_one(tmp_path: Path) -> None:
    """A table whose sides are not named nationalist and republican must say whose troop types
    each fields (``camps``), else the Troop Type table's sides cannot apply."""
    sides = {
        "sides": ["reds", "blues"],
        "attacker": "reds",
        "deployment": {"reds": {"rect": [0, 0, 48, 6]}, "blues": {"rect": [0, 30, 48, 6]}},
        "entries": {"reds": [24, 0.5], "blues": [24, 35.5]},
        "vehicles": {},
        "options": {"attacker": {"default": "reds", "choices": ["reds", "blues"]}},
    }
    code, lines = check(barcelona_with(tmp_path, **sides))
    assert code == 1 and [line.split(":")[0] for line in lines if line.startswith("error")] == [
        "error   camps",
        "error   camps",
    ]
    camps = {"camps": {"reds": "republican", "blues": "republican"}}  # May 1937: both Republican
    code, lines = check(barcelona_with(tmp_path, **sides, **camps))
    assert code == 0, lines


def shipped_scenarios() -> list[Path]:
    return sorted(Path("service/rules").glob("*/scenarios/*.json")) + sorted(
        Path("service/rules").glob("*/data/scenarios/*.json")
    )


def test_every_shipped_scenario_of_every_system_is_found() -> None:
    from service.rules.registry import build_registry

    registry = build_registry()
    found = {(json.loads(p.read_text())["system"], p.stem) for p in shipped_scenarios()}
    expected = {(name, s.id) for name in registry.names() for s in registry.get(name).scenarios()}
    assert found == expected


@pytest.mark.parametrize("path", shipped_scenarios(), ids=lambda p: p.stem)
def test_arbiter_scenarios_check_passes_on_every_shipped_scenario(path: Path) -> None:
    """Every scenario Arbiter ships passes ``arbiter scenarios check`` as is (no --system)."""
    code, lines = check(path)
    assert code == 0 and lines[-1].startswith("0 error(s)"), [
        line for line in lines if line.startswith("error")
    ]


def test_a_file_that_names_no_known_system_is_one_clear_error(tmp_path: Path) -> None:
    """Which checks apply depends on the system: a file without one (the shipped Barcelona table
    before it said "system") is one error saying so, not the hex format's eleven."""
    document = json.loads(BARCELONA.read_text(encoding="utf-8"))
    document.pop("system")
    path = tmp_path / "table.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, lines = check(path)
    assert code == 1 and lines[0].startswith("error   system: the file names no rules system: give")
    assert "barcelona" in lines[0] and lines[-1].startswith("1 error(s)")
    result = CliRunner().invoke(main, ["scenarios", "check", "--system", "barcelona", str(path)])
    assert result.exit_code == 0, result.output
    document["system"] = "chess"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, lines = check(path)
    assert code == 1 and lines[0].startswith("error   system: unknown rules system 'chess' (one of")
