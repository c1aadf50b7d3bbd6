"""profile_drives: every drive has a position and a capacity; no drive is listed twice per profile."""

SUITE = "profile_drives"
QUERY = "SELECT *, source_id || ':' || tray || ',' || slot AS position FROM profile_drives"


def expectations(E):
    return [
        E.ExpectColumnValuesToNotBeNull(column="tray"),
        E.ExpectColumnValuesToNotBeNull(column="slot"),
        E.ExpectColumnValuesToBeUnique(column="position"),
        E.ExpectColumnValuesToBeBetween(column="capacity_bytes", min_value=1),
        E.ExpectColumnValuesToBeBetween(column="speed_rpm", min_value=1000, max_value=20000),
    ]
