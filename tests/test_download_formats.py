"""The downloads' formats checked against independent writers and readers."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from confsite.render.download_formats import csv_line

# Every character the quoting rules turn on, among ordinary ones.
FIELD_TEXT = st.text(alphabet=st.sampled_from("ab é,\"\n\r\t;'\\$"), max_size=12)
FIELD = st.one_of(FIELD_TEXT, st.none(), st.integers(min_value=1900, max_value=2100))


def reference_line(values: list) -> str:
    """The line Python's csv module writes, with its CRLF ending (the one under which it
    quotes a carriage return) made the downloads' LF."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(values)
    assert buffer.getvalue().endswith("\r\n")
    return buffer.getvalue()[:-2] + "\n"


# Rows of two fields or more, as every row of papers.csv is (CSV_COLUMNS): csv.writer quotes a
# lone empty field so that its row is not a blank line.
@given(st.lists(FIELD, min_size=2, max_size=6))
def test_csv_lines_are_the_csv_modules_and_read_back(values: list) -> None:
    line = csv_line(values)
    assert line == reference_line(values)
    expected = ["" if value is None else str(value) for value in values]
    assert next(csv.reader(io.StringIO(line, newline=""))) == expected


def test_csv_quotes_only_what_needs_it() -> None:
    line = csv_line(["plain", 'say "hi"', "a, b", "one\n\ntwo", "cr\rhere", None, 2024])
    assert line == 'plain,"say ""hi""","a, b","one\n\ntwo","cr\rhere",,2024\n'
