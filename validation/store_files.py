"""store_files: every time-series file the database lists is in its store (<database>.points/<id>/).
A database moved or copied without its store, or a file deleted from it, fails here: its series
would otherwise show no points without a word."""

SUITE = "store_files"
QUERY = "SELECT source_id, file_name, present FROM store_files"


def expectations(E):
    return [E.ExpectColumnValuesToBeInSet(column="present", value_set=[True])]
