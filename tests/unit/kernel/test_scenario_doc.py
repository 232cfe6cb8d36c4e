"""The example in docs/scenario-format.md is valid and reports what the page says."""

import json
import re
from pathlib import Path

from service.rules.scenario import check_file, load_scenario

DOC = Path(__file__).resolve().parents[3] / "docs" / "scenario-format.md"


def example() -> dict:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    return json.loads(max(blocks, key=len))


def test_the_documented_example_loads(tmp_path):
    scenario = load_scenario(example())
    assert scenario.map.terrain("C4") == "hill"
    assert scenario.map.has_hexside("C4", "C3", "road")
    path = tmp_path / "ford.json"
    path.write_text(json.dumps(example()))
    assert check_file(path) == [
        {
            "level": "warning",
            "place": "map.terrain",
            "message": "placeholder: the published map's terrain is not in the rules text",
        },
        {
            "level": "warning",
            "place": "units[2].values.attack",
            "message": "placeholder: counter not printed",
        },
    ]
