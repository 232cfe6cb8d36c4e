import pytest

from service.rules.kernel.coords import (
    CoordinateError,
    get_coordinate_system,
    letters_to_number,
    number_to_letters,
)


def test_letter_number_rows_are_letters_columns_numbers():
    ln = get_coordinate_system("letter-number")
    assert ln.parse("J7") == (7, 10)
    assert ln.parse("A1") == (1, 1)
    assert ln.parse("AD25") == (25, 30)
    assert ln.format(25, 30) == "AD25"
    assert ln.format(7, 10) == "J7"


def test_letter_rows_run_a_to_z_then_aa_to_az_then_ba():
    assert [letters_to_number(x) for x in ("A", "Z", "AA", "AZ", "BA")] == [1, 26, 27, 52, 53]
    assert [number_to_letters(n) for n in (1, 26, 27, 52, 53)] == ["A", "Z", "AA", "AZ", "BA"]


def test_four_digit_is_column_then_row():
    fd = get_coordinate_system("four-digit")
    assert fd.parse("1404") == (14, 4)
    assert fd.format(3, 7) == "0307"
    assert fd.format(14, 4) == "1404"


def test_column_row():
    cr = get_coordinate_system("column,row")
    assert cr.parse("6,17") == (6, 17)
    assert cr.format(6, 17) == "6,17"


@pytest.mark.parametrize(
    ("system", "label"),
    [
        ("letter-number", "7J"),
        ("letter-number", "J"),
        ("letter-number", ""),
        ("four-digit", "140"),
        ("four-digit", "14A4"),
        ("column,row", "6;17"),
    ],
)
def test_bad_labels_raise(system, label):
    with pytest.raises(CoordinateError):
        get_coordinate_system(system).parse(label)
    assert not get_coordinate_system(system).is_label(label)


def test_four_digit_format_out_of_range_raises():
    with pytest.raises(CoordinateError):
        get_coordinate_system("four-digit").format(100, 1)


def test_unknown_system():
    with pytest.raises(CoordinateError, match="unknown coordinate system"):
        get_coordinate_system("hexagonal")
