"""source_files: every file is traceable and its record is complete."""

SUITE = "source_files"
QUERY = "SELECT * FROM source_files"


def expectations(E):
    return [
        E.ExpectColumnValuesToBeUnique(column="source_id"),
        E.ExpectColumnValuesToNotBeNull(column="path"),
        E.ExpectColumnValueLengthsToEqual(column="sha256", value=64),
        E.ExpectColumnValuesToMatchRegex(column="sha256", regex="^[0-9a-f]{64}$"),
        E.ExpectColumnValuesToBeInSet(column="status", value_set=["ok", "rejected"]),
        E.ExpectColumnValuesToBeBetween(column="size_bytes", min_value=0),
        # an ok file names its format and parser; a rejected one says why
        E.ExpectColumnValuesToNotBeNull(column="parser", row_condition='status == "ok"', condition_parser="pandas"),
        E.ExpectColumnValuesToNotBeNull(
            column="error", row_condition='status == "rejected"', condition_parser="pandas"
        ),
    ]
