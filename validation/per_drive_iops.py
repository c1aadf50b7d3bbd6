"""per_drive_iops: drive counts positive and sourced; per-drive values consistent with their parts."""

SUITE = "per_drive_iops"
QUERY = """SELECT *, CASE WHEN iops_per_drive IS NOT NULL THEN iops_per_drive * drives / iops END AS recompute_ratio
           FROM per_drive_iops"""


def expectations(E):
    return [
        E.ExpectColumnValuesToBeBetween(column="drives", min_value=1),
        E.ExpectColumnValuesToBeInSet(column="drives_source", value_set=["profile", "declared", "stated"]),
        E.ExpectColumnValuesToNotBeNull(
            column="drives_source", row_condition="drives == drives", condition_parser="pandas"
        ),
        E.ExpectColumnValuesToBeBetween(column="iops_per_drive", min_value=0),
        E.ExpectColumnValuesToBeBetween(column="recompute_ratio", min_value=0.999999, max_value=1.000001),
    ]
