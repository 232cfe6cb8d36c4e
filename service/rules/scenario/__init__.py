"""The scenario and map format of hex games (docs/scenario-format.md): loading, validation that
reports every problem with its place, placeholder markers, and option handling."""

from service.rules.scenario.loader import check_file, load_scenario, load_scenario_file, validate
from service.rules.scenario.model import OptionSpec, Reinforcement, Scenario, UnitSpec
from service.rules.scenario.placeholders import Placeholder

__all__ = [
    "OptionSpec",
    "Placeholder",
    "Reinforcement",
    "Scenario",
    "UnitSpec",
    "check_file",
    "load_scenario",
    "load_scenario_file",
    "validate",
]
