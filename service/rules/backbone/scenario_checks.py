"""The scenario file check (18): the shared format's problems and placeholders, plus Backbone's
own -- every unit needs its nation and formation in ``data.units`` (and a unit that starts reduced
its ``full_steps``, from its steps to 4, rule 5), set-up hexes must be land, and the scenario facts
the rules read must be there."""

from __future__ import annotations

from service.rules.hexgame import HexScenarioChecks
from service.rules.scenario import Scenario, load_scenario_file

#: the facts of ``data`` the rules read
DATA_KEYS = (
    "scenario_number",
    "air_points",
    "strait_drm",
    "victory_road",
    "amphibious",
    "spanish_zone_max_row",
)


class BackboneScenarioChecks(HexScenarioChecks):
    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        report = super().check_scenario_file(path)
        if any(item["level"] == "error" for item in report):
            return report
        scen = load_scenario_file(path)
        return report + _unit_problems(scen) + _data_problems(scen)


def _unit_problems(scen: Scenario) -> list[dict[str, str]]:
    extra = scen.data.get("units", {})
    found = []
    for index, spec in enumerate(scen.units.values()):
        if spec.id not in extra or not {"nation", "formation"} <= set(extra[spec.id]):
            message = f"data.units.{spec.id} needs nation and formation"
            found.append({"level": "error", "place": f"units[{index}]", "message": message})
        full = extra.get(spec.id, {}).get("full_steps", spec.steps)
        if isinstance(full, bool) or not isinstance(full, int) or not spec.steps <= full <= 4:
            message = f"full_steps must be a whole number from its steps ({spec.steps}) to 4 (5)"
            place = f"data.units.{spec.id}.full_steps"
            found.append({"level": "error", "place": place, "message": message})
        if spec.hex and scen.map.terrain(spec.hex) == "sea":
            message = f"{spec.hex} is a sea hex"
            found.append({"level": "error", "place": f"units[{index}].hex", "message": message})
    return found


def _data_problems(scen: Scenario) -> list[dict[str, str]]:
    return [
        {"level": "error", "place": f"data.{key}", "message": "missing"}
        for key in DATA_KEYS
        if key not in scen.data
    ]
