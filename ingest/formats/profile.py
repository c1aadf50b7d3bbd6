"""Storage Manager "profile" dumps: IBM DS3000/4000/5000 ("PROFILE FOR STORAGE SUBSYSTEM") and
LSI/Engenio/NetApp E-Series SANtricity ("PROFILE FOR STORAGE ARRAY"), firmware 6.x to 7.8x.

See docs/formats/esxtop-jetstress-profile.md section 4. Sections are UPPERCASE names followed
by a run of dashes (indentation varies; the ESG transcription uses typeset dashes). Inside them:
key/value lines (the first ':' ends the key) and fixed-width tables whose columns overflow, so rows
are read with patterns anchored on the values' shapes (tray/slot pairs, capacities), not offsets.

The array's configuration (arrays/volume groups with their drives, volumes, drives, mappings) goes
to profile_* tables; every key/value line also lands in profile_values, as written. When the
profile states how many drives, groups and volumes it has and the section listing them is present,
the counts must agree or the file is rejected (a cut or garbled profile).
Capacities: Storage Manager's GB/TB are binary (2^30/2^40 bytes); the exact byte count is used
when the profile prints one.
"""
from __future__ import annotations

import re

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
]
_TRAY_SLOT_ROW = re.compile(r"^\s*(\d+)\s+(\d+)(?:\s+\[.*\])?\s*$")
_DRIVE_AT = re.compile(r"Drive at (?:Tray|Enclosure) (\d+), Slot (\d+)", re.I)
_BASIC_ROW = re.compile(rf"^\s*(\d+),\s*(\d+)\s+(\S+)\s+({_CAP})(?:\s+(.*?))?\s*$")
_VOL_ROW = re.compile(rf"^\s*(\S+)\s+(\S+)\s+({_CAP})\s+(\S+)\s+(\S+)")
_MAP_ROW = re.compile(r"^\s*(.+?)\s+(\d+)\s+([AB](?:,[AB])?|None)\s+(.+?)\s+(\S+)\s*$")
UNITS = {"KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}
FRENCH = re.compile(r"\b(janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre)\b", re.I)


SNIFF_RULE = "a storage-array profile start line ('PROFILE FOR STORAGE SUBSYSTEM/ARRAY: ...')"


def sniff(head: str, name: str) -> bool:
    return any(_START.match(l) for l in split_lines(head[:8192])[:30])


class _Num:
    def __init__(self, text: str):
        evidence_en = re.search(r"\d\.\d+\s?[KMGT]B", text)
        evidence_fr = re.search(r"\d\u00a0\d{3}|\d,\d{1,2}\s?[KMGT]B\b|\d,\d{4,}\s?[KMGT]B\b", text) or FRENCH.search(text)
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


def parse(data: bytes, name: str) -> ParseResult:
    text = decode_text(data).replace("\u2014", "-").replace("\u2013", "-")
    lines = split_lines(text)
    if lines and lines[-1].strip() and not text.endswith(("\n", "\r")):
        raise ParseError("the file ends in the middle of a line: it was cut (Storage Manager ends every line)", len(lines))
    start = next((i for i, l in enumerate(lines) if _START.match(l)), None)
    if start is None:
        raise ParseError("no 'PROFILE FOR STORAGE SUBSYSTEM/ARRAY:' line")
    m = _START.match(lines[start])
    kind = "ibm-ds" if m.group(1) == "SUBSYSTEM" else "santricity"
    end = next((i for i, l in enumerate(lines) if l.strip() == "Script execution complete." and i > start), len(lines))
    num = _Num(text)
    # split into sections: (name, first line index, [(line_no, text)])
    sections: list[tuple[str, int, list[tuple[int, str]]]] = []
    for i in range(start + 1, end):
        line = lines[i]
        sm = _SECTION.match(line)
        if sm:
            sections.append((sm.group(1).strip(), i + 1, []))
        elif sections:
            sections[-1][2].append((i + 1, line))
        elif line.strip():
            raise ParseError(f"text before the first section: {line.strip()[:50]!r}", i + 1)
    if not sections:
        raise ParseError("no sections (SUMMARY------, ...) after the PROFILE FOR line: the file is cut")
    top = [s for s in sections if not s[0].startswith(("SUMMARY", "CUMULATIVE")) or s[2] is sections[0][2]]
    by_name: dict[str, list] = {}
    for s in top:
        by_name.setdefault(s[0].split(" (")[0], []).append(s)

    values = []
    for sec, _, body in sections:
        block = None
        for ln, line in body:
            if not line.strip():
                continue
            if any(g.match(line) for g in _GROUP_HEAD) or _DRIVE_AT.match(line.strip()) or re.match(r"^\s*Controller in ", line):
                block = line.strip()
            kv = _KV.match(line)
            if kv and not _TRAY_SLOT_ROW.match(line):
                values.append({"section": sec, "block": block, "indent": len(kv.group(1)), "key": kv.group(2).strip(),
                               "value_text": kv.group(3), "line_no": ln})

    summary: dict[str, tuple[str, int]] = {}
    for v in values:  # first occurrence wins ("Pending configuration" repeats "Firmware version: None")
        if v["section"] == "SUMMARY" and v["block"] is None:
            summary.setdefault(v["key"], (v["value_text"], v["line_no"]))

    def stated(*keys):
        for k in keys:
            if k in summary:
                return _int(summary[k][0])
        return None

    # -- arrays / volume groups
    groups, group_drives = [], []
    for sec in by_name.get("ARRAYS", []) + by_name.get("VOLUME GROUPS", []):
        cur = None
        in_drives = False
        for ln, line in sec[2]:
            head = next((g.match(line) for g in _GROUP_HEAD if g.match(line)), None)
            kv = _KV.match(line)
            if head or (kv and kv.group(2).strip() == "Name" and len(kv.group(1)) <= 3):
                cur = {"group_name": head.group(1) if head else kv.group(3), "raid_level": head.group(2) if head else None,
                       "status": None, "drive_type": None, "capacity_text": None, "current_owner": None,
                       "drive_count": 0, "line_no": ln}
                groups.append(cur)
                in_drives = False
                continue
            if cur is None:
                continue
            if line.strip().startswith("Associated drives"):
                in_drives = True
                continue
            if line.strip().startswith("Associated volumes") or line.strip().startswith("Associated logical"):
                in_drives = False
                continue
            if in_drives:
                pos = _DRIVE_AT.search(line) or _TRAY_SLOT_ROW.match(line)
                if pos:
                    group_drives.append({"group_name": cur["group_name"], "tray": int(pos.group(1)),
                                         "slot": int(pos.group(2)), "line_no": ln})
                    cur["drive_count"] += 1
                continue
            if kv:
                k, v = kv.group(2).strip(), kv.group(3)
                if k == "RAID level":
                    cur["raid_level"] = v
                elif k in ("Status", "Array status"):
                    cur["status"] = v
                elif k in ("Drive type", "Media type"):
                    cur["drive_type"] = cur["drive_type"] or v
                elif k == "Capacity":
                    cur["capacity_text"] = v
                elif k == "Current owner":
                    cur["current_owner"] = v

    # -- volumes: DETAILS blocks first, summary-table rows for volumes without details
    volumes: dict[str, dict] = {}
    for sec in by_name.get("STANDARD LOGICAL DRIVES", []) + by_name.get("STANDARD VOLUMES", []):
        cur = None
        in_table = False
        for ln, line in sec[2]:
            s = line.strip()
            if s.startswith("NAME") and "CAPACITY" in s:
                in_table = True
                continue
            if in_table:
                row = _VOL_ROW.match(line)
                if row and not s.startswith("DETAILS"):
                    n = row.group(1)
                    volumes.setdefault(n, {"volume_name": n, "status": row.group(2), "capacity_text": row.group(3),
                                           "raid_level": row.group(4), "group_name": row.group(5), "line_no": ln,
                                           "from_details": False})
                    continue
                in_table = False
            kv = _KV.match(line)
            if not kv:
                continue
            k, v = kv.group(2).strip(), kv.group(3)
            if k in ("Logical Drive name", "LOGICAL DRIVE NAME", "Volume name"):
                prior = volumes.get(v, {})
                cur = {"volume_name": v, "status": prior.get("status"), "capacity_text": prior.get("capacity_text"),
                       "raid_level": prior.get("raid_level"), "group_name": prior.get("group_name"), "line_no": ln,
                       "from_details": True}
                volumes[v] = cur
            elif cur is not None:
                field = {"Logical Drive status": "status", "Volume status": "status", "Status": "status",
                         "Capacity": "capacity_text", "RAID level": "raid_level", "Associated array": "group_name",
                         "Associated volume group": "group_name", "Segment size": "segment_size",
                         "Preferred owner": "preferred_owner", "Current owner": "current_owner",
                         "Read cache": "read_cache", "Write cache": "write_cache"}.get(k)
                if field:
                    cur[field] = v
    vol_rows = []
    for v in volumes.values():
        seg = re.match(r"\s*([\d,]+)\s*KB", v.get("segment_size") or "")
        vol_rows.append({
            "volume_name": v["volume_name"], "status": v.get("status"), "capacity_text": v.get("capacity_text"),
            "capacity_bytes": num.capacity(v.get("capacity_text"), v["line_no"]), "raid_level": v.get("raid_level"),
            "group_name": v.get("group_name"), "segment_size_kb": int(seg.group(1).replace(",", "")) if seg else None,
            "preferred_owner": v.get("preferred_owner"), "current_owner": v.get("current_owner"),
            "read_cache": v.get("read_cache"), "write_cache": v.get("write_cache"), "line_no": v["line_no"]})

    # -- drives: BASIC table rows, enriched from the per-drive DETAILS blocks
    drives: dict[tuple[int, int], dict] = {}
    for sec in by_name.get("DRIVES", []):
        in_basic = False
        cur = None
        for ln, line in sec[2]:
            s = line.strip()
            if s.startswith("BASIC"):
                in_basic = True
                continue
            if in_basic:
                row = _BASIC_ROW.match(line)
                if row:
                    drives[(int(row.group(1)), int(row.group(2)))] = {
                        "tray": int(row.group(1)), "slot": int(row.group(2)), "status": row.group(3),
                        "capacity_text": row.group(4), "basic_rest": row.group(5), "line_no": ln}
                    continue
                if s.startswith("TRAY") or not s:
                    continue
                in_basic = False
            at = _DRIVE_AT.fullmatch(s)
            if at:
                cur = drives.setdefault((int(at.group(1)), int(at.group(2))),
                                        {"tray": int(at.group(1)), "slot": int(at.group(2)), "line_no": ln})
                continue
            kv = _KV.match(line)
            if cur is not None and kv:
                k, v = kv.group(2).strip(), kv.group(3)
                field = {"Mode": "mode", "Raw capacity": "raw_capacity", "Drive type": "media_type",
                         "Media type": "media_type", "Interface type": "interface_type", "Speed": "speed",
                         "Current data rate": "data_rate", "Product ID": "product_id", "Firmware version": "firmware",
                         "Associated array": "group_name", "Associated volume group": "group_name",
                         "Status": "status"}.get(k)
                if field and (field not in cur or field in ("mode", "group_name", "speed", "product_id", "firmware")):
                    cur[field] = v
    drive_rows = []
    for d in drives.values():
        speed = re.match(r"\s*([\d,]+)\s*RPM", d.get("speed") or "")
        cap = d.get("capacity_text") or d.get("raw_capacity")
        drive_rows.append({
            "tray": d["tray"], "slot": d["slot"], "status": d.get("status"), "mode": d.get("mode"),
            "capacity_text": cap, "capacity_bytes": num.capacity(cap, d["line_no"]), "media_type": d.get("media_type"),
            "interface_type": d.get("interface_type"), "speed_rpm": int(speed.group(1).replace(",", "")) if speed else None,
            "data_rate": d.get("data_rate"), "product_id": d.get("product_id"), "firmware": d.get("firmware"),
            "group_name": d.get("group_name") if d.get("group_name") not in (None, "None") else None,
            "hot_spare": bool(d.get("mode") and "hot spare" in d["mode"].lower()), "line_no": d["line_no"]})

    # -- mappings
    mappings = []
    for sec in by_name.get("MAPPINGS", []):
        in_table = False
        for ln, line in sec[2]:
            s = line.strip()
            if re.match(r"^(Logical Drive Name|VOLUME NAME|LOGICAL DRIVE NAME)\b", s, re.I) and "LUN" in s.upper():
                in_table = True
                continue
            if in_table:
                row = _MAP_ROW.match(line)
                if row:
                    mappings.append({"volume_name": row.group(1).strip(), "lun": int(row.group(2)),
                                     "controller": row.group(3), "accessible_by": row.group(4).strip(),
                                     "status": row.group(5), "line_no": ln})
                elif s:
                    in_table = False

    # -- the array itself
    ctrl = [v for v in values if v["section"] == "CONTROLLERS"]
    first = lambda key: next((v["value_text"] for v in ctrl if v["key"] == key), None)  # noqa: E731
    cache = next((v["value_text"] for v in ctrl if v["key"] in ("Total present", "Data cache", "Cache/processor size (MB)")), None)
    array = {
        "array_name": m.group(2), "profile_kind": kind, "captured_at_text": m.group(3),
        "firmware": (summary.get("Firmware version") or (first("Firmware version"), 0))[0],
        "nvsram": (summary.get("NVSRAM version") or (first("NVSRAM version"), 0))[0],
        "controllers": stated("Number of controllers"), "controller_model": first("Model name") or first("Board ID"),
        "cache_mb_per_controller": _int(cache), "cache_block_kb": stated("Cache block size (in KB)"),
        "start_flush_pct": stated("Start cache flushing at (in percentage)"),
        "stop_flush_pct": stated("Stop cache flushing at (in percentage)"),
        "stated_drives": stated("Number of drives"), "stated_groups": stated("Number of arrays", "Number of volume groups"),
        "stated_volumes": stated("Number of standard logical drives", "Number of standard volumes"),
        "stated_hot_spares": stated("Total hot spare drives"), "french_locale": num.french,
    }
    checks = [("drives", array["stated_drives"], "DRIVES", len(drive_rows)),
              ("arrays/volume groups", array["stated_groups"], ("ARRAYS", "VOLUME GROUPS"), len(groups)),
              ("standard volumes", array["stated_volumes"], ("STANDARD LOGICAL DRIVES", "STANDARD VOLUMES"), len(vol_rows))]
    for what, claimed, secs, found in checks:
        secs = (secs,) if isinstance(secs, str) else secs
        if claimed is not None and any(s in by_name for s in secs) and claimed != found:
            raise ParseError(f"the profile's SUMMARY states {claimed} {what} but its {secs[0]} section lists "
                             f"{found}: the file is cut or garbled")
    res = ParseResult(tool_version=array["firmware"])
    res.tables["profile_arrays"] = [array]
    res.tables["profile_groups"] = groups
    res.tables["profile_group_drives"] = group_drives
    res.tables["profile_volumes"] = vol_rows
    res.tables["profile_drives"] = drive_rows
    res.tables["profile_mappings"] = mappings
    res.tables["profile_values"] = values
    return res
