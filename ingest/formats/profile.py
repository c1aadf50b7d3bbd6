"""Storage Manager "profile" dumps: IBM DS3000/4000/5000 ("PROFILE FOR STORAGE SUBSYSTEM"),
LSI/Engenio/NetApp E-Series SANtricity ("PROFILE FOR STORAGE ARRAY"), firmware 6.x to 7.8x, and Dell
PowerVault MD3000i/MD3200i (Modular Disk Storage Manager, an Engenio/LSI rebrand: "disk groups",
"virtual disks", "physical disks", "RAID controller modules" for arrays/volume groups, volumes, drives,
controllers; firmware 07.35 and 07.84).

See docs/formats/esxtop-jetstress-profile.md section 4. Sections are UPPERCASE names followed
by a run of dashes (indentation varies; the ESG transcription uses typeset dashes). Inside them:
key/value lines (the first ':' ends the key) and fixed-width tables whose columns overflow, so rows
are read with patterns anchored on the values' shapes (tray/slot pairs, capacities), not offsets.

The array's configuration (arrays/volume groups with their drives, volumes, drives, mappings) goes
to profile_* tables; every key/value line also lands in profile_values, as written. When the
profile states how many drives, groups and volumes it has and the section listing them is present,
the counts must agree or the file is rejected (a cut or garbled profile). A profile from which no
group, volume or drive can be read is rejected too (a layout iolab does not know must not load empty).
Section headings may be indented (MD3000i: 3 and 9 spaces); a group's "Name:" line sits 3 columns
right of its section heading, whatever that heading's indent.
MDSM 10.8x / SANtricity 7.8x put the counts in a first section "STORAGE ARRAY" instead of "SUMMARY"
("Physical Disks: 8", "Disk groups: 1", "Standard Virtual Disks (Used/Allowed): 14 / 512").
Capacities: Storage Manager's GB/TB are binary (2^30/2^40 bytes); the exact byte count is used
when the profile prints one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import ParseError, ParseResult, decode_text, split_lines

FORMAT = "storage-array-profile"
VERSION = "1"

_START = re.compile(r"^\s*PROFILE FOR STORAGE (SUBSYSTEM|ARRAY):\s*(.*?)\s*\((.*)\)\s*$")
_SECTION = re.compile(r"^\s*([A-Z][A-Z0-9 ,/()&.'-]*?[A-Z)]|MAPPINGS \(.*\))\s*-{5,}\s*$")
_KV = re.compile(r"^(\s*)([^:]+?)\??:\s*(.*?)\s*$")
_CAP = r"\d[\d.,\u00a0 ]*\s?[KMGT]B"
_GROUP_HEAD = [
    re.compile(r"^\s*ARRAY (\S+) \(RAID (\S+)\)\s*$"),  # IBM DS
    re.compile(r"^\s*Volume Group (\S+) \(RAID (\S+)\)\s*$"),  # SANtricity 6.x
    re.compile(r"^\s*VOLUME GROUP (\S+) \(RAID (\S+)\)\s*$"),  # SANtricity 6.x, older layout: tray/slot table
]
_TRAY_SLOT_ROW = re.compile(r"^\s*(\d+)\s+(\d+)(?:\s+\[.*\])?\s*$")
_DRIVE_AT = re.compile(r"(?:Drive|Physical Disk) at (?:Tray|Enclosure) (\d+), Slot (\d+)", re.IGNORECASE)
_BASIC_ROW = re.compile(rf"^\s*(\d+),\s*(\d+)\s+(\S+)\s+({_CAP})(?:\s+(.*?))?\s*$")
_VOL_ROW = re.compile(rf"^\s*(\S+)\s+(\S+)\s+({_CAP})\s+(\S+)\s+(\S+)")
_MAP_ROW = re.compile(r"^\s*(.+?)\s+(\d+)\s+([AB01](?:,[AB01])?|None)\s+(.+?)\s+(\S+)\s*$")  # MD: slots 0/1
# MDSM 10.8x adds "Virtual Disk Capacity" (empty for the access virtual disk) and "Type" columns
_MAP_ROW_TYPED = re.compile(
    rf"^\s*(.+?)\s+(\d+)\s+([AB01](?:,[AB01])?|None)\s+(.+?)\s+(\S+)\s+(?:({_CAP})\s+)?(\S+)\s*$"
)
UNITS = {"KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}
FRENCH = re.compile(
    r"\b(janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre)\b",
    re.IGNORECASE,
)


SNIFF_RULE = "a storage-array profile start line ('PROFILE FOR STORAGE SUBSYSTEM/ARRAY: ...')"


def sniff(head: str, name: str) -> bool:
    return any(_START.match(l) for l in split_lines(head[:8192])[:30])


class _Num:
    def __init__(self, text: str):
        evidence_en = re.search(r"\d\.\d+\s?[KMGT]B", text)
        evidence_fr = re.search(r"\d\u00a0\d{3}|\d,\d{1,2}\s?[KMGT]B\b|\d,\d{4,}\s?[KMGT]B\b", text) or FRENCH.search(
            text
        )
        self.french = bool(evidence_fr) and not evidence_en

    def number(self, t: str, what: str, line: int) -> float:
        t = t.replace("\u00a0", " ").strip()
        if self.french:
            t = t.replace(" ", "").replace(",", ".")
        else:
            if not re.fullmatch(r"\d{1,3}(,\d{3})*(\.\d+)?|\d+(\.\d+)?", t):
                raise ParseError(f"{what}: {t!r} is not a number", line)
            t = t.replace(",", "")
        try:
            return float(t)
        except ValueError:
            raise ParseError(f"{what}: {t!r} is not a number", line) from None

    def capacity(self, text: str | None, line: int) -> int | None:
        if not text or text.strip() in ("None", "Not available", "Not Available", "Unknown"):
            return None
        exact = re.search(r"\(([\d\u00a0 ,.]+) Bytes\)", text)
        if exact:
            return int(re.sub(r"[^\d]", "", exact.group(1)))
        m = re.fullmatch(r"\s*([\d.,\u00a0 ]+?)\s?([KMGT]B)\s*", text)
        if not m:
            raise ParseError(f"capacity {text!r} is not '<number> GB'", line)
        return round(self.number(m.group(1), "capacity", line) * UNITS[m.group(2)])


def _int(text: str | None) -> int | None:
    m = re.match(r"\s*(\d[\d,]*)", text or "")
    return int(m.group(1).replace(",", "")) if m else None


# Section names per dialect: IBM DS, SANtricity, Dell PowerVault MD (MDSM).
GROUP_SECTIONS = ("ARRAYS", "VOLUME GROUPS", "DISK GROUPS")
VOLUME_SECTIONS = ("STANDARD LOGICAL DRIVES", "STANDARD VOLUMES", "STANDARD VIRTUAL DISKS")
DRIVE_SECTIONS = ("DRIVES", "PHYSICAL DISKS")
CONTROLLER_SECTIONS = ("CONTROLLERS", "RAID CONTROLLER MODULES")
SUMMARY_SECTIONS = ("SUMMARY", "STORAGE ARRAY")
MD_SECTIONS = ("DISK GROUPS", "STANDARD VIRTUAL DISKS", "PHYSICAL DISKS", "RAID CONTROLLER MODULES")


@dataclass
class _Section:
    name: str
    indent: int  # columns before the heading
    line_no: int
    body: list[tuple[int, str]] = field(default_factory=list)


def parse(data: bytes, name: str) -> ParseResult:
    text = decode_text(data).replace("\u2014", "-").replace("\u2013", "-")
    lines = split_lines(text)
    if lines and lines[-1].strip() and not text.endswith(("\n", "\r")):
        raise ParseError(
            "the file ends in the middle of a line: it was cut (Storage Manager ends every line)", len(lines)
        )
    start = next((i for i, l in enumerate(lines) if _START.match(l)), None)
    if start is None:
        raise ParseError("no 'PROFILE FOR STORAGE SUBSYSTEM/ARRAY:' line")
    sections = _sections(lines, start)
    by_name: dict[str, list[_Section]] = {}
    for s in sections:  # SUMMARY/CUMULATIVE headings inside a section are sub-headings
        if not s.name.startswith(("SUMMARY", "CUMULATIVE")) or s is sections[0]:
            by_name.setdefault(s.name.split(" (")[0], []).append(s)
    num = _Num(text)
    values = _values(sections)
    groups, group_drives = _groups(_pick(by_name, GROUP_SECTIONS))
    volumes = _volumes(_pick(by_name, VOLUME_SECTIONS), num)
    drives = _drives(_pick(by_name, DRIVE_SECTIONS), num)
    head = _START.match(lines[start])
    kind = "ibm-ds" if head.group(1) == "SUBSYSTEM" else "dell-md" if _pick(by_name, MD_SECTIONS) else "santricity"
    array = _array(head, kind, values, num)
    _check(array, by_name, groups, volumes, drives)
    res = ParseResult(tool_version=array["firmware"])
    res.tables["profile_arrays"] = [array]
    res.tables["profile_groups"] = groups
    res.tables["profile_group_drives"] = group_drives
    res.tables["profile_volumes"] = volumes
    res.tables["profile_drives"] = drives
    res.tables["profile_mappings"] = _mappings(by_name.get("MAPPINGS", []))
    res.tables["profile_values"] = values
    return res


def _pick(by_name: dict[str, list[_Section]], names: tuple[str, ...]) -> list[_Section]:
    return [s for n in names for s in by_name.get(n, [])]


def _sections(lines: list[str], start: int) -> list[_Section]:
    """Split the text after the PROFILE FOR line at its headings (NAME + dashes, any indent)."""
    end = next((i for i, l in enumerate(lines) if l.strip() == "Script execution complete." and i > start), len(lines))
    sections: list[_Section] = []
    for i in range(start + 1, end):
        line = lines[i]
        sm = _SECTION.match(line)
        if sm:
            sections.append(_Section(sm.group(1).strip(), len(line) - len(line.lstrip()), i + 1))
        elif sections:
            sections[-1].body.append((i + 1, line))
        elif line.strip():
            raise ParseError(f"text before the first section: {line.strip()[:50]!r}", i + 1)
    if not sections:
        raise ParseError("no sections (SUMMARY------, ...) after the PROFILE FOR line: the file is cut")
    return sections


def _values(sections: list[_Section]) -> list[dict]:
    """Every Key: value line, with its section and block (controller, drive, array heading)."""
    values = []
    for sec in sections:
        block = None
        for ln, line in sec.body:
            if not line.strip():
                continue
            if (
                any(g.match(line) for g in _GROUP_HEAD)
                or _DRIVE_AT.match(line.strip())
                or re.match(r"^\s*(Controller|RAID Controller Module) in ", line)
            ):
                block = line.strip()
            kv = _KV.match(line)
            if kv and not _TRAY_SLOT_ROW.match(line):
                values.append(
                    {
                        "section": sec.name,
                        "block": block,
                        "indent": len(kv.group(1)),
                        "key": kv.group(2).strip(),
                        "value_text": kv.group(3),
                        "line_no": ln,
                    }
                )
    return values


_GROUP_FIELDS = {
    "RAID level": "raid_level",
    "Status": "status",
    "Array status": "status",
    "Volume group status": "status",
    "Drive type": "drive_type",
    "Media type": "drive_type",
    "Physical Disk type": "drive_type",
    "Physical Disk interface type": "drive_type",
    "Capacity": "capacity_text",
    "Current owner": "current_owner",
}


_GROUP_CAPACITY = re.compile(rf"^\s*Capacity\s{{2,}}({_CAP})\s*$")


def _groups(secs: list[_Section]) -> tuple[list[dict], list[dict]]:
    """Arrays / volume groups / disk groups with the drives listed under "Associated drives/physical disks"."""
    groups, members = [], []
    for sec in secs:
        cur, in_drives = None, False
        for ln, line in sec.body:
            head = next((g.match(line) for g in _GROUP_HEAD if g.match(line)), None)
            kv = _KV.match(line)
            if head or (kv and kv.group(2).strip() == "Name" and len(kv.group(1)) <= sec.indent + 3):
                cur = {
                    "group_name": head.group(1) if head else kv.group(3),
                    "raid_level": head.group(2) if head else None,
                    "status": None,
                    "drive_type": None,
                    "capacity_text": None,
                    "current_owner": None,
                    "drive_count": 0,
                    "line_no": ln,
                }
                groups.append(cur)
                in_drives = False
                continue
            s = line.strip()
            if cur is None:
                continue
            if s.startswith(("Associated drives", "Associated physical disks")):
                in_drives = True
            elif s.startswith(("Associated volumes", "Associated logical", "Associated virtual disks")):
                in_drives = False
            elif in_drives:
                pos = _TRAY_SLOT_ROW.match(line) or _DRIVE_AT.search(line)  # a row's note names its mirror
                if pos:
                    members.append(
                        {
                            "group_name": cur["group_name"],
                            "tray": int(pos.group(1)),
                            "slot": int(pos.group(2)),
                            "line_no": ln,
                        }
                    )
                    cur["drive_count"] += 1
            elif _GROUP_CAPACITY.match(line):  # MD3000i: "Capacity    4.772 TB" without a colon
                cur["capacity_text"] = _GROUP_CAPACITY.match(line).group(1)
            elif kv:
                field_ = _GROUP_FIELDS.get(kv.group(2).strip())
                if field_ and not (field_ == "drive_type" and cur["drive_type"]):
                    cur[field_] = kv.group(3)
    return groups, members


_VOLUME_FIELDS = {
    "Logical Drive status": "status",
    "Volume status": "status",
    "Virtual Disk status": "status",
    "Status": "status",
    "Capacity": "capacity_text",
    "RAID level": "raid_level",
    "Associated array": "group_name",
    "Associated volume group": "group_name",
    "Associated disk group": "group_name",
    "Segment size": "segment_size",
    "Preferred owner": "preferred_owner",
    "Current owner": "current_owner",
    "Read cache": "read_cache",
    "Write cache": "write_cache",
}
_VOLUME_NAME_KEYS = ("Logical Drive name", "LOGICAL DRIVE NAME", "Volume name", "Virtual Disk name")


def _volumes(secs: list[_Section], num: _Num) -> list[dict]:
    """Volumes: DETAILS blocks first, summary-table rows for volumes without details."""
    volumes: dict[str, dict] = {}
    for sec in secs:
        cur, in_table = None, False
        for ln, line in sec.body:
            s = line.strip()
            if s.startswith("NAME") and "CAPACITY" in s:
                in_table = True
                continue
            if in_table:
                row = _VOL_ROW.match(line)
                if row and not s.startswith("DETAILS"):
                    volumes.setdefault(
                        row.group(1),
                        {
                            "volume_name": row.group(1),
                            "status": row.group(2),
                            "capacity_text": row.group(3),
                            "raid_level": row.group(4),
                            "group_name": row.group(5),
                            "line_no": ln,
                        },
                    )
                    continue
                in_table = False
            kv = _KV.match(line)
            if not kv:
                continue
            k, v = kv.group(2).strip(), kv.group(3)
            if k in _VOLUME_NAME_KEYS:
                prior = volumes.get(v, {})
                cur = {
                    "volume_name": v,
                    "line_no": ln,
                    **{f: prior.get(f) for f in ("status", "capacity_text", "raid_level", "group_name")},
                }
                volumes[v] = cur
            elif cur is not None and k in _VOLUME_FIELDS:
                cur[_VOLUME_FIELDS[k]] = v
    return [_volume_row(v, num) for v in volumes.values()]


def _volume_row(v: dict, num: _Num) -> dict:
    seg = re.match(r"\s*([\d,]+)\s*KB", v.get("segment_size") or "")
    return {
        "volume_name": v["volume_name"],
        "status": v.get("status"),
        "capacity_text": v.get("capacity_text"),
        "capacity_bytes": num.capacity(v.get("capacity_text"), v["line_no"]),
        "raid_level": v.get("raid_level"),
        "group_name": v.get("group_name"),
        "segment_size_kb": int(seg.group(1).replace(",", "")) if seg else None,
        "preferred_owner": v.get("preferred_owner"),
        "current_owner": v.get("current_owner"),
        "read_cache": v.get("read_cache"),
        "write_cache": v.get("write_cache"),
        "line_no": v["line_no"],
    }


_DRIVE_FIELDS = {
    "Mode": "mode",
    "Raw capacity": "raw_capacity",
    "Drive type": "media_type",
    "Media type": "media_type",
    "Physical Disk type": "media_type",
    "Interface type": "interface_type",
    "Speed": "speed",
    "Current data rate": "data_rate",
    "Product ID": "product_id",
    "Firmware version": "firmware",
    "Physical Disk Firmware Version": "firmware",
    "Associated array": "group_name",
    "Associated volume group": "group_name",
    "Associated disk group": "group_name",
    "Status": "status",
}
_DRIVE_OVERRIDE = ("mode", "group_name", "speed", "product_id", "firmware")  # DETAILS beat the BASIC table


def _drives(secs: list[_Section], num: _Num) -> list[dict]:
    """Drives: BASIC table rows, enriched from the per-drive DETAILS blocks."""
    drives: dict[tuple[int, int], dict] = {}
    for sec in secs:
        in_basic, cur = False, None
        for ln, line in sec.body:
            s = line.strip()
            if s.startswith("BASIC"):
                in_basic = True
                continue
            if in_basic:
                row = _BASIC_ROW.match(line)
                if row:
                    drives[(int(row.group(1)), int(row.group(2)))] = {
                        "tray": int(row.group(1)),
                        "slot": int(row.group(2)),
                        "status": row.group(3),
                        "capacity_text": row.group(4),
                        "basic_rest": row.group(5),
                        "line_no": ln,
                    }
                    continue
                if s.startswith(("TRAY", "ENCLOSURE")) or not s:
                    continue
                in_basic = False
            at = _DRIVE_AT.fullmatch(s)
            if at:
                cur = drives.setdefault(
                    (int(at.group(1)), int(at.group(2))),
                    {"tray": int(at.group(1)), "slot": int(at.group(2)), "line_no": ln},
                )
                continue
            kv = _KV.match(line)
            field_ = _DRIVE_FIELDS.get(kv.group(2).strip()) if kv and cur is not None else None
            if field_ and (field_ not in cur or field_ in _DRIVE_OVERRIDE):
                cur[field_] = kv.group(3)
    return [_drive_row(d, num) for d in drives.values()]


def _drive_row(d: dict, num: _Num) -> dict:
    speed = re.match(r"\s*([\d,]+)\s*RPM", d.get("speed") or "")
    cap = d.get("capacity_text") or d.get("raw_capacity")
    return {
        "tray": d["tray"],
        "slot": d["slot"],
        "status": d.get("status"),
        "mode": d.get("mode"),
        "capacity_text": cap,
        "capacity_bytes": num.capacity(cap, d["line_no"]),
        "media_type": d.get("media_type"),
        "interface_type": d.get("interface_type"),
        "speed_rpm": int(speed.group(1).replace(",", "")) if speed else None,
        "data_rate": d.get("data_rate"),
        "product_id": d.get("product_id"),
        "firmware": d.get("firmware"),
        "group_name": d.get("group_name") if d.get("group_name") not in (None, "None") else None,
        "hot_spare": bool(d.get("mode") and "hot spare" in d["mode"].lower()),
        "line_no": d["line_no"],
    }


_MAP_HEAD = re.compile(r"^(Logical Drive Name|VOLUME NAME|LOGICAL DRIVE NAME|Virtual Disk Name)\b", re.IGNORECASE)


def _mappings(secs: list[_Section]) -> list[dict]:
    mappings = []
    for sec in secs:
        in_table, pattern = False, _MAP_ROW
        for ln, line in sec.body:
            s = line.strip()
            if _MAP_HEAD.match(s) and "LUN" in s.upper():
                in_table, pattern = True, _MAP_ROW_TYPED if s.upper().endswith("TYPE") else _MAP_ROW
                continue
            if in_table:
                row = pattern.match(line)
                if row:
                    mappings.append(
                        {
                            "volume_name": row.group(1).strip(),
                            "lun": int(row.group(2)),
                            "controller": row.group(3),
                            "accessible_by": row.group(4).strip(),
                            "status": row.group(5),
                            "line_no": ln,
                        }
                    )
                elif s:
                    in_table = False
    return mappings


def _array(m: re.Match, kind: str, values: list[dict], num: _Num) -> dict:
    """The array itself and the counts its SUMMARY (or STORAGE ARRAY) section states."""
    summary: dict[str, str] = {}
    for v in values:  # first occurrence wins ("Pending configuration" repeats "Firmware version: None")
        if v["section"] in SUMMARY_SECTIONS and v["block"] is None:
            summary.setdefault(v["key"], v["value_text"])
    ctrl = [v for v in values if v["section"] in CONTROLLER_SECTIONS]

    def stated(*keys):
        return next((_int(summary[k]) for k in keys if k in summary), None)

    def first(*keys):
        return next((v["value_text"] for v in ctrl if v["key"] in keys), None)

    return {
        "array_name": m.group(2),
        "profile_kind": kind,
        "captured_at_text": m.group(3),
        "firmware": summary.get("Firmware version")
        or summary.get("Current Package Version")
        or first("Firmware version"),
        "nvsram": summary.get("NVSRAM version") or summary.get("Current NVSRAM Version") or first("NVSRAM version"),
        "controllers": stated("Number of controllers", "Number of RAID controller modules", "RAID Controller Modules"),
        "controller_model": first("Model name") or first("Board ID"),
        "cache_mb_per_controller": _int(first("Total present", "Data cache", "Cache/processor size (MB)")),
        "cache_block_kb": stated("Cache block size (in KB)", "Cache block size"),
        "start_flush_pct": stated("Start cache flushing at (in percentage)", "Start cache flushing at"),
        "stop_flush_pct": stated("Stop cache flushing at (in percentage)", "Stop cache flushing at"),
        "stated_drives": stated("Number of drives", "Number of physical disks", "Physical Disks"),
        "stated_groups": stated("Number of arrays", "Number of volume groups", "Number of disk groups", "Disk groups"),
        "stated_volumes": stated(
            "Number of standard logical drives",
            "Number of standard volumes",
            "Number of standard virtual disks",
            "Standard Virtual Disks (Used/Allowed)",
        ),
        "stated_hot_spares": stated("Total hot spare drives", "Total hot spare physical disks"),
        "french_locale": num.french,
    }


def _check(array: dict, by_name: dict, groups: list, volumes: list, drives: list) -> None:
    """Counts equal what the profile states; a profile of which nothing could be read is not 'ok'."""
    checks = [
        ("drives", array["stated_drives"], DRIVE_SECTIONS, len(drives)),
        ("arrays/volume groups", array["stated_groups"], GROUP_SECTIONS, len(groups)),
        ("standard volumes", array["stated_volumes"], VOLUME_SECTIONS, len(volumes)),
    ]
    listed = {"drives": drives, "arrays/volume groups": groups, "standard volumes": volumes}
    for what, claimed, secs, found in checks:
        present = [s for s in secs if s in by_name]
        if claimed is not None and present and claimed != found:
            last = listed[what][-1] if listed[what] else None
            where = f" (the last one read starts on line {last['line_no']})" if last and last.get("line_no") else ""
            raise ParseError(
                f"the profile's SUMMARY states {claimed} {what} but its {present[0]} section lists "
                f"{found}{where}: the file is cut or garbled",
                last.get("line_no") if last else None,
            )
    if not (groups or volumes or drives):
        names = ", ".join(sorted(by_name)) or "none"
        raise ParseError(
            "no array/volume group, volume or drive could be read from this profile (sections: "
            f"{names}): its layout is not one iolab knows, and an empty profile is not a result"
        )
