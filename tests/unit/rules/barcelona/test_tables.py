"""The sheet's tables encoded exactly as printed (WEAPONS LIST, AFVs, MOVEMENT, Troop Type,
Attribute Costs, GENERATING A COLUMN, MORALE), and the placeholders labelled as such."""

from __future__ import annotations

from service.rules.barcelona import SYSTEM, data


def test_weapons_list_ranges_and_dice_as_printed():
    """WEAPONS LIST: Weapon / Range / No of Dice."""
    printed = {
        "Rifle": (12, 1),
        "LMG": (24, 3),
        "HMG": (40, 6),
        "Bombs": (2, 1),
        "Vehicle HMG": (24, 3),
        "Lt Mortar": (18, 1),
        "Flamethrower": (4, 4),
        "Field Gun": (80, 1),
        "Mtn/Inf/AFV Gun": (40, 1),
        "AT Gun": (24, 1),
        "Mortar": (36, 1),
        "Aircraft": (6, 6),
    }
    weapons = data.load("weapons")["weapons"]
    assert {k: (v["range"], v["dice"]) for k, v in weapons.items()} == printed
    assert weapons["Mtn/Inf/AFV Gun"]["range_vs_afv"] == 24
    assert weapons["Field Gun"]["template_ko"] == [5, 6] and weapons["Mortar"]["template_ko"] == [
        5,
        6,
    ]
    assert weapons["Mtn/Inf/AFV Gun"]["template_ko"] == [6]
    assert {k for k, v in weapons.items() if v.get("saving_throw") == 4} == {
        "HMG",
        "Field Gun",
        "Mtn/Inf/AFV Gun",
        "Mortar",
    }
    assert {k for k, v in weapons.items() if v.get("starred")} == {"Mtn/Inf/AFV Gun", "AT Gun"}


def test_afvs_table_as_printed():
    """AFVs: Type / Class / Armament / Road Move / CC Move / Bad Going."""
    vehicles = data.load("afvs")["vehicles"]
    rows = {k: (v["class"], v["road"], v["cc"], v["bad"]) for k, v in vehicles.items()}
    assert rows["T26"] == ("A", "3D6", "2D6", "1D6")
    assert rows["BT5"] == ("A", "4D6", "3D6", "1D6")
    assert rows["Pz. I"] == ("B", "3D6", "2D6", "1D6-1")
    assert rows["Pz. I (20mm)"] == ("A", "3D6", "2D6", "1D6-1")
    assert (
        rows["Renault FT (Tank Gun)"] == rows["Renault FT (VMG)"] == ("B", "1D6+2", "1D6", "1D6-2")
    )
    assert rows["CV3/33"] == ("B", "3D6", "2D6", "1D6-1")
    assert rows["BA6 A/C"] == rows["FAI A/C"] == rows["Other A/Cs"] == ("B", "4D6", "2D6", "0")
    assert rows["Los Tiznaos"] == ("B", "3D6", "1D6", "0")
    assert {k for k, v in vehicles.items() if v.get("one_weapon")} == {"T26", "BT5", "BA6 A/C"}
    assert vehicles["Other A/Cs"]["placeholder"] and vehicles["Los Tiznaos"]["placeholder"]


def test_movement_dice_as_printed():
    """MOVEMENT Good/Bad."""
    classes = data.load("movement")["classes"]
    assert {k: (v.get("good"), v.get("bad")) for k, v in classes.items() if "good" in v} == {
        "Infantry": ("2d6", "1d6"),
        "Cavalry": ("4d6", "1d6"),
        "Mortar/HMG": ("1d6", "d6-2"),
        "Field Guns": ("1d6", "d6-3"),
        "Mountain/AT guns": ("1d6", "d6-2"),
        "Wheeled Vehicles": ("2d6", "0"),
        "Aircraft": ("6d6", "6d6"),
    }
    assert (classes["Wheeled Vehicles"]["road"], classes["Wheeled Vehicles"]["road_towing"]) == (
        "4d6",
        "3d6",
    )
    assert (
        data.dice_expr("d6-2") == (1, -2)
        and data.dice_expr("1D6+2") == (1, 2)
        and data.dice_expr("0") == (0, 0)
    )


def test_troop_types_and_attribute_costs_as_printed():
    """Troop Type: Attributes / Morale / Tactical / Points; Attribute Costs."""
    types = data.load("troops")["troop_types"]
    assert len(types) == 12
    assert types["Foreign Legion"]["attributes"] == ["stubborn", "skilled"]
    assert types["Moors"]["grades"] == [{"morale": 4, "tactical": 3, "points": 11}]
    assert types["Carlists"]["printed"] == {"morale": "3/4", "tactical": "2", "points": "5/6"}
    assert [g["morale"] for g in types["Carlists"]["grades"]] == [3, 4]
    costs = data.load("troops")["attribute_costs"]
    assert costs["per_figure"] == {
        "no_bombs": -1,
        "stubborn": 2,
        "cavalry": 2,
        "ferocious": 3,
        "skilled": 1,
    }
    assert (costs["lmg"], costs["tank"], costs["armoured_car"], costs["aeroplane"]) == (
        12,
        100,
        60,
        150,
    )
    assert costs["teams"]["HMG"]["per_crew"] == 8 and costs["teams"]["Field Gun"]["per_crew"] == 6
    assert costs["teams"]["Mortar"]["placeholder"]


def test_generating_a_column_table_as_printed():
    """GENERATING A COLUMN: DICE / COMPANIES / MG / SPECIALS, and the Specials list."""
    column = data.load("column")
    rows = {k: (v["companies"], v["mg"], v["specials"]) for k, v in column["rows"].items()}
    assert rows == {
        "1": ("2 OF 12", [5, 6], []),
        "2": ("3 OF 12", [4, 5, 6], []),
        "3": ("2 OF 14", [4, 5, 6], [6]),
        "4": ("3 OF 14", [3, 4, 5, 6], [6]),
        "5": ("2 OF 16", [3, 4, 5, 6], [5, 6]),
        "6": ("3 OF 16", [2, 3, 4, 5, 6], [5, 6]),
    }
    assert column["specials"]["6"] == "Field Gun (& tow)" and column["procedure"]["placeholder"]


def test_every_house_value_is_a_labelled_placeholder():
    house = {k: v for k, v in data.load("house").items() if k != "note"}
    assert house and all(v["placeholder"] and v["note"] for v in house.values())
    assert SYSTEM.drawing.tables()["placeholders"] == data.load("house")
