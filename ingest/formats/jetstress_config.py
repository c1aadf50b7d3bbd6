"""JetstressConfig.xml, the test definition Jetstress writes beside its reports.

See docs/formats/esxtop-jetstress-profile.md section 3.3. Holds parameters, not results: every
element and attribute lands in jetstress_config (path, value) and the latency thresholds in
jetstress_thresholds (milliseconds); no samples.
"""

from __future__ import annotations

import re
from collections import Counter

from ..model import ParseError, ParseResult, decode_text, parse_float

FORMAT = "jetstress-config-xml"
VERSION = "1"
THRESHOLDS = {
    "AverageDatabaseReadLatency": "avg_db_read_latency_ms",
    "MaximumDatabaseReadLatency": "max_db_read_latency_ms",
    "AverageLogWriteLatency": "avg_log_write_latency_ms",
    "MaximumLogWriteLatency": "max_log_write_latency_ms",
}


MAX_DEPTH = 100  # the walk below recurses per level


def _depth(root) -> int:
    """How deep the element tree nests, counted without recursion."""
    deepest, todo = 0, [(root, 1)]
    while todo:
        el, d = todo.pop()
        deepest = max(deepest, d)
        if d <= MAX_DEPTH:
            todo.extend((kid, d + 1) for kid in el)
    return deepest


SNIFF_RULE = "'<configuration' with a <JetstressVersionGenerated> element"


def sniff(head: str, name: str) -> bool:
    return "<configuration" in head[:4096] and "<JetstressVersionGenerated>" in head[:8192]


def parse(data: bytes, name: str) -> ParseResult:
    text = decode_text(data)
    if "<!ENTITY" in text or "<!DOCTYPE" in text:
        raise ParseError("DOCTYPE/ENTITY declarations are not part of a Jetstress config; refusing to expand them")
    import xml.etree.ElementTree as ET  # here: importing every format module stays cheap

    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)  # its encoding="utf-16" named the bytes decoded above
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise ParseError(f"not well-formed XML ({e.msg if hasattr(e, 'msg') else e})", e.position[0]) from None
    if (deep := _depth(root)) > MAX_DEPTH:
        raise ParseError(f"the XML nests {deep} levels deep; a Jetstress config nests about five: it is damaged")
    if root.tag != "configuration" or root.find("JetstressVersionGenerated") is None:
        raise ParseError("root element must be <configuration> with <JetstressVersionGenerated>", 1)
    rows = []

    def walk(el, path):
        for k, v in el.attrib.items():
            if "}" not in k:
                rows.append({"path": f"{path}/@{k}", "value_text": v})
        kids = list(el)
        if not kids:
            rows.append({"path": path, "value_text": (el.text or "")})
        total, seen = Counter(k.tag for k in kids), Counter[str]()  # counted once: linear in the kids
        for kid in kids:
            seen[kid.tag] += 1
            idx = f"[{seen[kid.tag]}]" if total[kid.tag] > 1 else ""
            walk(kid, f"{path}/{kid.tag}{idx}")

    walk(root, "/configuration")
    thresholds = []
    for t in root.iter("Thresholds"):
        row = {"name": t.get("Name"), "test_run_types": t.get("TestRunTypes")}
        for tag, col in THRESHOLDS.items():
            el = t.find(tag)
            row[col] = parse_float(el.text or "", tag, None) if el is not None else None
        thresholds.append(row)
    res = ParseResult(tool_version=(root.findtext("JetstressVersionGenerated") or "").strip() or None)
    duration = root.findtext("TestDesignInfo/Duration") or ""
    if duration and not re.fullmatch(r"P(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?", duration.strip()):
        raise ParseError(f"Duration {duration!r} is not an ISO-8601 duration")
    res.tables["jetstress_config"] = rows
    res.tables["jetstress_thresholds"] = thresholds
    return res
