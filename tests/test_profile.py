"""Storage array profiles: counts equal the profile's own SUMMARY; spot-checked volumes; bad input."""

from __future__ import annotations

import pytest

from iolab.formats import profile
from iolab.model import ParseError
from tests.conftest import corpus

MD3000I = "profile/rtjust__Dell-MD-Powervault-MDTechView__md3000i_storageArrayProfile.txt"
MD3200I = "profile/rtjust__Dell-MD-Powervault-MDTechView__md3200i_storageArrayProfile.txt"

# file -> (name, kind, firmware, drives, groups, volumes, hot spares, mappings)
EXPECTED = {
    "profile/jmrunkle__storageArrayProfile.txt": ("DAMC001-1-7", "santricity", "07.75.36.30", 36, 18, 18, 0, 19),
    "profile/jmrunkle__storageArrayProfile3.txt": ("DAMC001-1-18", "santricity", "07.75.36.30", 24, 12, 12, 0, 13),
    "profile/jmrunkle__storageArrayProfile5.txt": ("DAMC001-1-17", "santricity", "07.75.36.30", 24, 12, 12, 0, 13),
    "profile/jmrunkle__storageArrayProfile9.txt": ("DAMC101-6", "santricity", "06.10.36.30", 56, 28, 28, 0, 29),
    "profile/storcs__ibm_DS4500.txt": ("san01", "ibm-ds", "12.60.02.00", 118, 15, 73, 11, 71),
    # Dell PowerVault MD: disk groups / virtual disks / physical disks; MD3000i headings indented 3 and 9 columns
    MD3000I: ("GoldenbergSAN", "dell-md", "07.35.38.60", 14, 2, 2, 1, 4),
    MD3200I: ("WGASAN01", "dell-md", "07.84.44.60", 8, 1, 14, 1, 22),
}


def load(rel):
    return profile.parse(corpus(rel).read_bytes(), corpus(rel).name).tables


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_counts_equal_the_profile_summary(rel):
    name, kind, fw, drives, groups, volumes, spares, maps = EXPECTED[rel]
    t = load(rel)
    a = t["profile_arrays"][0]
    assert (a["array_name"], a["profile_kind"], a["firmware"]) == (name, kind, fw)
    assert (a["stated_drives"], a["stated_groups"], a["stated_volumes"], a["stated_hot_spares"]) == (
        drives,
        groups,
        volumes,
        spares,
    )
    assert len(t["profile_drives"]) == drives
    assert len(t["profile_groups"]) == groups
    assert len(t["profile_volumes"]) == volumes
    assert sum(d["hot_spare"] for d in t["profile_drives"]) == spares
    assert len(t["profile_mappings"]) == maps
    # every group's drives are drives of the profile, and no drive sits in two groups
    members = [(g["tray"], g["slot"]) for g in t["profile_group_drives"]]
    assert len(members) == len(set(members))
    assert set(members) <= {(d["tray"], d["slot"]) for d in t["profile_drives"]}
    assert not set(members) & {(d["tray"], d["slot"]) for d in t["profile_drives"] if d["hot_spare"]}


def test_ds4500_spot_checks():
    t = load("profile/storcs__ibm_DS4500.txt")
    v = {x["volume_name"]: x for x in t["profile_volumes"]}
    adt = v["adt_test"]
    assert (adt["raid_level"], adt["group_name"], adt["capacity_bytes"], adt["segment_size_kb"]) == (
        "5",
        "4",
        51_380_224,
        128,
    )
    assert v["data_01dg_server_01_05-06_room1"]["capacity_text"].startswith("953.624 GB")  # overflowing row
    g = {x["group_name"]: x for x in t["profile_groups"]}
    assert (g["1"]["raid_level"], g["1"]["drive_count"]) == ("5", 10)
    d = {(x["tray"], x["slot"]): x for x in t["profile_drives"]}
    assert d[(0, 1)]["product_id"] == "ST3146854FC   F"  # runs of spaces kept
    assert d[(0, 1)]["speed_rpm"] == 15015 and d[(0, 2)]["hot_spare"]
    assert t["profile_arrays"][0]["controller_model"] == "5884"


def test_santricity_775_raid1_pairs_and_volume():
    t = load("profile/jmrunkle__storageArrayProfile.txt")
    g = {x["group_name"]: x for x in t["profile_groups"]}
    assert (g["1"]["raid_level"], g["1"]["drive_count"], g["2"]["status"]) == ("1", 2, "Degraded")
    v = {x["volume_name"]: x for x in t["profile_volumes"]}
    assert (v["0"]["capacity_bytes"], v["0"]["group_name"], v["0"]["segment_size_kb"]) == (
        round(1862.514 * 2**30),
        "1",
        1936,
    )
    assert v["1"]["status"] == "Degraded"
    assert {d["speed_rpm"] for d in t["profile_drives"]} == {7200}


def test_esg_excerpt_partial_profile_loads():
    t = load("seed/esg-ds5020_profile-excerpt.txt")
    a = t["profile_arrays"][0]
    assert (a["array_name"], a["firmware"], a["stated_drives"], a["stated_groups"]) == (
        "ESG_DS5020",
        "07.60.08.00",
        112,
        24,
    )
    assert a["cache_mb_per_controller"] == 1709
    assert t["profile_drives"] == [] and t["profile_groups"] == []  # sections not in the excerpt: missing, not errors
    v = {x["volume_name"]: x for x in t["profile_volumes"]}
    assert len(v) == 24
    assert (v["JS_01"]["raid_level"], v["JS_01"]["capacity_text"], v["JS_01"]["group_name"]) == (
        "10",
        "1.089 TB",
        "JS_01",
    )
    assert v["OS_01"]["group_name"] == "0S_1"  # as printed (zero, not O)
    assert (v["BK_01"]["segment_size_kb"], v["BK_01"]["write_cache"]) == (512, "Enabled")
    m = {x["volume_name"]: x for x in t["profile_mappings"] if x["volume_name"].startswith("JS_01")}
    assert (m["JS_01"]["lun"], m["JS_01"]["accessible_by"]) == (2, "Host Group VMware_01")


FRENCH_HANDMADE = """PROFILE FOR STORAGE SUBSYSTEM: labo (9 avril 2008 10:00:00)\r
\r
SUMMARY------------------------------\r
   Number of arrays: 1\r
   Number of standard logical drives: 1\r
STANDARD LOGICAL DRIVES------------------------------\r
   NAME  STATUS   CAPACITY      RAID LEVEL  ARRAY\r
   LUN1  Optimal  1\u00a0207,172 GB  5  1\r
   DETAILS\r
   LOGICAL DRIVE NAME: LUN1\r
      Capacity: 279,397 GB\r
ARRAYS------------------------------\r
   ARRAY 1 (RAID 5)\r
      Associated drives (in piece order):\r
         ENCLOSURE  SLOT\r
         85         1\r
         85         2\r
         85         3\r
""".encode("utf-8")


def test_french_locale_handmade_fixture():
    """Hand-written (not a real file), in the shape of the French DS3400 profile the formats page describes."""
    t = profile.parse(FRENCH_HANDMADE, "x.txt").tables
    assert t["profile_arrays"][0]["french_locale"] is True
    assert t["profile_volumes"][0]["capacity_bytes"] == round(279.397 * 2**30)
    assert t["profile_groups"][0]["drive_count"] == 3


def test_smcli_wrapper_is_stripped():
    t = load("profile/storcs__ibm_DS4500.txt")
    assert all("Script execution" not in v["key"] for v in t["profile_values"])


@pytest.mark.parametrize("cut_at", [0.3, 0.6, 0.9])
def test_profile_cut_mid_line_is_rejected(cut_at):
    data = corpus("profile/jmrunkle__storageArrayProfile9.txt").read_bytes()
    data = data[: int(len(data) * cut_at)].rstrip(b"\n") + b"x"
    with pytest.raises(ParseError, match="cut"):
        profile.parse(data, "x.txt")


def test_profile_cut_inside_drives_is_rejected_by_the_counts():
    data = corpus("profile/jmrunkle__storageArrayProfile9.txt").read_bytes()
    lines = data.split(b"\n")
    start = next(i for i, l in enumerate(lines) if l.startswith(b"DRIVES---"))
    with pytest.raises(ParseError, match="states 56 drives but its DRIVES section lists"):
        profile.parse(b"\n".join(lines[: start + 30]) + b"\n", "x.txt")


def test_no_sections_rejected():
    with pytest.raises(ParseError, match="no sections"):
        profile.parse(b"PROFILE FOR STORAGE ARRAY: x (today)\n", "x.txt")


def test_md3000i_disk_groups_virtual_disks_physical_disks():
    """Checked by hand against the raw profile (GoldenbergSAN, MDSM 03.35, firmware 07.35.38.60)."""
    t = load(MD3000I)
    g = {x["group_name"]: x for x in t["profile_groups"]}
    assert (g["XenGroup"]["raid_level"], g["XenGroup"]["drive_count"], g["XenGroup"]["capacity_text"]) == (
        "5",
        8,
        "4.772 TB",
    )
    assert (g["XenGroup2"]["raid_level"], g["XenGroup2"]["drive_count"]) == ("10", 4)  # both halves of the mirror
    assert g["XenGroup2"]["drive_type"] == "Serial ATA (SATA)"
    members = sorted(m["slot"] for m in t["profile_group_drives"] if m["group_name"] == "XenGroup2")
    assert members == [10, 11, 12, 13]
    v = {x["volume_name"]: x for x in t["profile_volumes"]}
    assert (v["EXCHDATA"]["capacity_bytes"], v["EXCHDATA"]["group_name"], v["EXCHDATA"]["raid_level"]) == (
        round(1.364 * 2**40),
        "XenGroup2",
        "10",
    )
    assert (v["Xenstorage"]["capacity_text"], v["Xenstorage"]["segment_size_kb"]) == ("4.091 TB", 128)
    assert v["Xenstorage"]["write_cache"] == "Enabled (currently suspended)"
    d = {(x["tray"], x["slot"]): x for x in t["profile_drives"]}
    assert d[(0, 9)]["hot_spare"] and d[(0, 9)]["mode"] == "Hot spare standby"
    assert d[(0, 14)]["mode"] == "Unassigned" and d[(0, 14)]["group_name"] is None
    assert (d[(0, 1)]["capacity_bytes"], d[(0, 1)]["speed_rpm"], d[(0, 1)]["product_id"]) == (
        round(698.638 * 2**30),
        7200,
        "ST3750640NS",
    )
    m = {(x["volume_name"], x["accessible_by"]): x for x in t["profile_mappings"]}
    assert (m[("EXCHDATA", "Host xenhost1")]["lun"], m[("Xenstorage", "Host xenhost1")]["lun"]) == (0, 1)
    a = t["profile_arrays"][0]
    assert (a["controllers"], a["nvsram"], a["cache_block_kb"]) == (1, "N1532-735890-905", 4)


def test_md3200i_counts_from_the_storage_array_section():
    """MDSM 10.84: no SUMMARY section; the counts are in STORAGE ARRAY ("Physical Disks: 8")."""
    t = load(MD3200I)
    (g,) = t["profile_groups"]
    assert (g["group_name"], g["raid_level"], g["drive_count"], g["capacity_text"]) == (
        "WGASANGroup01",
        "6",
        7,
        "9,312.541 GB",
    )
    assert sorted(m["slot"] for m in t["profile_group_drives"]) == list(range(7))
    v = {x["volume_name"]: x for x in t["profile_volumes"]}
    assert (v["NexGenSQLDB"]["capacity_bytes"], v["NexGenSQLDB"]["raid_level"]) == (round(1228.799 * 2**30), "6")
    assert v["ExchangeDatabase"]["current_owner"] == "RAID Controller Module in slot 1"
    assert {x["group_name"] for x in v.values()} == {"WGASANGroup01"}
    d = {(x["tray"], x["slot"]): x for x in t["profile_drives"]}
    assert d[(0, 7)]["hot_spare"] and not d[(0, 6)]["hot_spare"]
    assert (d[(0, 6)]["product_id"], d[(0, 6)]["firmware"], d[(0, 6)]["capacity_bytes"]) == (
        "MK2001TRKB",
        "DCA8",
        round(1863.016 * 2**30),
    )
    m = {(x["volume_name"], x["accessible_by"]): x for x in t["profile_mappings"]}
    assert (
        m[("ImageServerICSIImages", "Host wacwganims08-07")]["lun"],
        m[("ImageServerICSIImages", "Host wacwganims08-07")]["controller"],
    ) == (3, "1")
    assert m[("Access Virtual Disk", "Default Group")]["controller"] == "0,1"
    a = t["profile_arrays"][0]
    assert (a["controllers"], a["nvsram"], a["controller_model"]) == (
        2,
        "N26X0-784890-004",
        "2650",
    )  # Model name (Board ID 2660)


def test_md_profile_whose_sections_are_unknown_is_rejected():
    """The old failure: a profile of an unknown dialect loaded "ok" with 0 groups, 0 volumes, 0 drives."""
    text = corpus(MD3000I).read_text()
    for known in ("DISK GROUPS---", "STANDARD VIRTUAL DISKS---", "   DRIVES---"):
        text = text.replace(known, known.replace("S", "Z", 1))
    with pytest.raises(ParseError, match="no array/volume group, volume or drive could be read"):
        profile.parse(text.encode(), "x.txt")


def test_md_count_mismatch_is_rejected():
    text = (
        corpus(MD3200I)
        .read_bytes()
        .replace(b"Physical Disks:                              8 ", b"Physical Disks:                              9 ")
    )
    with pytest.raises(ParseError, match="states 9 drives but its DRIVES section lists 8"):
        profile.parse(text, "x.txt")


@pytest.mark.parametrize("indent", [3, 9])
def test_indented_section_headings_keep_every_count(indent):
    """SANtricity 7.x saves indent headings after the first few sections, their bodies with them (as the
    MD3000i file does); before this fix the groups' Name: lines were not seen: '0 arrays/volume groups'."""
    lines = corpus("profile/jmrunkle__storageArrayProfile.txt").read_text().split("\n")
    first = next(i for i, l in enumerate(lines) if l.startswith("VOLUME GROUPS---"))
    lines = [" " * indent + l if i >= first and l.strip() else l for i, l in enumerate(lines)]
    t = profile.parse("\n".join(lines).encode(), "x.txt").tables
    assert (len(t["profile_groups"]), len(t["profile_volumes"]), len(t["profile_drives"])) == (18, 18, 36)
    assert {g["drive_count"] for g in t["profile_groups"]} == {2}


def test_indented_body_lines_are_not_headings():
    lines = corpus(MD3000I).read_text().split("\n")
    sections = profile._sections(lines, 0)
    names = [s.name for s in sections]
    assert "DRIVE CHANNELS" in names and "ENCLOSURES" in names  # 3- and 9-column indents
    assert "BASIC:" not in names and "HOT SPARE COVERAGE:" not in names and "iSCSI Settings" not in names
    assert {s.indent for s in sections} == {0, 3, 9}
